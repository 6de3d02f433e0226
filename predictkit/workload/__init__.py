"""Workload modeling: synthetic user runtime estimates and whole synthetic workloads.

* :class:`TsafrirEstimates` — the modal estimate model of Tsafrir, Etsion and
  Feitelson (JSSPP 2005), with the random-shuffle or session-aware assignment.
* :class:`FModel`, :class:`PhiModel`, :class:`DoubledEstimates`,
  :class:`ShuffledEstimates` — the models it is compared with.
* :func:`make_workload` — a complete synthetic job table (Lublin & Feitelson
  2003 plus users, sessions and modal estimates); also
  ``predictkit.datasets.make_workload``.
"""

from ._competitors import DoubledEstimates, FModel, PhiModel, ShuffledEstimates
from ._synthetic import make_workload
from ._tsafrir import TsafrirEstimates

__all__ = ["TsafrirEstimates", "FModel", "PhiModel", "DoubledEstimates",
           "ShuffledEstimates", "make_workload"]

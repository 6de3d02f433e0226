"""Workload modeling: synthetic user runtime estimates and whole synthetic workloads.

* :class:`TsafrirEstimates` — the modal estimate model of Tsafrir, Etsion and
  Feitelson (JSSPP 2005), with the random-shuffle or session-aware assignment.
* :class:`FModel`, :class:`PhiModel`, :class:`DoubledEstimates`,
  :class:`ShuffledEstimates` — the models it is compared with.
* :class:`JointEstimates` — requests chosen from the runtime, the user and the
  session, on modal values, fitted to a log (beyond the papers).
* :class:`RuntimeDistribution` — runtimes per job-size class fitted to a log.
* :class:`SiteModel` — both fitted to one log, with its users' sessions
  (:class:`SessionParameters`), for :func:`make_workload`.
* :func:`runtime_locality` — how much a log's users repeat their runtimes and
  when they submit again.
* :func:`make_workload` — a complete synthetic job table (Lublin & Feitelson
  2003 arrivals and sizes, users, sessions, site runtimes, joint requests, a
  controlled load); also ``predictkit.datasets.make_workload``.
"""

from ._competitors import DoubledEstimates, FModel, PhiModel, ShuffledEstimates
from ._joint import JointEstimates
from ._locality import runtime_locality
from ._runtimes import RuntimeDistribution
from ._session_fit import SessionParameters
from ._site import SiteModel
from ._synthetic import make_workload
from ._tsafrir import TsafrirEstimates

__all__ = ["TsafrirEstimates", "FModel", "PhiModel", "DoubledEstimates",
           "ShuffledEstimates", "JointEstimates", "RuntimeDistribution", "SiteModel",
           "SessionParameters", "make_workload", "runtime_locality"]

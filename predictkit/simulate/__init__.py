"""Event-driven backfilling simulation: :func:`simulate` returns a :class:`Schedule`.

FCFS, EASY, conservative and no-guarantee backfilling with FCFS, SJF, WFP,
fairshare or user priorities, runtime estimates from requests, actual
runtimes, arrays or online runtime predictors (Leung et al. 2010; Tang et al.
2013 sections 5-6; Klusacek & Soysal 2019 sections 3-4; Tsafrir et al. 2005).
"""

from ._policies import POLICIES
from ._priorities import PRIORITIES
from ._schedule import Schedule
from ._simulate import simulate

__all__ = ["simulate", "Schedule", "POLICIES", "PRIORITIES"]

"""Runtime predictors as scikit-learn estimators, online and free of peeking.

Every predictor follows the online protocol of the project (``fit``,
``partial_fit``, ``predict``; ``target_known_at = "end"``): ``predict`` places
each job at its submit time and uses only the completed jobs that had ended
by then. See :mod:`predictkit.runtime._base` and ``docs/runtime.md``. A
simulation drives them through :class:`OnlinePredictor` (``start``,
``observe``, ``predict_for``), which a third-party predictor can implement.
"""

from ._history_features import HistoryFeatures
from ._learned import LearnedRuntime
from ._protocol import OnlinePredictor
from ._recent import RecentAverage, RecentUsageMax
from ._registry import PREDICTORS, make_predictor
from ._requested import RequestedTime
from ._walltime_adjuster import WalltimeAdjuster

__all__ = ["RequestedTime", "WalltimeAdjuster", "RecentUsageMax", "RecentAverage",
           "HistoryFeatures", "LearnedRuntime", "make_predictor", "PREDICTORS", "OnlinePredictor"]

"""Metrics of runtime predictions, queue-delay bounds, schedules and fairness.

Prediction metrics follow Tang et al. (2013) section 4, schedule metrics
Tang et al. eq. 4 and Leung et al. (2010) eq. 1, fairness Leung et al.
section IV, bound metrics Nurmi et al. (2008) section 3.
"""
from ._prediction import *  # noqa: F401,F403
from ._bounds import *  # noqa: F401,F403
from ._schedule import *  # noqa: F401,F403
from ._fairness import *  # noqa: F401,F403
from . import _bounds, _fairness, _prediction, _schedule  # noqa: E402
from .._deprecation import moved_names  # noqa: E402

__all__ = [*_prediction.__all__, *_bounds.__all__, *_schedule.__all__, *_fairness.__all__]


# Deprecated alias, kept for one release; resolved lazily so that metrics never
# imports the simulator the scorer runs.
__getattr__ = moved_names(__name__, {
    "make_schedule_scorer": "predictkit.model_selection.make_schedule_scorer"})

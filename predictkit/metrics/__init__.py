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

__all__ = [*_prediction.__all__, *_bounds.__all__, *_schedule.__all__, *_fairness.__all__]


def __getattr__(name):
    # Deprecated aliases, kept for one release; importing lazily keeps metrics
    # free of the simulator the scorer runs.
    if name == "make_schedule_scorer":
        import warnings

        from ..model_selection import make_schedule_scorer

        warnings.warn("predictkit.metrics.make_schedule_scorer moved to "
                      "predictkit.model_selection.make_schedule_scorer; the old name will be "
                      "removed in the next release", DeprecationWarning, stacklevel=2)
        return make_schedule_scorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

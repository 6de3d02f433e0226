"""Queue-delay bounds (QBETS) and virtual advance reservations (VARQ).

Nurmi, Wolski and Brevik, "Probabilistic advanced reservations for
batch-scheduled parallel machines" (PPoPP 2008), sections 2.3, 3 and 4.4-4.6.

The simulation experiment of section 4.4-4.5 is
:func:`predictkit.experiments.varq_experiment`.
"""

from ._binomial import min_history, order_statistic_index
from ._qbets import QBETS
from ._varq import VARQ, Reservation, joint_success_probability

__all__ = ["QBETS", "VARQ", "Reservation", "joint_success_probability", "min_history",
           "order_statistic_index"]


def __getattr__(name):
    # Deprecated alias, kept for one release.
    if name == "varq_experiment":
        import warnings

        from ..experiments import varq_experiment

        warnings.warn("predictkit.queue.varq_experiment moved to "
                      "predictkit.experiments.varq_experiment; the old name will be removed "
                      "in the next release", DeprecationWarning, stacklevel=2)
        return varq_experiment
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Queue-delay bounds (QBETS, WaitPredictor) and virtual advance reservations (VARQ).

Nurmi, Wolski and Brevik, "Probabilistic advanced reservations for
batch-scheduled parallel machines" (PPoPP 2008), sections 2.3, 3 and 4.4-4.6.

The simulation experiment of section 4.4-4.5 is
:func:`predictkit.experiments.varq_experiment`.
"""

from .._deprecation import moved_names
from ._binomial import min_history, order_statistic_index
from ._qbets import QBETS
from ._varq import VARQ, Reservation, joint_success_probability
from ._wait import WaitPredictor

__all__ = ["QBETS", "VARQ", "Reservation", "WaitPredictor", "joint_success_probability",
           "min_history", "order_statistic_index"]


# Deprecated alias, kept for one release.
__getattr__ = moved_names(__name__, {
    "varq_experiment": "predictkit.experiments.varq_experiment"})

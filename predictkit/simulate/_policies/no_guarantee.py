"""No-guarantee backfilling: start whatever fits now, reserve nothing (CPlant;
Leung et al. 2010 section I): the reservation-depth pass with depth 0.

With ``starvation_after`` the CPlant scheduler's FCFS starvation queue, whose
head gets a reservation, is added (:mod:`.starvation_queue`)."""

from . import reservation_depth, starvation_queue
from ._policy import Policy


class _NoGuarantee(Policy):
    takes_starvation_after = True
    takes_backfill_order = True

    def reads_estimates(self, backfill_order="priority", starvation_after=None,
                        reservation_depth=None):
        """Only to backfill shortest first, or for the starvation queue's reservation."""
        return backfill_order == "sjf" or starvation_after is not None

    def loop(self, reservation_depth, starvation_after=None):
        """The depth-0 pass, or the starvation-queue pass with ``starvation_after``."""
        if starvation_after is None:
            return self.run, 0
        return starvation_queue.run, 0


POLICY = _NoGuarantee(name="no_guarantee", rank=3, run=reservation_depth.run,
                      summary="backfill whatever fits, with no reservation at all "
                              "(starvation_after: plus CPlant's FCFS starvation queue)")

"""First come, first served: no backfilling (Leung et al. 2010 section I)."""

import numpy as np
from numba import njit

from .._engine import event_loop, ignore_completion, ignore_extension, start_job
from ._policy import Policy


@njit(cache=True, inline="always", _nrt=False)
def schedule(s, order, now, settings):
    """Start jobs in priority order until one does not fit.

    Keeps: no job starts while a job ahead of it waits.
    """
    c = s.counters[0]
    width = s.jobs.width
    for j in order:
        if width[j] > c.free:
            break
        start_job(s, j, now)
    return np.inf


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, schedule)


class _NoBackfilling(Policy):
    def reads_estimates(self, backfill_order="priority", starvation_after=None,
                        reservation_depth=None):
        """Never: jobs start in priority order as they fit."""
        return False


POLICY = _NoBackfilling(name="fcfs", rank=0, run=run,
                        summary="no backfilling: jobs start in priority order until one does not "
                                "fit")

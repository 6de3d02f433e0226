"""EASY (aggressive) backfilling: one reservation, for the first waiting job
(Lifka 1995; Tsafrir et al. 2005 section 1; Leung et al. 2010 section I).

With ``reservation_depth=k`` other than 1 the first ``k`` blocked jobs get
reservations (:mod:`.reservation_depth`).
"""

import numpy as np
from numba import njit

from .._engine import backfill_order, event_loop, ignore_completion, ignore_extension, start_job
from ._policy import Policy
from .reservation_depth import run as run_with_depth


@njit(cache=True, inline="always", _nrt=False)
def shadow_time(s, need, now):
    """EASY's reservation for a blocked job of width ``need`` (Tsafrir et al. 2005 section 1).

    Returns ``(shadow, extra)``: the expected end of the running job whose
    completion first frees ``need`` processors (``now`` if they are free),
    and the processors still spare at that instant once the job starts,
    counting every running job expected to end exactly then.
    """
    jobs = s.jobs
    running = s.running
    avail = s.counters[0].free
    k = 0
    shadow = now
    while avail < need:
        avail += jobs.width[running.jobs[k]]
        shadow = running.end_times[k]
        k += 1
    while k < running.length[0] and running.end_times[k] == shadow:
        avail += jobs.width[running.jobs[k]]
        k += 1
    return shadow, avail - need


@njit(cache=True, inline="always", _nrt=False)
def schedule(s, order, now, settings):
    """Start jobs in priority order until one does not fit; reserve for that one
    (its *shadow time*) and backfill others that do not delay it.

    Keeps: each backfilled job either ends by the shadow time by the
    estimate it was chosen with (``jobs.estimate``), or uses only processors
    the first blocked job leaves spare then (``extra``, which counts every
    started job whose ``estimate_at_start`` passes the shadow time). With
    ``selective`` estimates a job chosen by its prediction is planned at its
    request once started: ``extra`` may then fall below zero, after which
    only jobs that end by the shadow time are backfilled, and later passes
    compute a later shadow time from that request and may backfill into the
    processors the job frees early, so the first blocked job may start later
    than without ``selective`` even when the prediction was right (and a
    prediction that was too short delays it directly).
    """
    jobs = s.jobs
    c = s.counters[0]
    q = len(order)
    pos = 0
    while pos < q and jobs.width[order[pos]] <= c.free:
        start_job(s, order[pos], now)
        pos += 1
    # queue.narrowest is at most the narrowest waiting job: nothing can backfill below it
    if pos >= q - 1 or c.free < s.queue.narrowest[0]:
        return np.inf
    shadow, extra = shadow_time(s, jobs.width[order[pos]], now)
    for j in backfill_order(s, order[pos + 1:], settings.backfill_sjf):
        if c.free == 0:
            break
        extra = backfill(s, j, now, shadow, extra)
    return np.inf


@njit(cache=True, inline="always", _nrt=False)
def backfill(s, j, now, shadow, extra):
    """Start ``j`` if it fits now and does not delay the reservation at ``shadow``
    (it ends by then by its estimate, or uses at most the ``extra`` processors spare
    then); return the processors still spare at ``shadow``."""
    jobs = s.jobs
    w = jobs.width[j]
    if w <= s.counters[0].free and (now + jobs.estimate[j] <= shadow or w <= extra):
        start_job(s, j, now)
        if now + jobs.estimate_at_start[j] > shadow:
            extra -= w
    return extra


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, schedule)


class _Easy(Policy):
    takes_reservation_depth = True
    takes_backfill_order = True

    def reads_estimates(self, backfill_order="priority", starvation_after=None,
                        reservation_depth=None):
        """Always, but with depth 0 (no-guarantee backfilling) only to backfill shortest first."""
        return reservation_depth != 0 or backfill_order == "sjf"

    def loop(self, reservation_depth):
        """EASY's own pass for depth 1 (the default), the depth-k pass otherwise."""
        depth = 1 if reservation_depth is None else int(reservation_depth)
        if depth == 1:
            return self.run, 1
        return run_with_depth, depth


POLICY = _Easy(name="easy", rank=1, run=run,
               summary="a reservation for the first waiting job only; others backfill "
                       "if they do not delay it (reservation_depth=k: the first k)")

"""Reservations for the first ``k`` blocked jobs, recomputed at every pass
(Chiang et al. 2002; ``k=0`` is no-guarantee backfilling, ``k=1`` plans like
EASY). Reached through ``policy="easy", reservation_depth=k`` and
``policy="no_guarantee"``; not a policy name of its own.
"""

import numpy as np
from numba import njit

from .._engine import backfill_order, event_loop, ignore_completion, ignore_extension, start_job
from .._profile import (
    profile_add,
    profile_earliest,
    profile_fits,
    profile_fits_now,
    profile_reset,
    profile_running_min,
)


@njit(cache=True, inline="always", _nrt=False)
def schedule(s, order, now, settings):
    """Plan the running jobs into a fresh profile; in priority order start each
    of the first ``depth`` blocked jobs that fits or reserve its earliest slot;
    then backfill the rest wherever they fit.

    Keeps: no start delays the reservation of any of the first ``depth``
    blocked jobs (given current estimates). Nothing is planned when no waiting
    job fits the idle processors (the plan is rebuilt at every pass);
    backfill candidates are checked against the running minimum of the
    profile, rebuilt after each start.
    """
    jobs = s.jobs
    c = s.counters[0]
    # a job starts only if it fits now; queue.narrowest is at most every waiting width
    if len(order) == 0 or c.free < s.queue.narrowest[0]:
        return np.inf
    profile = s.profile
    profile_reset(profile, now, c.free, s.running, jobs.width)
    q = len(order)
    pos = 0
    reserved = 0
    while pos < q and reserved < settings.reservation_depth:
        j = order[pos]
        w = jobs.width[j]
        if w <= c.free and profile_fits(profile, now, w, jobs.estimate[j]):
            start_job(s, j, now)
            profile_add(profile, now, now + jobs.estimate_at_start[j], -w)
        else:
            t = profile_earliest(profile, w, jobs.estimate[j])
            profile_add(profile, t, t + jobs.estimate[j], -w)
            reserved += 1
        pos += 1
    if c.free < s.queue.narrowest[0]:
        return np.inf
    profile_running_min(profile)
    for j in backfill_order(s, order[pos:], settings.backfill_sjf):
        if c.free == 0:
            break
        w = jobs.width[j]
        if w <= c.free and profile_fits_now(profile, w, jobs.estimate[j]):
            start_job(s, j, now)
            profile_add(profile, now, now + jobs.estimate_at_start[j], -w)
            profile_running_min(profile)
    return np.inf


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, schedule)

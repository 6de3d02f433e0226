"""No-guarantee backfilling with an FCFS starvation queue: the CPlant/Ross
scheduler (Leung, Sabin & Sadayappan 2010 sections II.A, V.B and V.E).

Reached through ``policy="no_guarantee", starvation_after=...``; not a policy
name of its own. A waiting job enters the *starvation queue* once it has
waited ``starvation_after`` (24 hours on CPlant). That queue is served first
in FCFS order (submit time, then job) and its head gets a reservation, as in
aggressive (EASY) backfilling; the other waiting jobs (the *main queue*, in
the simulation's priority order: fairshare on CPlant) start whenever they fit
and do not delay that reservation. With no job starving, the pass is plain
no-guarantee backfilling. A piece of a job split by ``max_runtime`` waits
from its own submission, the end of the piece before it.

With ``starvation_bar_heavy`` the jobs of *heavy* users do not enter the
starvation queue (section V.B, "cplant*.*.fair"): a user is heavy at a pass
when their decayed fairshare usage is above the mean usage of the users with
a job waiting at that pass, i.e. they are among the users the fairshare order
serves last. The paper does not define "heavy" further; a barred job is
checked again at every pass and enters as soon as its user is no longer heavy.
Once in the starvation queue a job stays there until it starts.

State: ``state.starvation`` (the queue, entry times and scratch);
``state.reservations.promised`` holds, for each job that got the
reservation, the start first reserved for it.
"""

import numpy as np
from numba import njit

from .._engine import backfill_order, event_loop, ignore_completion, ignore_extension, start_job
from .easy import backfill, shadow_time


@njit(cache=True, inline="always", _nrt=False)
def _mean_usage_terms(s, order):
    """``(sum, count)`` of the decayed usage of the distinct users in ``order``.

    Users are summed in the order of their first job in ``order``.
    """
    sq = s.starvation
    sq.stamp[0] += 1
    stamp = sq.stamp[0]
    total = 0.0
    count = 0
    for j in order:
        u = s.jobs.user[j]
        if sq.user_mark[u] != stamp:
            sq.user_mark[u] = stamp
            total += s.usage[u]
            count += 1
    return total, count


@njit(cache=True, inline="always", _nrt=False)
def _enter(s, j, now):
    """Queue job ``j`` in the starvation queue by (submit time, job)."""
    sq = s.starvation
    jobs = s.jobs
    n = sq.length[0]
    k = n
    while k > 0:
        other = sq.jobs[k - 1]
        if jobs.submit[other] < jobs.submit[j] or (
                jobs.submit[other] == jobs.submit[j] and other < j):
            break
        sq.jobs[k] = other
        k -= 1
    sq.jobs[k] = j
    sq.length[0] = n + 1
    sq.since[j] = now


@njit(cache=True, inline="always", _nrt=False)
def _admit(s, order, now, settings):
    """Move the waiting jobs that have waited ``starvation_after`` into the
    starvation queue, unless barred.

    Keeps: the starvation queue sorted by (submit, job).
    """
    jobs = s.jobs
    since = s.starvation.since
    measured = False
    total = 0.0
    count = 0
    for j in order:
        if not np.isnan(since[j]):
            continue
        if jobs.submit[j] + settings.starvation_after > now:
            continue
        if settings.starvation_bar_heavy:
            if not measured:
                total, count = _mean_usage_terms(s, order)
                measured = True
            if s.usage[jobs.user[j]] * count > total:
                continue
        _enter(s, j, now)


@njit(cache=True, inline="always", _nrt=False)
def _next_crossing(s, order, now, settings):
    """The next instant a job still waiting crosses ``starvation_after``
    (``inf``: none). A barred job needs no wake-up: whether its user is
    heavy changes only at completions and arrivals, which run a pass."""
    jobs = s.jobs
    wake = np.inf
    for j in order:
        if np.isnan(jobs.start[j]) and np.isnan(s.starvation.since[j]):
            due = jobs.submit[j] + settings.starvation_after
            if now < due < wake:
                wake = due
    return wake


@njit(cache=True, inline="always", _nrt=False)
def _drop_started(s):
    """Remove the jobs that started from the starvation queue."""
    sq = s.starvation
    out = 0
    for k in range(sq.length[0]):
        j = sq.jobs[k]
        if np.isnan(s.jobs.start[j]):
            sq.jobs[out] = j
            out += 1
    sq.length[0] = out


@njit(cache=True, inline="always", _nrt=False)
def schedule(s, order, now, settings):
    """Admit jobs to the starvation queue; start its jobs in FCFS order until
    one does not fit and reserve for that one (its shadow time, as EASY
    does); then try the rest of the starvation queue and the main queue (in
    ``order``, or by estimate with ``backfill_order="sjf"``), starting each
    job that fits now and does not delay the reservation.

    Keeps: every job started after the head of the starvation queue was
    blocked either ends by the shadow time by the estimate it was chosen
    with, or uses only processors the head leaves spare then (``extra``, as
    in :func:`.easy.schedule`, which also says what ``selective`` estimates
    change).
    """
    if len(order) == 0:
        return np.inf
    _admit(s, order, now, settings)
    jobs = s.jobs
    c = s.counters[0]
    sq = s.starvation
    m = sq.length[0]
    starving = sq.jobs[:m]
    pos = 0
    while pos < m and jobs.width[starving[pos]] <= c.free:
        start_job(s, starving[pos], now)
        pos += 1
    k = 0
    for j in order:
        if np.isnan(sq.since[j]):
            sq.candidates[k] = j
            k += 1
    main = backfill_order(s, sq.candidates[:k], settings.backfill_sjf)
    if pos == m:
        for j in main:
            if c.free < s.queue.narrowest[0]:
                break
            if jobs.width[j] <= c.free:
                start_job(s, j, now)
    else:
        head = starving[pos]
        shadow, extra = shadow_time(s, jobs.width[head], now)
        if np.isnan(s.reservations.promised[head]):
            s.reservations.promised[head] = shadow
        for j in starving[pos + 1:]:
            extra = backfill(s, j, now, shadow, extra)
        for j in main:
            extra = backfill(s, j, now, shadow, extra)
    _drop_started(s)
    return _next_crossing(s, order, now, settings)


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, schedule)

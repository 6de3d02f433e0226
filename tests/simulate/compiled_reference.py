"""The previous compiled conservative and depth-k passes, kept as references.

``predictkit/simulate/_policies/conservative.py`` and ``reservation_depth.py``
were rewritten for speed on overloaded logs (queues of thousands of jobs).
These are the plain versions they replaced, unchanged but for imports: the
conservative pass removes and re-inserts every reservation that might move
at each compression (Klusacek & Soysal 2019 section 3.1), the depth-k pass
checks every candidate against the whole profile. Both plug into the same
compiled event loop, so the tests compare the fast policies with them job by
job on workloads far larger than the plain Python reference can simulate.

:func:`registered` adds them to the policy registry as
``"conservative_reference"`` and ``"depth_reference"`` (the latter takes
``reservation_depth``, default 1) for the duration of a ``with`` block.
"""

import contextlib

import numpy as np
from numba import njit

from predictkit.simulate._engine import (backfill_order, event_loop, ignore_completion,
                                         ignore_extension, start_job)
from predictkit.simulate._policies import REGISTRY, Policy
from predictkit.simulate._profile import (
    profile_add,
    profile_advance,
    profile_compact,
    profile_earliest,
    profile_fits,
    profile_min,
    profile_reset,
)

# ---------------------------------------------------------------- conservative


@njit(cache=True, _nrt=False)
def profile_running_max(profile):
    """``profile.running_max[k]``: most free processors on any segment up to ``k``.

    A job of width ``w`` can only start before ``times[k + 1]`` if
    ``running_max[k] >= w``.
    """
    F = profile.free
    out = profile.running_max
    high = F[0]
    for k in range(profile.length[0]):
        if F[k] > high:
            high = F[k]
        out[k] = high


@njit(cache=True, inline="always", _nrt=False)
def _advance(profile, now):
    """Drop the past from the profile (once per instant: later calls are no-ops)."""
    if profile.times[0] < now:
        profile_advance(profile, now)


@njit(cache=True, inline="always", _nrt=False)
def on_completion(s, j, now, expected_end):
    """Give back to the profile the time ``j`` was planned to run but did not.

    Keeps: the profile's free count at every future time is the machine minus
    the running jobs (to their expected end) and the reservations.
    """
    _advance(s.profile, now)
    if expected_end > now:
        profile_add(s.profile, now, expected_end, s.jobs.width[j])
        s.reservations.compress_due[0] = True


@njit(cache=True, inline="always", _nrt=False)
def on_extension(s, j, now, old_end, new_end):
    """Hold ``j``'s processors until its new expected end (this may overcommit
    the profile: the next pass repairs it)."""
    _advance(s.profile, now)
    profile_add(s.profile, old_end, new_end, -s.jobs.width[j])
    s.reservations.repair_due[0] = True


@njit(cache=True, inline="always", _nrt=False)
def _move(s, j):
    """Remove job ``j``'s reservation and re-insert it at the earliest slot."""
    profile = s.profile
    start = s.reservations.start
    w = s.jobs.width[j]
    d = s.jobs.estimate[j]
    profile_add(profile, start[j], start[j] + d, w)
    t = profile_earliest(profile, w, d)
    profile_add(profile, t, t + d, -w)
    moved = t != start[j]
    start[j] = t
    return moved


@njit(cache=True, inline="always", _nrt=False)
def _compress(s, order, now):
    """Remove and re-insert each reservation in priority order.

    Keeps: no reservation moves later (its own slot is free again when it is
    re-inserted), and jobs ahead in priority order are placed first. A job
    can only move if some segment before its reservation has room for it;
    the running maximum of the profile answers that without a scan, and is
    rebuilt after each re-insertion.
    """
    profile = s.profile
    best = profile.running_max
    profile_running_max(profile)
    for j in order:
        t = s.reservations.start[j]
        if not t > now:
            continue
        before = np.searchsorted(profile.times[:profile.length[0]], t)
        if before > 0 and best[before - 1] >= s.jobs.width[j]:
            _move(s, j)
            profile_running_max(profile)


@njit(cache=True, inline="always", _nrt=False)
def _repair(s, order):
    """Move the reservations that overlap an overcommitted part of the profile.

    Keeps: afterwards no reservation overlaps a segment with negative free
    count (returns whether one moved).
    """
    jobs = s.jobs
    start = s.reservations.start
    moved = False
    for j in order:
        if np.isnan(jobs.start[j]) and not np.isnan(start[j]):
            if profile_min(s.profile, start[j], start[j] + jobs.estimate[j]) < 0:
                moved |= _move(s, j)
    return moved


@njit(cache=True, inline="always", _nrt=False)
def _next_reservation(s, order):
    """Earliest reserved start of a job still waiting: a pass must run then."""
    wake = np.inf
    for j in order:
        t = s.reservations.start[j]
        if np.isnan(s.jobs.start[j]) and t < wake:
            wake = t
    return wake


@njit(cache=True, inline="always", _nrt=False)
def schedule(s, order, now, settings):
    """Repair and compress reservations if due, reserve for new arrivals, start
    the jobs whose reservation is now.

    Keeps: every waiting job holds a reservation in the profile, none later
    than its promised start while estimates hold; the profile is compact.
    """
    profile = s.profile
    jobs = s.jobs
    reservations = s.reservations
    _advance(profile, now)
    if len(order) > 0:
        if reservations.repair_due[0]:
            if _repair(s, order):
                reservations.compress_due[0] = True
        if reservations.compress_due[0]:
            _compress(s, order, now)
        for j in order:
            if np.isnan(reservations.start[j]):
                d = jobs.estimate[j]
                t = profile_earliest(profile, jobs.width[j], d)
                profile_add(profile, t, t + d, -jobs.width[j])
                reservations.start[j] = t
                reservations.promised[j] = t
        while True:
            extended = False
            for j in order:
                if np.isnan(jobs.start[j]) and reservations.start[j] == now:
                    start_job(s, j, now)
                    if jobs.estimate_at_start[j] > jobs.estimate[j]:
                        profile_add(profile, now + jobs.estimate[j],
                                    now + jobs.estimate_at_start[j], -jobs.width[j])
                        extended = True
            if not extended or not _repair(s, order):
                break
    reservations.compress_due[0] = False
    reservations.repair_due[0] = False
    profile_compact(profile)
    return _next_reservation(s, order)


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, on_completion, on_extension, schedule)


# ---------------------------------------------------------------- depth k
@njit(cache=True, inline="always", _nrt=False)
def depth_schedule(s, order, now, settings):
    """Plan the running jobs into a fresh profile; in priority order start each
    of the first ``depth`` blocked jobs that fits or reserve its earliest slot;
    then backfill the rest wherever they fit.

    Keeps: no start delays the reservation of any of the first ``depth``
    blocked jobs (given current estimates).
    """
    if len(order) == 0:
        return np.inf
    jobs = s.jobs
    c = s.counters[0]
    profile = s.profile
    profile_reset(profile, now, c.free, s.running, jobs.width)
    q = len(order)
    pos = 0
    reserved = 0
    while pos < q and reserved < settings.reservation_depth:
        j = order[pos]
        w = jobs.width[j]
        if profile_fits(profile, now, w, jobs.estimate[j]):
            start_job(s, j, now)
            profile_add(profile, now, now + jobs.estimate_at_start[j], -w)
        else:
            t = profile_earliest(profile, w, jobs.estimate[j])
            profile_add(profile, t, t + jobs.estimate[j], -w)
            reserved += 1
        pos += 1
    if c.free < s.queue.narrowest[0]:
        return np.inf
    for j in backfill_order(s, order[pos:], settings.backfill_sjf):
        if c.free == 0:
            break
        w = jobs.width[j]
        if profile_fits(profile, now, w, jobs.estimate[j]):
            start_job(s, j, now)
            profile_add(profile, now, now + jobs.estimate_at_start[j], -w)
    return np.inf


@njit(cache=True, _nrt=False)
def depth_run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, depth_schedule)


class _Depth(Policy):
    takes_reservation_depth = True

    def loop(self, reservation_depth):
        return self.run, 1 if reservation_depth is None else int(reservation_depth)


CONSERVATIVE = Policy(name="conservative_reference", rank=90, run=run,
                      summary="the previous conservative pass (tests only)")
DEPTH = _Depth(name="depth_reference", rank=91, run=depth_run,
               summary="the previous depth-k pass (tests only)")


@contextlib.contextmanager
def registered():
    """Make both references available to ``simulate(policy=...)`` inside the block."""
    REGISTRY[CONSERVATIVE.name] = CONSERVATIVE
    REGISTRY[DEPTH.name] = DEPTH
    try:
        yield
    finally:
        del REGISTRY[CONSERVATIVE.name]
        del REGISTRY[DEPTH.name]

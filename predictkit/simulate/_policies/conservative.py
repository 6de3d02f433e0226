"""Conservative backfilling: every job gets a reservation at arrival that is
never moved later while estimates hold; early completions compress the
schedule by re-planning each reservation in priority order at the earliest
slot it can take (Mu'alem & Feitelson 2001; Klusacek & Soysal 2019 section
3.1).

State: ``state.profile`` holds the running jobs and every reservation;
``state.reservations`` the reserved and promised starts, two flags set by the
hooks and cleared by the pass, the earliest reserved start, the number of
reservations and an index of the profile's free stretches
(:class:`~.._engine.GapIndex`).

Compression without removing and re-inserting
---------------------------------------------
Removing job ``j`` (width ``w``, estimate ``d``, reserved at ``s``) and
inserting it at the earliest slot gives back ``w`` processors on ``[s, s +
d)`` only; the profile is never overcommitted when compressing, so with ``j``
removed every start ``t`` in ``[s, s + d)`` has at least ``w`` free there. A
start ``t < s`` is therefore possible exactly when the profile *with* ``j``
has ``w`` free on ``[t, min(s, t + d))``: either a whole window of length
``d`` before ``s`` (the first one is :func:`~.._profile.profile_earliest`
restricted to starts before ``s``), or the run of segments with at least
``w`` free that ends at ``s`` (its first instant). The new start is the
earlier of the two, and ``s`` when neither exists, which is what removing and
re-inserting gives, without touching the profile unless ``j`` moves.

Looking for a whole window is the costly part (a scan of the profile), and on
overloaded logs it almost never succeeds. The gap index, built at the start
of each compression, holds for widths 1, 2, 4, ... the longest stretch with
that many processors free before each breakpoint (a width's row is computed
when a reservation of that width first asks); every interval given back
since is recorded with a bound on the free stretches it may be part of: the
run of segments with a free processor around it, walked again only when an
interval reaches outside the last run walked (see
:func:`~.._profile.gap_index_given_back`). Only when the index cannot rule
out a window of ``d`` with ``w`` free before the limit is the profile
scanned, and then only from where a window can end by the index: after the
last indexed breakpoint before which no stretch that long was free when the
index was built, or after what the record of given-back intervals allows
(:func:`~.._profile.gap_index_first_end`), less ``d``. On the first 30,000
jobs of RICC-2010-2 this cuts the breakpoints scanned by two thirds. Taking
a slot only removes free processors, so the index stays an upper bound
without further work.

The index is an upper bound, so after a completion opens a gap every
reservation it is long enough for, until the index is rebuilt, asks for a
scan, and once an earlier one has taken the gap these scans find nothing.
What such a scan finds is kept (:attr:`~.._engine.GapIndex.ruled_out`: no
start before ``limit`` has ``w`` free for ``d``): a later reservation that
needs as many processors for at least as long is answered without a scan
when its limit is no later, and otherwise scans only from there. Taking
keeps this true; processors given back lower it to the start of the free
stretch around them, for windows that stretch can hold
(:func:`~.._profile.gap_index_rule_out`). On the whole RICC-2010-2 log this
cuts the breakpoints scanned from 12.2 to 1.8 billion.

Reservations in priority order mostly start in ascending order, so the
search for a reservation's segment in the profile, and for its limit in the
index, starts from the previous reservation's segment.

Passes with nothing to do cost nothing per waiting job: the earliest
reserved start (the next pass that must start jobs) and the number of
reservations (are there arrivals to reserve for?) are kept up to date.
"""

import numpy as np
from numba import njit

from .._engine import event_loop, start_job
from .._profile import (
    first_at_or_after,
    profile_add_near,
    profile_advance,
    profile_before,
    profile_compact,
    profile_earliest,
    profile_earliest_between,
    profile_min,
)
from .._profile import (float_spacing, gap_index_answer, gap_index_build, gap_index_first_end,
                        gap_index_given_back, gap_index_rule_out, gap_index_ruled_out)
from ._policy import Policy

_GAP_STEPS = 1024
"""Segments walked to bound a free stretch before giving up (it is then unbounded)."""

_GAP_REBUILD = 16
"""Scans forced by what was given back after which the gap index is rebuilt."""

_BOUND_ROUNDING = 16.0
"""Units in the last place subtracted from ``end - d`` (a difference of values each
rounded) so that the scan for a window starts no later than the window can."""


@njit(cache=True, inline="always", _nrt=False)
def _advance(profile, now):
    """Drop the past from the profile (once per instant: later calls are no-ops)."""
    if profile.times[0] < now:
        profile_advance(profile, now)


@njit(cache=True, inline="always", _nrt=False)
def _add(s, start, end, delta, hint=-1):
    """``profile_add``, recording processors given back in the gap index (``start``
    is searched for from segment ``hint``; ``-1``: by bisection)."""
    profile_add_near(s.profile, start, end, delta, hint)
    if delta > 0:
        gap_index_given_back(s.profile, s.reservations.gaps, start, end, _GAP_STEPS)


@njit(cache=True, inline="always", _nrt=False)
def on_completion(s, j, now, expected_end):
    """Give back to the profile the time ``j`` was planned to run but did not.

    Keeps: the profile's free count at every future time is the machine minus
    the running jobs (to their expected end) and the reservations.
    """
    _advance(s.profile, now)
    if expected_end > now:
        _add(s, now, expected_end, s.jobs.width[j])
        s.reservations.compress_due[0] = True


@njit(cache=True, inline="always", _nrt=False)
def on_extension(s, j, now, old_end, new_end):
    """Hold ``j``'s processors until its new expected end (this may overcommit
    the profile: the next pass repairs it)."""
    _advance(s.profile, now)
    _add(s, old_end, new_end, -s.jobs.width[j])
    s.reservations.repair_due[0] = True


@njit(cache=True, inline="always", _nrt=False)
def _move(s, j):
    """Remove job ``j``'s reservation and re-insert it at the earliest slot."""
    start = s.reservations.start
    w = s.jobs.width[j]
    d = s.jobs.estimate[j]
    _add(s, start[j], start[j] + d, w)
    t = profile_earliest(s.profile, w, d)
    _add(s, t, t + d, -w)
    moved = t != start[j]
    start[j] = t
    return moved


@njit(cache=True, inline="always", _nrt=False)
def _earliest_move(s, j, hint):
    """Where removing and re-inserting ``j`` would put it (see the module docstring),
    and the segment just before its reservation (searched from ``hint``)."""
    profile = s.profile
    T = profile.times
    F = profile.free
    at = s.reservations.start[j]
    w = s.jobs.width[j]
    d = s.jobs.estimate[j]
    k = first_at_or_after(T, profile.length[0], at, hint) - 1
    before = k
    limit = at
    if F[k] >= w:
        while k > 0 and F[k - 1] >= w:
            k -= 1
        limit = T[k]
    if k == 0:
        return limit, before
    gaps = s.reservations.gaps
    ruled_out = gap_index_ruled_out(gaps, w, d)
    if ruled_out >= limit:
        return limit, before
    answer = gap_index_answer(gaps, w, d, limit, k)
    if answer == 2:
        gaps.stale[0] += 1
        if gaps.stale[0] >= _GAP_REBUILD:
            gap_index_build(profile, gaps)
            answer = gap_index_answer(gaps, w, d, limit, k)
    if answer > 0:
        # a window ends after ``end``, so it starts after ``end - d`` (less rounding)
        end = gap_index_first_end(gaps, w, d, limit)
        bound = end - d - _BOUND_ROUNDING * float_spacing(max(abs(end), abs(limit), d))
        first = profile_before(profile, bound) if bound > T[0] else 0
        if ruled_out > T[first]:
            first = first_at_or_after(T, profile.length[0], ruled_out, first)
        t = profile_earliest_between(profile, w, d, first, limit)
        gap_index_rule_out(gaps, w, d, min(t, limit))
        if t < limit:
            return t, before
    return limit, before


@njit(cache=True, inline="always", _nrt=False)
def _slide(s, j, t, hint):
    """Move ``j``'s reservation earlier, to ``t`` (segment ``hint`` is near its
    start)."""
    at = s.reservations.start[j]
    w = s.jobs.width[j]
    d = s.jobs.estimate[j]
    if t + d <= at:
        _add(s, t, t + d, -w, hint)
        _add(s, at, at + d, w, hint)
    else:
        _add(s, t, at, -w, hint)
        _add(s, t + d, at + d, w)
    s.reservations.start[j] = t


@njit(cache=True, inline="always", _nrt=False)
def _compress(s, order, now):
    """Re-plan each reservation in priority order at the earliest slot it can take.

    Keeps: no reservation moves later, and jobs ahead in priority order are
    placed first; the result is that of removing and re-inserting each one.
    Returns the earliest reserved start.
    """
    gap_index_build(s.profile, s.reservations.gaps)
    first = np.inf
    hint = 0
    for j in order:
        t = s.reservations.start[j]
        if t > now:
            new, hint = _earliest_move(s, j, hint)
            if new < t:
                _slide(s, j, new, hint)
                t = new
        if t < first:
            first = t
    return first


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
    than its promised start while estimates hold; the profile is compact;
    ``next_start`` is the earliest reservation and ``count`` their number.
    """
    profile = s.profile
    jobs = s.jobs
    reservations = s.reservations
    _advance(profile, now)
    if len(order) > 0:
        if reservations.repair_due[0]:
            if _repair(s, order):
                reservations.compress_due[0] = True
            reservations.next_start[0] = _next_reservation(s, order)
        if reservations.compress_due[0]:
            reservations.next_start[0] = _compress(s, order, now)
        if reservations.count[0] < len(order):
            for j in order:
                if np.isnan(reservations.start[j]):
                    d = jobs.estimate[j]
                    t = profile_earliest(profile, jobs.width[j], d)
                    _add(s, t, t + d, -jobs.width[j])
                    reservations.start[j] = t
                    reservations.promised[j] = t
                    reservations.count[0] += 1
                    if t < reservations.next_start[0]:
                        reservations.next_start[0] = t
        while reservations.next_start[0] == now:
            extended = False
            for j in order:
                if np.isnan(jobs.start[j]) and reservations.start[j] == now:
                    start_job(s, j, now)
                    reservations.count[0] -= 1
                    if jobs.estimate_at_start[j] > jobs.estimate[j]:
                        _add(s, now + jobs.estimate[j], now + jobs.estimate_at_start[j],
                             -jobs.width[j])
                        extended = True
            if extended:
                _repair(s, order)
            reservations.next_start[0] = _next_reservation(s, order)
    reservations.compress_due[0] = False
    reservations.repair_due[0] = False
    profile_compact(profile)
    return reservations.next_start[0]


@njit(cache=True, _nrt=False)
def run(s, settings):
    return event_loop(s, settings, on_completion, on_extension, schedule)


POLICY = Policy(name="conservative", rank=2, run=run,
                summary="a reservation for every job at arrival, compressed when jobs "
                        "end early")

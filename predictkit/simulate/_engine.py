"""The compiled event loop of the simulator: its state, the generic passes and
the seam through which a policy plugs in.

One scheduling *pass* runs at every instant at which something happens. At an
instant the events are handled in a fixed order: job completions (by job
index), then arrivals, then running jobs outliving their estimate, then one
pass. The loop can stop before the arrivals of an instant whose estimates are
not known yet (a runtime predictor outside the loop is asked in Python) and
resume where it stopped; predictkit's own predictors keep their state in
``predictor`` and are asked inside the loop (:mod:`._online_predictors`).

The policy seam
---------------
A policy (``predictkit/simulate/_policies/``) is three compiled functions
with fixed signatures, handed to :func:`event_loop` once, before the loop:

* ``on_completion(state, job, now, expected_end)`` - ``job`` ended at
  ``now``; it was planned to hold its processors until ``expected_end``;
* ``on_extension(state, job, now, old_end, new_end)`` - running ``job``
  reached its estimate and is now expected to end at ``new_end``;
* ``schedule(state, order, now, settings) -> wakeup`` - the scheduling pass:
  start jobs of ``order`` (the waiting jobs, highest priority first; empty
  when nothing waits) with :func:`start_job`; return the next instant at
  which a pass must run even if nothing else happens (``inf``: none).

The loop itself keeps the queue, the running set, the event heaps and the
clock; everything a policy plans with (the availability profile,
reservations) belongs to the policy.

Engine state
------------
:class:`EngineState` is a named tuple of named tuples of arrays (numba
compiles them like plain tuples). ``n`` is the number of jobs plus pieces of
split jobs; regular jobs come first, sorted by submit time then job id.
Lengths live with the arrays they measure, in one-element arrays ``length``.

=================================  =======  ==========================================  ==========================================
field                              type     meaning                                     invariant
=================================  =======  ==========================================  ==========================================
``jobs.submit``                    f8[n]    submit time                                 pieces: NaN until the previous piece ends
``jobs.duration``                  f8[n]    time the job holds its processors           >= 0
``jobs.width``                     i8[n]    processors                                  1 <= width <= machine
``jobs.estimate``                  f8[n]    estimate planned with while waiting         max(1, min(., request)); NaN until known
``jobs.estimate_at_start``         f8[n]    estimate given when the job starts          the request with ``selective``
``jobs.request``                   f8[n]    requested time                              ``inf`` when unknown
``jobs.priority_key``              f8[n]    static queue key (lower first)              sjf: the estimate; callable: -score
``jobs.user``                      i8[n]    user code                                   < len(usage)
``jobs.successor``                 i8[n]    next piece of a split job                   -1: none
``jobs.estimate_history``          i8[n]    completed jobs the estimate was made from   NO_ESTIMATE_YET; ESTIMATE_FINAL
``jobs.start``, ``jobs.end``       f8[n]    simulated start and end                     NaN until they happen
``jobs.backfilled``                b1[n]    started while a job ahead kept waiting      set in :func:`finish_pass`
``jobs.current_estimate``          f8[n]    estimate in force for a running job         grows at each extension
``jobs.extensions``                i8[n]    times the running estimate was extended     used by ``"increments"``
``queue.jobs[:length]``            i8[n]    waiting jobs by (key, submit, job)          none has started
``queue.narrowest[0]``             i8       narrowest waiting job                       <= every waiting width
``running.end_times[:length]``     f8[n]    expected end (start + current estimate)     ascending, ties by job
``running.jobs[:length]``          i8[n]    the running jobs, in that order             widths sum to machine - free
``completions`` (EventHeap)        f8/i8    (actual end, job) of running jobs           min-heap by (time, job)
``expiries`` (EventHeap)           f8/i8    (expected end, job) of jobs that outlive    only while start + duration > it
``completed[:n_done]``             i8[n]    jobs in completion order                    read by the predictor feeder
``pending[:n_pending]``            i8[n]    pieces submitted at this instant            queued before the arrivals
``usage``                          f8[u]    decayed processor-seconds per user          charged at completion
``profile.times[:length]``         f8[m]    breakpoints of the availability profile     ascending; m = 2n + 4
``profile.free``                   i8[m]    free processors on [times[k], times[k+1])   the last segment runs to infinity
``profile.running_max``            i8[m]    running maximum of ``free`` (scratch)       the tests' plain conservative pass
``profile.running_min``            i8[m]    running minimum of ``free`` (scratch)       depth-k: rebuilt before use
``reservations.start``             f8[n]    reserved start of a waiting job             conservative; never later while estimates hold
``reservations.promised``          f8[n]    first reservation, made at arrival          conservative; starvation queue: first
                                                                                            reservation of its head; else NaN
``reservations.compress_due[0]``   b1       a job ended before its estimate             conservative: compress at the next pass
``reservations.repair_due[0]``     b1       a running estimate was extended             conservative: repair at the next pass
``reservations.next_start[0]``     f8       earliest reserved start of a waiting job    conservative: ``inf`` when none
``reservations.count[0]``          i8       waiting jobs holding a reservation          conservative: < queue length after arrivals
``reservations.gaps`` (GapIndex)   f8/i8    longest free stretches before each instant  conservative: upper bounds (see there)
``scratch.*``                      [n]      sort keys and buffers, pass orders          contents meaningless between calls
``starvation.jobs[:length]``       i8[n]    the starvation queue, by (submit, job)      only with ``starvation_after``; waiting
``starvation.since``               f8[n]    when the job entered the starvation queue   NaN: never entered
``starvation.candidates``          i8[n]    scratch: the main queue of a pass           contents meaningless between calls
``starvation.user_mark``           i8[u]    scratch: users counted in this pass         compared with ``stamp[0]``
``starvation.stamp[0]``            i8       the pass's mark in ``user_mark``            one more per mean-usage count
``counters[0].now``                f8       the current instant                         never decreases
``counters[0].wakeup``             f8       next instant a pass must run                returned by the last pass
``counters[0].next_arrival``       i8       next regular job to arrive                  jobs before it are queued or done
``counters[0].free``               i8       idle processors now                         0 <= free <= machine
``counters[0].n_done``             i8       completed jobs and pieces                   length of ``completed``
``counters[0].n_pending``          i8       pieces waiting to be queued                 0 outside an instant
``counters[0].n_started``          i8       jobs started so far                         increases only
``counters[0].epoch``              i8       last fairshare decay period                 -2**62 before the first
``counters[0].resume``             i8       1: stopped for estimates at ``now``         then the next call resumes there
``predictor``                      tuple    a built-in predictor's online state         ``_online_predictors.PredictorState``
=================================  =======  ==========================================  ==========================================

Every kernel is compiled without numba's reference counting (``_nrt=False``)
and never allocates; scratch space comes with the state. The handlers of one
event (:func:`_complete`, :func:`_arrive`, :func:`_extend`,
:func:`finish_pass`) are ordinary calls: inlined into every policy's loop
they cost twice the compile time and saved no run time
(``benchmarks/simulate_speed.py --compare-with``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._online_predictors import (
    KIND_NONE,
    empty_state,
    estimate_arrivals,
    observe_completion,
)
from ._profile import heap_pop, heap_push, running_insert, running_remove, shift_right, stable_order

PRIO_STATIC, PRIO_WFP, PRIO_FAIRSHARE = 0, 1, 2
UNDER_DOUBLE, UNDER_INCREMENTS, UNDER_REQUEST = 0, 1, 2
NEED_ESTIMATES, DONE, NO_ESTIMATE = 1, 0, 2

INCREMENTS = np.array([60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0,
                       36000.0, 72000.0, 180000.0, 360000.0])
"""Tsafrir, Etsion & Feitelson (2007): 1 min, 5 min, 15 min, ..., 100 h."""

NO_EPOCH = -(2 ** 62)

NO_ESTIMATE_YET, ESTIMATE_FINAL = -1, -2
"""Codes of ``jobs.estimate_history`` other than a count of completed jobs: no
estimate yet (the loop asks for one at the job's arrival), and an estimate that
holds whatever completes before the arrival."""


class JobTable(NamedTuple):
    """Per-job arrays (see the module docstring)."""

    submit: np.ndarray
    duration: np.ndarray
    width: np.ndarray
    estimate: np.ndarray
    estimate_at_start: np.ndarray
    request: np.ndarray
    priority_key: np.ndarray
    user: np.ndarray
    successor: np.ndarray
    estimate_history: np.ndarray
    start: np.ndarray
    end: np.ndarray
    backfilled: np.ndarray
    current_estimate: np.ndarray
    extensions: np.ndarray


class Queue(NamedTuple):
    """Waiting jobs in static priority order."""

    jobs: np.ndarray
    length: np.ndarray
    narrowest: np.ndarray


class RunningSet(NamedTuple):
    """Running jobs sorted by (expected end, job)."""

    end_times: np.ndarray
    jobs: np.ndarray
    length: np.ndarray


class EventHeap(NamedTuple):
    """Min-heap of (time, job) events."""

    times: np.ndarray
    jobs: np.ndarray
    length: np.ndarray


class Profile(NamedTuple):
    """Free processors over time (policies that plan ahead)."""

    times: np.ndarray
    free: np.ndarray
    length: np.ndarray
    running_max: np.ndarray
    running_min: np.ndarray


GAP_LEVELS = 14
"""Widths 1, 2, 4, ..., 2**13 of :class:`GapIndex` (wider jobs use the last)."""

GAP_SEGMENTS = 4096
"""Breakpoints of the profile a :class:`GapIndex` covers (later ones are not indexed)."""

GAP_SPANS = 32
"""Lengths 1 s, 2 s, 4 s, ..., 2**31 s by which :class:`GapIndex` sorts what was given back."""


class GapIndex(NamedTuple):
    """Longest stretches of the profile with ``2**level`` processors free.

    ``longest[level, k]``: the longest time, within ``[times[0], times[k])``,
    during which at least ``2**level`` processors are free throughout, for
    the first ``length[0]`` breakpoints ``times`` of the profile when it was
    indexed (``free``: the free counts then; bit ``level`` of ``built[0]``:
    that row is computed). Processors given back since then are summarised, for each
    length ``2**b`` seconds (``b < GAP_SPANS``) of a free stretch meeting
    them, by ``changed[1, b]``, the earliest instant by which such a stretch
    could have lasted that long, and ``changed[0, b]``, the same but no
    earlier than the start of what was given back (``-inf``: nothing indexed
    yet). ``stale[0]`` counts the queries that record could not answer.
    ``levels[0]``: the rows indexed, those of the levels whose ``2**level``
    processors were free somewhere on the indexed part (a query for a wider
    level finds no stretch).
    ``run``: ``[left, right)``, the run of segments with a free processor
    last walked to bound such stretches (empty after indexing), and the
    earliest start given back within it whose record is complete
    (``run[2]``; see :func:`~._profile.gap_index_given_back`).

    ``ruled_out[level, b]``: no start before it has ``2**level`` processors
    free for ``ruled_length[level, b]`` seconds (within ``[2**b, 2**(b +
    1))``), as searches of the profile that came back empty found; kept
    through every change since and through indexing (``-inf``: nothing
    known; see :func:`~._profile.gap_index_rule_out`). Bit ``level`` of
    ``ruling[0]``: that row holds something.
    """

    times: np.ndarray
    free: np.ndarray
    longest: np.ndarray
    length: np.ndarray
    levels: np.ndarray
    built: np.ndarray
    changed: np.ndarray
    stale: np.ndarray
    run: np.ndarray
    ruled_out: np.ndarray
    ruled_length: np.ndarray
    ruling: np.ndarray


class Reservations(NamedTuple):
    """Reserved starts of waiting jobs (conservative backfilling)."""

    start: np.ndarray
    promised: np.ndarray
    compress_due: np.ndarray
    repair_due: np.ndarray
    next_start: np.ndarray
    count: np.ndarray
    gaps: GapIndex


class StarvationQueue(NamedTuple):
    """The FCFS queue that waiting jobs enter after ``starvation_after``
    (Leung et al. 2010 section II.A; :mod:`._policies.starvation_queue`)."""

    jobs: np.ndarray
    length: np.ndarray
    since: np.ndarray
    candidates: np.ndarray
    user_mark: np.ndarray
    stamp: np.ndarray


class Scratch(NamedTuple):
    """Buffers for sorting and for the orders of a pass."""

    sort_keys: np.ndarray
    sort_index: np.ndarray
    sort_buffer: np.ndarray
    priority_order: np.ndarray
    backfill_order: np.ndarray


COUNTERS = np.dtype([
    ("now", np.float64), ("wakeup", np.float64), ("next_arrival", np.int64),
    ("free", np.int64), ("n_done", np.int64), ("n_pending", np.int64),
    ("n_started", np.int64), ("epoch", np.int64), ("resume", np.int64),
], align=True)
"""The clock and tallies of the loop: one record, ``state.counters[0]``."""


class EngineState(NamedTuple):
    """Everything the compiled loop reads and writes (table in the module docstring)."""

    jobs: JobTable
    queue: Queue
    running: RunningSet
    completions: EventHeap
    expiries: EventHeap
    completed: np.ndarray
    pending: np.ndarray
    usage: np.ndarray
    profile: Profile
    reservations: Reservations
    scratch: Scratch
    counters: np.ndarray
    starvation: StarvationQueue
    predictor: tuple


class Settings(NamedTuple):
    """Parameters of one simulation, fixed for its whole run."""

    n_jobs: int              # regular jobs (pieces of split jobs come after them)
    priority: int            # PRIO_STATIC, PRIO_WFP or PRIO_FAIRSHARE
    underestimate: int       # UNDER_DOUBLE, UNDER_INCREMENTS or UNDER_REQUEST
    fairshare_period: float  # seconds between usage decays
    fairshare_factor: float  # usage multiplier at each decay
    online: bool             # estimates come from a predictor (the loop may stop)
    reservation_depth: int   # blocked jobs that get a reservation (depth-k policies)
    backfill_sjf: bool       # try backfill candidates shortest estimate first
    starvation_after: float = np.inf  # wait after which a job enters the starvation queue
    starvation_bar_heavy: bool = False  # heavy users' jobs do not enter it (Leung V.B)


def new_state(*, submit, duration, width, request, user, successor, n_users, free,
              predictor=None):
    """Allocate the simulation state for ``len(submit)`` jobs.

    Estimates (``estimate``, ``estimate_at_start``) start unknown (NaN),
    priority keys at 0 and ``estimate_history`` at ``ESTIMATE_FINAL``; the caller fills them,
    or ``predictor`` (a :class:`~._online_predictors.PredictorState`; default:
    none) fills them at each arrival.
    """
    n = len(submit)

    def ints(fill=0):
        return np.full(n, fill, dtype=np.int64)

    def one(value=0, dtype=np.int64):
        return np.full(1, value, dtype=dtype)

    counters = np.zeros(1, dtype=COUNTERS)
    counters["wakeup"] = np.inf
    counters["free"] = free
    counters["epoch"] = NO_EPOCH
    profile = Profile(times=np.empty(2 * n + 4), free=np.empty(2 * n + 4, dtype=np.int64),
                      length=one(1), running_max=np.empty(2 * n + 4, dtype=np.int64),
                      running_min=np.empty(2 * n + 4, dtype=np.int64))
    profile.times[0] = -np.inf
    profile.free[0] = free
    return EngineState(
        jobs=JobTable(
            submit=submit, duration=duration, width=width, estimate=np.full(n, np.nan),
            estimate_at_start=np.full(n, np.nan), request=request, priority_key=np.zeros(n),
            user=user, successor=successor, estimate_history=ints(ESTIMATE_FINAL),
            start=np.full(n, np.nan), end=np.full(n, np.nan),
            backfilled=np.zeros(n, dtype=np.bool_), current_estimate=np.full(n, np.nan),
            extensions=ints()),
        queue=Queue(jobs=ints(), length=one(), narrowest=one()),
        running=RunningSet(end_times=np.empty(n), jobs=ints(), length=one()),
        completions=EventHeap(times=np.empty(n), jobs=ints(), length=one()),
        expiries=EventHeap(times=np.empty(n), jobs=ints(), length=one()),
        completed=ints(), pending=ints(), usage=np.zeros(max(n_users, 1)),
        profile=profile,
        reservations=Reservations(start=np.full(n, np.nan), promised=np.full(n, np.nan),
                                  compress_due=one(False, np.bool_),
                                  repair_due=one(False, np.bool_),
                                  next_start=one(np.inf, np.float64), count=one(),
                                  gaps=GapIndex(
                                      times=np.empty(GAP_SEGMENTS),
                                      free=np.empty(GAP_SEGMENTS, dtype=np.int64),
                                      longest=np.empty((GAP_LEVELS, GAP_SEGMENTS)),
                                      length=one(), levels=one(), built=one(),
                                      changed=np.full((2, GAP_SPANS), -np.inf),
                                      stale=one(),
                                      run=np.array([np.inf, -np.inf, np.inf]),
                                      ruled_out=np.full((GAP_LEVELS, GAP_SPANS), -np.inf),
                                      ruled_length=np.full((GAP_LEVELS, GAP_SPANS), np.inf),
                                      ruling=one())),
        scratch=Scratch(sort_keys=np.empty(n), sort_index=ints(), sort_buffer=ints(),
                        priority_order=ints(), backfill_order=ints()),
        counters=counters,
        starvation=StarvationQueue(jobs=ints(), length=one(), since=np.full(n, np.nan),
                                   candidates=ints(), user_mark=np.full(max(n_users, 1), -1),
                                   stamp=one()),
        predictor=empty_state() if predictor is None else predictor,
    )


@njit(cache=True, inline="always", _nrt=False)
def extend_estimate(est, req, mode, n_ext):
    """New estimate of a running job that reached its estimate.

    ``"double"`` doubles it (Klusacek & Soysal 2019 section 2.2),
    ``"increments"`` adds the next of :data:`INCREMENTS` (then 100 h each
    time), ``"request"`` jumps to the request; all are capped at the request.
    A job already past its request (not killed) keeps growing uncapped, by
    doubling (or by the increments in ``"increments"`` mode).
    """
    if mode == UNDER_REQUEST and est < req and np.isfinite(req):
        return req
    if mode == UNDER_INCREMENTS:
        new = est + INCREMENTS[min(n_ext, len(INCREMENTS) - 1)]
    else:
        new = 2.0 * est
    if est < req and new > req:
        new = req
    return new


# ----------------------------------------------------------------- the queue


@njit(cache=True, inline="always", _nrt=False)
def _ahead(jobs, a, b):
    ka = jobs.priority_key[a]
    kb = jobs.priority_key[b]
    if ka != kb:
        return ka < kb
    if jobs.submit[a] != jobs.submit[b]:
        return jobs.submit[a] < jobs.submit[b]
    return a < b


@njit(cache=True, inline="always", _nrt=False)
def _queue_insert(s, j):
    """Arrival: queue job ``j`` in static priority order; keeps ``queue.narrowest``."""
    queue = s.queue
    n = queue.length[0]
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if _ahead(s.jobs, queue.jobs[mid], j):
            lo = mid + 1
        else:
            hi = mid
    shift_right(queue.jobs, lo, n)
    queue.jobs[lo] = j
    queue.length[0] = n + 1
    if n == 0 or s.jobs.width[j] < queue.narrowest[0]:
        queue.narrowest[0] = s.jobs.width[j]


@njit(cache=True, _nrt=False)
def finish_pass(s, order, started_before):
    """After a pass: flag backfilled jobs and drop started ones from the queue.

    A job is backfilled when it starts while a job ahead of it in ``order``
    keeps waiting. Afterwards the queue holds exactly the jobs not started,
    still in static order, and ``queue.narrowest`` is their narrowest width.
    """
    if s.counters[0].n_started == started_before:
        return
    jobs = s.jobs
    waiting = False
    for j in order:
        if np.isnan(jobs.start[j]):
            waiting = True
        elif waiting:
            jobs.backfilled[j] = True
    queue = s.queue
    out = 0
    narrowest = np.int64(2 ** 62)
    for k in range(queue.length[0]):
        j = queue.jobs[k]
        if np.isnan(jobs.start[j]):
            queue.jobs[out] = j
            out += 1
            if jobs.width[j] < narrowest:
                narrowest = jobs.width[j]
    queue.length[0] = out
    queue.narrowest[0] = narrowest


@njit(cache=True, inline="always", _nrt=False)
def priority_order(s, prio, now):
    """Waiting jobs, highest priority first (ties: submit time, then job)."""
    n = s.queue.length[0]
    order = s.queue.jobs[:n]
    if prio == PRIO_STATIC:
        return order
    jobs = s.jobs
    scratch = s.scratch
    keys = scratch.sort_keys
    for k in range(n):
        j = order[k]
        if prio == PRIO_WFP:
            ratio = (now - jobs.submit[j]) / jobs.estimate[j]
            keys[k] = -(ratio * ratio * ratio) * jobs.width[j]
        else:
            keys[k] = s.usage[jobs.user[j]]
    stable_order(keys, order, scratch.priority_order, scratch.sort_index, scratch.sort_buffer, n)
    return scratch.priority_order[:n]


@njit(cache=True, inline="always", _nrt=False)
def backfill_order(s, candidates, bf_sjf):
    """Backfill candidates in the order they are tried: as given, or by estimate."""
    if not bf_sjf:
        return candidates
    n = len(candidates)
    scratch = s.scratch
    keys = scratch.sort_keys
    for k in range(n):
        keys[k] = s.jobs.estimate[candidates[k]]
    stable_order(keys, candidates, scratch.backfill_order, scratch.sort_index,
                 scratch.sort_buffer, n)
    return scratch.backfill_order[:n]


# -------------------------------------------------------------- job events


@njit(cache=True, inline="always", _nrt=False)
def start_job(s, j, now):
    """Start waiting job ``j`` at ``now`` (the caller checked that it fits).

    Keeps: ``free`` is the machine minus the running widths; the running set
    holds ``j`` at ``now + estimate_at_start``; its completion and, if it
    outlives that estimate, its expiry are in the heaps.
    """
    jobs = s.jobs
    c = s.counters[0]
    jobs.start[j] = now
    c.n_started += 1
    est = jobs.estimate_at_start[j]
    jobs.current_estimate[j] = est
    c.free -= jobs.width[j]
    running_insert(s.running, now + est, j)
    heap_push(s.completions, now + jobs.duration[j], j)
    # compare instants, not durations: at large clock values now + est can
    # round to now + dur although est < dur, and the job must then just end
    if now + jobs.duration[j] > now + est:
        heap_push(s.expiries, now + est, j)


@njit(cache=True, _nrt=False)
def _complete(s, j, now):
    """Completion: free ``j``'s processors, charge its user, submit its next piece.

    Returns the end the running set expected. Keeps ``completed[:n_done]``
    the jobs ended so far, in order.
    """
    jobs = s.jobs
    c = s.counters[0]
    w = jobs.width[j]
    expected = jobs.start[j] + jobs.current_estimate[j]
    running_remove(s.running, expected, j)
    c.free += w
    jobs.end[j] = now
    s.usage[jobs.user[j]] += w * jobs.duration[j]
    s.completed[c.n_done] = j
    c.n_done += 1
    if jobs.successor[j] >= 0:
        piece = jobs.successor[j]
        jobs.submit[piece] = now
        s.pending[c.n_pending] = piece
        c.n_pending += 1
    return expected


@njit(cache=True, _nrt=False)
def _arrive(s, n_regular, now):
    """Arrivals: queue the pieces submitted at ``now``, then the jobs submitted at ``now``.

    Keeps: the queue sorted by (priority key, submit time, job); every
    regular job before ``next_arrival`` has been queued.
    """
    c = s.counters[0]
    for k in range(c.n_pending):
        _queue_insert(s, s.pending[k])
    c.n_pending = 0
    while c.next_arrival < n_regular and s.jobs.submit[c.next_arrival] == now:
        _queue_insert(s, c.next_arrival)
        c.next_arrival += 1


@njit(cache=True, _nrt=False)
def _extend(s, j, under):
    """Expiry: running job ``j`` reached its estimate; extend it (:func:`extend_estimate`).

    Keeps the running set sorted by the new expected end and re-arms the
    expiry while the job still outlives it. Returns ``(old_end, new_end)``.
    """
    jobs = s.jobs
    old = jobs.start[j] + jobs.current_estimate[j]
    running_remove(s.running, old, j)
    jobs.current_estimate[j] = extend_estimate(jobs.current_estimate[j], jobs.request[j], under,
                                               jobs.extensions[j])
    jobs.extensions[j] += 1
    new = jobs.start[j] + jobs.current_estimate[j]
    running_insert(s.running, new, j)
    if jobs.start[j] + jobs.duration[j] > new:
        heap_push(s.expiries, new, j)
    return old, new


@njit(cache=True, inline="always", _nrt=False)
def _decay_usage(s, settings, now):
    """Fairshare: multiply usage by ``factor`` once per period boundary passed."""
    c = s.counters[0]
    epoch = np.int64(np.floor(now / settings.fairshare_period))
    if epoch > c.epoch:
        if c.epoch > NO_EPOCH:
            decay = settings.fairshare_factor ** (epoch - c.epoch)
            for u in range(len(s.usage)):
                s.usage[u] *= decay
        c.epoch = epoch


@njit(cache=True, inline="always", _nrt=False)
def _next_instant(s, n_regular):
    """Earliest of the next arrival, completion, expiry and policy wake-up."""
    c = s.counters[0]
    now = np.inf
    if c.next_arrival < n_regular:
        now = s.jobs.submit[c.next_arrival]
    if s.completions.length[0] > 0 and s.completions.times[0] < now:
        now = s.completions.times[0]
    if s.expiries.length[0] > 0 and s.expiries.times[0] < now:
        now = s.expiries.times[0]
    if c.wakeup < now:
        now = c.wakeup
    return now


# ------------------------------------------------------------- the seam


@njit(cache=True, inline="always", _nrt=False)
def ignore_completion(s, j, now, expected_end):
    """``on_completion`` of a policy that plans nothing ahead."""


@njit(cache=True, inline="always", _nrt=False)
def ignore_extension(s, j, now, old_end, new_end):
    """``on_extension`` of a policy that plans nothing ahead."""


@njit(cache=True, inline="always", _nrt=False)
def event_loop(s, settings, on_completion, on_extension, schedule):
    """Advance the simulation; return ``NEED_ESTIMATES``, ``NO_ESTIMATE`` or ``DONE``.

    Each policy compiles this loop with its own hooks (``run`` in its
    module). With ``settings.online`` the loop stops (returning
    ``NEED_ESTIMATES``) at ``counters.now``, after the completions of that
    instant and before its arrivals, when the estimate of the next arriving
    job ``counters.next_arrival`` was not made from the history of the
    ``counters.n_done`` jobs completed so far (``jobs.estimate_history``);
    fill ``estimate``, ``estimate_at_start``, ``priority_key`` and
    ``estimate_history`` and call again.

    With a compiled predictor (``s.predictor``, see
    :mod:`._online_predictors`) the loop does not stop: each completion
    enters its history and the arrivals of an instant are estimated from it
    before they are queued. It returns ``NO_ESTIMATE`` (for good) at a job
    the predictor leaves without an estimate (``predictor.config.failed``).
    """
    jobs = s.jobs
    c = s.counters[0]
    n_regular = settings.n_jobs
    predictor = s.predictor
    predicting = predictor.config[0].kind != KIND_NONE
    while True:
        if c.resume == 0:
            now = _next_instant(s, n_regular)
            if now == np.inf:
                return DONE
            c.now = now
            if settings.priority == PRIO_FAIRSHARE or settings.starvation_bar_heavy:
                _decay_usage(s, settings, now)
            while s.completions.length[0] > 0 and s.completions.times[0] == now:
                _, j = heap_pop(s.completions)
                expected = _complete(s, j, now)
                if predicting:
                    observe_completion(predictor, jobs, j, now)
                on_completion(s, j, now, expected)
            if settings.online and c.next_arrival < n_regular \
                    and jobs.submit[c.next_arrival] == now:
                seen = jobs.estimate_history[c.next_arrival]
                if seen != ESTIMATE_FINAL and seen != c.n_done:
                    c.resume = 1
                    return NEED_ESTIMATES
        else:
            c.resume = 0
            now = c.now
        if predicting and not estimate_arrivals(predictor, jobs, c.next_arrival, n_regular, now):
            return NO_ESTIMATE
        _arrive(s, n_regular, now)
        while s.expiries.length[0] > 0 and s.expiries.times[0] == now:
            _, j = heap_pop(s.expiries)
            old, new = _extend(s, j, settings.underestimate)
            on_extension(s, j, now, old, new)
        order = priority_order(s, settings.priority, now)
        started_before = c.n_started
        c.wakeup = schedule(s, order, now, settings)
        finish_pass(s, order, started_before)

"""The compiled event loop of the simulator.

One scheduling *pass* runs at every instant at which something happens. At an
instant the events are handled in a fixed order: job completions (by job
index), then arrivals, then running jobs outliving their estimate, then one
pass. Everything here works on plain arrays held by :class:`State`; the loop
can stop before the arrivals of an instant whose estimates are not known yet
(runtime predictors are asked in Python) and resume where it stopped.

Policies (Leung et al. 2010 section I; Tsafrir et al. 2005 section 1):

* ``FCFS`` - start jobs in priority order until one does not fit.
* ``EASY`` - as FCFS, then a reservation for the first job that does not fit
  (its *shadow time*), and backfilling of the others that do not delay it.
* ``DEPTH`` - the first ``depth`` blocked jobs get reservations, recomputed at
  every pass; ``depth=0`` is no-guarantee backfilling.
* ``CONSERVATIVE`` - every job gets a reservation at arrival that is never
  moved later while estimates hold; early completions compress the schedule
  by removing and re-inserting each reservation in priority order
  (Mu'alem & Feitelson; Klusacek & Soysal 2019 section 3.1).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ._profile import (
    heap_pop,
    heap_push,
    profile_add,
    profile_advance,
    profile_compact,
    profile_earliest,
    profile_fits,
    profile_min,
    profile_reset,
    running_insert,
    running_remove,
    shift_right,
    stable_order,
)

FCFS, EASY, DEPTH, CONSERVATIVE = 0, 1, 2, 3
PRIO_STATIC, PRIO_WFP, PRIO_FAIRSHARE = 0, 1, 2
UNDER_DOUBLE, UNDER_INCREMENTS, UNDER_REQUEST = 0, 1, 2
NEED_ESTIMATES, DONE = 1, 0

# Positions in State.ints
AP, QN, RN, CN, XN, FREE, RESUME, NDONE, PN, EPOCH, FREED, EXT, PS, NSTART, MINW = range(15)
N_INTS = 15

INCREMENTS = np.array([60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0,
                       36000.0, 72000.0, 180000.0, 360000.0])
"""Tsafrir, Etsion & Feitelson (2007): 1 min, 5 min, 15 min, ..., 100 h."""

State = namedtuple("State", [
    # per job (regular jobs first, sorted by submit time then job id; pieces after)
    "submit", "dur", "width", "est_w", "est_r", "req", "key", "user", "succ", "hist",
    "start", "end", "backfilled", "promised", "cur_est", "n_ext", "rs",
    # queue, running list, event heaps, completion log, pending pieces
    "queue", "rtimes", "rjobs", "ck", "cv", "xk", "xv", "done", "pend",
    # availability profile, fairshare usage, scalars
    "T", "F", "usage", "ints", "now",
    # scratch: sort keys and indices, priority and backfill orders, profile maxima
    "skeys", "sidx", "stmp", "porder", "border", "pmax",
])


def new_state(submit, dur, width, est_w, est_r, req, key, user, succ, n_users, free):
    """Allocate the simulation state for ``len(submit)`` jobs.

    ``hist[j]`` says which history an estimate ``est_w[j]`` was made from: the
    number of completed jobs the predictor had seen (-1: none made yet, -2:
    accept it whatever the history).
    """
    n = len(submit)
    ints = np.zeros(N_INTS, dtype=np.int64)
    ints[FREE] = free
    ints[EPOCH] = -(2 ** 62)
    ints[PS] = 1
    T = np.empty(2 * n + 4)
    F = np.empty(2 * n + 4, dtype=np.int64)
    T[0] = -np.inf
    F[0] = free
    return State(
        submit=submit, dur=dur, width=width, est_w=est_w, est_r=est_r, req=req,
        key=key, user=user, succ=succ, hist=np.full(n, -2, dtype=np.int64),
        start=np.full(n, np.nan), end=np.full(n, np.nan),
        backfilled=np.zeros(n, dtype=np.bool_), promised=np.full(n, np.nan),
        cur_est=np.full(n, np.nan), n_ext=np.zeros(n, dtype=np.int64),
        rs=np.full(n, np.nan),
        queue=np.empty(n, dtype=np.int64), rtimes=np.empty(n), rjobs=np.empty(n, dtype=np.int64),
        ck=np.empty(n), cv=np.empty(n, dtype=np.int64),
        xk=np.empty(n), xv=np.empty(n, dtype=np.int64),
        done=np.empty(n, dtype=np.int64), pend=np.empty(n, dtype=np.int64),
        T=T, F=F,
        usage=np.zeros(max(n_users, 1)), ints=ints, now=np.array([0.0, np.inf]),
        skeys=np.empty(n), sidx=np.empty(n, dtype=np.int64), stmp=np.empty(n, dtype=np.int64),
        porder=np.empty(n, dtype=np.int64), border=np.empty(n, dtype=np.int64),
        pmax=np.empty(2 * n + 4, dtype=np.int64),
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
def _ahead(s, a, b):
    ka = s.key[a]
    kb = s.key[b]
    if ka != kb:
        return ka < kb
    if s.submit[a] != s.submit[b]:
        return s.submit[a] < s.submit[b]
    return a < b


@njit(cache=True, inline="always", _nrt=False)
def _queue_insert(s, j):
    n = s.ints[QN]
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if _ahead(s, s.queue[mid], j):
            lo = mid + 1
        else:
            hi = mid
    shift_right(s.queue, lo, n)
    s.queue[lo] = j
    s.ints[QN] = n + 1
    if n == 0 or s.width[j] < s.ints[MINW]:
        s.ints[MINW] = s.width[j]


@njit(cache=True, inline="always", _nrt=False)
def _mark_backfilled(s, order, now):
    """A job is backfilled when it starts while a job ahead of it keeps waiting."""
    waiting = False
    for j in order:
        if np.isnan(s.start[j]):
            waiting = True
        elif waiting:
            s.backfilled[j] = True


@njit(cache=True, inline="always", _nrt=False)
def _queue_drop_started(s):
    n = s.ints[QN]
    out = 0
    narrowest = np.int64(2 ** 62)
    for k in range(n):
        j = s.queue[k]
        if np.isnan(s.start[j]):
            s.queue[out] = j
            out += 1
            if s.width[j] < narrowest:
                narrowest = s.width[j]
    s.ints[QN] = out
    s.ints[MINW] = narrowest


@njit(cache=True, inline="always", _nrt=False)
def _after_pass(s, order, started_before):
    """Flag backfilled jobs and drop started ones, if the pass started any."""
    if s.ints[NSTART] == started_before:
        return
    _mark_backfilled(s, order, s.now[0])
    _queue_drop_started(s)


@njit(cache=True, inline="always", _nrt=False)
def _priority_order(s, prio, now):
    """Waiting jobs, highest priority first (ties: submit time, then job)."""
    n = s.ints[QN]
    order = s.queue[:n]
    if prio == PRIO_STATIC:
        return order
    keys = s.skeys
    for k in range(n):
        j = order[k]
        if prio == PRIO_WFP:
            ratio = (now - s.submit[j]) / s.est_w[j]
            keys[k] = -(ratio * ratio * ratio) * s.width[j]
        else:
            keys[k] = s.usage[s.user[j]]
    stable_order(keys, order, s.porder, s.sidx, s.stmp, n)
    return s.porder[:n]


@njit(cache=True, inline="always", _nrt=False)
def _backfill_order(s, candidates, bf_sjf):
    if not bf_sjf:
        return candidates
    n = len(candidates)
    keys = s.skeys
    for k in range(n):
        keys[k] = s.est_w[candidates[k]]
    stable_order(keys, candidates, s.border, s.sidx, s.stmp, n)
    return s.border[:n]


# ------------------------------------------------------------- job starts


@njit(cache=True, inline="always", _nrt=False)
def _start(s, j, now):
    s.start[j] = now
    s.ints[NSTART] += 1
    est = s.est_r[j]
    s.cur_est[j] = est
    s.ints[FREE] -= s.width[j]
    running_insert(s.rtimes, s.rjobs, s.ints, RN, now + est, j)
    heap_push(s.ck, s.cv, s.ints, CN, now + s.dur[j], j)
    # compare instants, not durations: at large clock values now + est can
    # round to now + dur although est < dur, and the job must then just end
    if now + s.dur[j] > now + est:
        heap_push(s.xk, s.xv, s.ints, XN, now + est, j)


# ------------------------------------------------------------------ passes


@njit(cache=True, inline="always", _nrt=False)
def _pass_fcfs(s, order, now):
    for j in order:
        if s.width[j] > s.ints[FREE]:
            break
        _start(s, j, now)


@njit(cache=True, inline="always", _nrt=False)
def _pass_easy(s, order, now, bf_sjf):
    q = len(order)
    pos = 0
    while pos < q and s.width[order[pos]] <= s.ints[FREE]:
        _start(s, order[pos], now)
        pos += 1
    # s.ints[MINW] is at most the narrowest waiting job: nothing can backfill below it
    if pos >= q - 1 or s.ints[FREE] < s.ints[MINW]:
        return
    head = order[pos]
    need = s.width[head]
    avail = s.ints[FREE]
    rn = s.ints[RN]
    k = 0
    shadow = now
    while avail < need:
        avail += s.width[s.rjobs[k]]
        shadow = s.rtimes[k]
        k += 1
    while k < rn and s.rtimes[k] == shadow:
        avail += s.width[s.rjobs[k]]
        k += 1
    extra = avail - need
    for j in _backfill_order(s, order[pos + 1:], bf_sjf):
        free = s.ints[FREE]
        if free == 0:
            break
        w = s.width[j]
        if w > free:
            continue
        if now + s.est_w[j] <= shadow or w <= extra:
            _start(s, j, now)
            if now + s.est_r[j] > shadow:
                extra -= w


@njit(cache=True, inline="always", _nrt=False)
def _pass_depth(s, order, now, depth, bf_sjf):
    T = s.T
    F = s.F
    size = s.ints
    profile_reset(T, F, size, PS, now, s.ints[FREE], s.rtimes, s.rjobs, s.ints[RN], s.width)
    q = len(order)
    pos = 0
    reserved = 0
    while pos < q and reserved < depth:
        j = order[pos]
        w = s.width[j]
        if profile_fits(T, F, size, PS, now, w, s.est_w[j]):
            _start(s, j, now)
            profile_add(T, F, size, PS, now, now + s.est_r[j], -w)
        else:
            t = profile_earliest(T, F, size, PS, w, s.est_w[j])
            profile_add(T, F, size, PS, t, t + s.est_w[j], -w)
            reserved += 1
        pos += 1
    if s.ints[FREE] < s.ints[MINW]:
        return
    for j in _backfill_order(s, order[pos:], bf_sjf):
        if s.ints[FREE] == 0:
            break
        w = s.width[j]
        if profile_fits(T, F, size, PS, now, w, s.est_w[j]):
            _start(s, j, now)
            profile_add(T, F, size, PS, now, now + s.est_r[j], -w)


@njit(cache=True, inline="always", _nrt=False)
def _move(s, j, size):
    """Remove job ``j``'s reservation and re-insert it at the earliest slot."""
    w = s.width[j]
    d = s.est_w[j]
    profile_add(s.T, s.F, size, PS, s.rs[j], s.rs[j] + d, w)
    t = profile_earliest(s.T, s.F, size, PS, w, d)
    profile_add(s.T, s.F, size, PS, t, t + d, -w)
    moved = t != s.rs[j]
    s.rs[j] = t
    return moved


@njit(cache=True, _nrt=False)
def _prefix_max(F, p, out):
    high = F[0]
    for k in range(p):
        if F[k] > high:
            high = F[k]
        out[k] = high
    return out


@njit(cache=True, inline="always", _nrt=False)
def _compress(s, order, now):
    """Remove and re-insert each reservation in priority order (never later).

    A job can only move if some segment before its reservation has room for
    it; the running maximum of the profile answers that without a scan, and
    is rebuilt after each re-insertion.
    """
    size = s.ints
    best = _prefix_max(s.F, size[PS], s.pmax)
    for j in order:
        t = s.rs[j]
        if not t > now:
            continue
        before = np.searchsorted(s.T[:size[PS]], t)
        if before > 0 and best[before - 1] >= s.width[j]:
            _move(s, j, size)
            best = _prefix_max(s.F, size[PS], s.pmax)


@njit(cache=True, inline="always", _nrt=False)
def _repair(s, order, size):
    """Move the reservations that overlap an overcommitted part of the profile."""
    moved = False
    for j in order:
        if np.isnan(s.start[j]) and not np.isnan(s.rs[j]):
            if profile_min(s.T, s.F, size, PS, s.rs[j], s.rs[j] + s.est_w[j]) < 0:
                moved |= _move(s, j, size)
    return moved


@njit(cache=True, inline="always", _nrt=False)
def _next_reservation(s):
    """Earliest reserved start: a pass must run then even if nothing else happens."""
    wake = np.inf
    for k in range(s.ints[QN]):
        t = s.rs[s.queue[k]]
        if t < wake:
            wake = t
    return wake


@njit(cache=True, inline="always", _nrt=False)
def _pass_conservative(s, order, now):
    size = s.ints
    if s.ints[EXT]:
        if _repair(s, order, size):
            s.ints[FREED] = 1
    if s.ints[FREED]:
        _compress(s, order, now)
    for j in order:
        if np.isnan(s.rs[j]):
            d = s.est_w[j]
            t = profile_earliest(s.T, s.F, size, PS, s.width[j], d)
            profile_add(s.T, s.F, size, PS, t, t + d, -s.width[j])
            s.rs[j] = t
            s.promised[j] = t
    while True:
        extended = False
        for j in order:
            if np.isnan(s.start[j]) and s.rs[j] == now:
                _start(s, j, now)
                if s.est_r[j] > s.est_w[j]:
                    profile_add(s.T, s.F, size, PS, now + s.est_w[j], now + s.est_r[j], -s.width[j])
                    extended = True
        if not extended or not _repair(s, order, size):
            break
    s.ints[FREED] = 0
    s.ints[EXT] = 0
    profile_compact(s.T, s.F, size, PS)


# --------------------------------------------------------------- event loop


@njit(cache=True, _nrt=False)
def run(s, n_regular, policy, depth, prio, bf_sjf, under, fs_period, fs_factor, online):
    """Advance the simulation; return ``NEED_ESTIMATES`` or ``DONE``.

    With ``online`` the loop stops (returning ``NEED_ESTIMATES``) at
    ``s.now[0]``, after the completions of that instant and before its
    arrivals, when the estimate of the next arriving job ``s.ints[AP]`` was
    not made from the history of the ``s.ints[NDONE]`` jobs completed so far
    (``s.hist``); fill ``est_w``, ``est_r``, ``key`` and ``hist`` and call
    again.
    """
    ints = s.ints
    conservative = policy == CONSERVATIVE
    while True:
        if ints[RESUME] == 0:
            now = np.inf
            if ints[AP] < n_regular:
                now = s.submit[ints[AP]]
            if ints[CN] > 0 and s.ck[0] < now:
                now = s.ck[0]
            if ints[XN] > 0 and s.xk[0] < now:
                now = s.xk[0]
            if s.now[1] < now:
                now = s.now[1]
            if now == np.inf:
                return DONE
            s.now[0] = now
            if prio == PRIO_FAIRSHARE:
                epoch = np.int64(np.floor(now / fs_period))
                if epoch > ints[EPOCH]:
                    if ints[EPOCH] > -(2 ** 62):
                        decay = fs_factor ** (epoch - ints[EPOCH])
                        for u in range(len(s.usage)):
                            s.usage[u] *= decay
                    ints[EPOCH] = epoch
            if conservative:
                profile_advance(s.T, s.F, ints, PS, now)
            while ints[CN] > 0 and s.ck[0] == now:
                _, j = heap_pop(s.ck, s.cv, ints, CN)
                w = s.width[j]
                expected = s.start[j] + s.cur_est[j]
                running_remove(s.rtimes, s.rjobs, ints, RN, expected, j)
                ints[FREE] += w
                if conservative and expected > now:
                    profile_add(s.T, s.F, ints, PS, now, expected, w)
                    ints[FREED] = 1
                s.end[j] = now
                s.usage[s.user[j]] += w * s.dur[j]
                s.done[ints[NDONE]] = j
                ints[NDONE] += 1
                if s.succ[j] >= 0:
                    piece = s.succ[j]
                    s.submit[piece] = now
                    s.pend[ints[PN]] = piece
                    ints[PN] += 1
            if online and ints[AP] < n_regular and s.submit[ints[AP]] == now:
                h = s.hist[ints[AP]]
                if h != -2 and h != ints[NDONE]:
                    ints[RESUME] = 1
                    return NEED_ESTIMATES
        else:
            ints[RESUME] = 0
            now = s.now[0]
        for k in range(ints[PN]):
            _queue_insert(s, s.pend[k])
        ints[PN] = 0
        while ints[AP] < n_regular and s.submit[ints[AP]] == now:
            _queue_insert(s, ints[AP])
            ints[AP] += 1
        while ints[XN] > 0 and s.xk[0] == now:
            _, j = heap_pop(s.xk, s.xv, ints, XN)
            old = s.start[j] + s.cur_est[j]
            running_remove(s.rtimes, s.rjobs, ints, RN, old, j)
            s.cur_est[j] = extend_estimate(s.cur_est[j], s.req[j], under, s.n_ext[j])
            s.n_ext[j] += 1
            new = s.start[j] + s.cur_est[j]
            running_insert(s.rtimes, s.rjobs, ints, RN, new, j)
            if conservative:
                profile_add(s.T, s.F, ints, PS, old, new, -s.width[j])
                ints[EXT] = 1
            if s.start[j] + s.dur[j] > new:
                heap_push(s.xk, s.xv, ints, XN, new, j)
        if ints[QN] == 0:
            s.now[1] = np.inf
            ints[FREED] = 0
            ints[EXT] = 0
            if conservative:
                profile_compact(s.T, s.F, ints, PS)
            continue
        order = _priority_order(s, prio, now)
        started_before = ints[NSTART]
        if policy == FCFS:
            _pass_fcfs(s, order, now)
        elif policy == EASY:
            _pass_easy(s, order, now, bf_sjf)
        elif policy == DEPTH:
            _pass_depth(s, order, now, depth, bf_sjf)
        else:
            _pass_conservative(s, order, now)
        _after_pass(s, order, started_before)
        if conservative:
            s.now[1] = _next_reservation(s)

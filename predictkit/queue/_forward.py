"""Forward simulation of the known queue at a job's submission (compiled).

What Slurm's ``squeue --start`` reports, done on a coarse time grid: the
jobs running now end when their (predicted or requested) runtime says, the
queued jobs are placed in submission order at the earliest time where their
processors are free for their whole (predicted) runtime without moving a job
placed before them (conservative backfilling, Mu'alem & Feitelson 2001), and
the new job is placed last. Its start is the forecast.

The free processors are kept on a fixed grid of times after ``now``
(:data:`GRID`: 0, then 60 s growing by 20 % a step, up to about 90 days), so a
forecast costs ``O(running jobs + queued jobs x grid)`` whatever the runtimes.

A running job's end: ``start + runtime`` while its elapsed time is below the
runtime used, else ``start + request`` while below the request, else one
minute from now (overdue). Unknown values (``NaN``) fall back in the same
order; a job with neither is taken to end an hour after its start, but no
earlier than one minute from now.
"""

import numpy as np
from numba import njit

__all__ = ["GRID", "forecast_wait", "replay_forecasts"]

GRID = np.concatenate(([0.0], 60.0 * 1.2 ** np.arange(66)))
"""Times after now (seconds) at which the free processors are tracked."""

_OVERDUE = 60.0
_UNKNOWN = 3600.0


@njit(cache=True)
def _bin_after(grid, x):
    """Number of grid points strictly below ``x`` (bins a span ``[0, x)`` touches)."""
    lo, hi = 0, grid.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if grid[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _running_end(now, start, runtime, request):
    """Predicted end of a job running since ``start`` (see the module docstring)."""
    elapsed = now - start
    if runtime == runtime and runtime > elapsed:
        return start + runtime
    if request == request and request > elapsed:
        return start + request
    if runtime != runtime and request != request:
        return max(start + _UNKNOWN, now + _OVERDUE)
    return now + _OVERDUE


@njit(cache=True)
def _place(free, grid, procs, duration):
    """Earliest grid index where ``procs`` stay free for ``duration``; reserve them there.

    When no index has room (every start meets, within its span, a grid
    point with fewer than ``procs`` free: the last point lacks them), the
    last index is returned and nothing is reserved.
    """
    n = grid.shape[0]
    s = 0
    while s < n:
        stop = _bin_after(grid, grid[s] + duration)
        if stop <= s:
            stop = s + 1
        ok = True
        for k in range(s, stop):
            if free[k] < procs:
                ok = False
                s = k + 1
                break
        if ok:
            for k in range(s, stop):
                free[k] -= procs
            return s
    return n - 1


@njit(cache=True)
def _duration(runtime, request):
    if runtime == runtime:
        return runtime
    if request == request:
        return request
    return _UNKNOWN


@njit(cache=True)
def forecast_wait(now, capacity, run_start, run_procs, run_runtime, run_request,
                  queue_procs, queue_runtime, queue_request, procs, runtime, request,
                  max_queue):
    """Forecast wait (seconds) of one job submitted at ``now``, behind the queue and alone.

    Returns ``(forecast, alone)``: the job's wait (its start minus ``now``,
    a point of :data:`GRID`) in the plan with every queued job placed first,
    and its wait if the queue were empty (the earliest time the running jobs
    leave it room, what backfilling can give).

    Parameters
    ----------
    now : float
        Submission time.
    capacity : float
        Processors of the machine.
    run_start, run_procs, run_runtime, run_request : ndarray
        The running jobs: start, processors, runtime used (predicted or
        requested) and request.
    queue_procs, queue_runtime, queue_request : ndarray
        The queued jobs, in the order they are placed (submission order).
    procs, runtime, request : float
        The new job.
    max_queue : int
        At most this many queued jobs (the first ones) are placed.
    """
    grid = GRID
    free = np.full(grid.shape[0], capacity)
    for i in range(run_start.shape[0]):
        end = _running_end(now, run_start[i], run_runtime[i], run_request[i])
        stop = _bin_after(grid, end - now)
        p = min(run_procs[i], capacity)
        for k in range(stop):
            free[k] -= p
    width = min(procs, capacity)
    duration = _duration(runtime, request)
    alone = grid[_place(free.copy(), grid, width, duration)]
    n_queue = min(queue_procs.shape[0], max_queue)
    for i in range(n_queue):
        _place(free, grid, min(queue_procs[i], capacity),
               _duration(queue_runtime[i], queue_request[i]))
    return grid[_place(free, grid, width, duration)], alone



@njit(cache=True)
def _replay_kernel(submit, start, end, procs, width, runtime, request, capacity_given,
                   max_queue):
    """One pass over the submission instants in time order (see :func:`replay_forecasts`).

    Keeps, at each instant ``t`` before its forecasts: the running set
    (``run_list[:n_run]``, ``run_pos``) holds the jobs started at or before
    ``t`` and not ended by ``t``; the queue (a list linked through ``nxt``
    and ``prv`` from the sentinel ``n``) holds the jobs submitted before
    ``t`` that start after it, in submission order; with ``capacity_given``
    NaN, ``capacity`` is the most processors seen in use at an instant by
    jobs not submitted at it, or asked for by one of the first
    ``max_queue`` queued jobs or by a job submitted at it, so far.
    """
    n = submit.shape[0]
    out = np.full(n, np.nan)
    alone = np.full(n, np.nan)
    caps = np.full(n, np.nan)
    by_submit = np.argsort(submit, kind="mergesort")
    started = np.isfinite(start)
    n_started = int(started.sum())
    start_idx = np.flatnonzero(started)
    by_start = start_idx[np.argsort(start[start_idx], kind="mergesort")]
    by_end = start_idx[np.argsort(end[start_idx], kind="mergesort")]
    # running set: positions in run_list, swap-removed
    run_list = np.empty(n, np.int64)
    run_pos = np.full(n, -1)
    n_run = 0
    # queue: doubly linked list in submission order
    nxt = np.full(n + 1, -1)
    prv = np.full(n + 1, -1)
    head = n  # sentinel
    nxt[head] = head
    prv[head] = head
    in_queue = np.zeros(n, np.bool_)
    capacity = capacity_given
    learned = capacity_given != capacity_given
    if learned:
        capacity = 0.0
    i_start = 0
    i_end = 0
    pos = 0
    run_start = np.empty(n, np.float64)
    run_procs = np.empty(n, np.float64)
    run_rt = np.empty(n, np.float64)
    run_rq = np.empty(n, np.float64)
    q_procs = np.empty(max_queue, np.float64)
    q_rt = np.empty(max_queue, np.float64)
    q_rq = np.empty(max_queue, np.float64)
    in_batch = np.zeros(n, np.bool_)
    while pos < n:
        t = submit[by_submit[pos]]
        stop = pos
        while stop < n and submit[by_submit[stop]] == t:
            stop += 1
        while i_start < n_started and start[by_start[i_start]] <= t:
            j = by_start[i_start]
            i_start += 1
            if in_queue[j]:
                in_queue[j] = False
                a, b = prv[j], nxt[j]
                nxt[a] = b
                prv[b] = a
            run_list[n_run] = j
            run_pos[j] = n_run
            n_run += 1
        while i_end < n_started and end[by_end[i_end]] <= t:
            j = by_end[i_end]
            i_end += 1
            if run_pos[j] >= 0:
                p = run_pos[j]
                last = run_list[n_run - 1]
                run_list[p] = last
                run_pos[last] = p
                run_pos[j] = -1
                n_run -= 1
        for b in range(pos, stop):
            in_batch[by_submit[b]] = True
        m = 0
        used = 0.0
        for r in range(n_run):
            j = run_list[r]
            if in_batch[j]:
                continue
            run_start[m] = start[j]
            run_procs[m] = width[j]
            run_rt[m] = runtime[j]
            run_rq[m] = request[j]
            used += width[j]
            m += 1
        nq = 0
        big = 0.0
        j = nxt[head]
        while j != head and nq < max_queue:
            q_procs[nq] = procs[j]
            q_rt[nq] = runtime[j]
            q_rq[nq] = request[j]
            big = max(big, procs[j])
            nq += 1
            j = nxt[j]
        if learned:
            capacity = max(capacity, used, big)
            for b in range(pos, stop):
                capacity = max(capacity, procs[by_submit[b]])
        for b in range(pos, stop):
            j = by_submit[b]
            out[j], alone[j] = forecast_wait(t, capacity, run_start[:m], run_procs[:m], run_rt[:m],
                                   run_rq[:m], q_procs[:nq], q_rt[:nq], q_rq[:nq], procs[j],
                                   runtime[j], request[j], max_queue)
            caps[j] = capacity
        for b in range(pos, stop):
            j = by_submit[b]
            in_batch[j] = False
            if started[j] and start[j] > t:
                in_queue[j] = True
                last = prv[head]
                nxt[last] = j
                prv[j] = last
                nxt[j] = head
                prv[head] = j
        pos = stop
    return out, alone, caps


def replay_forecasts(submit, start, end, procs, width, runtime, request, *, capacity=None,
                     max_queue=512):
    """The forecast wait of every job at its submission, from what was known then.

    At each submission time ``t``: the running jobs are those started at or
    before ``t`` and not ended by ``t`` (jobs submitted at ``t`` left out),
    the queue is the jobs submitted before ``t`` that start after it, in
    submission order. Only starts and ends at or before ``t`` are used; a
    running job's runtime is used only as its prediction, given in
    ``runtime`` (which the caller must have made without peeking).

    Parameters
    ----------
    submit, start, end, procs, width, runtime, request : array-like of float
        Per job; ``start``/``end`` ``NaN`` for a job whose start is unknown
        (it never enters the running set or the queue). ``procs`` is the
        width known at submission (requested processors), used for queued
        and new jobs; ``width`` the processors a running job holds.
    capacity : float or None
        Processors of the machine; ``None`` learns it online as the largest
        of the processors in use at a submission and of any job's width seen.
    max_queue : int
        Queued jobs placed ahead of a new job, at most.

    Returns
    -------
    forecast, alone, capacity : ndarray
        The forecast wait behind the queue, the earliest start if the queue
        were empty (see :func:`forecast_wait`) and the capacity used, per
        job (row order).
    """
    arrays = [np.ascontiguousarray(a, dtype=np.float64)
              for a in (submit, start, end, procs, width, runtime, request)]
    cap = np.nan if capacity is None else float(capacity)
    return _replay_kernel(*arrays, cap, int(max_queue))

"""The hybrid fair-start-time fairness metric (Leung et al. 2010 section IV).

For each job, a *fair start time* (FST) is computed when it arrives: starting
from the state of the machine at that instant (the running jobs until their
actual ends, the waiting jobs), the waiting jobs are placed in fairshare
priority order by a list scheduler that keeps one completion time per
processor and starts each job at the earliest time enough processors are
free, without using holes (no backfilling). The FST of the arriving job is
its start in that list schedule; the jobs behind it in fairshare order do not
matter. A job is treated unfairly when it starts after its FST.
"""

import numpy as np
from numba import njit

from .._deprecation import UNSET, renamed_argument
from .._table import _numeric, _raise_rows, user_accounts
from .._validation import FAIRSHARE_DECAY, FAIRSHARE_FACTOR, check_parameters
from ..simulate._engine import NO_EPOCH
from ._schedule_table import _holds, _machine_procs, _table, _widths

__all__ = ["fair_start_times", "fairness_metrics"]


def fair_start_times(schedule, *, machine_procs=None, fairshare_decay=None,
                     fairshare_factor=None, n_procs=UNSET):
    """Fair start time of every job (Leung et al. 2010 section IV.A).

    Parameters
    ----------
    schedule : Schedule or DataFrame
        A simulated schedule.
    machine_procs : int, optional
        Machine size in processors (default: the schedule's).
    fairshare_decay, fairshare_factor : optional
        Fairshare usage decay (default: the schedule's parameters, else 24 h
        and 0.5): a duration > 0 and a factor in [0, 1]. Usage is the
        processor-seconds of completed jobs, as in
        :func:`predictkit.simulate.simulate` with ``priority="fairshare"``.
    n_procs : int, optional
        Deprecated name of ``machine_procs`` (warns, removed in 0.3).

    The pieces of a split job (``max_runtime``) are queued and hold their
    processors as they did (:attr:`~predictkit.simulate.Schedule.pieces`); a
    job's fair start is its first piece's. From a table of jobs alone a job
    counts as held from its start for its ``sim_run_time``.

    Returns
    -------
    ndarray of float64
        One FST per row of the schedule.
    """
    from .._time import parse_duration

    machine_procs = renamed_argument("fair_start_times", "n_procs", "machine_procs", n_procs,
                                     machine_procs)
    check_parameters({"fairshare_decay": [FAIRSHARE_DECAY, None],
                      "fairshare_factor": [FAIRSHARE_FACTOR, None]},
                     {"fairshare_decay": fairshare_decay, "fairshare_factor": fairshare_factor},
                     "fair_start_times")
    jobs = _table(schedule)
    size = _machine_procs(schedule, machine_procs, "fair_start_times")
    params = getattr(schedule, "params", {}) or {}
    period = parse_duration(fairshare_decay if fairshare_decay is not None
                            else params.get("fairshare_decay", "24h"), name="fairshare_decay")
    factor = float(fairshare_factor if fairshare_factor is not None
                   else params.get("fairshare_factor", 0.5))
    submit, start, held_end, width, row = _holds(schedule, jobs)
    if (width != np.round(width)).any():
        per_job = _widths(jobs)
        _raise_rows(jobs, per_job != np.round(per_job), "fair_start_times: widths that are no "
                    "whole number of processors")
    users = (_numeric(jobs, "user_id", "schedule") if "user_id" in jobs.columns
             else np.full(len(jobs), np.nan))  # no user known, as the simulator reads it
    codes = user_accounts(users)[0]
    order = np.lexsort((np.arange(len(submit)), submit))
    fst = _fst(submit[order], start[order], held_end[order], width[order].astype(np.int64),
               codes[row][order], size, period, factor)
    out = np.empty(len(submit))
    out[order] = fst
    # a job's fair start is its first piece's (the pieces of a job are in order)
    first = np.r_[True, row[1:] != row[:-1]]
    by_row = np.full(len(jobs), np.nan)
    by_row[row[first]] = out[first]
    return by_row


def fairness_metrics(schedule, **kwargs):
    """Share of jobs missing their fair start time and the average miss.

    Parameters
    ----------
    schedule : Schedule or DataFrame
        A simulated schedule.
    **kwargs
        Passed to :func:`fair_start_times`.

    Returns
    -------
    dict
        ``fair_start_miss_percent`` (jobs starting after their FST, in %) and
        ``mean_fair_start_miss`` (``sum(max(0, start - FST)) / n_jobs``,
        Leung et al. section IV, seconds).
    """
    return miss_metrics(fair_start_misses(schedule, **kwargs))


def fair_start_misses(schedule, **kwargs):
    """``start - FST`` of every job (positive: it started after its fair start time)."""
    jobs = _table(schedule)
    return jobs["start_time"].to_numpy(dtype=float) - fair_start_times(schedule, **kwargs)


def miss_metrics(miss):
    """:func:`fairness_metrics` of some jobs, from their :func:`fair_start_misses`."""
    return {"fair_start_miss_percent": float(100.0 * (miss > 0).mean()),
            "mean_fair_start_miss": float(np.maximum(miss, 0.0).mean())}


@njit(cache=True)
def _fst(submit, start, hold_end, width, user, size, period, factor):
    """Fair start time of every job: one pass over the arrival instants in time order.

    Keeps, at each instant ``now`` before its jobs' list schedules: ``usage``
    holds each user's processor-seconds of the jobs that released their
    processors by ``now`` (``hold_end``), decayed by ``factor`` per
    ``period`` boundary passed as the simulator decays it; ``running[:rn]``
    the jobs started before ``now`` and holding processors after it;
    ``queue[:qn]`` the jobs submitted by ``now`` that start at or after it,
    in submission order, ranked by their users' usage (stable) for
    :func:`_list_schedule`.
    """
    n = len(submit)
    by_end = np.argsort(hold_end, kind="mergesort")
    by_start = np.argsort(start, kind="mergesort")
    usage = np.zeros(user.max() + 1 if n else 1)
    epoch = np.int64(NO_EPOCH)
    done_ptr = 0
    start_ptr = 0
    queue = np.empty(n, dtype=np.int64)
    qn = 0
    running = np.empty(n, dtype=np.int64)
    rn = 0
    times = np.empty(2 * n + 2)
    counts = np.empty(2 * n + 2, dtype=np.int64)
    fst = np.empty(n)
    i = 0
    while i < n:
        now = submit[i]
        e = np.int64(np.floor(now / period))
        if e > epoch:
            if epoch > NO_EPOCH:
                usage *= factor ** (e - epoch)
            epoch = e
        while done_ptr < n and hold_end[by_end[done_ptr]] <= now:
            j = by_end[done_ptr]
            aged = e - np.int64(np.floor(hold_end[j] / period))
            usage[user[j]] += width[j] * (hold_end[j] - start[j]) * factor ** aged
            done_ptr += 1
        while start_ptr < n and start[by_start[start_ptr]] < now:
            running[rn] = by_start[start_ptr]
            rn += 1
            start_ptr += 1
        out = 0
        for k in range(rn):
            if hold_end[running[k]] > now:
                running[out] = running[k]
                out += 1
        rn = out
        first = i
        while i < n and submit[i] == now:
            queue[qn] = i
            qn += 1
            i += 1
        out = 0
        for k in range(qn):
            if start[queue[k]] >= now:
                queue[out] = queue[k]
                out += 1
        qn = out
        keys = np.empty(qn)
        for k in range(qn):
            keys[k] = usage[user[queue[k]]]
        ranked = queue[:qn][np.argsort(keys, kind="mergesort")]
        for j in range(first, i):
            fst[j] = _list_schedule(ranked, j, now, running, rn, hold_end, start, width,
                                    size, times, counts)
    return fst


@njit(cache=True)
def _list_schedule(ranked, target, now, running, rn, hold_end, start, width, size, times, counts):
    """Start of ``target`` when the ``ranked`` jobs are placed in order without backfilling.

    ``times[:p]`` and ``counts[:p]``: how many processors become free at
    each instant (the running jobs' ends, then each placed job's), in time
    order. Keeps: every instant before ``times[head]`` has given all its
    processors to placed jobs, so each job takes the earliest-freed
    processors from ``head`` on and starts when the last of them is free;
    the jobs ranked after ``target`` are never placed.
    """
    ends = np.empty(rn)
    for k in range(rn):
        ends[k] = hold_end[running[k]]
    order = np.argsort(ends, kind="mergesort")
    busy = 0
    p = 1
    for k in range(rn):
        busy += width[running[order[k]]]
    times[0] = now
    counts[0] = size - busy
    for k in range(rn):
        j = running[order[k]]
        if times[p - 1] == hold_end[j]:
            counts[p - 1] += width[j]
        else:
            times[p] = hold_end[j]
            counts[p] = width[j]
            p += 1
    head = 0
    for j in ranked:
        need = width[j]
        k = head
        got = 0
        while got + counts[k] < need:
            got += counts[k]
            k += 1
        begin = max(now, times[k])
        if j == target:
            return begin
        # take the `need` earliest-free processors, give them back at begin + run
        counts[k] -= need - got
        head = k if counts[k] > 0 else k + 1
        finish = begin + (hold_end[j] - start[j])
        pos = p
        while pos > head and times[pos - 1] > finish:
            pos -= 1
        if pos > head and times[pos - 1] == finish:
            counts[pos - 1] += need
        else:
            times[pos + 1:p + 1] = times[pos:p].copy()
            counts[pos + 1:p + 1] = counts[pos:p].copy()
            times[pos] = finish
            counts[pos] = need
            p += 1
    return np.nan

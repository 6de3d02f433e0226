"""The VARQ simulation experiment (Nurmi et al. 2008, sections 4.4-4.5).

A fraction of the jobs become VARQ requests: each selected job asks to be
running at the next start deadline (every ``period`` seconds, 6 hours in the
paper), with a success probability. VARQ plans it from QBETS bounds trained
online, and plans it again while it waits to be submitted (section 3.1); the
job is submitted at the time the latest plan chose, asking for the padded
walltime; the machine is simulated (EASY backfilling, FCFS order, the
trace's machine size); the reservation succeeds when the job starts by its
deadline. Reported per (fraction, probability): predicted (mean planned
probability) and observed success fraction and the number of accepted
reservations (Table 4), and the allocation required by the work and used
with VARQ, node-hours, and their ratio (Table 3).

Departures from the paper, forced by a trace-driven offline setting:

- QBETS is trained online on the waits of the simulation *without* VARQ
  (each wait known once its job started in that schedule, and the queue at
  each planning time taken from it), not on the waits of the simulation VARQ
  is part of. So the trajectories do not see the extra load VARQ adds.
- A VARQ job holds its nodes from its start until ``deadline + run_time``
  (it spins until the deadline), which depends on when it starts. The
  schedule is computed in two passes: the first charges the worst case
  (start at submission), the second the spin implied by the first pass's
  start times; the second pass is reported.
- VARQ plans the waiting requests again at every multiple of
  ``replan_every`` seconds (10 minutes by default), all at once, not
  continually; the probability reported as predicted is the one the first
  plan promised.
- A request VARQ refuses is submitted unchanged as a regular job.
- Selections are nested: each job draws one uniform number, and it is a
  VARQ job at fraction ``f`` when the number is below ``f``.
"""

import math

import numpy as np
import pandas as pd

from .._clean import clean_jobs, describe_cleaning
from .._deprecation import UNSET, renamed_argument
from .._table import copy_attrs
from ..exceptions import ConfigError, JobTableError
from ..queue import QBETS, VARQ

__all__ = ["varq_experiment"]


def _deadlines(submit, period):
    return (np.floor(submit / period) + 1.0) * period


def _prepare(jobs):
    need = ["submit_time", "run_time", "req_time"]
    missing = [c for c in need if c not in jobs.columns]
    if missing:
        raise JobTableError(f"VARQ experiment needs column(s) {', '.join(missing)}")
    if "n_procs" not in jobs.columns and "req_procs" not in jobs.columns:
        raise JobTableError("VARQ experiment needs n_procs or req_procs")
    out = clean_jobs(jobs, for_simulation=True, require_request=True)
    if not len(out):
        raise JobTableError(f"no job can be simulated: every job was left out "
                            f"({describe_cleaning(out) or 'no jobs'}); a job needs a submit "
                            f"time, a runtime, a requested time and a width")
    return out


def _plan_all(base, candidates, probabilities, period, step, replan_every, qbets_params):
    """Plan every candidate at every probability from QBETS trained online.

    A candidate is planned at its submission; while a plan waits for its
    submit time, the candidate is planned again at every multiple of
    ``replan_every`` seconds, from the QBETS of that instant (Nurmi et al.
    2008, section 3.1: VARQ "continually generates new probability
    trajectories while waiting to submit a job"), and the plan follows the
    latest trajectory: its latest submit time that reaches the probability,
    or now when none does any more. The probability promised is the first
    plan's. The queue QBETS sees at an instant is that of the VARQ-free
    schedule.

    Returns the plans (for each probability, candidate -> (submit time,
    requested time, promised probability)), each candidate's highest
    probability over its first trajectory (NaN where QBETS gave no bound) and
    how many times a waiting request was planned again.
    """
    base = base.copy(deep=False)
    base.attrs = {}  # pandas copies a table's attrs into every column and row selected
    submit = base["submit_time"].to_numpy()
    start = base["start_time"].to_numpy()
    waits = base["wait_time"].to_numpy()
    rows = np.arange(len(base))
    by_start = np.lexsort((rows, submit, start))
    known_start = start[by_start]
    model = QBETS(**qbets_params)
    model.partial_fit(base.iloc[:0], waits[:0])
    varq = VARQ(model, step=step)
    nodes = base["n_procs"].to_numpy()
    request = base["req_time"].to_numpy()
    deadlines = _deadlines(submit, period)
    plans = {p: {} for p in probabilities}
    highest = {}
    replans = 0
    added = 0
    arrivals = sorted(candidates.tolist(), key=lambda j: (submit[j], j))
    waiting = {}  # candidate -> the submit time of its last pending plan
    next_arrival = 0
    now = -math.inf
    while next_arrival < len(arrivals) or waiting:
        arrival = submit[arrivals[next_arrival]] if next_arrival < len(arrivals) else math.inf
        tick = _next_tick(now, replan_every) if waiting else math.inf
        now = min(arrival, tick)
        if now == math.inf:
            break  # every plan waiting is submitted at its time; no instant plans again
        first = []
        while next_arrival < len(arrivals) and submit[arrivals[next_arrival]] == now:
            first.append(arrivals[next_arrival])
            next_arrival += 1
        again = [j for j, due in waiting.items() if due > now] if now == tick else []
        for j in [j for j, due in waiting.items() if due <= now]:
            del waiting[j]  # submitted at its plan's time, before this instant
        asked = first + again
        target = int(np.searchsorted(known_start, now, side="right"))
        if target > added:
            chunk = by_start[added:target]
            model.partial_fit(base.iloc[chunk], waits[chunk])
            added = target
        model.observe_queue(base.iloc[np.flatnonzero((submit < now) & (start > now))],
                            now=now)
        if not asked:
            continue  # every plan still waiting was due by now: submitted at its time
        traj = varq.trajectories(nodes[asked], request[asked], deadlines[asked], now)
        replans += len(again)
        # each request's rows are contiguous, in the order asked
        edges = np.searchsorted(traj["request"].to_numpy(), np.arange(len(asked) + 1))
        all_probs = traj["probability"].to_numpy()
        all_times = traj["submit_time"].to_numpy()
        all_requested = traj["requested_time"].to_numpy()
        for k, j in enumerate(asked):
            mine = slice(edges[k], edges[k + 1])
            probs, times, requested = all_probs[mine], all_times[mine], all_requested[mine]
            if k < len(first):
                reached = probs[np.isfinite(probs)]
                highest[j] = float(reached.max()) if len(reached) else math.nan
            due = -math.inf
            for p in probabilities:
                if k >= len(first) and (j not in plans[p] or plans[p][j][0] <= now):
                    continue  # refused, or submitted already
                ok = np.flatnonzero(np.isfinite(probs) & (probs >= p))
                if k < len(first) and not len(ok):
                    continue  # refused
                at = int(ok[-1]) if len(ok) else 0
                promised = float(probs[at]) if k < len(first) else plans[p][j][2]
                plans[p][j] = (float(times[at]), float(requested[at]), promised)
                due = max(due, float(times[at]))
            if due > now:
                waiting[j] = due
            else:
                waiting.pop(j, None)
    return plans, highest, replans


def _next_tick(now, every):
    """The first multiple of ``every`` after ``now`` (``math.inf`` when ``every`` is),
    counted in whole steps so that a multiple rounded below its index is never repeated."""
    if math.isinf(every):
        return math.inf
    k = math.floor(now / every) + 1
    while k * every <= now:
        k += 1
    return k * every


def _simulate_with(jobs, plan, run_times, simulate_kwargs):
    from ..simulate import simulate

    modified = jobs.copy()
    idx = np.fromiter(plan.keys(), dtype=np.int64, count=len(plan))
    if len(idx):
        values = np.array(list(plan.values()))
        modified.loc[idx, "submit_time"] = values[:, 0]
        modified.loc[idx, "req_time"] = values[:, 1]
        modified.loc[idx, "run_time"] = run_times
    modified["row"] = np.arange(len(modified))
    modified = modified.sort_values(["submit_time", "row"], kind="stable").reset_index(drop=True)
    modified.attrs = copy_attrs(jobs)
    schedule = simulate(modified, **simulate_kwargs).jobs
    return schedule.set_index("row").reindex(np.arange(len(jobs)))


def varq_experiment(jobs, *, fractions=(0.1, 0.5, 0.95), probabilities=(0.5, 0.75, 0.95),
                    period=21600.0, window=None, step=30.0, replan_every=600.0,
                    machine_procs=None, qbets_params=None, random_state=0, n_procs=UNSET):
    """Run the VARQ generality experiment on a job table.

    Parameters
    ----------
    jobs : DataFrame
        Job table with ``submit_time``, ``run_time``, ``req_time`` and a
        width (``n_procs``, else ``req_procs``); jobs missing any are left out
        (:func:`predictkit.clean_jobs`).
    fractions : sequence of float in (0, 1]
        Shares of the jobs (in the window) that become VARQ requests.
    probabilities : sequence of float in (0, 1]
        Requested success probabilities.
    period : float
        Seconds between start deadlines (21600 = 6 hours, as in the paper).
    window : (start, stop) seconds, optional
        Only jobs submitted in ``[start, stop)`` can become VARQ requests
        (QBETS still learns from the whole trace before them).
    step : float
        VARQ trajectory step (30 s in the paper).
    replan_every : float
        Seconds between the instants (its multiples) at which the requests
        waiting for their submit time are planned again from the QBETS of the
        moment (section 3.1: VARQ "continually
        generates new probability trajectories while waiting to submit a
        job"); the job is submitted when the latest plan says so, at once
        when no submit time reaches the probability any more. ``math.inf``
        plans each request once, at its submission.
    machine_procs : int, optional
        Machine size in processors (default: the trace's ``max_procs``).
    qbets_params : dict, optional
        Parameters of the :class:`QBETS` used by VARQ.
    random_state : int
        Seed of the job selection.
    n_procs : int, optional
        Deprecated name of ``machine_procs`` (warns, removed in 0.3).

    Returns
    -------
    DataFrame
        One row per (fraction, probability): ``count`` (accepted), ``refused``,
        ``predicted``, ``observed``, ``required_node_hours``,
        ``used_node_hours``, ``ratio``, ``mean_wait_others`` and
        ``mean_wait_others_baseline`` (mean wait of the non-VARQ jobs with and
        without VARQ) and ``highest_refused``, the highest probability any
        refused request's trajectory reached (NaN when none was refused or
        QBETS gave none of them a bound: it says how far from the requested
        probability the refusals were). ``attrs["cleaning"]`` reports the jobs left out
        (:func:`predictkit.clean_jobs` with ``for_simulation=True,
        require_request=True``), ``attrs["wider_than_machine"]`` how many
        jobs the simulations left out as wider than the machine,
        ``attrs["machine_procs"]`` its size and ``attrs["replans"]`` how many
        plans were made again while requests waited to be submitted.
    """
    machine_procs = renamed_argument("varq_experiment", "n_procs", "machine_procs", n_procs,
                                     machine_procs)
    for f in fractions:
        if not 0.0 < f <= 1.0:
            raise ConfigError(f"fractions must be in (0, 1], got {f!r}")
    for p in probabilities:
        if not 0.0 < p <= 1.0:
            raise ConfigError(f"probabilities must be in (0, 1], got {p!r}")
    if not period > 0:
        raise ConfigError(f"period must be > 0, got {period!r}")
    if not replan_every > 0:
        raise ConfigError(f"replan_every must be > 0 seconds (math.inf: plan once), "
                          f"got {replan_every!r}")
    from ..simulate import simulate

    jobs = _prepare(jobs)
    simulate_kwargs = dict(policy="easy", priority="fcfs", estimates="requested")
    if machine_procs is not None:
        simulate_kwargs["machine_procs"] = int(machine_procs)
    baseline = simulate(jobs.assign(row=np.arange(len(jobs))), **simulate_kwargs)
    base = baseline.jobs.set_index("row").reindex(np.arange(len(jobs)))
    simulated = base["start_time"].notna().to_numpy()
    base_jobs = jobs.assign(wait_time=base["wait_time"].to_numpy(),
                            start_time=base["start_time"].to_numpy())[simulated]
    submit = jobs["submit_time"].to_numpy()
    lo, hi = (window if window is not None else (-math.inf, math.inf))
    draw = np.random.default_rng(random_state).random(len(jobs))
    eligible = simulated & (submit >= lo) & (submit < hi)
    candidates = np.flatnonzero(eligible & (draw < max(fractions)))
    positions = np.flatnonzero(simulated)
    local = np.searchsorted(positions, candidates)
    plans_local, highest_local, replans = _plan_all(
        base_jobs.reset_index(drop=True), local, probabilities, period, step,
        float(replan_every), qbets_params or {"random_state": 0})
    highest = {int(positions[k]): v for k, v in highest_local.items()}
    deadlines = _deadlines(submit, period)
    nodes = jobs["n_procs"].to_numpy()
    run = np.minimum(jobs["run_time"].to_numpy(), jobs["req_time"].to_numpy())
    base_wait = base["wait_time"].to_numpy()
    rows = []
    for f in fractions:
        chosen = set(np.flatnonzero(eligible & (draw < f)).tolist())
        for p in probabilities:
            plan = {int(positions[k]): v for k, v in plans_local[p].items()
                    if int(positions[k]) in chosen}
            idx = np.fromiter(plan.keys(), dtype=np.int64, count=len(plan))
            planned = np.array([v[0] for v in plan.values()])
            spin = deadlines[idx] - planned
            sched = _simulate_with(jobs, plan, spin + run[idx], simulate_kwargs)
            starts = sched["start_time"].to_numpy()[idx]
            spin = np.maximum(deadlines[idx] - starts, 0.0)
            sched = _simulate_with(jobs, plan, spin + run[idx], simulate_kwargs)
            starts = sched["start_time"].to_numpy()[idx]
            success = starts <= deadlines[idx]
            used = nodes[idx] * (sched["end_time"].to_numpy()[idx] - starts)
            others = np.ones(len(jobs), dtype=bool)
            others[idx] = False
            others &= simulated
            required = float(np.sum(nodes[idx] * run[idx])) / 3600.0
            refused = [highest[j] for j in chosen - set(plan)]
            rows.append({
                "fraction": f, "probability": p, "selected": len(chosen),
                "count": len(idx), "refused": len(chosen) - len(idx),
                "predicted": float(np.mean([v[2] for v in plan.values()])) if plan else math.nan,
                "observed": float(np.mean(success)) if len(idx) else math.nan,
                "required_node_hours": required,
                "used_node_hours": float(np.nansum(used)) / 3600.0,
                "ratio": (float(np.nansum(used)) / 3600.0 / required) if required else math.nan,
                "mean_wait_others": float(np.nanmean(sched["wait_time"].to_numpy()[others])),
                "mean_wait_others_baseline": float(np.nanmean(base_wait[others])),
                "highest_refused": (float(np.nanmax(refused))
                                    if np.isfinite(refused).any() else math.nan),
            })
    table = pd.DataFrame(rows)
    table.attrs["cleaning"] = jobs.attrs["cleaning"]
    table.attrs["wider_than_machine"] = len(baseline.rejected)
    table.attrs["machine_procs"] = baseline.machine_procs
    table.attrs["replans"] = replans
    return table

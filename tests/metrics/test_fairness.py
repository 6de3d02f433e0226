"""Hybrid fair-start-time metric (Leung et al. 2010 section IV) against a plain list scheduler."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.metrics import fair_start_times, fairness_metrics
from predictkit.simulate import simulate


def reference_fst(out, n_procs, period, factor):
    submit = out["submit_time"].to_numpy()
    start = out["start_time"].to_numpy()
    end = out["end_time"].to_numpy()
    width = out["n_procs"].to_numpy().astype(int)
    user = out["user_id"].to_numpy()
    fst = np.empty(len(out))
    for j in range(len(out)):
        a = submit[j]
        usage = {}
        for k in range(len(out)):
            if end[k] <= a:
                decay = factor ** (np.floor(a / period) - np.floor(end[k] / period))
                usage[user[k]] = usage.get(user[k], 0.0) + width[k] * (end[k] - start[k]) * decay
        nodes = [a] * n_procs
        busy = [k for k in range(len(out)) if start[k] < a < end[k]]
        i = 0
        for k in busy:
            for _ in range(width[k]):
                nodes[i] = end[k]
                i += 1
        queued = [k for k in range(len(out)) if submit[k] <= a and start[k] >= a]
        queued.sort(key=lambda k: (usage.get(user[k], 0.0), submit[k], k))
        for k in queued:
            nodes.sort()
            begin = max(a, nodes[width[k] - 1])
            if k == j:
                fst[j] = begin
                break
            for i in range(width[k]):
                nodes[i] = begin + (end[k] - start[k])
    return fst


def test_fairshare_order_defines_the_fair_start():
    # one processor; user 1 has used it (job 0) when jobs 2 (user 1) and 3 (user 2) wait
    jobs = pd.DataFrame(dict(job_id=[0, 1, 2, 3], submit_time=[0.0, 1, 3, 4],
                             run_time=[2.0, 10, 5, 1], n_procs=[1.0, 1, 1, 1],
                             req_time=[2.0, 10, 5, 1], user_id=[1.0, 3, 1, 2]))
    schedule = simulate(jobs, machine_procs=1, policy="easy")
    np.testing.assert_array_equal(schedule.jobs["start_time"], [0.0, 2, 12, 17])
    np.testing.assert_array_equal(fair_start_times(schedule), [0.0, 2, 12, 12])
    np.testing.assert_array_equal(fair_start_times(schedule, machine_procs=1), [0.0, 2, 12, 12])
    with pytest.warns(DeprecationWarning, match=r"fair_start_times\(n_procs=\.\.\.\)"):
        np.testing.assert_array_equal(fair_start_times(schedule, n_procs=1), [0.0, 2, 12, 12])
    metrics = fairness_metrics(schedule)
    assert metrics["fair_start_miss_percent"] == pytest.approx(25.0)
    assert metrics["mean_fair_start_miss"] == pytest.approx(5 / 4)


@st.composite
def small_schedules(draw, max_runtime=False):
    n = draw(st.integers(1, 15))
    machine = draw(st.integers(1, 6))
    ints = lambda lo, hi: np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)),  # noqa: E731
                                   dtype=float)
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1), submit_time=np.cumsum(ints(0, 20)),
                             run_time=ints(0, 60), n_procs=np.minimum(ints(1, 6), machine),
                             user_id=ints(0, 3)))
    jobs["req_time"] = np.maximum(jobs["run_time"] + ints(0, 30), 1.0)  # 0 s is refused
    policy = draw(st.sampled_from(["easy", "conservative", "no_guarantee", "fcfs"]))
    limit = draw(st.integers(5, 40)) if max_runtime else None
    return simulate(jobs, machine_procs=machine, policy=policy, priority="fairshare",
                    fairshare_decay=50, max_runtime=limit)


@settings(max_examples=60)
@given(schedule=small_schedules())
def test_matches_plain_list_scheduler(schedule):
    expected = reference_fst(schedule.jobs, schedule.machine_procs, 50.0, 0.5)
    np.testing.assert_allclose(fair_start_times(schedule), expected)


@settings(max_examples=60)
@given(schedule=small_schedules(max_runtime=True))
def test_split_jobs_count_as_their_pieces(schedule):
    pieces = schedule.pieces
    if pieces is None:
        return
    jobs = schedule.jobs
    table = pd.DataFrame({"submit_time": pieces["submit_time"],
                          "start_time": pieces["start_time"], "end_time": pieces["end_time"],
                          "n_procs": jobs["n_procs"].to_numpy()[pieces["job"]],
                          "user_id": jobs["user_id"].to_numpy()[pieces["job"]]})
    want = reference_fst(table, schedule.params["machine_procs"], 50, 0.5)
    np.testing.assert_array_equal(fair_start_times(schedule), want[pieces["piece"] == 0])


@pytest.mark.parametrize("params, named", [
    (dict(fairshare_decay=0), "fairshare_decay"), (dict(fairshare_decay="-1h"), "fairshare_decay"),
    (dict(fairshare_factor=2), "fairshare_factor"),
    (dict(fairshare_factor=-1), "fairshare_factor"),
    (dict(fairshare_factor=True), "fairshare_factor")])
def test_fairshare_parameters_are_checked_as_simulate_checks_them(params, named):
    from predictkit.exceptions import InvalidParameterError

    jobs = pd.DataFrame(dict(job_id=[0, 1], submit_time=[0.0, 1], run_time=[2.0, 10],
                             n_procs=[1.0, 1], req_time=[2.0, 10], user_id=[1.0, 3]))
    schedule = simulate(jobs, machine_procs=1)
    for call in (fair_start_times, fairness_metrics):
        with pytest.raises(InvalidParameterError, match=rf"^The '{named}' parameter of "
                                                        r"fair_start_times must be"):
            call(schedule, **params)
        with pytest.raises(InvalidParameterError, match=rf"'{named}' parameter of simulate"):
            simulate(jobs, machine_procs=1, priority="fairshare", **params)


def test_jobs_without_a_user_are_each_their_own_account_as_in_the_simulator():
    rng = np.random.default_rng(5)
    n = 200
    jobs = pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(0, 4000, n)) * 1.0,
        run_time=rng.integers(1, 500, n) * 1.0, req_time=500.0,
        n_procs=rng.integers(1, 9, n) * 1.0, user_id=rng.integers(0, 4, n) * 1.0))
    missing = rng.random(n) < 0.3
    schedule = simulate(jobs, machine_procs=8).jobs
    unknown = schedule.assign(user_id=schedule["user_id"].mask(missing))
    own = schedule.assign(user_id=np.where(missing, 1000.0 + np.arange(n), schedule["user_id"]))
    pooled = schedule.assign(user_id=np.where(missing, 1000.0, schedule["user_id"]))
    fst = fair_start_times(unknown, machine_procs=8)
    np.testing.assert_array_equal(fst, fair_start_times(own, machine_procs=8))
    assert not np.array_equal(fst, fair_start_times(pooled, machine_procs=8))


def test_a_split_schedule_without_user_ids_gets_the_accounts_the_simulator_charged():
    rng = np.random.default_rng(6)
    n = 150
    run = rng.integers(60, 20000, n).astype(float)
    jobs = pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(0, 40000, n)) * 1.0,
        run_time=run, req_time=run * 1.5, n_procs=rng.integers(1, 9, n) * 1.0))
    schedule = simulate(jobs, machine_procs=16, priority="fairshare", max_runtime="1h")
    without = fair_start_times(schedule)
    schedule.jobs = schedule.jobs.assign(user_id=np.nan)
    np.testing.assert_array_equal(without, fair_start_times(schedule))

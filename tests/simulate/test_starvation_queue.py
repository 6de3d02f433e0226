"""No-guarantee backfilling with CPlant's FCFS starvation queue (Leung et al.
2010 II.A, V.B): agreement with the plain reference, and its invariants."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _workloads import PRIORITY_CASES, compare, workloads
from predictkit.exceptions import ConfigError
from predictkit.simulate import PRIORITIES, simulate
from test_properties import check_basic, over_estimates
from test_real_traces import prefix

AFTER = st.sampled_from([0.0, 5.0, 20.0, 50.0, 200.0])


@pytest.mark.parametrize("priority", PRIORITY_CASES)
@settings(max_examples=40)
@given(case=workloads(), after=AFTER, bar=st.booleans(), kill=st.booleans(),
       under=st.sampled_from(["double", "increments", "request"]),
       bf=st.sampled_from(["priority", "sjf"]))
def test_agrees_with_reference(priority, case, after, bar, kill, under, bf):
    jobs, machine, est, score = case
    compare(jobs, machine, est, score, policy="no_guarantee", depth=None, priority=priority,
            kill=kill, under=under, bf=bf, starvation_after=after, bar_heavy=bar)


@settings(max_examples=30)
@given(case=workloads(), after=AFTER, bar=st.booleans(),
       priority=st.sampled_from(["fcfs", "fairshare", "sjf"]))
def test_selective_agrees_with_reference(case, after, bar, priority):
    jobs, machine, est, score = case
    compare(jobs, machine, est, score, policy="no_guarantee", depth=None, priority=priority,
            selective=True, kill=False, starvation_after=after, bar_heavy=bar)


@pytest.mark.traces
@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln", "Sandia-Ross-2001-1.1-cln"])
@pytest.mark.parametrize("after", [1800.0, 21600.0])
@pytest.mark.parametrize("bar", [False, True])
def test_real_trace_prefix_agrees(name, after, bar):
    jobs = prefix(name)
    machine = int(jobs.attrs["max_procs"])
    jobs = jobs[jobs["n_procs"] <= machine].reset_index(drop=True)
    est = jobs["req_time"].to_numpy() * 0.5
    schedule = compare(jobs, machine, est, np.zeros(len(jobs)), policy="no_guarantee",
                       depth=None, priority="fairshare", period=86400.0, under="increments",
                       starvation_after=after, bar_heavy=bar)
    assert schedule.jobs["starving_since"].notna().any()


@settings(max_examples=60)
@given(case=workloads(max_jobs=40), after=AFTER, priority=st.sampled_from(PRIORITIES),
       bf=st.sampled_from(["priority", "sjf"]))
def test_a_starving_head_is_never_delayed(case, after, priority, bf):
    """While estimates hold, a job that got the starvation queue's reservation
    starts by the start first reserved for it, and every job enters the
    queue exactly when it has waited ``starvation_after``."""
    jobs, machine, est, _ = case
    jobs = jobs.assign(req_time=jobs["req_time"] + 1000.0)
    out = simulate(jobs, machine_procs=machine, policy="no_guarantee", priority=priority,
                   estimates=over_estimates(jobs, est), backfill_order=bf,
                   starvation_after=after)
    check_basic(out, jobs, machine)
    out = out.jobs
    promised = out["promised_start"].to_numpy()
    reserved = ~np.isnan(promised)
    assert (out["start_time"].to_numpy()[reserved] <= promised[reserved]).all()
    since = out["starving_since"].to_numpy()
    due = out["submit_time"].to_numpy() + after
    wait = out["wait_time"].to_numpy()
    entered = ~np.isnan(since)
    np.testing.assert_array_equal(since[entered], due[entered])
    assert entered[wait > after].all()
    assert not entered[wait < after].any()
    assert not (reserved & ~entered).any()


@settings(max_examples=40)
@given(case=workloads(max_jobs=40), after=AFTER, bar=st.booleans(),
       limit=st.sampled_from([5.0, 20.0]))
def test_split_jobs_keep_capacity_and_all_start(case, after, bar, limit):
    jobs, machine, est, _ = case
    out = simulate(jobs, machine_procs=machine, policy="no_guarantee", priority="fairshare",
                   estimates=est, starvation_after=after, starvation_bar_heavy=bar,
                   max_runtime=limit)
    assert np.isfinite(out.jobs["end_time"]).all()
    assert (out.jobs["start_time"] >= out.jobs["submit_time"]).all()


def test_heavy_users_are_barred():
    """User 0 has used the machine (usage above the mean of the waiting users),
    so with the bar its job waits outside the starvation queue."""
    jobs = pd.DataFrame(dict(
        job_id=[1, 2, 3, 4], submit_time=[0.0, 0.0, 1.0, 1.0], run_time=[10.0, 1000.0, 5.0, 5.0],
        req_time=[10.0, 1000.0, 5.0, 5.0], n_procs=[2, 2, 1, 1], user_id=[0, 0, 0, 1]))
    kwargs = dict(machine_procs=2, policy="no_guarantee", starvation_after=100)
    free = simulate(jobs, **kwargs).jobs["starving_since"].to_numpy()
    np.testing.assert_array_equal(free, [np.nan, np.nan, 101.0, 101.0])
    barred = simulate(jobs, starvation_bar_heavy=True, **kwargs).jobs
    np.testing.assert_array_equal(barred["starving_since"].to_numpy(),
                                  [np.nan, np.nan, np.nan, 101.0])


def test_without_starving_jobs_it_is_no_guarantee_backfilling():
    from predictkit.datasets import make_workload

    jobs = make_workload(400, random_state=3)
    plain = simulate(jobs, policy="no_guarantee", priority="fairshare").jobs
    never = simulate(jobs, policy="no_guarantee", priority="fairshare",
                     starvation_after=10 ** 9).jobs
    np.testing.assert_array_equal(plain["start_time"], never["start_time"])
    assert never["starving_since"].isna().all()
    assert "starving_since" not in plain


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(policy="easy", starvation_after="24h"), "'starvation_after'"),
    (dict(policy="conservative", starvation_after=3600), "'starvation_after'"),
    (dict(policy="no_guarantee", starvation_bar_heavy=True), "'starvation_bar_heavy'"),
    (dict(policy="no_guarantee", starvation_after="soon"), "'starvation_after'"),
    (dict(policy="no_guarantee", starvation_after=-1.0), "'starvation_after'"),
    (dict(policy="no_guarantee", starvation_after="24h", starvation_bar_heavy="yes"),
     "'starvation_bar_heavy'"),
])
def test_bad_parameters_are_named(kwargs, fragment):
    from predictkit.datasets import make_workload

    with pytest.raises(ConfigError, match=fragment) as caught:
        simulate(make_workload(20, random_state=0), **kwargs)
    assert "\n" not in str(caught.value)


def test_params_report_the_starvation_queue():
    from predictkit.datasets import make_workload

    schedule = simulate(make_workload(50, random_state=0), policy="no_guarantee",
                        starvation_after="72h", starvation_bar_heavy=True)
    assert schedule.params["starvation_after"] == 72 * 3600.0
    assert schedule.params["starvation_bar_heavy"] is True


def test_numpy_scalars_are_accepted_as_durations():
    from predictkit.datasets import make_workload

    jobs = make_workload(200, random_state=2)
    plain = simulate(jobs, policy="no_guarantee", starvation_after=3600.0, max_runtime=7200.0)
    numpy = simulate(jobs, policy="no_guarantee", starvation_after=np.float32(3600),
                     max_runtime=np.int64(7200))
    np.testing.assert_array_equal(plain.jobs["start_time"], numpy.jobs["start_time"])
    assert numpy.params["starvation_after"] == 3600.0
    for nanoseconds in (np.timedelta64(3600 * 10**9, "ns"), pd.Timedelta("1h")):
        same = simulate(jobs, policy="no_guarantee", starvation_after=nanoseconds,
                        max_runtime=np.timedelta64(2, "h"))
        np.testing.assert_array_equal(plain.jobs["start_time"], same.jobs["start_time"])

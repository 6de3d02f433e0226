"""Invariants of every policy on random workloads (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _workloads import POLICY_CASES, workloads
from predictkit.simulate import PRIORITIES, simulate


def peak_usage(start, end, width):
    """Most processors held at any instant (intervals are [start, end))."""
    times = np.concatenate([start, end])
    deltas = np.concatenate([width, -width])
    # at equal times, releases come before acquisitions
    order = np.lexsort((deltas, times))
    return np.cumsum(deltas[order]).max(initial=0)


def check_basic(schedule, jobs, machine):
    out = schedule.jobs
    start = out["start_time"].to_numpy()
    end = out["end_time"].to_numpy()
    assert np.isfinite(start).all(), "every job starts"
    assert len(out) == len(jobs) - len(schedule.rejected)
    assert out["job_id"].is_unique
    assert (start >= out["submit_time"].to_numpy()).all(), "never before submission"
    np.testing.assert_array_equal(end - start, out["sim_run_time"].to_numpy())
    assert peak_usage(start, end, out["n_procs"].to_numpy()) <= machine


@pytest.mark.parametrize("policy,depth", POLICY_CASES)
@settings(max_examples=60)
@given(case=workloads(max_jobs=40), priority=st.sampled_from(PRIORITIES),
       kill=st.booleans(), selective=st.booleans(),
       under=st.sampled_from(["double", "increments", "request"]),
       bf=st.sampled_from(["priority", "sjf"]))
def test_invariants(policy, depth, case, priority, kill, selective, under, bf):
    jobs, machine, est, _ = case
    schedule = simulate(jobs, machine_procs=machine, policy=policy, reservation_depth=depth,
                        priority=priority, estimates=est, kill_at_request=kill,
                        selective=selective, on_underestimate=under, backfill_order=bf)
    check_basic(schedule, jobs, machine)
    again = simulate(jobs, machine_procs=machine, policy=policy, reservation_depth=depth,
                     priority=priority, estimates=est, kill_at_request=kill,
                     selective=selective, on_underestimate=under, backfill_order=bf)
    np.testing.assert_array_equal(schedule.jobs["start_time"], again.jobs["start_time"])
    if policy == "fcfs":
        assert not schedule.jobs["backfilled"].any()
    if policy != "conservative":
        assert schedule.jobs["promised_start"].isna().all()


@settings(max_examples=60)
@given(case=workloads(max_jobs=40), kill=st.booleans())
def test_fcfs_starts_in_submit_order(case, kill):
    jobs, machine, est, _ = case
    out = simulate(jobs, machine_procs=machine, policy="fcfs", estimates=est, kill_at_request=kill).jobs
    assert (np.diff(out["start_time"].to_numpy()) >= 0).all()


def over_estimates(jobs, est):
    """Estimates never below the runtime (jobs are killed at the request)."""
    run = np.minimum(jobs["run_time"].to_numpy(), jobs["req_time"].to_numpy())
    return run + est


@settings(max_examples=60)
@given(case=workloads(max_jobs=40), priority=st.sampled_from(PRIORITIES))
def test_conservative_keeps_its_promises(case, priority):
    jobs, machine, est, _ = case
    jobs = jobs.assign(req_time=jobs["req_time"] + 1000.0)
    out = simulate(jobs, machine_procs=machine, policy="conservative", priority=priority,
                   estimates=over_estimates(jobs, est)).jobs
    assert out["promised_start"].notna().all()
    assert (out["start_time"] <= out["promised_start"]).all()


def shadow_time(out, j, t, machine, estimates):
    """Earliest time the running jobs (by their estimates) leave room for job j."""
    start = out["start_time"].to_numpy()
    end = out["end_time"].to_numpy()
    width = out["n_procs"].to_numpy()
    running = (start <= t) & (end > t)
    running[j] = False
    free = machine - width[running].sum()
    if free >= width[j]:
        return t
    expected = start[running] + estimates[running]
    for k in np.argsort(expected, kind="stable"):
        free += width[running][k]
        if free >= width[j]:
            return expected[k]
    raise AssertionError("the head never fits")


@settings(max_examples=60)
@given(case=workloads(max_jobs=40), bf=st.sampled_from(["priority", "sjf"]))
def test_easy_never_delays_the_head(case, bf):
    jobs, machine, est, _ = case
    jobs = jobs.assign(req_time=jobs["req_time"] + 1000.0)
    estimates = over_estimates(jobs, est)
    out = simulate(jobs, machine_procs=machine, policy="easy", estimates=estimates,
                   backfill_order=bf).jobs
    used = np.maximum(estimates, 1.0)
    start = out["start_time"].to_numpy()
    submit = out["submit_time"].to_numpy()
    for j in range(len(out)):
        became_head = max(submit[j], start[:j].max(initial=submit[j]))
        assert start[j] <= shadow_time(out, j, became_head, machine, used)

"""The fast conservative and depth-k passes give the same schedules as the
previous ones (``compiled_reference.py``), job by job.

Both run in the same compiled event loop, so the workloads here are far
larger and more crowded than the plain reference simulator can take: queues
of dozens to hundreds of jobs, most of them ending long before their
estimate, ties in submit times and estimates, and every option that changes
what the passes see.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiled_reference import registered
from tracedata import load_trace
from predictkit.simulate import simulate

COLUMNS = ["start_time", "end_time", "wait_time", "backfilled"]


@st.composite
def crowded(draw):
    """A random overloaded workload: ``(jobs, machine, estimates, scores)``."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    n = draw(st.integers(1, 400))
    machine = draw(st.sampled_from([1, 3, 8, 16, 64, 40_000]))  # widths past the gap levels
    grain = draw(st.sampled_from([0.1, 1.0, 10.0, 60.0]))  # coarse grains give ties
    offset = draw(st.sampled_from([0.0, 1.0e9 + 0.3]))  # rounding at large clock values
    load = draw(st.sampled_from([0.5, 1.0, 3.0]))
    run = np.round(np.exp(rng.normal(4.0, 1.5, n)) / grain) * grain
    narrow = rng.random(n) < draw(st.sampled_from([0.0, 0.5, 0.9]))
    width = np.where(narrow, 1, rng.integers(1, machine + 1, n))
    gaps = rng.exponential(np.mean(run * width) / machine / load, n)
    submit = np.round(np.cumsum(gaps) / grain) * grain + offset
    accuracy = rng.choice([0.01, 0.1, 0.5, 1.0, 1.5], n)
    req = np.maximum(np.round(run / accuracy / grain) * grain, 1.0)
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1), submit_time=submit, run_time=run,
                             n_procs=width.astype(float), req_time=req,
                             user_id=rng.integers(0, 5, n).astype(float)))
    estimates = run * rng.choice([0.3, 0.7, 0.9, 1.0, 2.0], n) + 1.0
    return jobs, machine, estimates, rng.integers(0, 4, n).astype(float)


def same_schedule(jobs, machine, *, policy, reference, **kwargs):
    """Simulate with ``policy`` and ``reference``; assert equal schedules, job by job."""
    with registered():
        fast = simulate(jobs, machine_procs=machine, policy=policy, **kwargs)
        slow = simulate(jobs, machine_procs=machine, policy=reference, **kwargs)
    columns = COLUMNS + (["promised_start"] if policy == "conservative" else [])
    for column in columns:
        np.testing.assert_array_equal(fast.jobs[column].to_numpy(), slow.jobs[column].to_numpy(),
                                      err_msg=column)
    return fast


OPTIONS = dict(
    priority=st.sampled_from(["fcfs", "sjf", "wfp", "fairshare", "keys"]),
    estimates=st.sampled_from(["requested", "perfect", "array"]),
    on_underestimate=st.sampled_from(["double", "increments", "request"]),
    selective=st.booleans(), kill_at_request=st.booleans(),
    backfill_order=st.sampled_from(["priority", "sjf"]),
    max_runtime=st.sampled_from([None, 300.0, 3600.0]),
)


def options(case, priority, estimates, **rest):
    jobs, machine, est, score = case
    return dict(priority=(lambda X: score) if priority == "keys" else priority,
                estimates=est if estimates == "array" else estimates,
                fairshare_decay=600.0, **rest)


@settings(max_examples=120)
@given(case=crowded(), **OPTIONS)
def test_conservative_equals_the_previous_compression(case, **kwargs):
    jobs, machine, _, _ = case
    same_schedule(jobs, machine, policy="conservative", reference="conservative_reference",
                  **options(case, **kwargs))


@pytest.mark.parametrize("depth", [0, 2, 4, 16])
@settings(max_examples=40)
@given(case=crowded(), **OPTIONS)
def test_depth_k_equals_the_previous_pass(depth, case, **kwargs):
    jobs, machine, _, _ = case
    policy = "no_guarantee" if depth == 0 else "easy"
    with registered():
        fast = simulate(jobs, machine_procs=machine, policy=policy,
                        reservation_depth=None if depth == 0 else depth,
                        **options(case, **kwargs))
        slow = simulate(jobs, machine_procs=machine, policy="depth_reference",
                        reservation_depth=depth, **options(case, **kwargs))
    for column in COLUMNS:
        np.testing.assert_array_equal(fast.jobs[column].to_numpy(), slow.jobs[column].to_numpy(),
                                      err_msg=column)


def test_crowded_workloads_do_compress():
    """The workloads above reach what the fast compression skips and moves."""
    n = 300
    rng = np.random.default_rng(3)
    run = np.round(np.exp(rng.normal(4.0, 1.5, n)))
    jobs = pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(0, 600, n)).astype(float),
        run_time=run, n_procs=np.where(rng.random(n) < 0.7, 1, 4).astype(float),
        req_time=np.maximum(run * 20.0, 1.0), user_id=np.zeros(n)))
    schedule = same_schedule(jobs, 8, policy="conservative", reference="conservative_reference")
    out = schedule.jobs
    # jobs started well before their promised start: compression moved them
    assert (out["start_time"] < out["promised_start"]).mean() > 0.5


TRACES = ["KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.2-cln", "RICC-2010-2"]


def prefix(name, n_jobs):
    jobs = load_trace(name, n_jobs)
    jobs = jobs.dropna(subset=["run_time", "req_time", "n_procs"]).reset_index(drop=True)
    jobs["user_id"] = jobs["user_id"].fillna(-1.0)
    machine = int(jobs.attrs.get("max_procs") or jobs["n_procs"].max())
    return jobs[jobs["n_procs"] <= machine].reset_index(drop=True), machine


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("priority", ["fcfs", "fairshare", "wfp"])
def test_real_trace_prefix_conservative(name, priority):
    jobs, machine = prefix(name, 3000)
    same_schedule(jobs, machine, policy="conservative", reference="conservative_reference",
                  priority=priority, on_underestimate="increments",
                  estimates=jobs["req_time"].to_numpy() * 0.5)
    same_schedule(jobs, machine, policy="conservative", reference="conservative_reference",
                  priority=priority, selective=True,
                  estimates=jobs["run_time"].to_numpy() * 0.7 + 1.0)


def queue_lengths(jobs, schedule):
    """Jobs waiting just after each submit time."""
    submit = jobs["submit_time"].to_numpy()
    start = schedule.jobs["start_time"].to_numpy()
    return np.array([np.sum((submit <= t) & (start > t)) for t in submit])


@pytest.mark.traces
@pytest.mark.parametrize("priority", ["fcfs", "wfp"])
def test_long_queues_of_ricc_conservative(priority):
    """RICC's first 6,000 jobs: queues of thousands, each compression moving hundreds."""
    jobs, machine = prefix("RICC-2010-2", 6000)
    fast = same_schedule(jobs, machine, policy="conservative", reference="conservative_reference",
                         priority=priority)
    assert queue_lengths(jobs, fast).max() > 2000
    assert (fast.jobs["start_time"] < fast.jobs["promised_start"]).mean() > 0.5


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("depth", [2, 4, 16])
def test_real_trace_prefix_depth_k(name, depth):
    jobs, machine = prefix(name, 5000)
    with registered():
        for priority in ("fcfs", "fairshare"):
            fast = simulate(jobs, machine_procs=machine, policy="easy", reservation_depth=depth,
                            priority=priority)
            slow = simulate(jobs, machine_procs=machine, policy="depth_reference",
                            reservation_depth=depth, priority=priority)
            for column in COLUMNS:
                np.testing.assert_array_equal(fast.jobs[column].to_numpy(),
                                              slow.jobs[column].to_numpy(), err_msg=column)

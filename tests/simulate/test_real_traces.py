"""The compiled simulator agrees with the reference on the start of real traces."""

import numpy as np
import pytest

from _workloads import compare
from tracedata import load_trace
from predictkit.simulate import PRIORITIES

TRACES = ["KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.2-cln"]
N_JOBS = 800


def prefix(name):
    jobs = load_trace(name, N_JOBS)
    jobs = jobs.dropna(subset=["run_time", "req_time", "n_procs"]).reset_index(drop=True)
    jobs["user_id"] = jobs["user_id"].fillna(-1.0)
    return jobs


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("policy,depth", [("fcfs", None), ("easy", None), ("easy", 4),
                                          ("no_guarantee", None), ("conservative", None)])
@pytest.mark.parametrize("priority", PRIORITIES)
def test_real_trace_prefix_agrees(name, policy, depth, priority):
    jobs = prefix(name)
    machine = int(jobs.attrs["max_procs"])
    jobs = jobs[jobs["n_procs"] <= machine].reset_index(drop=True)
    est = jobs["req_time"].to_numpy() * 0.5
    compare(jobs, machine, est, np.zeros(len(jobs)), policy=policy, depth=depth,
            priority=priority, period=86400.0, under="increments")

"""Random small workloads and the glue between the simulator and the reference."""

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from predictkit.simulate import POLICIES, PRIORITIES, simulate
from reference import reference_simulate

POLICY_CASES = [(name, None) for name in POLICIES] + [("easy", 2), ("easy", 3)]
PRIORITY_CASES = [*PRIORITIES, "keys"]


@st.composite
def workloads(draw, max_jobs=25, max_procs=8):
    n = draw(st.integers(1, max_jobs))
    machine = draw(st.integers(1, max_procs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 10, 30]), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    run = np.array(draw(st.lists(st.integers(0, 60), min_size=n, max_size=n)), dtype=float)
    slack = np.array(draw(st.lists(st.integers(-20, 60), min_size=n, max_size=n)), dtype=float)
    req = np.maximum(run + slack, 1.0)  # simulate refuses a request of 0 s
    width = np.array(draw(st.lists(st.integers(1, machine), min_size=n, max_size=n)), dtype=float)
    user = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    est = np.array(draw(st.lists(st.integers(0, 80), min_size=n, max_size=n)), dtype=float)
    score = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1), submit_time=submit, run_time=run,
                             n_procs=width, req_time=req, user_id=user))
    return jobs, machine, est, score


def compare(jobs, machine, est, score, *, policy, depth, priority, selective=False,
            kill=True, under="double", bf="priority", period=100.0, factor=0.5,
            estimator_pair=None, starvation_after=None, bar_heavy=False):
    """Run the simulator and the reference; assert they agree job by job.

    With ``starvation_after`` (seconds) the policy is no-guarantee backfilling
    with CPlant's starvation queue (``bar_heavy``: heavy users barred).
    """
    kwargs = dict(machine_procs=machine, policy=policy, reservation_depth=depth,
                  priority=(lambda X: score) if priority == "keys" else priority,
                  fairshare_decay=period, fairshare_factor=factor, selective=selective,
                  on_underestimate=under, backfill_order=bf, kill_at_request=kill)
    if starvation_after is not None:
        kwargs.update(starvation_after=starvation_after, starvation_bar_heavy=bar_heavy)
    submit = jobs["submit_time"].to_numpy()
    run = jobs["run_time"].to_numpy()
    req = jobs["req_time"].to_numpy()
    dur = np.minimum(run, req) if kill else run
    if estimator_pair is None:
        schedule = simulate(jobs, estimates=est, **kwargs)
        est_w = np.maximum(np.minimum(est, req), 1.0)
        estimator = None
    else:
        predictor, estimator = estimator_pair
        schedule = simulate(jobs, estimates=predictor, **kwargs)
        est_w = np.full(len(jobs), np.nan)
    est_r = np.maximum(req, 1.0) if selective else None
    ref_policy = {"easy": "easy" if depth in (None, 1) else "depth",
                  "no_guarantee": "depth"}.get(policy, policy)
    ref_depth = {"no_guarantee": 0}.get(policy, 1 if depth is None else depth)
    if starvation_after is not None:
        ref_policy = "starvation"
    since = []
    start, end, bf_flags, promised = reference_simulate(
        submit, dur, jobs["n_procs"].to_numpy().astype(int), est_w, est_r, req,
        jobs["user_id"].to_numpy(), machine, policy=ref_policy, depth=ref_depth,
        priority=priority, keys=-score, bf_sjf=bf == "sjf", under=under, period=period,
        factor=factor, estimator=estimator, starve=starvation_after, bar_heavy=bar_heavy,
        since=since)
    out = schedule.jobs
    np.testing.assert_array_equal(out["start_time"].to_numpy(), np.array(start, dtype=float))
    np.testing.assert_array_equal(out["end_time"].to_numpy(), np.array(end, dtype=float))
    np.testing.assert_array_equal(out["backfilled"].to_numpy(), np.array(bf_flags))
    if starvation_after is not None:
        np.testing.assert_array_equal(out["starving_since"].to_numpy(),
                                      np.array(since, dtype=float))
    if policy == "conservative" or starvation_after is not None:
        np.testing.assert_array_equal(out["promised_start"].to_numpy(),
                                      np.array(promised, dtype=float))
    return schedule

"""The state LearnedRuntime keeps between simulator calls: completions that arrive late.

A job that waited and runs for zero seconds starts and ends at an instant
where jobs submitted after it may already have ended and been applied; the
passes order it before them. The kept state takes those back and applies
them again after it; every prediction must stay that of the passes over the
whole history (the reference path), call by call.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.ensemble import HistGradientBoostingRegressor

from predictkit._reference_path import reference_path
from predictkit.datasets import make_workload
from predictkit.runtime import LearnedRuntime
from predictkit.simulate import simulate


def _params(min_train=10, refit_every=12, max_train=40):
    """Refits every few jobs, so that late completions cross refit sizes."""
    regressor = HistGradientBoostingRegressor(max_iter=8, min_samples_leaf=3,
                                              early_stopping=False, random_state=0)
    return dict(min_train=min_train, refit_every=refit_every, max_train=max_train,
                regressor=regressor)


def _assert_equals_one_pass(est):
    """The kept state's estimate of every completed job is one pass's over the history."""
    hist = est.history_
    raw = est._predict_raw(hist, {c: hist[c] for c in (
        "submit_time", "req_time", "user_id", "group_id", "width")})
    rows = pd.Index(est._jobs["job_id"]).get_indexer(hist["job_id"])
    assert (rows >= 0).all()
    assert_array_equal(est._online.pred[rows], raw)


def _plan(jobs, end, rng):
    """Calls as a simulator makes them: instants in order, completions of an instant in
    batches of any order, estimates asked of jobs submitted at the instant or after.

    Every job is asked once more when its submission instant is over. Returns the calls
    and how many batches came with a completion the passes order before one applied.
    """
    submit, job_id = jobs["submit_time"].to_numpy(), jobs["job_id"].to_numpy()
    calls, late = [], 0
    for now in np.unique(np.concatenate([submit, end])):
        ending = rng.permutation(np.flatnonzero(end == now))
        cuts = np.sort(rng.choice(np.arange(1, len(ending) + 1),
                                  size=min(len(ending), int(rng.integers(0, 4))),
                                  replace=False)) if len(ending) else []
        applied = None
        for batch in np.split(ending, cuts):
            ahead = np.flatnonzero((submit >= now) & (submit <= now + rng.integers(0, 20)))
            if len(ahead):
                calls.append(("predict", rng.choice(ahead, size=min(len(ahead), 3))))
            if not len(batch):
                continue
            keys = sorted(zip(submit[batch], job_id[batch]))
            if applied is not None and keys[0] < applied:
                late += 1
            applied = max(applied, keys[-1]) if applied is not None else keys[-1]
            calls.append(("observe", batch))
        now_submitted = np.flatnonzero(submit == now)
        if len(now_submitted):
            calls.append(("predict", now_submitted))
    return calls, late


def _driven(jobs, end, calls, *, incremental, params):
    est = LearnedRuntime(**params)
    with reference_path(not incremental):
        est.start(jobs)
    run = jobs["run_time"].to_numpy()
    out = []
    for kind, rows in calls:
        if kind == "observe":
            est.observe(rows, end[rows], end[rows], run[rows])
        else:
            out.append(est.predict_for(rows))
    return out, est


def _assert_kept_state_is_the_reference(jobs, end, calls, params):
    fast, est = _driven(jobs, end, calls, incremental=True, params=params)
    assert est._online_stopped is None
    slow, _ = _driven(jobs, end, calls, incremental=False, params=params)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert_array_equal(a, b)
    _assert_equals_one_pass(est)
    return est


def _jobs(submit, wait, run, req, user, rng):
    """Jobs in submit order; their ids, which order completions of an instant that
    were submitted together, in any order."""
    n = len(submit)
    order = np.argsort(submit, kind="stable")
    jobs = pd.DataFrame({"submit_time": submit[order], "wait_time": wait[order],
                         "run_time": run[order], "req_time": req[order],
                         "user_id": user[order], "req_procs": np.ones(n),
                         "job_id": rng.permutation(n).astype(float)})
    end = (jobs["submit_time"] + jobs["wait_time"] + jobs["run_time"]).to_numpy()
    return jobs, end


def _bursty(seed, n):
    """Many jobs in few seconds; a third run for zero seconds, most of them after a wait."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, n // 3, n)).astype(float)
    run = np.where(rng.random(n) < 0.35, 0.0, rng.integers(1, 40, n).astype(float))
    wait = np.where(rng.random(n) < 0.3, 0.0, rng.integers(1, 30, n).astype(float))
    req = rng.choice([5.0, 20.0, 60.0, 3600.0], n)
    user = rng.integers(0, 5, n).astype(float)
    return _jobs(submit, wait, run, req, user, rng)


@pytest.mark.parametrize("seed", [1, 2])
def test_waited_zero_runtime_jobs_ending_after_later_ones_keep_the_kept_state(seed):
    jobs, end = _bursty(seed, 260)
    calls, late = _plan(jobs, end, np.random.default_rng(seed))
    assert late > 20  # the pattern: completions the passes put before applied ones
    est = _assert_kept_state_is_the_reference(jobs, end, calls, _params())
    assert est._online.model is not None
    assert est._online.n_taken_back >= late


def test_a_late_completion_before_more_than_the_pooled_residuals():
    # 150 jobs end in their submit second, each observed before the one that waited
    # (submitted earlier, ending then too): the pooled ring of 128 wraps within it
    n = 400
    jobs, _ = _bursty(3, n)
    submit = jobs["submit_time"].to_numpy().copy()
    wait = jobs["wait_time"].to_numpy().copy()
    run = jobs["run_time"].to_numpy().copy()
    burst = slice(200, 350)
    submit[burst] = submit[199] + 50.0
    submit[350:] += 50.0
    wait[burst], run[burst] = 0.0, 0.0
    wait[199], run[199] = 50.0, 0.0  # waits until the burst, runs for zero seconds
    jobs = jobs.assign(submit_time=submit, wait_time=wait, run_time=run)
    end = submit + wait + run
    calls, _ = _plan(jobs, end, np.random.default_rng(3))
    now = submit[200]
    calls = [c for c in calls if not (c[0] == "observe" and (end[c[1]] == now).any())]
    at = next(k for k, c in enumerate(calls) if c[0] == "observe" and (end[c[1]] > now).any())
    ending = np.flatnonzero(end == now)
    others = ending[ending != 199]
    calls[at:at] = [("observe", others[:100]), ("predict", np.arange(200, 230)),
                    ("observe", others[100:]), ("predict", np.arange(200, 350)),
                    ("observe", np.array([199])), ("predict", np.arange(200, 350))]
    est = _assert_kept_state_is_the_reference(jobs, end, calls, _params(min_train=60, max_train=60))
    assert est._online.n_taken_back >= 150


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 70), span=st.integers(1, 40), zero=st.floats(0.2, 0.8),
       waited=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_random_calls_with_many_same_second_ends_predict_as_the_reference(n, span, zero,
                                                                         waited, seed):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, span, n)).astype(float)
    run = np.where(rng.random(n) < zero, 0.0, rng.integers(1, 10, n).astype(float))
    wait = np.where(rng.random(n) < waited, rng.integers(1, 10, n).astype(float), 0.0)
    req = rng.choice([1.0, 4.0, 9.0, 2000.0], n)
    user = rng.integers(0, 3, n).astype(float)
    jobs, end = _jobs(submit, wait, run, req, user, rng)
    calls, _ = _plan(jobs, end, rng)
    _assert_kept_state_is_the_reference(jobs, end, calls, _params(min_train=4, refit_every=5,
                                                                  max_train=12))


def _waits_behind_a_wide_job(n_rounds=15, seed=4):
    """EASY: a zero-runtime job waits behind a wide one; a job submitted after it is
    backfilled and ends with the wide one, before the zero-runtime job starts."""
    rows = []
    rng = np.random.default_rng(seed)
    for k in range(n_rounds):
        base = 5000.0 * k
        rows += [(base, 1000.0, 1200.0, 100, 1), (base + 10, 0.0, 600.0, 64, 2),
                 (base + 20, 980.0, 980.0, 20, 3), (base + 1000, 50.0, 900.0, 8, 2)]
        rows += [(base + 1100 + 40 * j, float(rng.integers(0, 300)), 400.0, 4, 4 + j % 3)
                 for j in range(4)]
    jobs = pd.DataFrame(rows, columns=["submit_time", "run_time", "req_time", "req_procs",
                                       "user_id"])
    return jobs.assign(job_id=np.arange(1.0, len(jobs) + 1))


class _Recorded(LearnedRuntime):
    """Keeps the copy the simulator drives (``simulate`` works on a copy)."""

    driven = []

    def start(self, jobs):
        _Recorded.driven.append(self)
        return super().start(jobs)


def _simulated(jobs, *, incremental):
    est = _Recorded(**_params())
    with reference_path(not incremental):
        result = simulate(jobs, machine_procs=128, policy="easy", estimates=est)
    return result.jobs, _Recorded.driven[-1]


def test_simulation_with_zero_runtime_jobs_that_waited_predicts_as_the_reference():
    jobs = _waits_behind_a_wide_job()
    fast, est = _simulated(jobs, incremental=True)
    assert est._online_stopped is None
    assert est._online.n_taken_back >= 15
    # the pattern: a waited zero-runtime job ends with a job submitted after it
    waited = fast[(fast["run_time"] == 0) & (fast["start_time"] > fast["submit_time"])]
    later = fast.merge(waited[["end_time", "submit_time"]], on="end_time", suffixes=("", "_z"))
    assert (later["submit_time"] > later["submit_time_z"]).sum() >= 10
    slow, _ = _simulated(jobs, incremental=False)
    for column in ("estimate", "start_time", "end_time"):
        assert_array_equal(fast[column].to_numpy(), slow[column].to_numpy())
    _assert_equals_one_pass(est)


def test_simulation_of_a_workload_with_waited_zero_runtime_jobs_keeps_the_kept_state():
    # times in 5-minute steps: jobs often end at the instant a waiting one starts; offered
    # more than the machine, so that many wait
    jobs = make_workload(500, random_state=31, load=1.2).sort_values("submit_time",
                                                                    kind="stable")
    rng = np.random.default_rng(31)
    run = jobs["run_time"].to_numpy().copy()
    run[rng.random(len(jobs)) < 0.3] = 0.0
    jobs = jobs.assign(run_time=np.round(run / 300) * 300,
                       submit_time=np.round(jobs["submit_time"] / 300) * 300,
                       job_id=np.arange(1.0, len(jobs) + 1))
    jobs = jobs.drop(columns=[c for c in ("wait_time",) if c in jobs.columns])
    fast, est = _simulated(jobs, incremental=True)
    assert est._online_stopped is None
    assert ((fast["run_time"] == 0) & (fast["start_time"] > fast["submit_time"])).sum() > 50
    slow, _ = _simulated(jobs, incremental=False)
    for column in ("estimate", "start_time", "end_time"):
        assert_array_equal(fast[column].to_numpy(), slow[column].to_numpy())
    _assert_equals_one_pass(est)


def test_a_predictor_fitted_before_the_simulation_warns_of_its_slow_passes():
    import warnings

    jobs = make_workload(300, random_state=0)
    past = jobs.iloc[:100].assign(wait_time=0.0)
    fitted = LearnedRuntime(**_params()).fit(past, past["run_time"])
    later = jobs.iloc[100:].reset_index(drop=True)
    later.attrs = dict(jobs.attrs)
    with pytest.warns(UserWarning, match=r"LearnedRuntime was fitted before start \(100 jobs\): "
                                         r"each prediction runs the passes over the whole"):
        simulate(later, estimates=fitted)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate(later, estimates=LearnedRuntime(**_params()))

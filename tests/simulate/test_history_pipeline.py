"""A fitted pipeline on HistoryFeatures as the simulator's predictor: the compiled
path equals the reference path (the pipeline driven through PartialFitAdapter)."""

import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from predictkit._reference_path import reference_path
from predictkit.exceptions import InvalidParameterError, JobTableError, SimulationError
from predictkit.runtime import HistoryFeatures, RecentAverage
from predictkit.simulate import _learned, simulate
from tracedata import load_trace

COMPARED = ("estimate", "start_time", "end_time", "wait_time", "backfilled")


class RowHash(RegressorMixin, BaseEstimator):
    """A regressor whose prediction changes with any bit of a feature row."""

    def __init__(self, spread=60.0):
        self.spread = spread

    def fit(self, X, y):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        return np.array([1.0 + zlib.crc32(row.tobytes()) % int(self.spread) for row in X])


def both_paths(jobs, pipeline, **kwargs):
    """Schedules of the compiled path and of the reference path."""
    fast = simulate(jobs, estimates=pipeline, **kwargs)
    with reference_path():
        assert not _learned.fast_path_applies(pipeline)
        reference = simulate(jobs, estimates=pipeline, **kwargs)
    return fast, reference


def assert_same(fast, reference):
    for column in COMPARED:
        np.testing.assert_array_equal(fast.jobs[column].to_numpy(),
                                      reference.jobs[column].to_numpy(), err_msg=column)


@st.composite
def histories(draw, max_jobs=30):
    """Simulated jobs and a fitted history that may end after they start."""
    n = draw(st.integers(1, max_jobs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 10, 30]), min_size=n, max_size=n))
    submit = 20.0 + np.cumsum(gaps)
    run = np.array(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5, 8, 20, 40]),
                                 min_size=n, max_size=n)), dtype=float)
    slack = np.array(draw(st.lists(st.integers(-5, 40), min_size=n, max_size=n)), dtype=float)
    req = np.maximum(run + slack, 1.0)  # simulate refuses a request of 0 s
    users = st.sampled_from([0.0, 1.0, 2.0, np.nan])
    user = np.array(draw(st.lists(users, min_size=n, max_size=n)))
    job_id = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 4.0, np.nan]),
                                    min_size=n, max_size=n))) if draw(st.booleans()) \
        else np.arange(1.0, n + 1)
    machine = draw(st.integers(1, 6))
    width = np.array(draw(st.lists(st.integers(1, machine), min_size=n, max_size=n)), dtype=float)
    jobs = pd.DataFrame(dict(job_id=job_id, submit_time=submit, run_time=run, n_procs=width,
                             req_time=req, user_id=user))
    m = draw(st.integers(1, 12))
    past_submit = np.sort(np.array(draw(st.lists(st.integers(0, 40), min_size=m, max_size=m)),
                                   dtype=float))
    past = pd.DataFrame(dict(
        job_id=np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 9.0]), min_size=m,
                                      max_size=m))),
        submit_time=past_submit,
        req_time=np.array(draw(st.lists(st.sampled_from([0.0, 10.0, 50.0]), min_size=m,
                                        max_size=m))),
        n_procs=1.0, user_id=np.array(draw(st.lists(users, min_size=m, max_size=m)))))
    past_run = np.array(draw(st.lists(st.sampled_from([0, 3, 7, 30]), min_size=m, max_size=m)),
                        dtype=float)
    # some fitted jobs end after the first simulated submissions: they count from their end
    past["end_time"] = past_submit + past_run + np.array(
        draw(st.lists(st.sampled_from([0, 5, 25, 60]), min_size=m, max_size=m)), dtype=float)
    past["run_time"] = past_run
    return jobs, machine, past


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=histories(), n_recent=st.integers(1, 3),
       policy=st.sampled_from(["easy", "fcfs", "conservative", "no_guarantee"]),
       priority=st.sampled_from(["fcfs", "sjf", "wfp", "fairshare"]),
       split=st.sampled_from([None, 15.0]), selective=st.booleans())
def test_compiled_path_equals_reference_on_random_workloads(case, n_recent, policy, priority,
                                                           split, selective):
    jobs, machine, past = case
    pipeline = make_pipeline(HistoryFeatures(n_recent=n_recent), RowHash())
    pipeline.fit(past, past["run_time"])
    fast, reference = both_paths(jobs, pipeline, machine_procs=machine, policy=policy,
                                 priority=priority, max_runtime=split, selective=selective,
                                 fairshare_decay=50.0)
    assert_same(fast, reference)


def test_learned_features_are_history_features_at_submission():
    # the regressor sees, for each job, HistoryFeatures.transform of the jobs
    # that completed (in the simulation) by its submission
    jobs = _workload(300, seed=3)
    past = jobs.iloc[:80].assign(end_time=lambda t: t.submit_time + t.run_time)
    seen = []

    class Recorder(RowHash):
        def predict(self, X):
            seen.append(np.array(X))
            return super().predict(X)

    pipeline = make_pipeline(HistoryFeatures(), Recorder()).fit(past, past["run_time"])
    sim = jobs.iloc[80:].reset_index(drop=True)
    out = simulate(sim, estimates=pipeline, machine_procs=64).jobs
    rows = np.vstack(seen)
    features = pipeline.steps[0][1]
    for j in (0, 50, 150, len(sim) - 1):
        done = out[out["end_time"] <= out["submit_time"][j]]
        done = done.assign(run_time=done["sim_run_time"])
        expected = HistoryFeatures().fit(past, past["run_time"]).partial_fit(
            done, done["run_time"]).transform(sim.iloc[[j]])[0]
        assert any(np.array_equal(expected, row, equal_nan=True) for row in rows), j
    assert features.n_history_ == len(past)  # the pipeline passed in is not changed


def _workload(n, seed):
    rng = np.random.default_rng(seed)
    run = rng.choice([5.0, 60.0, 600.0, 3600.0], n) * rng.uniform(0.5, 1.5, n).round(1)
    return pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.cumsum(rng.choice([0, 10, 60, 300], n)),
        run_time=run.round(), n_procs=rng.choice([1.0, 4.0, 16.0], n),
        req_time=(run * rng.uniform(1.0, 4.0, n)).round() + 60,
        user_id=rng.integers(0, 6, n).astype(float)))


@pytest.mark.parametrize("steps", [
    [HistGradientBoostingRegressor(max_iter=15, random_state=0)],
    [StandardScaler(), DecisionTreeRegressor(max_depth=6, random_state=0)],
])
def test_compiled_path_equals_reference_with_sklearn_regressors(steps):
    jobs = _workload(600, seed=1)
    past = jobs.iloc[:200].assign(end_time=lambda t: t.submit_time + t.run_time)
    pipeline = make_pipeline(HistoryFeatures(n_recent=2), *steps).fit(past, past["run_time"])
    sim = jobs.iloc[150:].reset_index(drop=True)
    fast, reference = both_paths(sim, pipeline, machine_procs=32, backfill_order="sjf",
                                 on_underestimate="increments")
    assert_same(fast, reference)
    assert fast.params["estimates"] == "Pipeline"


@pytest.mark.traces
@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.2-cln"])
@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_compiled_path_equals_reference_on_real_trace_prefix(name, policy):
    jobs = load_trace(name, 1600)
    jobs = jobs.dropna(subset=["run_time", "req_time", "n_procs"]).reset_index(drop=True)
    jobs = jobs[jobs["n_procs"] <= jobs.attrs["max_procs"]].reset_index(drop=True)
    past, sim = jobs.iloc[:800], jobs.iloc[800:].reset_index(drop=True)
    sim.attrs = dict(jobs.attrs)
    pipeline = make_pipeline(HistoryFeatures(), HistGradientBoostingRegressor(
        loss="quantile", quantile=0.85, max_iter=30, random_state=0))
    pipeline.fit(past, past["run_time"])
    fast, reference = both_paths(sim, pipeline, policy=policy)
    assert_same(fast, reference)


def test_regressor_is_called_less_than_once_per_submission_instant():
    jobs = _workload(1000, seed=2)
    past = jobs.iloc[:200].assign(end_time=lambda t: t.submit_time + t.run_time)
    calls = []

    class Counting(RowHash):
        def predict(self, X):
            calls.append(len(X))
            return super().predict(X)

    pipeline = make_pipeline(HistoryFeatures(), Counting()).fit(past, past["run_time"])
    sim = jobs.iloc[200:].reset_index(drop=True)
    simulate(sim, estimates=pipeline, machine_procs=64)
    assert sum(calls) >= sim["submit_time"].nunique()
    assert len(calls) < 0.5 * sim["submit_time"].nunique()


def test_unfitted_pipeline_is_refused_in_one_line():
    jobs = _workload(20, seed=0)
    with pytest.raises(InvalidParameterError, match="'estimates' parameter of simulate must "
                       "be a fitted pipeline") as info:
        simulate(jobs, estimates=make_pipeline(HistoryFeatures(), DecisionTreeRegressor()))
    assert "\n" not in str(info.value)


def test_pipeline_without_history_features_first_is_refused():
    jobs = _workload(20, seed=0)
    pipeline = make_pipeline(StandardScaler(), DecisionTreeRegressor())
    with pytest.raises(InvalidParameterError, match="'estimates' parameter of simulate"):
        simulate(jobs, estimates=pipeline)


def test_predictor_refresh_uses_the_reference_path():
    jobs = _workload(200, seed=4)
    past = jobs.iloc[:50].assign(end_time=lambda t: t.submit_time + t.run_time)
    pipeline = make_pipeline(HistoryFeatures(), RowHash()).fit(past, past["run_time"])
    sim = jobs.iloc[50:].reset_index(drop=True)
    exact = simulate(sim, estimates=pipeline, machine_procs=32)
    refreshed = simulate(sim, estimates=pipeline, machine_procs=32, predictor_refresh="2h")
    assert refreshed.params["predictor_refresh"] == 7200.0
    # a refresh window predicts ahead with an older history: some estimate differs
    assert not np.array_equal(exact.jobs["estimate"], refreshed.jobs["estimate"])


def test_online_predictors_are_unaffected():
    jobs = _workload(200, seed=5)
    past = jobs.iloc[:50].assign(end_time=lambda t: t.submit_time + t.run_time)
    predictor = RecentAverage().fit(past, past["run_time"])
    out = simulate(jobs.iloc[50:].reset_index(drop=True), estimates=predictor, machine_procs=32)
    assert out.params["estimates"] == "RecentAverage"


def test_jobs_without_user_id_are_refused_in_one_line():
    jobs = _workload(50, seed=0)
    past = jobs.iloc[:20].assign(end_time=lambda t: t.submit_time + t.run_time)
    pipeline = make_pipeline(HistoryFeatures(), RowHash()).fit(past, past["run_time"])
    with pytest.raises(JobTableError, match="lack required column.*user_id"):
        simulate(jobs.drop(columns=["user_id"]), estimates=pipeline, machine_procs=32)


class BadShape(RowHash):
    def predict(self, X):
        return np.ones((len(X), 2))


class NoEstimate(RowHash):
    def predict(self, X):
        return np.full(len(X), np.nan)


@pytest.mark.parametrize("regressor,message", [
    (BadShape(), r"Pipeline.predict returned shape \(\d+, 2\)"),
    (NoEstimate(), "Pipeline gave no estimate for a job without a request"),
])
def test_bad_regressor_output_is_a_simulation_error(regressor, message):
    jobs = _workload(50, seed=0)
    past = jobs.iloc[:20].assign(end_time=lambda t: t.submit_time + t.run_time)
    pipeline = make_pipeline(HistoryFeatures(), regressor).fit(past, past["run_time"])
    sim = jobs.assign(req_time=np.nan)
    with pytest.raises(SimulationError, match=message):
        simulate(sim, estimates=pipeline, machine_procs=32)

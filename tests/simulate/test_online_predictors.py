"""Built-in predictors compiled into the event loop agree job by job with the
Python-driven reference path (``_Feeder``), for every policy and priority."""

import contextlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _workloads import POLICY_CASES
from tracedata import load_trace
from predictkit._reference_path import reference_path
from predictkit.exceptions import SimulationError
from predictkit.jobs import clean_jobs
from predictkit.runtime import RecentAverage, RecentUsageMax, RequestedTime, WalltimeAdjuster
from predictkit.simulate import PRIORITIES, simulate
from predictkit.simulate import _online_predictors as online

PREDICTOR_NAMES = ["requested", "tang", "usage-max", "recent-average", "perfect"]


class PerfectOracle:
    """``estimates="perfect"`` through the Python path: the simulated runtimes, told in advance."""

    def __init__(self, runtimes):
        self.runtimes = runtimes

    def start(self, jobs):
        return self

    def observe(self, index, start_time, end_time, run_time):
        pass

    def predict_for(self, index):
        return self.runtimes[index]


@st.composite
def workloads(draw, max_jobs=25, max_procs=8):
    """Small job tables with ties in submit and end times, missing keys and requests."""
    n = draw(st.integers(1, max_jobs))
    n_users = draw(st.integers(1, 4))
    machine = draw(st.integers(1, max_procs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 10, 30]), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    run = np.array(draw(st.lists(st.integers(0, 60), min_size=n, max_size=n)), dtype=float)
    # few distinct requests, so that jobs share Tang's keys (simulate refuses 0 s)
    req = np.array(draw(st.lists(st.sampled_from([1, 5, 30, 60, 60, 60, 90]),
                                 min_size=n, max_size=n)), dtype=float)
    if draw(st.integers(0, 4)) == 0:
        gone = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        req[gone] = np.nan
    width = np.array(draw(st.lists(st.integers(1, machine), min_size=n, max_size=n)), dtype=float)
    user = draw(st.lists(st.sampled_from([*map(float, range(n_users)), np.nan]),
                         min_size=n, max_size=n))
    group = draw(st.lists(st.sampled_from([0.0, 1.0, np.nan]), min_size=n, max_size=n))
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1), submit_time=submit, run_time=run,
                             n_procs=width, req_time=req, user_id=user, group_id=group))
    jobs.attrs["max_procs"] = machine
    return jobs


@st.composite
def predictors(draw):
    """A built-in predictor with any parameters, or ``"perfect"``."""
    name = draw(st.sampled_from(PREDICTOR_NAMES))
    if name == "requested":
        return RequestedTime(clip_to_request=draw(st.booleans()))
    if name == "tang":
        keys = draw(st.sampled_from([("user_id",), ("group_id",), ("user_id", "group_id"),
                                     ("user_id", "group_id", "req_time"), ("req_time",),
                                     ("group_id", "user_id", "user_id")]))
        quantile = draw(st.one_of(st.sampled_from([0.5, 0.85, 1.0, "mean"]),
                                  st.floats(0.5, 1.0)))
        return WalltimeAdjuster(
            keys=keys, window=draw(st.sampled_from([None, 0, 2, 5, 10, 20, 60, "1h"])),
            quantile=quantile, min_jobs=draw(st.integers(1, 3)),
            floor=draw(st.sampled_from([None, 0.0, 0.3, 0.5, 1.0])),
            clip_to_request=draw(st.booleans()))
    if name == "usage-max":
        return RecentUsageMax(n_recent=draw(st.integers(1, 6)),
                              clip_to_request=draw(st.booleans()))
    if name == "recent-average":
        return RecentAverage(n_recent=draw(st.integers(1, 6)),
                             clip_to_request=draw(st.booleans()))
    return "perfect"


def outcome(jobs, estimates, **kwargs):
    """The schedule's job table, or the message of the error the simulation raised."""
    try:
        return simulate(jobs, estimates=estimates, **kwargs).jobs
    except SimulationError as error:
        return str(error)


def assert_paths_agree(jobs, predictor, **kwargs):
    """Compiled path and reference path: same jobs frame (start, end, estimate,
    backfilled, promised start ...), or the same error."""
    if isinstance(predictor, str):
        req = jobs["req_time"].fillna(np.inf).to_numpy()
        run = jobs["run_time"].to_numpy()
        runtimes = np.minimum(run, req) if kwargs.get("kill_at_request", True) else run
        reference = outcome(jobs, PerfectOracle(runtimes), **kwargs)
    else:
        assert online.compiled_kind(predictor, None) is not None
        with reference_path():
            assert online.compiled_kind(predictor, None) is None
            reference = outcome(jobs, predictor, **kwargs)
    compiled = outcome(jobs, predictor, **kwargs)
    if isinstance(reference, str) or isinstance(compiled, str):
        assert compiled == reference
    else:
        pd.testing.assert_frame_equal(compiled, reference)
    return compiled


@pytest.mark.parametrize("priority", PRIORITIES)
@pytest.mark.parametrize("policy,depth", POLICY_CASES)
@settings(max_examples=25)
@given(jobs=workloads(), predictor=predictors(), selective=st.booleans(),
       under=st.sampled_from(["double", "increments", "request"]),
       bf=st.sampled_from(["priority", "sjf"]), split=st.sampled_from([None, None, 7, 25]),
       kill=st.booleans())
def test_compiled_predictor_equals_reference_path(policy, depth, priority, jobs, predictor,
                                                  selective, under, bf, split, kill):
    if selective:
        jobs = jobs.assign(req_time=jobs["req_time"].fillna(50.0))
    assert_paths_agree(jobs, predictor, policy=policy, reservation_depth=depth,
                       priority=priority, selective=selective, on_underestimate=under,
                       backfill_order=bf, max_runtime=split, kill_at_request=kill,
                       fairshare_decay=40.0)


@pytest.mark.traces
@pytest.mark.parametrize("name", ["KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.2-cln"])
@pytest.mark.parametrize("predictor", [
    RequestedTime(), WalltimeAdjuster(), WalltimeAdjuster(quantile="mean", window=None),
    WalltimeAdjuster(keys=("user_id",), quantile=0.5, window="7D", floor=None),
    RecentUsageMax(), RecentAverage(), "perfect"], ids=repr)
@pytest.mark.parametrize("policy,depth", [("fcfs", None), ("easy", None), ("easy", 4),
                                          ("no_guarantee", None), ("conservative", None)])
def test_real_trace_prefix_paths_agree(name, predictor, policy, depth):
    jobs = clean_jobs(load_trace(name, 1000), for_simulation=True, require_request=True)
    machine = int(jobs.attrs["max_procs"])
    jobs = jobs[jobs["n_procs"] <= machine].reset_index(drop=True)
    # every priority, spread over the cases rather than multiplying them
    priority = PRIORITIES[hash((name, policy, depth, repr(predictor))) % len(PRIORITIES)]
    out = assert_paths_agree(jobs, predictor, policy=policy, reservation_depth=depth,
                             priority=priority, selective=policy == "easy",
                             on_underestimate="increments", max_runtime="12h")
    assert not isinstance(out, str)


@pytest.mark.parametrize("priority", PRIORITIES)
def test_real_trace_prefix_every_priority(priority):
    jobs = clean_jobs(load_trace("SDSC-SP2-1998-4.2-cln", 1500), for_simulation=True,
                      require_request=True)
    assert_paths_agree(jobs, WalltimeAdjuster(), policy="easy", priority=priority,
                       selective=True)


def test_which_predictors_are_compiled():
    assert online.compiled_kind(RequestedTime(), None) == online.KIND_STATIC
    assert online.compiled_kind(WalltimeAdjuster(), None) == online.KIND_QUANTILE
    assert online.compiled_kind(WalltimeAdjuster(quantile="mean"), None) == online.KIND_MEAN
    assert online.compiled_kind(RecentUsageMax(), None) == online.KIND_RECENT_MAX
    assert online.compiled_kind(RecentAverage(), None) == online.KIND_RECENT_MEAN
    # the exact path only
    assert online.compiled_kind(WalltimeAdjuster(), 3600.0) is None

    class Tabled(WalltimeAdjuster):
        def predict(self, X):
            return super().predict(X)

    assert online.compiled_kind(Tabled(), None) is None
    assert online.compiled_kind(PerfectOracle(np.zeros(1)), None) is None


def test_predictor_fitted_before_keeps_its_history():
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 100.0, 200.0],
                             run_time=[10.0, 10.0, 10.0], n_procs=[1.0, 1.0, 1.0],
                             req_time=[100.0, 100.0, 100.0], user_id=[1.0, 1.0, 1.0]))
    past = pd.DataFrame(dict(submit_time=[-50.0], wait_time=[0.0], req_time=[100.0],
                             user_id=[1.0]))
    fitted = RecentAverage().fit(past, [40.0])
    assert online.compiled_kind(fitted, None) is None
    out = simulate(jobs, machine_procs=1, estimates=fitted).jobs
    # job 1 sees the fitted history; later jobs the simulated runs
    assert list(out["estimate"]) == [40.0, 25.0, 10.0]
    fresh = simulate(jobs, machine_procs=1, estimates=RecentAverage()).jobs
    assert list(fresh["estimate"]) == [100.0, 10.0, 10.0]


def test_missing_estimate_is_the_same_error_on_both_paths():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 5.0], run_time=[3.0, 3.0],
                             n_procs=[1.0, 1.0], req_time=[100.0, np.nan],
                             user_id=[1.0, 2.0]))
    for predictor in (WalltimeAdjuster(keys=("user_id",)), RecentUsageMax(), RecentAverage(),
                      RequestedTime()):
        name = type(predictor).__name__
        with pytest.raises(SimulationError, match=f"{name} gave no estimate for a job without"):
            simulate(jobs, estimates=predictor)
        with reference_path(), pytest.raises(SimulationError, match=name):
            simulate(jobs, estimates=predictor)


def test_later_job_without_request_is_asked_at_its_own_submission():
    # job 2 has no request; when the loop stops at time 0 it is predicted
    # ahead, before user 1 has a completed job; at its own submission (time
    # 10) job 1 has ended and the recent average exists
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 10.0], run_time=[4.0, 3.0],
                             n_procs=[1.0, 1.0], req_time=[100.0, np.nan],
                             user_id=[1.0, 1.0]))
    for path in (reference_path(), contextlib.nullcontext()):
        with path:
            out = simulate(jobs, machine_procs=1, estimates=RecentAverage()).jobs
        assert list(out["estimate"]) == [100.0, 4.0]


def test_last_jobs_follow_the_history_order_not_the_completion_order():
    # job 1 is split (max_runtime 5): its last piece and job 2 both end at 10;
    # the engine completes job 2 first (pieces come after all jobs), but the
    # history orders equal known times by submit time: job 2 is the last one
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 6.0, 20.0],
                             run_time=[10.0, 4.0, 1.0], n_procs=[1.0, 1.0, 1.0],
                             req_time=[100.0, 100.0, 100.0], user_id=[1.0, 1.0, 1.0]))
    kwargs = dict(machine_procs=2, estimates=RecentAverage(n_recent=1), max_runtime=5)
    out = simulate(jobs, **kwargs).jobs
    with reference_path():
        ref = simulate(jobs, **kwargs).jobs
    pd.testing.assert_frame_equal(out, ref)
    assert list(out["end_time"]) == [10.0, 10.0, 21.0]
    assert out["estimate"].iloc[2] == 4.0  # job 1 would give min(10, 5)


@pytest.mark.parametrize("quantile", [0.85, "mean"])
@pytest.mark.parametrize("window,expected", [(20, 10.0), (19, 100.0), (None, 10.0)])
def test_window_includes_jobs_ending_exactly_its_length_before(quantile, window, expected):
    # job 1 ends at 10; job 2 is submitted at 30: in a 20 s window (10 <= end <= 30)
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 30.0], run_time=[10.0, 5.0],
                             n_procs=[1.0, 1.0], req_time=[100.0, 100.0], user_id=[1.0, 1.0]))
    predictor = WalltimeAdjuster(keys=("user_id",), window=window, quantile=quantile,
                                 min_jobs=1, floor=None)
    out = assert_paths_agree(jobs, predictor, machine_procs=1)
    assert list(out["estimate"]) == [100.0, expected]


@pytest.mark.parametrize("policy,depth", [("easy", None), ("conservative", None),
                                          ("no_guarantee", None), ("easy", 2)])
@settings(max_examples=40)
@given(jobs=workloads(max_jobs=40, max_procs=4),
       window=st.sampled_from([None, 0, 3, 10, 30]),
       quantile=st.one_of(st.sampled_from([0.5, 1.0, "mean"]), st.floats(0.5, 1.0)),
       floor=st.sampled_from([None, 0.2]), min_jobs=st.integers(1, 3),
       priority=st.sampled_from(PRIORITIES))
def test_tang_windows_and_quantiles_agree(policy, depth, jobs, window, quantile, floor,
                                          min_jobs, priority):
    # one key, so that most jobs have similar completed jobs and get adjusted
    predictor = WalltimeAdjuster(keys=("user_id",), window=window, quantile=quantile,
                                 floor=floor, min_jobs=min_jobs)
    assert_paths_agree(jobs, predictor, policy=policy, reservation_depth=depth,
                       priority=priority)

"""The compiled kernels against the plain-Python references, on random and real jobs."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from runtime_reference import (as_records, history_features, recent_average, tang,
                               type7, usage_max)
from tracedata import load_trace

from predictkit.runtime import HistoryFeatures, RecentAverage, RecentUsageMax, WalltimeAdjuster
from predictkit.runtime._kernels import quantile_sorted


@st.composite
def job_tables(draw, max_jobs=40):
    n = draw(st.integers(1, max_jobs))
    ints = st.integers
    cols = {
        "job_id": np.arange(1, n + 1),
        "submit_time": draw(st.lists(ints(0, 50), min_size=n, max_size=n)),
        "wait_time": draw(st.lists(ints(0, 20), min_size=n, max_size=n)),
        "req_time": draw(st.lists(st.sampled_from([np.nan, 0.0, 10.0, 20.0, 60.0]),
                                  min_size=n, max_size=n)),
        "user_id": draw(st.lists(st.sampled_from([1.0, 2.0, np.nan]), min_size=n, max_size=n)),
        "group_id": draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=n, max_size=n)),
    }
    X = pd.DataFrame(cols).astype({c: float for c in cols if c != "job_id"})
    y = np.asarray(draw(st.lists(ints(0, 70), min_size=n, max_size=n)), dtype=float)
    return X, y


def _reference_predictions(X, y, one):
    known = (X["submit_time"] + X["wait_time"]).to_numpy() + y
    hist = as_records(X, y, known)
    return np.array([one(hist, job) for job in as_records(X)])


@given(job_tables(), st.sampled_from([0.5, 0.7, 0.85, 1.0, "mean"]),
       st.sampled_from([None, 10.0, 30.0]), st.integers(1, 4),
       st.sampled_from([None, 0.5]),
       st.sampled_from([("user_id",), ("group_id",), ("user_id", "group_id", "req_time")]))
def test_walltime_adjuster_matches_reference(data, quantile, window, min_jobs, floor, keys):
    X, y = data
    est = WalltimeAdjuster(keys=keys, window=window, quantile=quantile,
                           min_jobs=min_jobs, floor=floor)
    got = est.fit(X, y).predict(X)
    want = _reference_predictions(X, y, lambda h, j: tang(
        h, j, keys=keys, window=window, quantile=quantile, min_jobs=min_jobs, floor=floor))
    assert_array_equal(got, want)


@given(job_tables(), st.integers(1, 6))
def test_recent_predictors_match_reference(data, n_recent):
    X, y = data
    got = RecentUsageMax(n_recent=n_recent).fit(X, y).predict(X)
    assert_array_equal(got, _reference_predictions(
        X, y, lambda h, j: usage_max(h, j, n_recent=n_recent)))
    got = RecentAverage(n_recent=n_recent).fit(X, y).predict(X)
    assert_array_equal(got, _reference_predictions(
        X, y, lambda h, j: recent_average(h, j, n_recent=n_recent)))


@given(job_tables(), st.integers(1, 4))
def test_history_features_match_reference(data, n_recent):
    X, y = data
    got = HistoryFeatures(n_recent=n_recent).fit(X, y).transform(X)[:, 4:]
    want = _reference_predictions(X, y, lambda h, j: history_features(h, j, n_recent=n_recent))
    assert_array_equal(got, want)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=50),
       st.floats(0.5, 1.0))
def test_quantile_is_numpy_linear(values, q):
    values = np.sort(np.asarray(values))
    got = quantile_sorted(values, len(values), q)
    assert got == type7(list(values), q)
    assert np.isclose(got, np.quantile(values, q, method="linear"), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("trace", ["SDSC-SP2-1998-4.2-cln"])
def test_real_trace_matches_reference(trace):
    X = load_trace(trace, 1500)
    X.attrs = {}
    y = X["run_time"].to_numpy()
    done = np.isfinite(y)
    keys = ("user_id", "group_id", "req_time")
    got = WalltimeAdjuster(window="30D").fit(X[done], y[done]).predict(X)
    known = (X["submit_time"] + X["wait_time"]).to_numpy() + y
    hist = as_records(X[done], y[done], known[done])
    want = np.array([tang(hist, job, keys=keys, window=30 * 86400.0, quantile=0.85,
                          min_jobs=10, floor=0.5) for job in as_records(X)])
    assert_array_equal(got, want)
    assert (got < X["req_time"].to_numpy()).sum() > 100

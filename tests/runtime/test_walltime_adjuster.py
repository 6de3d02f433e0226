"""WalltimeAdjuster: Tang et al. (2013) section 4 on hand-made and real jobs."""

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose, assert_array_equal
from tracedata import load_trace

from predictkit.metrics import adjustment_outcomes, estimate_accuracy
from predictkit.model_selection import replay
from predictkit.runtime import WalltimeAdjuster

DAY = 86400.0


def _history(runs, req=1000.0, end=None, user=1.0):
    n = len(runs)
    end = np.zeros(n) if end is None else np.asarray(end, dtype=float)
    jobs = pd.DataFrame({"submit_time": end - np.asarray(runs, float), "wait_time": 0.0,
                         "req_time": req, "user_id": user, "group_id": 1.0})
    return jobs, np.asarray(runs, float)


def _new(t, req=1000.0, user=1.0):
    return pd.DataFrame({"submit_time": [t], "req_time": [req], "user_id": [user],
                         "group_id": [1.0]})


def test_percentile_of_r_times_request():
    X, y = _history([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    est = WalltimeAdjuster(keys=("user_id",), window=None, quantile=0.5, floor=None).fit(X, y)
    assert_allclose(est.predict(_new(10.0, req=2000.0)), [2000.0 * 0.55])
    est.set_params(quantile="mean")
    assert_allclose(est.fit(X, y).predict(_new(10.0)), [550.0])


def test_r_above_one_counts_as_one():
    X, y = _history([5000.0] * 10)
    est = WalltimeAdjuster(keys=("user_id",), window=None).fit(X, y)
    assert_array_equal(est.predict(_new(10.0)), [1000.0])


def test_min_jobs_and_floor():
    X, y = _history([10.0] * 9)
    est = WalltimeAdjuster(keys=("user_id",), window=None, min_jobs=10).fit(X, y)
    assert_array_equal(est.predict(_new(10.0)), [1000.0])
    X, y = _history([10.0] * 10)
    assert_array_equal(est.fit(X, y).predict(_new(10.0)), [500.0])
    est.set_params(floor=None)
    assert_array_equal(est.fit(X, y).predict(_new(10.0)), [10.0])


def test_window_bounds_are_inclusive_and_relative_to_submission():
    ends = np.r_[np.zeros(10), np.full(10, 30 * DAY)]
    X, y = _history(np.r_[np.full(10, 100.0), np.full(10, 900.0)], end=ends)
    est = WalltimeAdjuster(keys=("user_id",), window="30D", quantile=1.0, floor=None).fit(X, y)
    # at 30 days all 20 are in [t - 30D, t]; one second later the first ten left
    assert_array_equal(est.predict(_new(30 * DAY)), [900.0])
    X2, y2 = X.iloc[:10], y[:10]
    est.fit(X2, y2)
    assert_array_equal(est.predict(_new(30 * DAY)), [100.0])
    assert_array_equal(est.predict(_new(30 * DAY + 1)), [1000.0])
    # a job that ends after the submission is not used yet
    assert_array_equal(est.predict(_new(-1.0)), [1000.0])


def test_keys_separate_groups():
    X, y = _history([100.0] * 10, user=1.0)
    X2, y2 = _history([900.0] * 10, user=2.0)
    est = WalltimeAdjuster(keys=("user_id",), window=None, quantile=1.0).fit(
        pd.concat([X, X2]), np.r_[y, y2])
    pred = est.predict(pd.concat([_new(1.0, user=1.0), _new(1.0, user=2.0)]))
    assert_array_equal(pred, [500.0, 900.0])


def test_tang_trends_on_a_real_trace():
    X = load_trace("SDSC-DS-2004-2.1-cln", 25000)
    y = X["run_time"].to_numpy()
    req = X["req_time"].to_numpy()
    ok = np.isfinite(y) & np.isfinite(req)
    acc, under = {}, {}
    for q in (0.5, 0.85, 1.0):
        pred = replay(WalltimeAdjuster(quantile=q, floor=None), X, y)
        acc[q] = estimate_accuracy(y[ok], pred[ok])
        out = adjustment_outcomes(y[ok], req[ok], pred[ok])
        under[q] = out["UE"] + out["BE"]
    base = estimate_accuracy(y[ok], req[ok])
    assert acc[0.5] > acc[0.85] > acc[1.0] > base
    assert under[0.5] > under[0.85] > under[1.0]
    floored = replay(WalltimeAdjuster(quantile=0.5, floor=0.5), X, y)
    out = adjustment_outcomes(y[ok], req[ok], floored[ok])
    assert out["UE"] + out["BE"] < under[0.5]


def test_unusable_keys_name_absent_and_empty_columns():
    from predictkit.runtime._walltime_adjuster import unusable_keys

    jobs = pd.DataFrame({"user_id": [1.0, np.nan], "group_id": [np.nan, np.nan],
                         "req_time": [10.0, 20.0]})
    assert unusable_keys(jobs, "user,group,request") == {"group_id": "gives group_id for no job"}
    assert unusable_keys(jobs, ("user_id", "queue")) == {"queue_id": "has no column queue_id"}
    assert unusable_keys(jobs, ["user", "request"]) == {}

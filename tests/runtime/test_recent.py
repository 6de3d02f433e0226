"""RecentUsageMax (Klusacek & Soysal eq. 2) and RecentAverage (Tsafrir et al. 2007)."""

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal
from tracedata import load_trace

from predictkit.metrics import estimate_accuracy
from predictkit.model_selection import replay
from predictkit.runtime import RecentAverage, RecentUsageMax, RequestedTime


def _done(runs, reqs, ends):
    n = len(runs)
    return pd.DataFrame({"job_id": np.arange(n), "submit_time": np.asarray(ends, float) - runs,
                         "wait_time": 0.0, "req_time": np.asarray(reqs, float),
                         "user_id": 1.0}), np.asarray(runs, float)


NEW = pd.DataFrame({"submit_time": [1e6], "req_time": [10000.0], "user_id": [1.0]})


def test_usage_max_uses_the_last_five_by_end_time():
    runs = [900.0, 100.0, 200.0, 100.0, 300.0, 100.0]
    X, y = _done(runs, [1000.0] * 6, ends=[10, 20, 30, 40, 50, 60])
    assert_array_equal(RecentUsageMax().fit(X, y).predict(NEW), [3000.0])
    assert_array_equal(RecentUsageMax(n_recent=6).fit(X, y).predict(NEW), [9000.0])
    # rows in another order: "last" still follows end times
    order = [5, 0, 3, 1, 4, 2]
    assert_array_equal(RecentUsageMax().fit(X.iloc[order], y[order]).predict(NEW), [3000.0])


def test_recent_average_of_last_two_and_of_one():
    X, y = _done([100.0, 300.0, 500.0], [1000.0] * 3, ends=[10, 20, 30])
    assert_array_equal(RecentAverage().fit(X, y).predict(NEW), [400.0])
    assert_array_equal(RecentAverage().fit(X.iloc[:1], y[:1]).predict(NEW), [100.0])


def test_predictors_beat_requests_on_a_real_trace():
    X = load_trace("KTH-SP2-1996-2.1-cln", 10000)
    y = X["run_time"].to_numpy()
    base = estimate_accuracy(y, replay(RequestedTime(), X, y))
    usage = estimate_accuracy(y, replay(RecentUsageMax(), X, y))
    average = estimate_accuracy(y, replay(RecentAverage(), X, y))
    assert usage > base and average > base

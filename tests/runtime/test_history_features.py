"""HistoryFeatures: leakage-free features and the learned pipeline."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from tracedata import load_trace

from predictkit.runtime import HistoryFeatures


def test_features_use_only_jobs_ended_before_submission():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 600)
    X.attrs = {"unix_start_time": X.attrs.get("unix_start_time", 0)}
    y = X["run_time"].to_numpy()
    done = np.isfinite(y)
    whole = HistoryFeatures().fit(X[done], y[done]).transform(X)
    known = (X["submit_time"] + X["wait_time"]).to_numpy() + y
    for j in range(0, len(X), 7):
        ok = done & (known <= X["submit_time"].iat[j])
        alone = clone(HistoryFeatures()).fit(X[ok], y[ok]).transform(X.iloc[[j]])
        assert_array_equal(alone[0], whole[j])


def test_feature_names_and_calendar():
    X = pd.DataFrame({"submit_time": [0.0, 3600.0 * 25], "wait_time": [0.0, 0.0],
                      "req_time": [100.0, 100.0], "user_id": [1.0, 1.0],
                      "req_procs": [np.nan, 4.0], "n_procs": [8.0, 8.0]})
    X.attrs["unix_start_time"] = 86400 * 4  # a Monday, 00:00 UTC
    est = HistoryFeatures(n_recent=2).fit(X, [10.0, 20.0])
    out = est.transform(X)
    names = list(est.get_feature_names_out())
    assert out.shape == (2, len(names))
    assert_array_equal(out[:, names.index("procs")], [8.0, 4.0])
    assert_array_equal(out[:, names.index("hour")], [0.0, 1.0])
    assert_array_equal(out[:, names.index("weekday")], [0.0, 1.0])
    assert_array_equal(out[:, names.index("user_n_done")], [0.0, 1.0])
    assert_array_equal(out[:, names.index("user_run_1")], [np.nan, 10.0])
    assert_array_equal(out[:, names.index("user_since_last_end")], [np.nan, 3600.0 * 25 - 10])


@pytest.mark.parametrize("start", ["2024-01-01", True, -5.0, 1e30, float("nan")])
def test_a_unix_start_time_that_is_no_time_is_refused_by_name(start):
    from predictkit.datasets import make_workload
    from predictkit.exceptions import JobTableError

    jobs = make_workload(200, random_state=0)
    jobs.attrs["unix_start_time"] = start
    with pytest.raises(JobTableError, match=r"attrs\['unix_start_time'\] is .*, not seconds "
                                            r"since 1970"):
        HistoryFeatures().fit(jobs, jobs["run_time"])

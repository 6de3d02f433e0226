"""clone, pipelines and model selection on a real trace (common checks: tests/test_common.py)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits
from tracedata import load_trace

from predictkit.metrics import estimate_accuracy_scorer, underestimation_rate_scorer
from predictkit.model_selection import TraceSplit
from predictkit.runtime import HistoryFeatures, RequestedTime, WalltimeAdjuster

@pytest.fixture(scope="module")
def kth():
    X = load_trace("KTH-SP2-1996-2.1-cln", 8000)
    return X, X["run_time"].to_numpy()


def test_clone_and_params():
    est = WalltimeAdjuster(keys=("user_id",), window=None, quantile="mean")
    copy = clone(est)
    assert copy.get_params() == est.get_params()
    copy.set_params(quantile=0.7)
    assert est.quantile == "mean"


def test_grid_search_with_trace_split(kth):
    X, y = kth
    search = GridSearchCV(
        WalltimeAdjuster(keys=("user_id",)), {"quantile": [0.5, 0.85, 1.0]},
        cv=TraceSplit(n_splits=3, period="30D"), scoring=estimate_accuracy_scorer)
    search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    # the maximum adjusts least (Tang et al. Fig. 4), yet beats the requests
    assert scores[2] < min(scores[0], scores[1])
    assert search.best_params_["quantile"] < 1.0
    baseline = cross_validate(RequestedTime(), X, y, cv=TraceSplit(n_splits=3, period="30D"),
                              scoring=estimate_accuracy_scorer)["test_score"].mean()
    assert scores[2] > baseline


def test_cross_validate_pipeline(kth):
    X, y = kth
    pipe = make_pipeline(HistoryFeatures(), HistGradientBoostingRegressor(
        loss="quantile", quantile=0.85, max_iter=30, random_state=0))
    # one OpenMP thread: gradient boosting on a shared, busy machine crawls otherwise
    with threadpool_limits(1):
        result = cross_validate(pipe, X, y, cv=TraceSplit(n_splits=2, period="30D"),
                                scoring={"accuracy": estimate_accuracy_scorer,
                                         "under": underestimation_rate_scorer})
    assert result["test_accuracy"].shape == (2,)
    assert np.all((result["test_accuracy"] > 0.2) & (result["test_accuracy"] <= 1))
    assert np.all(-result["test_under"] < 0.5)

"""scikit-learn's common checks, clone, pipelines and model selection on a real trace."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits
from sklearn_checks import run_check
from tracedata import load_trace

from predictkit.metrics import estimate_accuracy_scorer, underestimation_rate_scorer
from predictkit.model_selection import TraceSplit
from predictkit.runtime import (HistoryFeatures, RecentAverage, RecentUsageMax, RequestedTime,
                                WalltimeAdjuster)

ESTIMATORS = [RequestedTime(), WalltimeAdjuster(), RecentUsageMax(), RecentAverage(),
              HistoryFeatures()]

_TABLE = ("X must be a job table (DataFrame with named SWF columns): the check passes a "
          "bare numeric array, whose columns have no meaning for a runtime predictor")
_MESSAGE = ("the check expects sklearn's own error text for a numeric array; a job table "
            "error (JobTableError naming the problem) is raised first")
_EXPECTED = {
    "check_fit_score_takes_y": _TABLE,
    "check_estimators_overwrite_params": _TABLE,
    "check_dont_overwrite_parameters": _TABLE,
    "check_estimators_fit_returns_self": _TABLE,
    "check_readonly_memmap_input": _TABLE,
    "check_n_features_in_after_fitting": "n_features_in_ is meaningless: extra columns of a "
                                         "job table are ignored by design",
    "check_n_features_in": "n_features_in_ is meaningless: extra columns are ignored",
    "check_positive_only_tag_during_fit": _TABLE,
    "check_estimators_dtypes": _TABLE,
    "check_complex_data": _MESSAGE,
    "check_dtype_object": _TABLE,
    "check_estimators_empty_data_messages": _MESSAGE,
    "check_pipeline_consistency": _TABLE,
    "check_estimator_sparse_tag": "job tables are dense DataFrames; sparse input is refused "
                                  "with a job-table error",
    "check_estimator_sparse_array": _MESSAGE,
    "check_estimator_sparse_matrix": _MESSAGE,
    "check_estimators_pickle": _TABLE,
    "check_f_contiguous_array_estimator": _TABLE,
    "check_methods_sample_order_invariance": _TABLE,
    "check_methods_subset_invariance": _TABLE,
    "check_fit2d_1sample": _MESSAGE,
    "check_fit2d_1feature": _MESSAGE,
    "check_dict_unchanged": _TABLE,
    "check_fit_idempotent": _TABLE,
    "check_fit_check_is_fitted": _TABLE,
    "check_fit2d_predict1d": _TABLE,
    "check_requires_y_none": _MESSAGE,
}
_REGRESSOR = {
    "check_regressors_train": _TABLE,
    "check_regressor_data_not_an_array": _TABLE,
    "check_estimators_partial_fit_n_features": "partial_fit takes job tables; the number of "
                                               "columns may change between calls by design",
    "check_regressors_no_decision_function": _TABLE,
    "check_supervised_y_2d": _TABLE,
    "check_regressors_int": _TABLE,
}
_TRANSFORMER = {
    "check_transformer_data_not_an_array": _TABLE,
    "check_transformer_general": _TABLE,
    "check_transformer_preserve_dtypes": _TABLE,
}


def _expected_failed_checks(estimator):
    extra = _TRANSFORMER if isinstance(estimator, HistoryFeatures) else _REGRESSOR
    return {**_EXPECTED, **extra}


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_common_checks(estimator, check):
    """Every check passes, or fails as listed (strict)."""
    run_check(estimator, check, _expected_failed_checks(estimator))


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

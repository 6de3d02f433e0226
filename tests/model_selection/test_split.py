"""TraceSplit folds by submit time, and replay_cross_validate without peeking."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import make_scorer
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits
from tracedata import load_trace

from predictkit.exceptions import ConfigError, InvalidParameterError, JobTableError
from predictkit.metrics import bound_correctness, estimate_accuracy_scorer
from predictkit.model_selection import TraceSplit, replay, replay_cross_validate
from predictkit.queue import QBETS, WaitPredictor
from predictkit.runtime import HistoryFeatures, RecentAverage, WalltimeAdjuster

DAY = 86400.0


@given(st.lists(st.floats(0, 400 * DAY), min_size=2, max_size=200), st.integers(1, 4),
       st.sampled_from(["expanding", "sliding"]))
def test_folds_are_time_ordered_and_disjoint(submits, n_splits, train):
    X = pd.DataFrame({"submit_time": submits})
    cv = TraceSplit(n_splits=n_splits, period="30D", train=train)
    periods = np.unique(np.floor((X["submit_time"] - min(submits)) / (30 * DAY)))
    if len(periods) < n_splits + 1:
        with pytest.raises(ConfigError):
            list(cv.split(X))
        return
    try:
        folds = list(cv.split(X))
    except ConfigError as exc:
        assert train == "sliding" and "no training jobs" in str(exc)
        return
    assert len(folds) == cv.get_n_splits() == n_splits
    s = X["submit_time"].to_numpy()
    tested = np.concatenate([test for _, test in folds])
    assert len(np.unique(tested)) == len(tested)
    for train_idx, test_idx in folds:
        assert len(test_idx) > 0
        assert s[train_idx].max() < s[test_idx].min()
        if train == "sliding":
            assert s[train_idx].min() >= s[test_idx].min() - 60 * DAY
    starts = [s[test].min() for _, test in folds]
    assert starts == sorted(starts)


def test_sliding_window_and_errors():
    X = pd.DataFrame({"submit_time": np.arange(0, 100 * DAY, DAY)})
    train, test = list(TraceSplit(n_splits=1, period="10D", train="sliding",
                                  train_window="20D").split(X))[0]
    assert_array_equal(test, np.arange(90, 100))
    assert_array_equal(train, np.arange(70, 90))
    with pytest.raises(ConfigError, match="train"):
        list(TraceSplit(train="rolling").split(X))
    with pytest.raises(ConfigError, match="n_splits"):
        list(TraceSplit(n_splits=0).split(X))
    with pytest.raises(JobTableError, match="submit_time"):
        list(TraceSplit().split(X.to_numpy()))
    with pytest.raises(JobTableError, match="empty"):
        list(TraceSplit().split(X.iloc[:0]))


@pytest.mark.parametrize("change, message", [
    (lambda s: pd.to_datetime(s, unit="s"), "holds datetime64.* values, not numbers of seconds"),
    (lambda s: s.where(s.index != 3, np.inf), "infinite values .*first at row 3"),
    (lambda s: s.astype(object).where(s.index != 2, "x"), "not numeric .*first at row 2"),
])
def test_split_refuses_submit_times_that_are_not_seconds(change, message):
    X = pd.DataFrame({"submit_time": np.arange(10) * 86400.0 * 10})
    with pytest.raises(JobTableError, match=message):
        list(TraceSplit(n_splits=2).split(X.assign(submit_time=change(X["submit_time"]))))


def test_get_n_splits_checks_n_splits():
    assert TraceSplit(n_splits=3).get_n_splits() == 3
    with pytest.raises(ConfigError, match="'n_splits' parameter of TraceSplit"):
        TraceSplit(n_splits=-3).get_n_splits()


@pytest.fixture(scope="module")
def kth():
    X = load_trace("KTH-SP2-1996-2.1-cln", 6000)
    return X, X["run_time"].to_numpy()


def test_replay_cross_validate_equals_replay_on_train_plus_test(kth):
    X, y = kth
    cv = TraceSplit(n_splits=2, period="30D")
    est = WalltimeAdjuster(keys=("user_id",))
    out = replay_cross_validate(est, X, y, cv=cv, scoring=estimate_accuracy_scorer,
                                return_predictions=True)
    for train, test in cv.split(X):
        rows = np.r_[train, test]
        full = replay(est, X.iloc[rows], y[rows])
        assert_array_equal(out["predictions"][test], full[len(train):])
    assert out["test_score"].shape == (2,)


def test_replay_cross_validate_sees_finished_test_jobs(kth):
    X, y = kth
    cv = TraceSplit(n_splits=1, period="30D")
    train, test = next(cv.split(X))
    plain = RecentAverage().fit(X.iloc[train], y[train]).predict(X.iloc[test])
    online = replay_cross_validate(RecentAverage(), X, y, cv=cv,
                                   return_predictions=True)["predictions"][test]
    assert (plain != online).mean() > 0.3


def test_replay_cross_validate_pipeline(kth):
    X, y = kth
    pipe = make_pipeline(HistoryFeatures(), HistGradientBoostingRegressor(
        loss="quantile", quantile=0.85, max_iter=20, random_state=0))
    with threadpool_limits(1):
        out = replay_cross_validate(pipe, X, y, cv=TraceSplit(n_splits=2),
                                    scoring={"acc": estimate_accuracy_scorer})
    assert np.all((out["test_acc"] > 0.2) & (out["test_acc"] <= 1.0))


def test_replay_cross_validate_refuses_what_it_cannot_pair_or_score(kth):
    X, y = kth
    cv = TraceSplit(n_splits=2, period="30D")
    est = WalltimeAdjuster(keys=("user_id",))
    shuffled = pd.Series(y, index=X.index).sample(frac=1.0, random_state=0)
    with pytest.raises(JobTableError, match="y is a Series whose index differs"):
        replay_cross_validate(est, X, shuffled, cv=cv)
    with pytest.raises(JobTableError, match="y holds infinite runtimes .*first at row 5"):
        replay_cross_validate(est, X, np.where(np.arange(len(y)) == 5, np.inf, y), cv=cv)
    with pytest.raises(JobTableError, match=r"one value per job \(6000\)"):
        replay_cross_validate(est, X, y[:100], cv=cv)
    with pytest.raises(JobTableError, match="y must hold numbers; position 0 holds 'a'"):
        replay_cross_validate(est, X, ["a"] * len(y), cv=cv)
    with pytest.raises(ConfigError, match="'cv' parameter .* cross-validator instance"):
        replay_cross_validate(est, X, y, cv=3)
    with pytest.raises(ConfigError, match="'scoring' parameter .*get_scorer_names"):
        replay_cross_validate(est, X, y, cv=cv, scoring="nope")
    with pytest.raises(ConfigError, match=r"^The 'scoring' parameter of replay_cross_validate "
                                          r"must be a scorer of runtimes in seconds, a "
                                          r"regression metric \(scoring it failed: "
                                          r"Classification metrics"):
        replay_cross_validate(est, X, y, cv=cv, scoring="accuracy")
    with pytest.raises(JobTableError, match="X must be a pandas DataFrame"):
        replay_cross_validate(est, X.to_numpy(), y, cv=cv)
    # aligned by label, the same Series is fine
    aligned = replay_cross_validate(est, X, shuffled.loc[X.index], cv=cv)["test_score"]
    assert_array_equal(aligned, replay_cross_validate(est, X, y, cv=cv)["test_score"])


@pytest.mark.parametrize("make", [
    lambda: QBETS(random_state=0, clustering=None, queued=None),
    lambda: WaitPredictor(capacity=128)], ids=["qbets", "wait-predictor"])
def test_wait_estimators_see_no_later_wait_nor_their_own(make, kth):
    X, _ = kth
    X = X[X["wait_time"].notna()].reset_index(drop=True)
    w = X["wait_time"].to_numpy()
    cv = TraceSplit(n_splits=2, period="7D")
    out = replay_cross_validate(make(), X, w, cv=cv, scoring="neg_mean_absolute_error",
                                return_predictions=True)
    for train, test in cv.split(X):
        rows = np.union1d(train, test)
        full = replay(make(), X.iloc[rows], w[rows])
        assert_array_equal(out["predictions"][test], full[np.searchsorted(rows, test)])
    j = np.flatnonzero(np.isfinite(out["predictions"]))[100]
    submit = X["submit_time"].to_numpy()
    for changed in (submit > submit[j] + DAY, np.arange(len(X)) == j):
        other = np.where(changed, 1e7, w)
        again = replay_cross_validate(make(), X.assign(wait_time=other), other, cv=cv,
                                      scoring="neg_mean_absolute_error",
                                      return_predictions=True)
        assert again["predictions"][j] == out["predictions"][j]


def test_a_scorer_of_a_wait_estimator_scores_the_fold_it_is_given(kth):
    X, _ = kth
    X = X[X["wait_time"].notna()].reset_index(drop=True)
    w = X["wait_time"].to_numpy()

    def elsewhere(model, X_fold, y_fold):
        return float(np.mean(model.predict(X_fold.copy())))

    with pytest.raises(ConfigError, match="test fold's jobs"):
        replay_cross_validate(QBETS(clustering=None, queued=None), X, w,
                              cv=TraceSplit(n_splits=1, period="7D"), scoring=elsewhere)


@pytest.mark.parametrize("make", [QBETS, WaitPredictor])
def test_a_wait_estimator_without_score_needs_a_scorer(make, kth):
    X, _ = kth
    X = X[X["wait_time"].notna()].reset_index(drop=True).iloc[:1500]
    w = X["wait_time"].to_numpy()
    cv = TraceSplit(n_splits=1, period="7D")
    with pytest.raises(InvalidParameterError, match=(
            rf"^The 'scoring' parameter of replay_cross_validate must be a scorer: "
            rf"{make.__name__} has no score method for None to use \(e.g. "
            r"scoring=sklearn.metrics.make_scorer\(bound_correctness\)")):
        replay_cross_validate(make(), X, w, cv=cv)
    out = replay_cross_validate(make(), X, w, cv=cv, scoring=make_scorer(bound_correctness),
                                return_predictions=True)
    test = np.isfinite(out["predictions"]) & np.isfinite(w)
    assert out["test_score"][0] == bound_correctness(w[test], out["predictions"][test])


def test_a_test_job_that_ends_at_its_submission_is_not_in_its_own_history():
    X = pd.DataFrame({"submit_time": [0.0, 40 * DAY, 40 * DAY + 5, 40 * DAY + 9],
                      "wait_time": [0.0] * 4, "req_time": [1000.0] * 4,
                      "user_id": [1.0] * 4})
    cv = TraceSplit(n_splits=1, period="30D")
    for own in (0.0, 2.0):
        y = np.array([50.0, own, 300.0, 1.0])
        out = replay_cross_validate(RecentAverage(n_recent=1), X, y, cv=cv,
                                    return_predictions=True)
        assert out["predictions"][1] == 50.0


def test_replay_cross_validate_does_not_score_jobs_cancelled_before_they_ran():
    jobs = pd.DataFrame({"job_id": np.arange(1.0, 41), "submit_time": np.arange(40) * 86400.0,
                         "wait_time": 10.0, "run_time": 100.0, "req_time": 3600.0,
                         "user_id": 1.0, "status": 1.0})
    jobs.loc[[25, 33], ["run_time", "status"]] = [0.0, 5.0]  # cancelled while pending
    counted = []

    def count(model, X, y):
        counted.append(len(y))
        return float(len(y))

    out = replay_cross_validate(RecentAverage(), jobs, jobs["run_time"].to_numpy(),
                                cv=TraceSplit(n_splits=2, period="10D"), scoring=count)
    assert counted == [9, 9] and out["test_score"].tolist() == [9.0, 9.0]
    assert out["fold"].tolist() == [10, 10]


def test_the_wait_model_of_the_commands_holds_the_scores_its_quantile_needs():
    from predictkit.queue._replay import make_wait_model

    assert make_wait_model("wait", quantile=0.95).window == 1000
    assert make_wait_model("wait", quantile=0.9995).window == 1999

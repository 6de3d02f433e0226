"""Shared behaviour of the runtime predictors: bad input, fallbacks, clipping, protocol."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.model_selection import replay
from predictkit.runtime import (HistoryFeatures, RecentAverage, RecentUsageMax, RequestedTime,
                                WalltimeAdjuster)
from predictkit.runtime._base import group_codes
from predictkit.runtime._registry import REGISTRY, make_predictor

TEST_PARAMS = {"tang": {"min_jobs": 1}}
"""Parameters that let a predictor adjust with the few jobs of these tests."""

PREDICTORS = [make_predictor(name, **TEST_PARAMS.get(name, {})) for name in REGISTRY]
"""Every registered predictor."""


def _jobs(n=12, user=1.0, req=1000.0, start=0.0):
    return pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit_time": start + 100.0 * np.arange(n),
        "wait_time": np.zeros(n), "req_time": np.full(n, req),
        "user_id": np.full(n, user), "group_id": np.full(n, 7.0),
    })


@pytest.mark.parametrize("est", PREDICTORS, ids=lambda e: type(e).__name__)
def test_missing_key_columns_are_named(est):
    X = _jobs().drop(columns=["user_id"])
    if isinstance(est, RequestedTime):
        X = X.drop(columns=["req_time"])
    with pytest.raises(JobTableError, match="user_id|req_time"):
        est.fit(X, np.ones(len(X)))
    fitted = type(est)().fit(_jobs(), np.ones(12))
    with pytest.raises(JobTableError, match="jobs to predict lack"):
        fitted.predict(X)


@pytest.mark.parametrize("est", PREDICTORS, ids=lambda e: type(e).__name__)
def test_a_column_named_twice_is_refused_by_name(est):
    X = _jobs()
    twice = pd.concat([X, X[["req_time", "user_id"]]], axis=1)
    with pytest.raises(JobTableError, match=r"has column '(req_time|user_id)' 2 times"):
        clone(est).fit(twice, np.ones(len(X)))
    fitted = clone(est).fit(X, np.ones(len(X)))
    with pytest.raises(JobTableError, match=r"jobs to predict has column '\w+' 2 times"):
        fitted.predict(twice)


@pytest.mark.parametrize("est", PREDICTORS, ids=lambda e: type(e).__name__)
def test_score_is_r2_and_names_jobs_without_a_prediction(est):
    from sklearn.metrics import r2_score

    X = _jobs()
    y = 50.0 + 10.0 * np.arange(len(X))
    fitted = clone(est).fit(X, y)
    assert fitted.score(X, y) == pytest.approx(r2_score(y, fitted.predict(X)))
    unrequested = X.assign(req_time=X["req_time"].where(X.index != 4))
    if np.isnan(fitted.predict(unrequested)).any():
        with pytest.raises(JobTableError, match=r"score: 1 job\(s\) get no prediction "
                                                r"\(no request; first at row 4\)"):
            fitted.score(unrequested, y)
    with pytest.raises(JobTableError, match="runtimes"):
        fitted.score(X, np.r_[y[:-1], np.nan])


@pytest.mark.parametrize("est", PREDICTORS, ids=lambda e: type(e).__name__)
def test_empty_history_falls_back_to_the_request(est):
    X = _jobs()
    est.fit(X.iloc[:0], np.empty(0))
    assert est.n_history_ == 0
    assert_array_equal(est.predict(X), X["req_time"].to_numpy())


@pytest.mark.parametrize("est", PREDICTORS, ids=lambda e: type(e).__name__)
def test_unseen_user_falls_back_to_the_request(est):
    X = _jobs()
    est.fit(X, np.full(12, 10.0))
    stranger = _jobs(2, user=99.0, req=500.0, start=1e6)
    assert_array_equal(est.predict(stranger), [500.0, 500.0])


@pytest.mark.parametrize("est", [e for e in PREDICTORS if not isinstance(e, RecentAverage)],
                         ids=lambda e: type(e).__name__)
def test_nan_request_gives_nan_for_request_based_predictors(est):
    X = _jobs()
    est.fit(X, np.full(12, 10.0))
    new = _jobs(2, start=1e5)
    new.loc[0, "req_time"] = np.nan
    pred = est.predict(new)
    assert np.isnan(pred[0]) and np.isfinite(pred[1])


def test_nan_request_recent_average_keeps_the_average():
    X = _jobs()
    est = RecentAverage().fit(X, np.full(12, 10.0))
    new = _jobs(1, start=1e5)
    new.loc[0, "req_time"] = np.nan
    assert_array_equal(est.predict(new), [10.0])


def test_missing_user_is_not_grouped():
    X = _jobs()
    X["user_id"] = np.nan
    for est in (RecentAverage(), RecentUsageMax(), WalltimeAdjuster(keys=("user_id",))):
        assert_array_equal(est.fit(X, np.full(12, 5.0)).predict(X), X["req_time"].to_numpy())


@pytest.mark.parametrize(("value", "kind"), [(np.inf, "infinite"), (-5.0, "negative")])
def test_an_impossible_runtime_is_refused_naming_its_row(value, kind):
    # an infinite runtime used to be taken, and the job silently kept out of the history
    y = np.ones(12)
    y[4] = value
    with pytest.raises(JobTableError,
                       match=rf"RecentAverage: y holds {kind} runtimes \(1 row\(s\); first at "
                             r"row 4, job_id 5\)"):
        RecentAverage().fit(_jobs(), y)


@pytest.mark.parametrize(("value", "kind"), [(-30.0, "negative"), (np.inf, "infinite")])
def test_an_impossible_wait_time_is_refused_when_it_gives_the_end(value, kind):
    X = _jobs()
    X.loc[3, "wait_time"] = value
    with pytest.raises(JobTableError, match=rf"column 'wait_time' has {kind} values, so "
                                            r"end_time is unknown \(1 row\(s\); first at "
                                            r"row 3, job_id 4\)"):
        RecentAverage().fit(X, np.ones(12))
    # with the end given, the wait is not read
    ended = X.assign(end_time=X["submit_time"] + 1.0)
    assert RecentAverage().fit(ended, np.ones(12)).n_history_ == 12


def test_clipping_to_one_second_and_request():
    X = _jobs()
    y = np.zeros(12)
    assert (RecentAverage().fit(X, y).predict(_jobs(1, start=1e5)) == 1.0).all()
    y = np.full(12, 5000.0)
    assert (RecentAverage().fit(X, y).predict(_jobs(1, start=1e5)) == 1000.0).all()
    raw = RecentAverage(clip_to_request=False).fit(X, y).predict(_jobs(1, start=1e5))
    assert_array_equal(raw, [5000.0])


def test_bad_targets_and_times():
    X = _jobs()
    with pytest.raises(JobTableError, match=r"y holds missing runtimes .*first at row 0"):
        RecentAverage().fit(X, np.r_[np.nan, np.ones(11)])
    with pytest.raises(JobTableError, match="one value per job"):
        RecentAverage().fit(X, np.ones(3))
    no_wait = X.assign(wait_time=np.nan)
    with pytest.raises(JobTableError, match="end_time"):
        RecentAverage().fit(no_wait, np.ones(12))
    est = RecentAverage().fit(no_wait.assign(end_time=X["submit_time"] + 1.0), np.ones(12))
    assert est.n_history_ == 12
    with pytest.raises(JobTableError, match="submit_time"):
        RecentAverage().fit(X.assign(submit_time=np.nan), np.ones(12))
    with pytest.raises(JobTableError, match="DataFrame"):
        RecentAverage().fit(X.to_numpy(), np.ones(12))
    with pytest.raises(NotFittedError):
        RecentAverage().predict(X)


def test_unsorted_submit_times_are_fine():
    # no job ends at its submission (replay keeps such a job's runtime from
    # itself, a prediction of a fitted table does not: test_replay.py)
    X = _jobs().iloc[::-1].reset_index(drop=True)
    y = np.arange(1.0, 13.0) * 10
    for est in PREDICTORS:
        assert_array_equal(est.fit(X, y).predict(X), replay(est, X, y, method="reference"))


def test_partial_fit_equals_fit():
    X = _jobs(40)
    y = np.random.default_rng(1).uniform(10, 900, 40)
    for est in (WalltimeAdjuster(min_jobs=2), RecentUsageMax(), RecentAverage()):
        whole = type(est)(**est.get_params()).fit(X, y).predict(X)
        part = type(est)(**est.get_params())
        for chunk in np.array_split(np.arange(40), 5):
            part.partial_fit(X.iloc[chunk], y[chunk])
        assert_array_equal(part.predict(X), whole)
        # fit resets
        assert_array_equal(part.fit(X.iloc[:0], y[:0]).predict(X), X["req_time"].to_numpy())


def test_history_is_a_copy():
    X = _jobs()
    est = RecentAverage().fit(X, np.full(12, 10.0))
    X.loc[:, "submit_time"] = 1e9
    assert est.history_["submit_time"].max() < 1e9


def test_invalid_parameters():
    X, y = _jobs(), np.ones(12)
    for bad in (dict(quantile=0.2), dict(quantile="median"), dict(min_jobs=0), dict(floor=2.0)):
        with pytest.raises(ValueError):
            WalltimeAdjuster(**bad).fit(X, y)
    with pytest.raises(ConfigError, match="window"):
        WalltimeAdjuster(window="30 fortnights").fit(X, y)
    with pytest.raises(ConfigError, match="keys"):
        WalltimeAdjuster(keys=()).fit(X, y)
    with pytest.raises(ValueError):
        RecentAverage(n_recent=0).fit(X, y)
    with pytest.raises(ValueError):
        HistoryFeatures(n_recent=0).fit(X, y)


def test_group_codes_join_tables_and_mark_missing():
    a = {"u": np.array([1.0, 2.0, np.nan]), "g": np.array([1.0, 1.0, 1.0])}
    b = {"u": np.array([2.0, 1.0, 3.0]), "g": np.array([1.0, 1.0, np.nan])}
    ca, cb = group_codes([a, b], ("u", "g"))
    assert ca[0] == cb[1] and ca[1] == cb[0] and ca[0] != ca[1]
    assert ca[2] == -1 and cb[2] == -1


@pytest.mark.parametrize("est", [WalltimeAdjuster(min_jobs=1), WalltimeAdjuster(window=None),
                                 RecentUsageMax(), RecentAverage(), HistoryFeatures()],
                         ids=["tang", "tang-all", "usage-max", "recent-average", "features"])
def test_small_queries_use_only_their_groups_and_get_the_same_answers(est):
    # the history is big enough (>= 4096 entries) for predictions of a few jobs to
    # read only the entries of their groups; every answer must stay the same
    rng = np.random.default_rng(4)
    n = 6000
    X = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.uniform(0, 1e7, n)),
                      "wait_time": rng.exponential(100.0, n),
                      "req_time": rng.choice([600.0, 3600.0, 36000.0], n),
                      "user_id": rng.choice([1.0, 2.0, 3.0, np.nan] + list(range(10, 60)), n),
                      "group_id": rng.choice([1.0, 2.0], n)})
    y = X["req_time"].to_numpy() * rng.uniform(0.01, 1.0, n)
    fitted = clone(est).fit(X.iloc[:5000], y[:5000])
    assert fitted.n_history_ == 5000
    later = X.iloc[5000:].reset_index(drop=True)
    output = fitted.transform if isinstance(est, HistoryFeatures) else fitted.predict
    whole = output(later)  # 1000 jobs at once: the whole history
    pieces = np.concatenate([output(later.iloc[i:i + 3]) for i in range(0, len(later), 3)])
    assert_array_equal(pieces, whole)
    # appending in pieces builds the same history as one call
    split = clone(est).fit(X.iloc[:2000], y[:2000]).partial_fit(X.iloc[2000:5000], y[2000:5000])
    for key, values in fitted.history_.items():
        assert_array_equal(split.history_[key], values)


def test_user_names_instead_of_numbers_are_named_with_the_predictor_and_row():
    X = _jobs(3).assign(user_id=["ann", "bob", "ann"])
    with pytest.raises(JobTableError, match=r"^RecentAverage: completed jobs: column 'user_id' "
                                            r"is not numeric .*first at row 0"):
        RecentAverage().fit(X, np.ones(3))

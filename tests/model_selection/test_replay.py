"""replay: a naive O(n^2) replay, the reference and the fast paths agree to the last digit."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from naive_replay import naive_replay
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.model_selection import known_times, replay
from predictkit.queue import QBETS, WaitPredictor
from predictkit.runtime import RecentAverage, RecentUsageMax, RequestedTime, WalltimeAdjuster

ESTIMATORS = [
    RequestedTime(),
    WalltimeAdjuster(),
    WalltimeAdjuster(keys=("user_id",), window=None, quantile="mean", min_jobs=3, floor=None),
    RecentUsageMax(),
    RecentAverage(),
]
IDS = ["requested", "tang-triple-30D", "tang-user-all-mean", "usage-max", "recent-average"]


@pytest.fixture(scope="module")
def sp2():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 2000)
    X.attrs = {}
    return X, X["run_time"].to_numpy()


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_naive_reference_and_fast_agree(estimator, sp2):
    X, y = sp2
    fast = replay(estimator, X, y, method="fast")
    reference = replay(estimator, X, y, method="reference")
    assert_array_equal(fast, reference)
    n = 1000
    assert_array_equal(replay(estimator, X.iloc[:n], y[:n]),
                       naive_replay(estimator, X.iloc[:n], y[:n]))
    assert not np.isnan(fast[np.isfinite(X["req_time"].to_numpy())]).any()


def test_adjuster_really_adjusts(sp2):
    X, y = sp2
    pred = replay(WalltimeAdjuster(), X, y)
    req = X["req_time"].to_numpy()
    assert (pred < req).mean() > 0.2
    assert np.all(pred[np.isfinite(req)] <= req[np.isfinite(req)])
    assert np.all(pred[np.isfinite(req)] >= 1)


@pytest.mark.parametrize("estimator", ESTIMATORS[1:4], ids=IDS[1:4])
def test_unsorted_rows_give_the_same_predictions(estimator, sp2):
    X, y = sp2
    X, y = X.iloc[:600], y[:600]
    order = np.random.default_rng(0).permutation(len(X))
    shuffled = X.iloc[order].reset_index(drop=True)
    for method in ("reference", "fast"):
        assert_array_equal(replay(estimator, shuffled, y[order], method=method),
                           replay(estimator, X, y)[order])


def _busy_second_jobs(n=400, seed=0):
    """Jobs in bursts: about four submitted in each second, on a machine of 64."""
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 3000, n).astype(float)
    return pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.integers(0, n // 4, n)) * 30.0,
        "wait_time": rng.integers(0, 4000, n).astype(float), "run_time": run,
        "req_time": run * rng.uniform(1.0, 4.0, n), "n_procs": rng.integers(1, 33, n) * 1.0,
        "user_id": rng.integers(1, 6, n) * 1.0})


@pytest.mark.parametrize("make", [lambda: WaitPredictor(capacity=64), lambda: QBETS(),
                                  lambda: WalltimeAdjuster(keys=("user_id",))],
                         ids=["WaitPredictor", "QBETS", "tang"])
def test_answers_do_not_depend_on_how_a_seconds_submissions_are_arranged(make):
    jobs = _busy_second_jobs()
    target = jobs["wait_time" if make().target_known_at == "start" else "run_time"].to_numpy()
    # each second's jobs in reverse row order, relabelled 0..n-1 as a fresh table would be
    order = np.lexsort((-np.arange(len(jobs)), jobs["submit_time"].to_numpy()))
    arranged = jobs.iloc[order].reset_index(drop=True)
    expected = replay(make(), jobs, target)
    for method in ("reference", "fast"):
        assert_array_equal(replay(make(), arranged, target[order], method=method),
                           expected[order])


def test_known_time_required_without_waits():
    X = load_trace("LLNL-Atlas-2006-2.1-cln", 800)
    y = X["run_time"].to_numpy()
    with pytest.raises(JobTableError, match="known_time"):
        replay(RecentAverage(), X, y)
    known = X["submit_time"].to_numpy() + y
    fast = replay(RecentAverage(), X, y, known_time=known)
    X.attrs = {}
    assert_array_equal(fast, replay(RecentAverage(), X, y, known_time=known,
                                    method="reference"))


def test_unknown_targets_are_predicted_but_never_learned():
    X = pd.DataFrame({"submit_time": [0.0, 1.0, 100.0], "wait_time": [0.0, 0.0, 0.0],
                      "req_time": [500.0, 500.0, 500.0], "user_id": [1.0, 1.0, 1.0]})
    y = np.array([np.nan, 10.0, 30.0])
    for method in ("reference", "fast"):
        assert_array_equal(replay(RecentAverage(), X, y, method=method), [500.0, 500.0, 10.0])
    assert np.isnan(known_times(X, y)[0])


@pytest.mark.parametrize("method", ["reference", "fast"])
@pytest.mark.parametrize(("value", "kind"), [(np.inf, "infinite"), (-3.0, "negative")])
def test_an_impossible_target_is_refused_naming_its_row(method, value, kind):
    # an infinite runtime was silently kept out of every history
    X = pd.DataFrame({"job_id": [7, 8, 9], "submit_time": [0.0, 10.0, 20.0],
                      "wait_time": [0.0] * 3, "req_time": [50.0] * 3, "user_id": [1.0] * 3})
    with pytest.raises(JobTableError, match=rf"replay: y holds {kind} runtimes \(1 row\(s\); "
                                            r"first at row 1, job_id 8\)"):
        replay(RecentAverage(), X, [5.0, value, np.nan], method=method)


@pytest.mark.parametrize("method", ["reference", "fast"])
def test_a_negative_wait_time_is_refused_naming_its_row(method):
    # it moved the job's end before its true end: the history peeked
    X = pd.DataFrame({"job_id": [7, 8, 9], "submit_time": [0.0, 10.0, 20.0],
                      "wait_time": [0.0, -8.0, 0.0], "req_time": [50.0] * 3,
                      "user_id": [1.0] * 3})
    with pytest.raises(JobTableError, match=r"column 'wait_time' has negative values, so "
                                            r"end_time is unknown \(1 row\(s\); first at "
                                            r"row 1, job_id 8\)"):
        replay(RecentAverage(), X, [5.0, 5.0, 5.0], method=method)


def test_bad_arguments():
    X = pd.DataFrame({"submit_time": [0.0, np.nan], "wait_time": [0.0, 0.0],
                      "req_time": [5.0, 5.0], "user_id": [1.0, 1.0]})
    with pytest.raises(JobTableError, match="submit_time"):
        replay(RecentAverage(), X, [1.0, 1.0])
    with pytest.raises(ConfigError, match="method"):
        replay(RecentAverage(), X.iloc[:1], [1.0], method="quick")
    with pytest.raises(ConfigError, match="online"):
        replay(LinearRegression(), X.iloc[:1], [1.0])
    with pytest.raises(JobTableError, match="one value per job"):
        replay(RecentAverage(), X.iloc[:1], [1.0, 2.0])
    with pytest.raises(JobTableError, match="DataFrame"):
        replay(RecentAverage(), X.to_numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["reference", "fast"])
@pytest.mark.parametrize(("column", "value", "message"), [
    ("submit_time", "x", r"X: column 'submit_time' is not numeric \(1 row\(s\) hold something "
                         r"else; first at row 1, job_id 2: 'x'\)"),
    ("submit_time", np.inf, r"X: column 'submit_time' holds infinite values \(1 row\(s\); "
                            r"first at row 1, job_id 2\)"),
    ("wait_time", np.inf, r"X: column 'wait_time' holds infinite values"),
    ("wait_time", 2.0**60, r"X: column 'wait_time' holds values of 2\*\*53 or more"),
    # columns the estimator reads are its own to check
    ("req_time", np.inf, r"jobs( to predict)?: column 'req_time' holds infinite values "
                         r"\(1 row\(s\); first at row [01], job_id 2\) for WalltimeAdjuster"),
    ("user_id", 2.0**60, r"column 'user_id' holds values of 2\*\*53 or more"),
    ("user_id", "alice", r"column 'user_id' is not numeric"),
])
def test_values_no_estimator_can_use_are_named(method, column, value, message):
    X = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0],
                      "wait_time": [0.0] * 3, "req_time": [50.0] * 3, "user_id": [1.0] * 3,
                      "group_id": [1.0] * 3})
    X[column] = X[column].astype(object)
    X.loc[1, column] = value
    with pytest.raises(JobTableError, match=message):
        replay(WalltimeAdjuster(), X, [5.0, 5.0, 5.0], method=method)


def test_a_column_no_one_reads_may_hold_anything():
    X = pd.DataFrame({"submit_time": [0.0, 10.0, 20.0], "wait_time": [0.0] * 3,
                      "req_time": [50.0] * 3, "user_id": [1.0] * 3,
                      "app_id": ["namd", "vasp", "namd"], "used_memory": [np.inf] * 3})
    assert_array_equal(replay(RequestedTime(), X, [5.0, 5.0, 5.0]), [50.0] * 3)


@st.composite
def _tables(draw):
    n = draw(st.integers(1, 30))
    pick = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    X = pd.DataFrame({
        "job_id": np.arange(n),
        "submit_time": np.asarray(pick([0.0, 5.0, 10.0, 15.0, 40.0]), float),
        "wait_time": np.asarray(pick([0.0, 3.0, 10.0]), float),
        "req_time": np.asarray(pick([np.nan, 10.0, 30.0]), float),
        "user_id": np.asarray(pick([1.0, 2.0]), float),
        "group_id": np.asarray(pick([1.0, 2.0]), float),
    })
    y = np.asarray(pick([np.nan, 0.0, 5.0, 12.0, 25.0]), float)
    return X, y


@settings(max_examples=25)
@given(_tables(), st.sampled_from(range(len(ESTIMATORS))))
def test_replay_paths_agree_on_random_tables(data, which):
    X, y = data
    est = clone(ESTIMATORS[which]).set_params(
        **({"min_jobs": 1, "window": 20.0} if which in (1, 2) else {}))
    fast = replay(est, X, y, method="fast")
    assert_array_equal(fast, replay(est, X, y, method="reference"))
    assert_array_equal(fast, naive_replay(est, X, y))


def _small(n=30):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"submit_time": np.arange(n) * 100.0, "wait_time": np.zeros(n),
                         "req_time": np.full(n, 5000.0), "user_id": np.zeros(n),
                         "run_time": rng.integers(10, 4000, n).astype(float)})


@pytest.mark.parametrize("clock", ["known_time", "end_time"])
def test_a_clock_that_shows_jobs_their_own_runtime_is_refused(clock):
    X = _small()
    early = X["submit_time"]  # a runtime "known" at submission: a job would see its own
    kwargs = {"known_time": early} if clock == "known_time" else {}
    if clock == "end_time":
        X = X.assign(end_time=early)
    with pytest.raises(JobTableError, match=rf"{clock} is [\d,]+ s before submit_time \+ the "
                                            r"target at row 0 \(30 row\(s\)\)"):
        replay(RecentAverage(n_recent=1), X, X["run_time"], **kwargs)


def test_a_nan_known_time_for_a_known_target_is_kept_out_with_a_warning():
    X = _small()
    y = X["run_time"].to_numpy(dtype=float, copy=True)
    known = (X["submit_time"] + X["run_time"]).to_numpy(dtype=float, copy=True)
    known[::2] = np.nan
    with pytest.warns(UserWarning, match=rf"known_time is NaN for {len(X[::2])} jobs with a "
                                         r"known target \(first at row 0\): they stay out") \
            as caught:
        kept_out = replay(RecentAverage(), X, y, known_time=known)
    assert caught[0].filename == __file__  # the caller's line, past the parameter check
    # the same as leaving those jobs' runtimes unknown
    hidden = y.copy()
    hidden[::2] = np.nan
    full = replay(RecentAverage(), X, hidden, known_time=known)
    np.testing.assert_array_equal(kept_out, full)


def test_a_clock_within_a_second_of_the_runtime_is_taken():
    X = _small()
    # sacct prints times to the second: Elapsed may exceed End - Start by up to 1 s
    known = X["submit_time"] + X["run_time"] - 0.5
    assert np.isfinite(replay(RecentAverage(), X, X["run_time"], known_time=known)).all()


@pytest.mark.parametrize("argument", ["y", "known_time"])
def test_a_series_labelled_for_other_rows_is_refused_not_paired_by_position(argument):
    X = _small()
    y = X["run_time"]
    known = X["submit_time"] + y
    shuffled = {"y": y, "known_time": known}[argument].sort_values()
    kwargs = {"known_time": shuffled if argument == "known_time" else known}
    with pytest.raises(JobTableError, match=rf"{argument} is a Series whose index differs from "
                                            r"the index of X \(first at position 0"):
        replay(RecentAverage(), X, shuffled if argument == "y" else y, **kwargs)
    # aligned, or as an array, it is taken
    aligned = {"y": y, "known_time": known}[argument]
    replay(RecentAverage(), X, y, known_time=known if argument == "y" else aligned.to_numpy())


def test_targets_that_are_not_numbers_are_one_line_errors():
    X = _small()
    with pytest.raises(JobTableError, match=r"^replay: y must hold numbers; position 3 holds 'x'$"):
        replay(RecentAverage(), X, [1.0, 2.0, 3.0, "x"] + [1.0] * 26)
    with pytest.raises(JobTableError, match=r"^known_time must hold numbers; position 0 holds"):
        replay(RecentAverage(), X, X["run_time"], known_time=["soon"] * 30)


def test_a_table_with_a_repeated_column_is_refused():
    X = _small()
    twice = pd.concat([X, X[["run_time"]]], axis=1)
    with pytest.raises(JobTableError, match="X has column 'run_time' 2 times"):
        replay(RecentAverage(), twice, X["run_time"])


@pytest.mark.parametrize("method", ["reference", "fast"])
def test_a_job_that_ends_at_its_submission_is_not_in_its_own_history(method):
    X = pd.DataFrame({"submit_time": [0.0, 100.0, 100.0, 200.0], "wait_time": [0.0] * 4,
                      "req_time": [1000.0] * 4, "user_id": [1.0] * 4})
    runs = {r: replay(RecentAverage(n_recent=1), X, [50.0, r, 7.0, 9.0], method=method)
            for r in (0.0, 500.0)}
    # job 1 ends at its submission: neither it nor job 2 (submitted with it)
    # sees its runtime; job 3, submitted later, does (it ended before job 2)
    assert_array_equal(runs[0.0][:3], [1000.0, 50.0, 50.0])
    assert_array_equal(runs[500.0][:3], [1000.0, 50.0, 50.0])
    assert runs[0.0][3] == 7.0


@pytest.mark.parametrize("method", ["reference", "fast"])
def test_a_zero_wait_is_not_in_its_own_history(method):
    from predictkit.queue import QBETS
    X = pd.DataFrame({"submit_time": np.r_[np.arange(58.0), 1000.0], "req_procs": 1.0,
                      "req_time": 60.0})
    est = QBETS(clustering=None, changepoint=None, queued=None)
    # 58 waits are known before the last job: one short of the 59 a bound needs,
    # whatever the last job's own wait
    for own in (0.0, 5.0):
        y = np.r_[np.full(58, 10.0), own]
        assert np.isnan(replay(est, X.assign(wait_time=y), y, method=method)[-1])


def test_waits_give_their_own_clock_without_a_wait_time_column():
    from predictkit.queue import QBETS
    X = pd.DataFrame({"submit_time": np.arange(100.0), "req_procs": 1.0, "req_time": 60.0})
    y = np.full(100, 30.0)
    est = QBETS(clustering=None, changepoint=None, queued=None)
    assert_array_equal(replay(est, X, y), replay(est, X.assign(wait_time=y), y))


def test_a_negative_request_is_named_by_its_row_and_job():
    X = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0],
                      "wait_time": [0.0] * 3, "req_time": [50.0, -5.0, 50.0],
                      "user_id": [1.0] * 3, "group_id": [1.0] * 3})
    with pytest.raises(JobTableError, match=r"column 'req_time' has negative values \(1 "
                                            r"row\(s\); first at row 1, job_id 2\) for "
                                            r"WalltimeAdjuster"):
        replay(WalltimeAdjuster(), X, [5.0, 5.0, 5.0])


class _Returns:
    """An online estimator whose predictions are ``returned(n)`` for ``n`` jobs."""

    target_known_at = "end"

    def __init__(self, returned):
        self.returned = returned

    def get_params(self, deep=True):
        return {"returned": self.returned}

    def fit(self, X, y):
        return self

    def partial_fit(self, X, y):
        return self

    def predict(self, X):
        return self.returned(len(X))


@pytest.mark.parametrize(("returned", "error", "message"), [
    (lambda n: np.ones(n + 1), ConfigError, r"^_Returns\.predict returned shape \(\d+,\) for "),
    (lambda n: np.full(n, "x"), JobTableError,
     r"^what _Returns\.predict returned must hold numbers; position 0 holds 'x'$"),
])
def test_predictions_that_are_not_one_number_per_job_are_named(returned, error, message):
    from predictkit.datasets import make_workload

    jobs = make_workload(50, random_state=0)
    with pytest.raises(error, match=message):
        replay(_Returns(returned), jobs, jobs["run_time"],
               known_time=jobs["submit_time"] + jobs["run_time"])


def _with_a_job_cancelled_while_pending():
    """User 1's jobs ran 100 s; job 3 was cancelled after waiting 50 s (status 5, as sacct
    prints a job cancelled while pending: Start = End, Elapsed 0)."""
    return pd.DataFrame({"job_id": [1.0, 2, 3, 4, 5], "submit_time": [0.0, 200, 400, 600, 800],
                         "wait_time": [0.0, 0, 50, 0, 0], "run_time": [100.0, 100, 0, 100, 100],
                         "req_time": [3600.0] * 5, "user_id": [1.0] * 5,
                         "group_id": [1.0] * 5, "status": [1.0, 1, 5, 1, 1]})


@pytest.mark.parametrize("name", ["recent-average", "usage-max", "tang", "learned"])
def test_a_job_cancelled_before_it_ran_never_enters_a_runtime_history(name):
    from predictkit._table import known_time
    from predictkit.runtime import make_predictor

    jobs = _with_a_job_cancelled_while_pending()
    y = jobs["run_time"].to_numpy()
    assert np.isnan(known_time(jobs, y=y)[2]) and np.isnan(known_time(jobs)[2])
    without = jobs.drop(index=2)
    kept = [0, 1, 3, 4]
    got = replay(make_predictor(name), jobs, y)
    assert_array_equal(got[kept], replay(make_predictor(name), without,
                                         without["run_time"].to_numpy()))
    # an explicit known_time keeps it out too, without a warning about it
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = replay(make_predictor(name), jobs, y,
                       known_time=known_time(jobs.assign(status=1.0), y=y))
    assert_array_equal(again, got)
    later = jobs.iloc[[4]].assign(submit_time=5000.0)
    assert_array_equal(make_predictor(name).fit(jobs, y).predict(later),
                       make_predictor(name).fit(without, without["run_time"]).predict(later))

"""Prediction metrics: Tang et al. (2013) eq. 3 and section 4.2.2, scorers."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.metrics import (adjustment_outcomes, estimate_accuracy,
                                estimate_accuracy_scorer, mean_absolute_error,
                                mean_absolute_error_scorer, underestimation_rate,
                                underestimation_rate_scorer)
from predictkit.runtime import RequestedTime

times = st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 1e6), st.floats(0, 1e6)),
                 min_size=1, max_size=50)


def test_accuracy_eq3_cases():
    assert_array_equal(estimate_accuracy([10, 10, 40, 0, 5], [10, 40, 10, 5, 0], average=False),
                       [1.0, 0.25, 0.25, 0.0, 0.0])
    assert estimate_accuracy([0], [0]) == 1.0
    assert estimate_accuracy([10, 10], [10, 40]) == pytest.approx(0.625)


@given(times)
def test_accuracy_in_unit_interval_and_symmetric(rows):
    run, est, _ = map(np.array, zip(*rows))
    acc = estimate_accuracy(run, est, average=False)
    assert np.all((acc >= 0) & (acc <= 1))
    assert_allclose(acc, estimate_accuracy(est, run, average=False))


@given(times, st.floats(0, 5000))
def test_outcomes_partition_the_jobs(rows, threshold):
    run, req, adj = map(np.array, zip(*rows))
    out = adjustment_outcomes(run, req, adj, bad_threshold=threshold)
    assert set(out) == {"NA", "OE", "UE", "BE"}
    assert sum(out.values()) == pytest.approx(1.0)
    assert out["UE"] + out["BE"] == pytest.approx(
        float(np.mean((adj != req) & (adj < run))))


def test_outcome_boundaries():
    out = adjustment_outcomes([100, 100, 3000, 3000], [200, 200, 5000, 5000],
                              [200, 100, 1200, 1199])
    assert out == {"NA": 0.25, "OE": 0.25, "UE": 0.25, "BE": 0.25}


def test_rates_and_errors():
    assert underestimation_rate([10, 10, 10], [5, 10, 20]) == pytest.approx(1 / 3)
    assert mean_absolute_error([10, 10], [5, 30]) == 12.5
    with pytest.raises(JobTableError, match="missing"):
        estimate_accuracy([1, np.nan], [1, 1])
    with pytest.raises(JobTableError, match="length"):
        estimate_accuracy([1, 2], [1])
    with pytest.raises(JobTableError, match="no jobs"):
        underestimation_rate([], [])
    with pytest.raises(JobTableError, match="negative"):
        mean_absolute_error([-1], [1])
    with pytest.raises(ConfigError, match="bad_threshold"):
        adjustment_outcomes([1], [1], [1], bad_threshold=-5)
    # numpy counts a timedelta64 as an integer: scikit-learn's check then crashed
    with pytest.raises(ConfigError, match=r"'bad_threshold' parameter of adjustment_outcomes "
                                          r"must be a number \(of seconds for a duration"):
        adjustment_outcomes([1], [1], [1], bad_threshold=np.timedelta64(30, "m"))


def test_adjusted_estimates_labelled_for_other_jobs_are_refused():
    run, requested = pd.Series([10.0, 10, 100, 5000]), pd.Series([60.0, 60, 60, 9000])
    adjusted = pd.Series([60.0, 20, 50, 1000])
    shuffled = adjusted.iloc[::-1]
    with pytest.raises(JobTableError, match=r"^adjusted is a Series whose index differs from the "
                                            r"index of run \(first at position 0: label 3 "
                                            r"against 0\)"):
        adjustment_outcomes(run, requested, shuffled)
    assert adjustment_outcomes(run, requested, shuffled.loc[run.index]) == {
        "NA": 0.25, "OE": 0.25, "UE": 0.25, "BE": 0.25}


def test_scorers_follow_greater_is_better():
    X = pd.DataFrame({"submit_time": [0.0, 1.0], "wait_time": [0.0, 0.0],
                      "req_time": [100.0, 10.0]})
    y = np.array([50.0, 20.0])
    est = RequestedTime().fit(X, y)
    assert estimate_accuracy_scorer(est, X, y) == pytest.approx(0.5)
    assert underestimation_rate_scorer(est, X, y) == pytest.approx(-0.5)
    assert mean_absolute_error_scorer(est, X, y) == pytest.approx(-30.0)


@pytest.mark.parametrize("values, message", [
    (pd.to_timedelta([10, 20], unit="s"), r"timedelta64.* not numbers of seconds .*total_seconds"),
    (pd.to_datetime([10, 20], unit="s"), r"datetime64.* not numbers of seconds"),
    (np.array([np.inf, 10.0]), r"run has 1 infinite value\(s\) \(first at position 0\)"),
    (np.ones((2, 1)), r"one value per job \(1-D\), got shape \(2, 1\)"),
])
def test_runtimes_that_are_not_seconds_per_job_are_refused(values, message):
    for metric in (estimate_accuracy, mean_absolute_error, underestimation_rate):
        with pytest.raises(JobTableError, match=message):
            metric(values, np.array([20.0, 20.0]))


def test_a_missing_value_among_objects_is_missing_not_the_first_number():
    # numpy cannot turn pd.NA into a float; the message named position 0, a valid number
    with pytest.raises(JobTableError, match=r"^run has 1 missing value\(s\)"):
        estimate_accuracy([1.0, pd.NA, 3.0], [5.0, 5.0, 5.0])
    assert estimate_accuracy(pd.array([1.0, 2.0], dtype="Float64"), [2.0, 2.0]) == \
        estimate_accuracy([1.0, 2.0], [2.0, 2.0])

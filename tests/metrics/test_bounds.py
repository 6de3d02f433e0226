"""Bound metrics on hand-made examples."""

import math

import numpy as np
import pandas as pd
import pytest

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.metrics import (bound_availability, bound_correctness,
                                bound_correctness_confint, bound_summary, bound_tightness)

Y = np.array([10.0, 100.0, 200.0, 1000.0, 5.0])
B = np.array([20.0, 100.0, 100.0, np.nan, 50.0])


def test_correctness_counts_equality_and_skips_missing_bounds():
    assert bound_correctness(Y, B) == 0.75
    assert bound_availability(B) == 0.8


def test_tightness_uses_jobs_that_waited_over_a_minute():
    # jobs with wait > 60 and a bound: 100 -> 1.0, 200 -> 0.5
    assert bound_tightness(Y, B) == 0.75
    assert bound_tightness(Y, B, statistic="mean") == 0.75
    assert bound_tightness(Y, B, min_wait=150) == 0.5
    assert math.isnan(bound_tightness(Y, B, min_wait=1e6))
    with pytest.raises(ConfigError):
        bound_tightness(Y, B, statistic="mode")


def test_confint_contains_estimate():
    low, high = bound_correctness_confint(Y, B)
    assert low < 0.75 < high
    assert all(math.isnan(v) for v in bound_correctness_confint(Y, np.full(5, np.nan)))


def test_summary():
    s = bound_summary(Y, B, quantile=0.95)
    assert s["n_jobs"] == 5 and s["n_bounded"] == 4
    assert s["correctness"] == 0.75 and s["meets_quantile"] is False
    assert s["median_ratio"] == 0.75


def test_empty_and_mismatched():
    assert math.isnan(bound_correctness([1.0], [np.nan]))
    with pytest.raises(ConfigError, match="bounds"):
        bound_correctness([1.0, 2.0], [1.0])


@pytest.mark.parametrize("metric", [bound_correctness, bound_tightness, bound_correctness_confint,
                                    bound_summary])
@pytest.mark.parametrize(("waits", "message"), [
    (-Y, r"y_true has 5 negative wait\(s\) \(first at row 0\)"),
    (np.r_[Y[:3], np.inf, Y[4:]], r"y_true has 1 infinite wait\(s\) \(first at row 3\)"),
])
def test_impossible_waits_are_refused(metric, waits, message):
    # negated waits used to score correctness 1.0
    with pytest.raises(JobTableError, match=message):
        metric(waits, B)


@pytest.mark.parametrize("metric", [bound_correctness, bound_tightness, bound_summary,
                                    lambda y, b: bound_availability(b)])
def test_a_negative_bound_is_refused(metric):
    # it gave a ratio of -0.5
    with pytest.raises(JobTableError, match=r"bounds has 1 negative bound\(s\) \(first at row 2\)"):
        metric(Y, np.r_[B[:2], -100.0, B[3:]])


def test_an_unknown_wait_is_not_scored_but_its_bound_is_available():
    waits = np.r_[Y[:2], np.nan, Y[3:]]  # the job whose bound (100) its wait (200) exceeds
    s = bound_summary(waits, B, quantile=0.5)
    assert (s["n_jobs"], s["n_bounded"], s["n_scored"]) == (5, 4, 3)
    assert s["availability"] == bound_availability(B) == 0.8
    assert s["correctness"] == bound_correctness(waits, B) == 1.0
    assert s["median_ratio"] == bound_tightness(waits, B) == 1.0
    low, high = bound_correctness_confint(waits, B)
    assert (s["correctness_low"], s["correctness_high"]) == (low, high)


def test_an_infinite_bound_is_no_bound():
    bounds = np.r_[B[:3], np.inf, B[4:]]
    s = bound_summary(Y, bounds)
    assert (s["n_bounded"], s["n_scored"], s["availability"]) == (4, 4, 0.8)
    assert s["correctness"] == 0.75


def test_waits_that_are_not_seconds_per_job_are_refused():
    import pandas as pd

    with pytest.raises(JobTableError, match="y_true must be numeric waits in seconds: .*"
                                            "timedelta64"):
        bound_correctness(pd.to_timedelta([10, 20], unit="s"), [100.0, 100.0])
    with pytest.raises(JobTableError, match=r"bounds must hold one value per job \(1-D\)"):
        bound_correctness([10.0, 20.0], np.ones((2, 1)))
    assert bound_correctness(5.0, 10.0) == 1.0  # one job as a scalar


def test_series_labelled_for_other_jobs_are_refused_not_paired_by_position():
    from predictkit.exceptions import JobTableError
    from predictkit.metrics import bound_correctness, estimate_accuracy

    waits = pd.Series([0.0, 100.0], index=[0, 1])
    with pytest.raises(JobTableError, match="bounds is a Series whose index differs"):
        bound_correctness(waits, pd.Series([150.0, 50.0], index=[1, 0]))
    assert bound_correctness(waits, pd.Series([150.0, 50.0], index=[1, 0]).loc[[0, 1]]) == 1.0
    with pytest.raises(JobTableError, match="est is a Series whose index differs"):
        estimate_accuracy(pd.Series([10.0, 100.0]), pd.Series([150.0, 50.0], index=[1, 0]))


@pytest.mark.parametrize(("y_true", "bounds", "name"), [
    (None, None, "y_true"), ([5.0], None, "bounds"),
])
def test_bound_metrics_refuse_none_for_the_values_of_jobs(y_true, bounds, name):
    from predictkit.metrics import bound_correctness, bound_summary

    for metric in (bound_correctness, bound_summary):
        with pytest.raises(JobTableError, match=rf"^{name} is None: give one"):
            metric(y_true, bounds)

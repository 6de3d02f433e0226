"""Bound metrics on hand-made examples."""

import math

import numpy as np
import pytest

from predictkit.exceptions import ConfigError
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

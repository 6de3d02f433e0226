"""How period scores make a cross-validation score: cross_validation_scores on hand-built tables."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predictkit.exceptions import ConfigError
from predictkit.model_selection import SCHEDULE_CRITERIA, cross_validation_scores

# three candidates, four past periods (oldest first); period 2 is overloaded
TABLE = np.array([[2.0, 2.0, 40.0, 3.0],    # a: steady, bad in the busy month
                  [3.0, 3.0, 30.0, 4.0],    # b: worse every month but the busy one
                  [9.0, 8.0, 35.0, 1.0]])   # c: bad long ago, best lately
COUNTS = np.array([100, 100, 10, 1000])


def test_mean_is_the_mean_of_the_periods():
    np.testing.assert_allclose(cross_validation_scores(TABLE), [11.75, 10.0, 13.25])
    assert cross_validation_scores(TABLE).argmin() == 1


def test_jobs_weighs_each_period_by_its_jobs():
    expected = (TABLE * COUNTS).sum(axis=1) / COUNTS.sum()
    got = cross_validation_scores(TABLE, criterion="jobs", job_counts=COUNTS)
    np.testing.assert_allclose(got, expected)
    assert got.argmin() == 2  # the big last period decides


def test_recent_halves_the_weight_every_half_life():
    got = cross_validation_scores(TABLE, criterion="recent", half_life=1.0)
    weights = np.array([1 / 8, 1 / 4, 1 / 2, 1])
    np.testing.assert_allclose(got, TABLE @ weights / weights.sum())
    assert got.argmin() == 1
    assert cross_validation_scores(TABLE, criterion="recent", half_life=0.5).argmin() == 2
    # a long half-life tends to the plain mean
    np.testing.assert_allclose(cross_validation_scores(TABLE, criterion="recent", half_life=1e9),
                               cross_validation_scores(TABLE), rtol=1e-6)


def test_rank_counts_every_period_alike_and_shares_ties():
    # ranks: period 0 (1, 2, 3), 1 (1, 2, 3), 2 (3, 1, 2), 3 (2, 3, 1)
    np.testing.assert_allclose(cross_validation_scores(TABLE, criterion="rank"),
                               [7 / 4, 8 / 4, 9 / 4])
    tied = np.array([[1.0, 5.0], [1.0, 4.0], [2.0, 3.0]])
    np.testing.assert_allclose(cross_validation_scores(tied, criterion="rank"),
                               [(1.5 + 3) / 2, (1.5 + 2) / 2, (3 + 1) / 2])


def test_a_period_without_jobs_is_left_out():
    holed = TABLE.copy()
    holed[:, 2] = np.nan
    for criterion in SCHEDULE_CRITERIA:
        got = cross_validation_scores(holed, criterion=criterion, job_counts=COUNTS)
        without = cross_validation_scores(np.delete(TABLE, 2, axis=1), criterion=criterion,
                                          job_counts=np.delete(COUNTS, 2),
                                          half_life=3.0)
        if criterion != "recent":  # recent: the ages of the other periods stay as they were
            np.testing.assert_allclose(got, without)
    assert np.isnan(cross_validation_scores(np.full((2, 3), np.nan))).all()


@settings(max_examples=60, deadline=None)
@given(arrays(float, st.tuples(st.integers(1, 6), st.integers(1, 8)),
              elements=st.floats(1.0, 1e4)),
       st.sampled_from(SCHEDULE_CRITERIA), st.floats(0.1, 50.0))
def test_a_candidate_better_in_every_period_scores_better(table, criterion, half_life):
    """Any criterion prefers a candidate that is at least as good in every period."""
    better = np.vstack([table, table.min(axis=0) * 0.5])
    counts = np.arange(1, table.shape[1] + 1)
    got = cross_validation_scores(better, criterion=criterion, job_counts=counts,
                                  half_life=half_life)
    assert got[-1] < got[:-1].min()


@pytest.mark.parametrize("kwargs, message", [
    ({"criterion": "median"}, "criterion must be one of mean, jobs, recent, rank"),
    ({"criterion": "jobs"}, "needs job_counts"),
    ({"criterion": "jobs", "job_counts": [1, 2]}, "job_counts must be 4 counts"),
    ({"criterion": "jobs", "job_counts": [1, 2, -1, 3]}, "job_counts must be 4 counts"),
    ({"criterion": "recent", "half_life": 0}, "half_life must be a positive number"),
    ({"criterion": "recent", "half_life": float("nan")}, "half_life must be a positive"),
    ({"criterion": "recent", "half_life": "3"}, "half_life must be a positive"),
])
def test_bad_values_are_one_clear_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        cross_validation_scores(TABLE, **kwargs)

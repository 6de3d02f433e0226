"""The locality statistics of a log: how a user's consecutive runtimes repeat."""

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.workload._locality import LOCALITY_STATISTICS, runtime_locality


def test_the_locality_statistics_of_a_small_log_by_hand():
    jobs = pd.DataFrame({"user_id": [1.0, 1.0, 1.0, 2.0, 2.0],
                         "submit_time": [0.0, 50.0, 500.0, 0.0, 10.0],
                         "run_time": [100.0, 100.0, 1000.0, 10.0, 10.0]})
    found = runtime_locality(jobs)
    # pairs: user 1 (100, 100) submitted before the first ended, (100, 1000) after;
    # user 2 (10, 10) submitted as the first ended
    assert found["pairs"] == 3
    assert found["median_abs_log10_ratio"] == 0.0
    assert found["share_within_12pct"] == pytest.approx(2 / 3)
    assert found["share_after_run"] == pytest.approx(2 / 3)
    # log10 runtimes 2, 2, 3 | 1, 1: total sum of squares 2.8, within user 1 2/3, user 2 0
    assert found["user_share_of_variance"] == pytest.approx(1 - (2 / 3) / 2.8)
    assert set(LOCALITY_STATISTICS) <= set(found)


def test_no_two_jobs_of_one_known_user_gives_none():
    jobs = pd.DataFrame({"user_id": [1.0, 2.0, np.nan, -1.0, -1.0],
                         "submit_time": [0.0, 1.0, 2.0, 3.0, 4.0],
                         "run_time": [10.0, 20.0, 30.0, 40.0, 50.0]})
    assert runtime_locality(jobs) is None


def reference_user_share(jobs):
    """One minus within-user over total sum of squares, users with two or more jobs, by groupby."""
    kept = jobs[(jobs["run_time"] > 0) & (jobs["user_id"] >= 0)]
    kept = kept.assign(x=np.log10(kept["run_time"]))
    kept = kept[kept.groupby("user_id")["x"].transform("size") >= 2]
    total = ((kept["x"] - kept["x"].mean()) ** 2).sum()
    within = ((kept["x"] - kept.groupby("user_id")["x"].transform("mean")) ** 2).sum()
    return None if total <= 0 else 1 - within / total


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1000), st.integers(0, 5000)),
                min_size=2, max_size=40))
def test_the_user_share_equals_a_groupby_reference(rows):
    jobs = pd.DataFrame(rows, columns=["user_id", "submit_time", "run_time"]).astype(float)
    found = runtime_locality(jobs)
    if found is None:
        return
    want = reference_user_share(jobs)
    if want is None:
        assert found["user_share_of_variance"] is None
    else:
        assert found["user_share_of_variance"] == pytest.approx(want, abs=1e-9)
        assert -1e-9 <= found["user_share_of_variance"] <= 1 + 1e-9
    for name in ("share_within_12pct", "share_within_2x", "share_after_run"):
        assert 0.0 <= found[name] <= 1.0


@pytest.mark.parametrize("change, message", [
    (lambda j: j.drop(columns="user_id"), "lacks required column(s) user_id"),
    (lambda j: j["run_time"], "must be a pandas DataFrame"),
    (lambda j: j.assign(user_id="u" + j["user_id"].astype(int).astype(str)),
     "'user_id' is not numeric"),
    (lambda j: j.assign(submit_time=pd.to_datetime(j["submit_time"], unit="s")),
     "holds datetime64"),
    (lambda j: j.assign(run_time=-j["run_time"]), "'run_time' has negative values"),
    (lambda j: j.assign(submit_time=j["submit_time"].where(j.index != 1)),
     "no submit_time cannot be put in order"),
])
def test_a_table_it_cannot_read_is_one_line_naming_the_column(change, message):
    from predictkit.exceptions import JobTableError

    jobs = pd.DataFrame({"job_id": [1, 2, 3], "user_id": [1.0, 1.0, 2.0],
                         "submit_time": [0.0, 50.0, 70.0], "run_time": [100.0, 90.0, 10.0]})
    with pytest.raises(JobTableError, match=re.escape(message)):
        runtime_locality(change(jobs))

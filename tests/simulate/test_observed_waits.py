"""Waits a log does not record, taken from a simulated EASY schedule."""

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal

from predictkit.simulate import simulate
from predictkit.simulate._observed_waits import with_observed_waits


def _log_without_waits():
    jobs = pd.DataFrame({"job_id": [1, 2, 2, 3, 1, 4],
                         "submit_time": [0.0, 5.0, 10.0, 12.0, 20.0, 25.0],
                         "run_time": [100.0, 50.0, 60.0, 10.0, 5.0, 5.0],
                         "n_procs": [4.0, 2.0, 4.0, 1.0, 8.0, 16.0],  # the last is too wide
                         "req_time": [200.0, 100.0, 100.0, 50.0, 10.0, 10.0],
                         "wait_time": [np.nan, np.nan, 0.0, np.nan, np.nan, np.nan]},
                        index=[7, 7, 8, 9, 9, 3])
    jobs.attrs["max_procs"] = 8
    return jobs


def test_filled_waits_are_the_schedule_s_by_position_whatever_the_ids_and_labels():
    jobs = _log_without_waits()  # job ids 1 and 2 and row labels 7 and 9 repeat
    out, notes = with_observed_waits(jobs)
    kept = jobs.iloc[:5]
    expected = simulate(kept.reset_index(drop=True), policy="easy", machine_procs=8,
                        estimates="requested").jobs["wait_time"].to_numpy()
    known = kept["wait_time"].notna().to_numpy()
    assert_array_equal(out["wait_time"].to_numpy()[~known], expected[~known])
    assert out["wait_time"].to_numpy()[known] == 0.0  # a known wait is kept
    assert_array_equal(out["job_id"], kept["job_id"])
    assert notes == ["5 jobs had no wait time in the log; their waits come from an EASY "
                     "simulation of the log with requested estimates.",
                     "1 job wider than the machine was left out."]

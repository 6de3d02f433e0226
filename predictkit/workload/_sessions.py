"""User sessions: bursts of one user's jobs separated by short think times.

Following Zilber, Amit and Talby (ICS 2005), cited by Tsafrir et al.
(JSSPP 2005, section 11.4): a user's job starts a new session when the time
between its submission and the end of the user's previous jobs (the think
time) exceeds a threshold, 20 minutes by default. Only submit times and
runtimes are used, so a job's end is taken as ``submit_time + run_time``
(no queueing): the think time is measured from the latest such end among the
user's earlier jobs, which also handles jobs submitted while others run.
"""

import numpy as np
import pandas as pd

from ..exceptions import ConfigError

__all__ = ["session_ids", "DEFAULT_THINK_TIME"]

DEFAULT_THINK_TIME = 20 * 60.0
"""Seconds of think time above which a new session starts (Zilber et al.)."""


def session_ids(users, submit_times, runtimes, think_time=DEFAULT_THINK_TIME):
    """Label each job with its session.

    Parameters
    ----------
    users : array-like, shape (n,)
        User of each job (any hashable numbers; NaN is one "unknown" user
        whose jobs each form their own session).
    submit_times, runtimes : array-like, shape (n,)
        Seconds; need not be sorted.
    think_time : float
        Threshold in seconds (>= 0).

    Returns
    -------
    ndarray of int64, shape (n,)
        Session labels ``0 .. n_sessions - 1``, numbered in the order of each
        session's first row.
    """
    users = np.asarray(users, dtype=float)
    submit = np.asarray(submit_times, dtype=float)
    run = np.asarray(runtimes, dtype=float)
    if not (users.shape == submit.shape == run.shape):
        raise ConfigError("users, submit_times and runtimes must have the same length")
    if think_time < 0:
        raise ConfigError(f"think_time must be >= 0, got {think_time}")
    n = users.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if np.isnan(submit).any():
        raise ConfigError("submit_times has missing values; sessions need every submit time")
    unknown = np.isnan(users)
    order = np.lexsort((np.arange(n), submit, np.where(unknown, np.inf, users)))
    u, s, e = users[order], submit[order], submit[order] + run[order]
    frame = pd.DataFrame({"u": np.where(unknown[order], -1.0, u), "e": e})
    latest = frame.groupby("u", sort=False)["e"].cummax().to_numpy()
    previous = np.empty(n)
    previous[0] = -np.inf
    previous[1:] = latest[:-1]
    same_user = np.zeros(n, dtype=bool)
    same_user[1:] = (u[1:] == u[:-1]) & ~unknown[order][1:]
    new = ~same_user | (s - previous > think_time)
    sorted_ids = np.cumsum(new) - 1
    ids = np.empty(n, dtype=np.int64)
    ids[order] = sorted_ids
    first = np.full(sorted_ids[-1] + 1, np.inf)
    np.minimum.at(first, ids, np.arange(n))
    rank = np.empty_like(first, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[ids]

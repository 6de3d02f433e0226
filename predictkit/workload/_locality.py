"""How much a log's users repeat their runtimes and when they submit again.

Runtime predictors that learn from a user's last jobs (Tsafrir, Etsion &
Feitelson's recent average; Klusacek & Soysal's usage maximum) work because
real users submit the same job again and again, mostly once the previous one
has ended. :func:`runtime_locality` measures both on any job table with user
ids, runtimes and submit times: on real logs by
``benchmarks/workload_locality.py``, and by :class:`SiteModel` to fit the
session parameters of :func:`make_workload` to a log.
"""

import numpy as np

from .._table import _raise_rows
from ..jobs import validate_jobs

__all__ = ["LOCALITY_COLUMNS", "LOCALITY_STATISTICS", "runtime_locality"]

LOCALITY_COLUMNS = ("user_id", "submit_time", "run_time")
"""The columns :func:`runtime_locality` reads."""

LOCALITY_STATISTICS = ("median_abs_log10_ratio", "share_within_12pct", "share_within_2x",
                       "correlation", "share_after_run", "user_share_of_variance")
"""The statistics :func:`runtime_locality` returns, besides the number of pairs."""


def runtime_locality(jobs):
    """The statistics of a user's consecutive runtimes, or None without two consecutive jobs
    of one user.

    Over the jobs with a runtime (> 0) and a known user (>= 0), sorted by
    user and submit time, each pair of a user's consecutive jobs gives
    ``|log10(run_2 / run_1)|``.

    Parameters
    ----------
    jobs : DataFrame
        A job table with ``user_id``, ``submit_time`` and ``run_time``.

    Raises
    ------
    JobTableError
        When a column is missing or holds other than numbers of seconds (or
        ids), a time is negative or infinite, or a job with a user and a
        runtime has no submit time.

    Returns
    -------
    dict or None
        ``pairs`` (number of consecutive pairs); ``median_abs_log10_ratio``;
        ``share_within_12pct`` and ``share_within_2x`` (pairs with
        ``|log10 ratio|`` below 0.05 and 0.3); ``correlation`` of the pairs'
        log-runtimes (None when either side is constant);
        ``share_after_run``, the pairs whose second job was submitted once
        the first had run (``submit_1 + run_1``, without the wait, which a
        synthetic workload does not have); ``user_share_of_variance``, the
        share of the log-runtime variance between users (one minus the
        pooled within-user sum of squares over the total, over the users
        with at least two jobs; None when it is constant).
    """
    validate_jobs(jobs, present=LOCALITY_COLUMNS, columns=LOCALITY_COLUMNS)
    known = (jobs["run_time"] > 0) & jobs["user_id"].notna() & (jobs["user_id"] >= 0)
    unplaced = known & jobs["submit_time"].isna()
    if unplaced.any():
        _raise_rows(jobs, unplaced.to_numpy(), "runtime_locality: jobs with a user and a "
                   "runtime but no submit_time cannot be put in order")
    own = jobs[known].sort_values(["user_id", "submit_time"], kind="stable")
    log_run = np.log10(own["run_time"].to_numpy(dtype=float))
    user = own["user_id"].to_numpy()
    same = user[1:] == user[:-1]
    if not same.any():
        return None
    earlier, later = log_run[:-1][same], log_run[1:][same]
    step = np.abs(later - earlier)
    submit = own["submit_time"].to_numpy(dtype=float)
    ended = submit[:-1] + own["run_time"].to_numpy(dtype=float)[:-1]
    spread = earlier.std() > 0 and later.std() > 0
    return {"pairs": int(same.sum()),
            "median_abs_log10_ratio": float(np.median(step)),
            "share_within_12pct": float(np.mean(step < 0.05)),
            "share_within_2x": float(np.mean(step < 0.3)),
            "correlation": float(np.corrcoef(earlier, later)[0, 1]) if spread else None,
            "share_after_run": float(np.mean(submit[1:][same] >= ended[same])),
            "user_share_of_variance": _between_user_share(log_run, user)}


def _between_user_share(values, user):
    """One minus the pooled within-user sum of squares over the total sum of squares, over
    the users with at least two values (``user`` sorted); None when the values are constant."""
    first = np.flatnonzero(np.r_[True, user[1:] != user[:-1]])
    counts = np.diff(np.r_[first, user.size])
    several = np.repeat(counts >= 2, counts)
    values = values[several]
    counts = counts[counts >= 2]
    group = np.repeat(np.arange(counts.size), counts)
    total = float(((values - values.mean()) ** 2).sum())
    if total <= 0.0:
        return None
    means = np.bincount(group, weights=values) / counts
    within = float(((values - means[group]) ** 2).sum())
    return 1.0 - within / total

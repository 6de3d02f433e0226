"""Selecting the jobs of a real log that a simulation can replay."""

import numpy as np

__all__ = ["simulable_jobs"]


def simulable_jobs(jobs, *, need_requests=True):
    """Drop the jobs a simulation cannot replay, and say how many and why.

    Jobs without a runtime or a submit time, without a width (neither
    ``n_procs`` nor ``req_procs``, or a non-positive one), with a negative
    time, and (``need_requests``) without a positive request are removed;
    the rest are sorted by submit time (stable). :func:`simulate` itself
    never drops anything: it raises on such jobs.

    Returns
    -------
    jobs : DataFrame
        The kept jobs (``attrs`` preserved).
    dropped : dict
        Reason -> number of jobs removed for it (first matching reason).
    """
    width = jobs["n_procs"].to_numpy(dtype=float)
    if "req_procs" in jobs.columns:
        width = np.where(np.isnan(width), jobs["req_procs"].to_numpy(dtype=float), width)
    reasons = [
        ("no run_time", jobs["run_time"].isna().to_numpy()),
        ("no submit_time", jobs["submit_time"].isna().to_numpy()),
        ("negative time", ((jobs["run_time"] < 0) | (jobs["submit_time"] < 0)).to_numpy()),
        ("no positive width", ~(width > 0)),
    ]
    if need_requests:
        reasons.append(("no positive req_time", ~(jobs["req_time"].to_numpy(dtype=float) > 0)))
    drop = np.zeros(len(jobs), dtype=bool)
    dropped = {}
    for reason, mask in reasons:
        new = mask & ~drop
        if new.any():
            dropped[reason] = int(new.sum())
        drop |= mask
    kept = jobs.loc[~drop]
    kept = kept.sort_values("submit_time", kind="stable").reset_index(drop=True)
    kept.attrs = dict(jobs.attrs)
    if "n_procs" in kept.columns and "req_procs" in kept.columns:
        kept["n_procs"] = kept["n_procs"].fillna(kept["req_procs"])
    return kept, dropped

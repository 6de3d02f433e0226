"""Preparing a log for what learns from waits: waits a log does not record, simulated."""

import numpy as np

from .._format import format_count
from .._table import copy_attrs
from ._simulate import simulate

__all__ = ["with_observed_waits"]


def with_observed_waits(jobs, *, has_requests=True):
    """Give a log without waits the waits of a simulated EASY schedule.

    Wait-based studies (QBETS bounds, fairness) need a wait per job; some
    logs (LLNL-Atlas, LLNL-Thunder, synthetic workloads) record none. The
    missing waits are taken from :func:`~predictkit.simulate.simulate` with
    ``policy="easy"``; known waits are kept.

    Parameters
    ----------
    jobs : DataFrame
        A cleaned job table (:func:`predictkit.clean_jobs`), sorted by submit
        time.
    has_requests : bool
        Whether the simulation may use the requested times as estimates
        (else it is given the actual runtimes, ``"perfect"``).

    Returns
    -------
    jobs : DataFrame
        ``jobs`` itself when every wait is known, else a copy with the
        missing waits filled (jobs wider than the machine, which the
        simulation rejects, are left out).
    notes : list of str
        What was filled or left out, in words (empty when nothing).
    """
    waits = np.asarray(jobs["wait_time"], dtype=float)
    if len(jobs) and np.isfinite(waits).all():
        return jobs, []
    estimates = "requested" if has_requests else "perfect"
    # by position: job ids (and row labels) may repeat
    by_position = jobs.reset_index(drop=True)
    by_position.attrs = copy_attrs(jobs)
    schedule = simulate(by_position, policy="easy", estimates=estimates)
    filled = np.full(len(jobs), np.nan)
    filled[schedule.jobs.index.to_numpy()] = np.asarray(schedule.jobs["wait_time"], dtype=float)
    out = jobs.copy()
    missing = ~np.isfinite(waits)
    out.loc[missing, "wait_time"] = filled[missing]
    notes = [f"{format_count(int(missing.sum()), 'job')} had no wait time in the log; their "
             f"waits come from an EASY simulation of the log with {estimates} estimates."]
    if len(schedule.rejected):
        keep = np.isfinite(out["wait_time"].to_numpy(dtype=float))
        left = int((~keep).sum())
        notes.append(f"{format_count(left, 'job')} wider than the machine "
                     f"{'was' if left == 1 else 'were'} left out.")
        out = out.loc[keep].reset_index(drop=True)
    out.attrs = copy_attrs(jobs)
    return out, notes

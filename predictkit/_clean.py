"""The "sane jobs" filter of Tsafrir, Etsion & Feitelson (2005), section 3."""

import numpy as np
import pandas as pd

from .jobs import validate_jobs

__all__ = ["clean_jobs", "SANE_RULES"]

SANE_RULES = ("submit_time unknown", "run_time unknown or negative",
              "size unknown or not positive")
"""The rules of the sane-jobs filter, in the order they are applied."""


def _size(X):
    procs = np.asarray(X["n_procs"], dtype=float)
    if "req_procs" in X.columns:
        requested = np.asarray(X["req_procs"], dtype=float)
        procs = np.where(np.isnan(procs), requested, procs)
    return procs


def clean_jobs(X, *, require_request=False, return_report=False):
    """Keep the jobs a simulation can use and say how many each rule removed.

    Tsafrir, Etsion & Feitelson (2005), section 3 (Table 1, "sane"): a job is
    sane when its size, runtime and submission time are known. The size is
    ``n_procs`` (allocated), or ``req_procs`` when the allocation is unknown;
    it must be positive.

    Parameters
    ----------
    X : DataFrame
        A job table.
    require_request : bool
        Also remove jobs whose requested time is unknown or not positive
        (needed by anything that uses the request, e.g. runtime predictors).
    return_report : bool
        Also return the report as a DataFrame.

    Returns
    -------
    jobs : DataFrame
        The kept rows (original index reset), with ``attrs`` of ``X`` plus
        ``attrs["cleaning"]``: a list of ``{"rule", "removed", "remaining"}``.
        Each removed row is counted once, under the first rule it breaks.
    report : DataFrame
        Only with ``return_report=True``: the same report as a table.
    """
    validate_jobs(X, present=("submit_time", "run_time", "n_procs"), check_values=False)
    rules = [
        ("submit_time unknown", np.isnan(np.asarray(X["submit_time"], dtype=float))),
        ("run_time unknown or negative",
         ~(np.asarray(X["run_time"], dtype=float) >= 0)),
        ("size unknown or not positive", ~(_size(X) > 0)),
    ]
    if require_request:
        validate_jobs(X, present=("req_time",), check_values=False)
        rules.append(("req_time unknown or not positive",
                      ~(np.asarray(X["req_time"], dtype=float) > 0)))
    keep = np.ones(len(X), dtype=bool)
    report = []
    for rule, bad in rules:
        removed = int((keep & bad).sum())
        keep &= ~bad
        report.append({"rule": rule, "removed": removed, "remaining": int(keep.sum())})
    out = X.loc[keep].reset_index(drop=True)
    out.attrs = dict(X.attrs)
    out.attrs["cleaning"] = report
    if return_report:
        return out, pd.DataFrame(report)
    return out

"""Cleaning a job table: the "sane jobs" filter of Tsafrir, Etsion & Feitelson (2005).

The one place that decides which jobs of a log are usable, and reports what
it removed and why: the command line, the benchmarks, the report and the
experiments all clean through :func:`clean_jobs`, and :func:`simulate`'s
errors point to it.
"""

import numpy as np
import pandas as pd

from ._format import format_count
from ._table import copy_attrs, job_width, validate_jobs, with_numeric_columns
from ._validation import invalid_parameter, validate_params

__all__ = ["clean_jobs", "describe_cleaning", "SANE_RULES"]

SANE_RULES = ("submit_time unknown", "run_time unknown or negative",
              "size unknown or not positive")
"""The rules of the sane-jobs filter, in the order they are applied."""

_SIMULATION_RULE = "submit_time negative"
_NO_TIME_RULE = "req_time 0"
_REQUEST_RULE = "req_time unknown or not positive"


@validate_params({"require_request": ["boolean"], "for_simulation": ["boolean"],
                  "return_report": ["boolean"]})
def clean_jobs(X, *, require_request=False, for_simulation=False, return_report=False):
    """Keep the jobs a simulation can use and say how many each rule removed.

    Tsafrir, Etsion & Feitelson (2005), section 3 (Table 1, "sane"): a job is
    sane when its size, runtime and submission time are known. The size is
    :func:`~predictkit.jobs.job_width`: ``n_procs`` (allocated), or
    ``req_procs`` when the allocation is unknown; it must be positive.

    Parameters
    ----------
    X : DataFrame
        A job table.
    require_request : bool
        Also remove jobs whose requested time is unknown or not positive
        (needed by anything that uses the request, e.g. runtime predictors
        and request-based estimates in a simulation).
    for_simulation : bool
        Prepare the table for :func:`~predictkit.simulate.simulate`: also
        remove jobs submitted at a negative time and jobs requesting 0 s
        (which it refuses; an unknown request is kept), sort the rest by
        submit time (stable) and fill unknown ``n_procs`` with ``req_procs``
        (the width the simulation uses).
    return_report : bool
        Also return the report as a DataFrame.

    Returns
    -------
    jobs : DataFrame
        The kept rows (original index reset; SWF columns that held numbers as
        objects or text, ``pd.NA`` for missing, hold float64), with ``attrs`` of ``X`` plus
        ``attrs["cleaning"]``: a list of ``{"rule", "removed", "remaining"}``
        in the order the rules are applied (:data:`SANE_RULES`, then
        ``"submit_time negative"`` and ``"req_time 0"`` for a simulation, then
        ``"req_time unknown or not positive"`` when a request is required). Each removed row is
        counted once, under the first rule it breaks.
        :func:`describe_cleaning` puts the report in words.
    report : DataFrame
        Only with ``return_report=True``: the same report as a table.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.jobs import clean_jobs, describe_cleaning
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 5.0, float("nan")],
    ...                      "run_time": [10.0, -1.0, 3.0], "n_procs": [4.0, 2.0, 1.0]})
    >>> len(clean_jobs(jobs))
    1
    >>> describe_cleaning(clean_jobs(jobs))
    '1 job with submit_time unknown, 1 job with run_time unknown or negative'
    """
    validate_jobs(X, present=("submit_time", "run_time"), check_values=False)
    source, X = X, with_numeric_columns(X)
    submit = np.asarray(X["submit_time"], dtype=float)
    width = job_width(X)
    rules = [
        ("submit_time unknown", np.isnan(submit)),
        ("run_time unknown or negative", ~(np.asarray(X["run_time"], dtype=float) >= 0)),
        ("size unknown or not positive", ~(width > 0)),
    ]
    if for_simulation:
        rules.append((_SIMULATION_RULE, submit < 0))
        request = (np.asarray(X["req_time"], dtype=float) if "req_time" in X.columns
                   else np.full(len(X), np.nan))
        rules.append((_NO_TIME_RULE, request == 0))  # simulate refuses a request of no time
    if require_request:
        validate_jobs(X, present=("req_time",), check_values=False)
        rules.append((_REQUEST_RULE, ~(np.asarray(X["req_time"], dtype=float) > 0)))
    keep = np.ones(len(X), dtype=bool)
    report = []
    for rule, bad in rules:
        removed = int((keep & bad).sum())
        keep &= ~bad
        report.append({"rule": rule, "removed": removed, "remaining": int(keep.sum())})
    out = X.loc[keep]
    if for_simulation:
        out = out.assign(n_procs=width[keep])
        out = out.sort_values("submit_time", kind="stable")
    out = out.reset_index(drop=True)
    out.attrs = copy_attrs(source)
    out.attrs["cleaning"] = report
    if return_report:
        return out, pd.DataFrame(report)
    return out


def describe_cleaning(jobs):
    """What :func:`clean_jobs` removed, in words (``""`` when nothing).

    Parameters
    ----------
    jobs : DataFrame or list of dict
        A table returned by :func:`clean_jobs`, its report
        (``return_report=True``: ``rule`` and ``removed`` columns), or its
        ``attrs["cleaning"]``.

    Returns
    -------
    str
        ``"<count> jobs with <rule>"`` for every rule that removed jobs, joined
        by commas, e.g. ``"1,190 jobs with submit_time unknown, 1 job with
        run_time unknown"``.
    """
    if isinstance(jobs, pd.DataFrame) and {"rule", "removed"} <= set(jobs.columns):
        report = jobs[["rule", "removed"]].to_dict("records")
    elif isinstance(jobs, pd.DataFrame):
        report = jobs.attrs.get("cleaning", [])
    elif isinstance(jobs, (list, tuple)) and all(
            isinstance(r, dict) and {"rule", "removed"} <= set(r) for r in jobs):
        report = jobs
    else:
        raise invalid_parameter("jobs", "describe_cleaning", "a table returned by clean_jobs, "
                                "its report or its attrs['cleaning']", jobs)
    return ", ".join(f"{format_count(r['removed'], 'job')} with {r['rule']}"
                     for r in report if r["removed"])

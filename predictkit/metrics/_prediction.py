"""Accuracy of runtime predictions (Tang et al. 2013, section 4.2) and sklearn scorers."""

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.metrics import make_scorer

from .._table import check_aligned, per_job_numbers
from .._validation import Interval, validate_params
from ..exceptions import JobTableError

__all__ = [
    "estimate_accuracy",
    "adjustment_outcomes",
    "underestimation_rate",
    "mean_absolute_error",
    "estimate_accuracy_scorer",
    "underestimation_rate_scorer",
    "mean_absolute_error_scorer",
]


def _pair(run, est, names=("run", "est")):
    if isinstance(run, pd.Series):
        check_aligned(est, run, names[1], table=names[0])
    arrays = []
    for name, values in zip(names, (run, est)):
        arrays.append(per_job_numbers(values, name))
    if arrays[0].shape != arrays[1].shape:
        raise JobTableError(
            f"{names[0]} and {names[1]} differ in length: {arrays[0].shape[0]} and "
            f"{arrays[1].shape[0]}")
    if arrays[0].size == 0:
        raise JobTableError("no jobs to score")
    for name, values in zip(names, arrays):
        if np.isnan(values).any():
            raise JobTableError(
                f"{name} has {int(np.isnan(values).sum())} missing value(s); select the "
                "jobs with a known runtime and estimate before scoring")
        if (values < 0).any():
            raise JobTableError(f"{name} has negative values")
        if np.isinf(values).any():
            raise JobTableError(f"{name} has {int(np.isinf(values).sum())} infinite value(s) "
                                f"(first at position {int(np.argmax(np.isinf(values)))})")
    return arrays


@validate_params({"average": ["boolean"]})
def estimate_accuracy(run, est, *, average=True):
    """Accuracy of runtime estimates, Tang et al. (2013) eq. 3.

    ``1`` if ``est == run``, ``run / est`` if ``run < est`` (overestimate),
    ``est / run`` if ``run > est`` (underestimate): always in ``[0, 1]``.

    Parameters
    ----------
    run : array-like of shape (n_jobs,)
        Actual runtimes (s).
    est : array-like of shape (n_jobs,)
        Estimates: user requests or predictions (s).
    average : bool, default=True
        Return the mean over jobs (Tang's "average accuracy"); ``False`` gives
        the per-job values.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from predictkit.metrics import estimate_accuracy
    >>> estimate_accuracy([50, 100, 200], [100, 100, 100], average=False)
    array([0.5, 1. , 0.5])
    """
    run, est = _pair(run, est)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        acc = np.where(run == est, 1.0,
                       np.where(run < est, run / est, est / run))
    return float(acc.mean()) if average else acc


@validate_params({"bad_threshold": [Interval(Real, 0, None, closed="left")]})
def adjustment_outcomes(run, requested, adjusted, *, bad_threshold=1800):
    """Shares of NA / OE / UE / BE jobs, Tang et al. (2013) section 4.2.2 (Fig. 5).

    * ``NA`` (no adjustment): ``adjusted == requested``;
    * ``OE`` (overestimate): adjusted, and ``adjusted >= run``;
    * ``UE`` (underestimate): adjusted, ``adjusted < run`` and
      ``run - adjusted <= bad_threshold``;
    * ``BE`` (bad estimate): adjusted and ``run - adjusted > bad_threshold``
      (30 minutes in the paper).

    Parameters
    ----------
    run, requested, adjusted : array-like of shape (n_jobs,)
        Runtimes, user requests and adjusted estimates (s).
    bad_threshold : float, default=1800
        Underestimation (s) beyond which an estimate is "bad".

    Returns
    -------
    dict
        ``{"NA": share, "OE": share, "UE": share, "BE": share}`` summing to 1.

    Examples
    --------
    >>> from predictkit.metrics import adjustment_outcomes
    >>> adjustment_outcomes([10, 10, 100, 5000], [60, 60, 60, 9000], [60, 20, 50, 1000])
    {'NA': 0.25, 'OE': 0.25, 'UE': 0.25, 'BE': 0.25}
    """
    _, adjusted = _pair(run, adjusted, ("run", "adjusted"))
    run, requested = _pair(run, requested, ("run", "requested"))
    same = adjusted == requested
    under = ~same & (adjusted < run)
    bad = under & (run - adjusted > bad_threshold)
    n = run.size
    return {"NA": float(same.sum() / n), "OE": float((~same & ~under).sum() / n),
            "UE": float((under & ~bad).sum() / n), "BE": float(bad.sum() / n)}


def underestimation_rate(run, est):
    """Share of jobs whose estimate is below their runtime (``est < run``).

    Examples
    --------
    >>> from predictkit.metrics import underestimation_rate
    >>> underestimation_rate([10, 20], [5, 30])
    0.5
    """
    run, est = _pair(run, est)
    return float((est < run).mean())


def mean_absolute_error(run, est):
    """Mean absolute error of estimates in seconds (Klusacek & Soysal 2019, Fig. 3).

    Examples
    --------
    >>> from predictkit.metrics import mean_absolute_error
    >>> mean_absolute_error([10, 20], [5, 30])
    7.5
    """
    run, est = _pair(run, est)
    return float(np.abs(est - run).mean())


estimate_accuracy_scorer = make_scorer(estimate_accuracy)
"""Scorer of :func:`estimate_accuracy` (greater is better), for ``scoring=``."""

underestimation_rate_scorer = make_scorer(underestimation_rate, greater_is_better=False)
"""Scorer of :func:`underestimation_rate` (negated: greater is better)."""

mean_absolute_error_scorer = make_scorer(mean_absolute_error, greater_is_better=False)
"""Scorer of :func:`mean_absolute_error` (negated: greater is better)."""

"""Metrics of upper bounds on queue waits (QBETS, Nurmi et al. 2008, section 3).

A bound is *correct* for a job when the job's actual wait is at or under it;
the method promises a correct fraction of at least the quantile ``q``.
*Tightness* is the ratio bound / actual wait, taken over jobs that waited
more than ``min_wait`` seconds (a one-second wait makes any ratio huge).

Which jobs count where:

* A job *has a bound* when its bound is finite: ``NaN`` (too little
  history) and ``inf`` (the quantile cannot be bounded yet) are no bound.
  *Availability* (:func:`bound_availability`) is the share of all jobs
  that have one, whatever their waits.
* A job with an unknown wait (``NaN``) cannot be scored: it is left out of
  correctness and tightness (but counts in availability).
  :func:`bound_summary` reports both counts (``n_bounded``, ``n_scored``).
* Negative or infinite waits and negative bounds are impossible: they are
  refused with a :class:`~predictkit.exceptions.JobTableError` naming the
  first row, as the estimate metrics refuse negative runtimes.
"""

from numbers import Real

import numpy as np
import pandas as pd

from .._table import as_numbers, check_aligned
from .._validation import Interval, StrOptions, validate_params
from ..exceptions import ConfigError, JobTableError

__all__ = ["bound_correctness", "bound_availability", "bound_tightness",
           "bound_correctness_confint", "bound_summary"]


def _values(values, name, what):
    if values is None:
        raise JobTableError(f"{name} is None: give one {what[:-1]} in seconds per job (NaN "
                            "for none)")
    try:
        array = as_numbers(values, name)
    except JobTableError as error:
        raise JobTableError(f"{name} must be numeric {what} in seconds: {error}") from None
    if array.ndim > 1:
        raise JobTableError(f"{name} must hold one value per job (1-D), got shape "
                            f"{array.shape}")
    return array.reshape(-1)


def _refuse(bad, name, problem):
    if bad.any():
        raise JobTableError(f"{name} has {int(bad.sum())} {problem} (first at row "
                            f"{int(np.argmax(bad))})")


def _bounds(bounds):
    """``bounds`` as float64; a JobTableError for a negative one."""
    b = _values(bounds, "bounds", "bounds")
    _refuse(b < 0, "bounds", "negative bound(s)")
    return b


def _pair(y_true, bounds):
    """Waits and bounds, and which jobs can be scored (a bound and a known wait)."""
    if isinstance(y_true, pd.Series):
        check_aligned(bounds, y_true, "bounds", table="y_true")
    y = _values(y_true, "y_true", "waits")
    b = _bounds(bounds)
    if y.shape != b.shape:
        raise ConfigError(f"y_true has {len(y)} values but bounds has {len(b)}")
    _refuse(np.isinf(y), "y_true", "infinite wait(s)")
    _refuse(y < 0, "y_true", "negative wait(s)")
    keep = np.isfinite(b) & ~np.isnan(y)
    return y, b, keep


def bound_correctness(y_true, bounds):
    """Fraction of jobs with a bound whose actual wait is at or under it.

    Jobs with an unknown wait (``NaN``) are left out. Returns ``NaN`` when
    no job has both a bound and a known wait.

    Raises
    ------
    JobTableError
        A negative or infinite wait, or a negative bound (naming the first
        row).

    Examples
    --------
    >>> bound_correctness([10, 50, 200], [100, 100, float("nan")])
    1.0
    """
    y, b, keep = _pair(y_true, bounds)
    if not keep.any():
        return float("nan")
    return float(np.mean(y[keep] <= b[keep]))


def bound_availability(bounds):
    """Fraction of jobs that got a bound (a finite one), whatever their waits.

    ``NaN`` for no jobs. A negative bound is a
    :class:`~predictkit.exceptions.JobTableError`.
    """
    b = _bounds(bounds)
    return float(np.mean(np.isfinite(b))) if len(b) else float("nan")


_MIN_WAIT = [Interval(Real, 0, None, closed="left")]


@validate_params({"min_wait": _MIN_WAIT, "statistic": [StrOptions({"median", "mean"})]})
def bound_tightness(y_true, bounds, *, min_wait=60.0, statistic="median"):
    """Median (or mean) of bound / actual wait over jobs that waited > ``min_wait`` s.

    Over the jobs with a bound and a known wait, as :func:`bound_correctness`.

    Parameters
    ----------
    statistic : {"median", "mean"}
    """
    y, b, keep = _pair(y_true, bounds)
    keep &= y > min_wait
    if not keep.any():
        return float("nan")
    ratio = b[keep] / y[keep]
    return float(np.median(ratio) if statistic == "median" else np.mean(ratio))


@validate_params({"alpha": [Interval(Real, 0, 1, closed="neither")],
                  "method": [StrOptions({"normal", "agresti_coull", "beta", "wilson",
                                         "jeffreys", "binom_test"})]})
def bound_correctness_confint(y_true, bounds, *, alpha=0.05, method="wilson"):
    """Confidence interval of the correct fraction (``proportion_confint``).

    Returns
    -------
    (low, high) : tuple of float
    """
    from statsmodels.stats.proportion import proportion_confint

    y, b, keep = _pair(y_true, bounds)
    n = int(keep.sum())
    if n == 0:
        return float("nan"), float("nan")
    hits = int(np.sum(y[keep] <= b[keep]))
    low, high = proportion_confint(hits, n, alpha=alpha, method=method)
    return float(low), float(high)


@validate_params({"quantile": [Interval(Real, 0, 1, closed="neither"), None],
                  "min_wait": _MIN_WAIT})
def bound_summary(y_true, bounds, *, quantile=None, min_wait=60.0):
    """All bound metrics in one dict.

    Keys: ``n_jobs``, ``n_bounded`` (jobs with a bound), ``n_scored`` (with
    a bound and a known wait: the jobs correctness is taken over),
    ``availability`` (``n_bounded / n_jobs``), ``correctness``,
    ``correctness_low``, ``correctness_high`` (95% Wilson interval),
    ``median_ratio``, ``mean_ratio`` and, if ``quantile`` is given,
    ``meets_quantile`` (correctness >= quantile).
    """
    y, b, keep = _pair(y_true, bounds)
    low, high = bound_correctness_confint(y, b)
    out = {
        "n_jobs": int(len(y)),
        "n_bounded": int(np.isfinite(b).sum()),
        "n_scored": int(keep.sum()),
        "availability": bound_availability(b),
        "correctness": bound_correctness(y, b),
        "correctness_low": low,
        "correctness_high": high,
        "median_ratio": bound_tightness(y, b, min_wait=min_wait),
        "mean_ratio": bound_tightness(y, b, min_wait=min_wait, statistic="mean"),
    }
    if quantile is not None:
        out["meets_quantile"] = bool(out["correctness"] >= quantile)
    return out

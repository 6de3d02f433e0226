"""Metrics of upper bounds on queue waits (QBETS, Nurmi et al. 2008, section 3).

A bound is *correct* for a job when the job's actual wait is at or under it;
the method promises a correct fraction of at least the quantile ``q``.
*Tightness* is the ratio bound / actual wait, taken over jobs that waited
more than ``min_wait`` seconds (a one-second wait makes any ratio huge).
Jobs without a bound (``NaN``: too little history) are left out of both and
counted by :func:`bound_availability`.
"""

from numbers import Real

import numpy as np

from .._validation import Interval, StrOptions, validate_params
from ..exceptions import ConfigError

__all__ = ["bound_correctness", "bound_availability", "bound_tightness",
           "bound_correctness_confint", "bound_summary"]


def _pair(y_true, bounds):
    y = np.asarray(y_true, dtype=np.float64).reshape(-1)
    b = np.asarray(bounds, dtype=np.float64).reshape(-1)
    if y.shape != b.shape:
        raise ConfigError(f"y_true has {len(y)} values but bounds has {len(b)}")
    keep = np.isfinite(b) & np.isfinite(y)
    return y, b, keep


def bound_correctness(y_true, bounds):
    """Fraction of jobs with a bound whose actual wait is at or under it.

    Returns ``NaN`` when no job has a bound.

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
    """Fraction of jobs that got a bound (non-``NaN``)."""
    b = np.asarray(bounds, dtype=np.float64).reshape(-1)
    return float(np.mean(np.isfinite(b))) if len(b) else float("nan")


_MIN_WAIT = [Interval(Real, 0, None, closed="left")]


@validate_params({"min_wait": _MIN_WAIT, "statistic": [StrOptions({"median", "mean"})]})
def bound_tightness(y_true, bounds, *, min_wait=60.0, statistic="median"):
    """Median (or mean) of bound / actual wait over jobs that waited > ``min_wait`` s.

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

    Keys: ``n_jobs``, ``n_bounded``, ``availability``, ``correctness``,
    ``correctness_low``, ``correctness_high`` (95% Wilson interval),
    ``median_ratio``, ``mean_ratio`` and, if ``quantile`` is given,
    ``meets_quantile`` (correctness >= quantile).
    """
    y, b, keep = _pair(y_true, bounds)
    low, high = bound_correctness_confint(y, b)
    out = {
        "n_jobs": int(len(y)),
        "n_bounded": int(keep.sum()),
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

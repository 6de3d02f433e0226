"""Where the simulator's runtime estimates come from, and what happens when a
running job outlives its estimate.

* ``"requested"`` - the user's requested time (``req_time``);
* ``"perfect"`` - the job's actual (simulated) runtime;
* an array - one estimate per job of the input table;
* a runtime predictor - asked at each submission, fed each completed job in
  simulated time, through :class:`predictkit.runtime.OnlinePredictor` (an
  estimator with only ``partial_fit`` and ``predict`` is adapted to it).

Every estimate is capped at the request and floored at one second (a
scheduler never plans a zero-length job). ``selective=True`` keeps the
estimate for waiting jobs and uses the request for running ones (Tang et al.
2013 section 5.2).
"""

import numpy as np

from .._table import as_numbers
from ..exceptions import ConfigError, SimulationError
from ._engine import UNDER_DOUBLE, UNDER_INCREMENTS, UNDER_REQUEST

__all__ = ["UNDERESTIMATE_RULES", "resolve_underestimate", "static_estimates",
           "finish_estimates"]

UNDERESTIMATE_RULES = {"double": UNDER_DOUBLE, "increments": UNDER_INCREMENTS,
                       "request": UNDER_REQUEST}


def resolve_underestimate(rule):
    if not isinstance(rule, str) or rule not in UNDERESTIMATE_RULES:
        raise ConfigError(
            f"on_underestimate must be one of {', '.join(UNDERESTIMATE_RULES)}; got {rule!r}")
    return UNDERESTIMATE_RULES[rule]


def static_estimates(estimates, *, req, dur, keep, n_input):
    """Estimates known before the simulation starts (not from a predictor).

    Parameters
    ----------
    estimates : "requested", "perfect" or array-like
    req, dur : ndarray
        Request (``inf`` when unknown) and simulated runtime of the kept jobs.
    keep : ndarray of int
        Positions of the kept jobs in the input table.
    n_input : int
        Rows of the input table (the length an array must have).
    """
    if isinstance(estimates, str):
        if estimates == "requested":
            missing = ~np.isfinite(req)
            if missing.any():
                raise SimulationError(
                    f"estimates='requested' needs req_time, missing for {int(missing.sum()):,} "
                    f"job(s) (first at sorted position {int(np.argmax(missing))}); fill req_time "
                    "or use estimates='perfect', an array or a predictor")
            return req.copy()
        if estimates == "perfect":
            return dur.copy()
        raise ConfigError(
            "estimates must be 'requested', 'perfect', an array or a runtime predictor; "
            f"got {estimates!r}")
    values = as_numbers(estimates, "estimates")
    if values.shape != (n_input,):
        raise SimulationError(
            f"estimates array has shape {values.shape}, expected ({n_input},): one per job")
    values = values[keep]
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        first = int(np.argmin(np.where(bad, keep, np.iinfo(np.int64).max)))
        raise SimulationError(
            f"estimates array holds {int(bad.sum())} missing, infinite or negative value(s), "
            f"first at position {int(keep[first])} ({float(values[first])!r})")
    return values


def finish_estimates(values, req):
    """Cap estimates at the request and floor them at one second."""
    return np.maximum(np.minimum(values, req), 1.0)

"""Runtime predictors by name, as the command line, sweeps and reports ask for them.

Each module of :mod:`predictkit.runtime` that defines ``REGISTERED`` (a tuple
of :class:`~._registered.RegisteredPredictor`) adds its predictors here; the
command line's choices, the sweep grids, the tests and the benchmarks all
list predictors from :data:`REGISTRY`.
"""

import importlib
import pkgutil

from .._validation import invalid_parameter
from ..exceptions import InvalidParameterError
from ._registered import RegisteredPredictor

__all__ = ["PREDICTORS", "REGISTRY", "PERFECT", "ESTIMATE_NAMES", "RegisteredPredictor",
           "make_predictor"]


def _discover():
    package = __name__.rsplit(".", 1)[0]
    found = []
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        found.extend(entry for entry in getattr(module, "REGISTERED", ())
                     if isinstance(entry, RegisteredPredictor))
    return {entry.name: entry for entry in sorted(found, key=lambda e: (e.rank, e.name))}


REGISTRY = _discover()
"""Every runtime predictor by name, in listing order."""

PREDICTORS = {name: entry.summary for name, entry in REGISTRY.items()}
"""Predictor names and what they are."""

PERFECT = "perfect"
"""Not a predictor: the actual runtime, which only a simulation or an
evaluation over a finished log can know (``simulate(estimates="perfect")``)."""

ESTIMATE_NAMES = (*PREDICTORS, PERFECT)
"""Every name a simulation or a sweep takes for its runtime estimates."""


def make_predictor(name, **params):
    """Build a runtime predictor from its name and parameters.

    Parameters
    ----------
    name : str
        One of :data:`PREDICTORS`: ``"requested"``, ``"tang"``,
        ``"usage-max"``, ``"recent-average"``.
    **params
        Parameters of the estimator. For ``"tang"``, ``keys`` may be a
        comma-separated string of short names (``"user,group,request"``) or
        column names, and ``window`` ``"all"`` means no window.

    Raises
    ------
    InvalidParameterError
        For an unknown name or parameter, naming the valid ones, or an invalid
        parameter value (checked here, not only at ``fit``). A ``ConfigError``.
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise invalid_parameter("name", "make_predictor", f"one of {', '.join(REGISTRY)}", name)
    entry = REGISTRY[name]
    params = dict(params)
    if entry.parse_params is not None:
        params = entry.parse_params(params)
    estimator = entry.estimator()
    unknown = set(params) - set(estimator.get_params())
    if unknown:
        raise InvalidParameterError(
            f"predictor {name!r} has no parameter(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(sorted(estimator.get_params()))}",
            parameter=sorted(unknown)[0], owner="make_predictor")
    estimator.set_params(**params)
    estimator._validate_params()
    return estimator

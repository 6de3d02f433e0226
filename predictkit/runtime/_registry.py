"""Runtime predictors by name, as the command line, sweeps and reports ask for them."""

from .._validation import invalid_parameter
from ..exceptions import InvalidParameterError

__all__ = ["PREDICTORS", "make_predictor"]

PREDICTORS = {
    "requested": "the user's requested time (baseline)",
    "tang": "WalltimeAdjuster: request x percentile of run/request of similar jobs "
            "(Tang et al. 2013)",
    "usage-max": "RecentUsageMax: request x max usage ratio of the user's last jobs "
                 "(Klusacek & Soysal 2019 eq. 2)",
    "recent-average": "RecentAverage: mean of the user's last runtimes, capped at the request "
                      "(Tsafrir, Etsion & Feitelson 2007)",
}
"""Predictor names and what they are."""

_KEY_NAMES = {"user": "user_id", "group": "group_id", "project": "group_id",
              "request": "req_time", "req": "req_time", "queue": "queue_id",
              "partition": "partition_id", "app": "app_id", "procs": "req_procs"}


def _keys(value):
    if isinstance(value, str):
        value = [k for k in value.split(",") if k.strip()]
    return tuple(_KEY_NAMES.get(k.strip(), k.strip()) for k in value)


def make_predictor(name, **params):
    """Build a runtime predictor from its name and parameters.

    Parameters
    ----------
    name : {"requested", "tang", "usage-max", "recent-average"}
        See :data:`PREDICTORS`.
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
    from ._recent import RecentAverage, RecentUsageMax
    from ._requested import RequestedTime
    from ._walltime_adjuster import WalltimeAdjuster

    classes = {"requested": RequestedTime, "tang": WalltimeAdjuster,
               "usage-max": RecentUsageMax, "recent-average": RecentAverage}
    if name not in classes:
        raise invalid_parameter("name", "make_predictor", f"one of {', '.join(classes)}", name)
    params = dict(params)
    if name == "tang":
        if "keys" in params:
            params["keys"] = _keys(params["keys"])
        if isinstance(params.get("window"), str) and params["window"].lower() in ("all", "none"):
            params["window"] = None
    estimator = classes[name]()
    unknown = set(params) - set(estimator.get_params())
    if unknown:
        raise InvalidParameterError(
            f"predictor {name!r} has no parameter(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(sorted(estimator.get_params()))}",
            parameter=sorted(unknown)[0], owner="make_predictor")
    estimator.set_params(**params)
    estimator._validate_params()
    return estimator

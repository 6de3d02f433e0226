"""Tang et al. (2013) walltime adjustment: request times a percentile of similar jobs' R."""

from numbers import Integral, Real

import numpy as np
from .._table import OUTCOME_COLUMNS
from .._time import parse_duration
from .._validation import ColumnNames, Duration, Interval, StrOptions
from ..exceptions import ConfigError
from ._base import OnlineRuntimeEstimator
from ._kernels import window_mean, window_quantile
from ._registered import RegisteredPredictor

__all__ = ["WalltimeAdjuster", "unusable_keys", "grouping_keys", "DEFAULT_KEYS"]

DEFAULT_KEYS = ("user_id", "group_id", "req_time")
"""Tang's triple key (section 4.2.2): user, group (project) and request."""
DEFAULT_QUANTILE = 0.85
"""The default quantile of run/request: the aggressiveness of Tang's p85 (Figs. 4 and 5)."""


class WalltimeAdjuster(OnlineRuntimeEstimator):
    """Adjusted walltime ``t_sched = t_req x A`` of Tang et al. (2013), section 4.1, eq. 2.

    ``A`` is the ``quantile`` of ``R = run / request`` (eq. 1, values above 1
    count as 1, section 3.2) over the *similar* completed jobs: same values of
    every column in ``keys``, and an end time within ``window`` before the
    job's submission, i.e. ``submit - window <= end <= submit`` (both ends
    included; ``window=None`` uses all earlier history). With fewer than
    ``min_jobs`` similar jobs the request is kept (``A = 1``, section 4.2.5);
    otherwise ``A`` is raised to ``floor`` (section 4.2.3).

    Jobs with a missing key value (e.g. no group) are never adjusted and never
    enter a group; completed jobs without a positive request have no ``R``
    and are not counted; a job without a request gets ``NaN``.

    The quantile is Hyndman & Fan's type 7 (numpy ``method="linear"``): over
    the ``n`` sorted ratios ``r_0 <= ... <= r_{n-1}``, with ``h = (n-1) q``,
    ``A = r_floor(h) + (h - floor(h)) (r_floor(h)+1 - r_floor(h))``;
    ``quantile=1.0`` is the maximum, ``0.5`` the median. ``"mean"`` is the
    arithmetic mean (summed in ascending order).

    Parameters
    ----------
    keys : tuple of str, default=("user_id", "group_id", "req_time")
        Similarity keys. Tang's four: ``("user_id",)``, ``("group_id",)``
        (project), ``("user_id", "group_id")`` and the triple key (default).
        A column a log states only once a job has started or ended
        (``run_time``, ``wait_time``, ``status``, ...) is refused: grouping by
        it would peek at the outcome being predicted.
    window : str, float or None, default="30D"
        Recency window (a duration such as ``"30D"`` or seconds); ``None``
        (or ``"all"``) keeps all history.
    quantile : float in [0.5, 1.0] or "mean", default=0.85
        Aggressiveness: lower quantiles adjust more (Tang Fig. 4/5).
    min_jobs : int, default=10
        Fewest similar jobs needed to adjust.
    floor : float in [0, 1] or None, default=0.5
        Lower bound of ``A``; ``None`` disables it.
    clip_to_request : bool, default=True
        Clip to ``[1 s, req_time]``.

    Attributes
    ----------
    window_seconds_ : float or None
        The parsed window.
    history_ : dict of ndarray
        Completed jobs seen so far.
    n_history_ : int
        Number of completed jobs in the history.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.runtime import WalltimeAdjuster
    >>> done = pd.DataFrame({"submit_time": [0.0] * 4, "wait_time": [0.0] * 4,
    ...                      "req_time": [1000.0] * 4, "user_id": [1.0] * 4})
    >>> new = pd.DataFrame({"submit_time": [5000.0], "req_time": [1000.0], "user_id": [1.0]})
    >>> est = WalltimeAdjuster(keys=("user_id",), window=None, min_jobs=4, floor=None)
    >>> est.fit(done, [100.0, 200.0, 300.0, 400.0]).predict(new)
    array([355.])
    """

    _parameter_constraints = {
        "keys": [ColumnNames(refused=OUTCOME_COLUMNS)],
        "window": [Duration(unlimited=True), None],
        "quantile": [Interval(Real, 0.5, 1.0, closed="both"), StrOptions({"mean"})],
        "min_jobs": [Interval(Integral, 1, None, closed="left")],
        "floor": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "clip_to_request": ["boolean"],
    }

    def __init__(self, *, keys=DEFAULT_KEYS, window="30D",
                 quantile=DEFAULT_QUANTILE, min_jobs=10, floor=0.5, clip_to_request=True):
        self.keys = keys
        self.window = window
        self.quantile = quantile
        self.min_jobs = min_jobs
        self.floor = floor
        self.clip_to_request = clip_to_request

    def _setup(self):
        super()._setup()
        self.window_seconds_ = parse_duration(self.window, name="window", allow_none=True)

    def _group_keys(self):
        return tuple(dict.fromkeys(self.keys))

    def _required_columns(self):
        return tuple(dict.fromkeys(("submit_time", "req_time") + self._group_keys()))

    def _predict_raw(self, hist, query):
        request = hist["req_time"]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(request > 0, np.minimum(hist["run"] / request, 1.0), np.nan)
        h_code, h_order, q_code, q_order = self._sorted_history(hist, query, ratio)
        window = -1.0 if self.window_seconds_ is None else float(self.window_seconds_)
        use_mean = self.quantile == "mean"
        stat = np.full(len(q_code), np.nan)
        group, value = h_code[h_order], ratio[h_order]
        if use_mean:
            stat[q_order] = window_mean(
                group, hist["known"][h_order], value, q_code[q_order],
                query["submit_time"][q_order], window, int(self.min_jobs))
        else:
            # rank of each entry among its group's ratios (groups are contiguous)
            by_value = np.lexsort((value, group))
            first = np.searchsorted(group, group, side="left")
            rank = np.empty(len(group), dtype=np.int64)
            rank[by_value] = np.arange(len(group)) - first[by_value]
            stat[q_order] = window_quantile(
                group, hist["known"][h_order], rank, value[by_value], q_code[q_order],
                query["submit_time"][q_order], window, float(self.quantile), int(self.min_jobs))
        adjust = np.where(np.isnan(stat), 1.0, stat)
        if self.floor is not None:
            adjust = np.where(np.isnan(stat), 1.0, np.maximum(adjust, float(self.floor)))
        return query["req_time"] * adjust


_KEY_NAMES = {"user": "user_id", "group": "group_id", "project": "group_id",
              "request": "req_time", "req": "req_time", "queue": "queue_id",
              "partition": "partition_id", "app": "app_id", "procs": "req_procs"}


def _keys(value):
    """Key columns from short names or column names (a comma-separated string or a list)."""
    if isinstance(value, str):
        value = value.split(",") if value.strip() else []
        if any(not k.strip() for k in value):
            raise ConfigError(f"keys: empty key name in {','.join(value)!r}")
    return tuple(_KEY_NAMES.get(k.strip(), k.strip()) for k in value)


def unusable_keys(jobs, keys):
    """The similarity keys that group no job of ``jobs``, each with the reason.

    A key column the table lacks, or gives for no job (``NaN`` everywhere: an
    SWF log's ``-1``), leaves every job with a missing key value, and
    :class:`WalltimeAdjuster` adjusts no such job.

    Parameters
    ----------
    jobs : DataFrame
        The job table.
    keys : str or sequence of str
        Key columns or their short names (``"user,group,request"``).

    Returns
    -------
    dict
        Column name -> ``"has no column <name>"`` or ``"gives <name> for no
        job"``, in the order of ``keys``; empty when every key groups jobs.
    """
    unusable = {}
    for key in _keys(keys):
        if key not in jobs.columns:
            unusable[key] = f"has no column {key}"
        elif not jobs[key].notna().any():
            unusable[key] = f"gives {key} for no job"
    return unusable


def grouping_keys(jobs, keys=DEFAULT_KEYS):
    """The key columns of ``keys`` that group jobs of ``jobs`` (:func:`unusable_keys` left out).

    Returns
    -------
    tuple of str
        In the order of ``keys``; what a default key set becomes on a log
        that lacks some of its keys.
    """
    unusable = unusable_keys(jobs, keys)
    return tuple(k for k in _keys(keys) if k not in unusable)


def _parse_params(params):
    """``keys`` as short names, ``window`` ``"all"`` or ``"none"`` for no window."""
    params = dict(params)
    if "keys" in params:
        params["keys"] = _keys(params["keys"])
    if isinstance(params.get("window"), str) and params["window"].lower() in ("all", "none"):
        params["window"] = None
    return params


REGISTERED = (RegisteredPredictor(
    name="tang", rank=1, estimator=WalltimeAdjuster, parse_params=_parse_params,
    summary="WalltimeAdjuster: request x percentile of run/request of similar jobs "
            "(Tang et al. 2013)"),)

"""Per-user predictors from the user's most recent completed jobs.

* :class:`RecentUsageMax` -- Klusacek & Soysal (2019), section 2.2, eq. 2.
* :class:`RecentAverage` -- Tsafrir, Etsion & Feitelson (2007), the average
  of the user's last two runtimes.
"""

from numbers import Integral

import numpy as np
from .._validation import Interval
from ._base import OnlineRuntimeEstimator
from ._kernels import recent_statistic
from ._registered import RegisteredPredictor

__all__ = ["RecentUsageMax", "RecentAverage"]


def _recent(hist, query, order_info, value, n_recent, use_mean):
    h_code, h_order, q_code, q_order = order_info
    stat = np.full(len(q_code), np.nan)
    stat[q_order] = recent_statistic(
        h_code[h_order], hist["known"][h_order], value[h_order],
        q_code[q_order], query["submit_time"][q_order], n_recent, use_mean)
    return stat


class RecentUsageMax(OnlineRuntimeEstimator):
    """Request times the largest usage ratio of the user's last ``n_recent`` jobs.

    Klusacek & Soysal (2019), section 2.2: ``usage = run / request`` (eq. 1) and
    ``predicted = request x max(usage of the user's last 5 completed jobs)``
    (eq. 2); a user without completed jobs gets the request (footnote 1).
    "Last" is by end time (see :mod:`predictkit.runtime`); completed jobs
    without a positive request have no usage ratio and are skipped. The
    paper's doubling of an underestimate while the job runs is a scheduler
    action, not part of the prediction.

    Parameters
    ----------
    n_recent : int, default=5
        How many of the user's most recent completed jobs to use.
    clip_to_request : bool, default=True
        Clip to ``[1 s, req_time]`` (usage ratios above 1 would exceed the request).

    Attributes
    ----------
    history_ : dict of ndarray
        Completed jobs seen so far.
    n_history_ : int
        Number of completed jobs in the history.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.runtime import RecentUsageMax
    >>> done = pd.DataFrame({"submit_time": [0.0, 0.0], "wait_time": [0.0, 0.0],
    ...                      "req_time": [1000.0, 1000.0], "user_id": [1.0, 1.0]})
    >>> new = pd.DataFrame({"submit_time": [5000.0], "req_time": [2000.0], "user_id": [1.0]})
    >>> RecentUsageMax().fit(done, [100.0, 400.0]).predict(new)
    array([800.])
    """

    _parameter_constraints = {
        "n_recent": [Interval(Integral, 1, None, closed="left")],
        "clip_to_request": ["boolean"],
    }

    def __init__(self, *, n_recent=5, clip_to_request=True):
        self.n_recent = n_recent
        self.clip_to_request = clip_to_request

    def _predict_raw(self, hist, query):
        request = hist["req_time"]
        with np.errstate(divide="ignore", invalid="ignore"):
            usage = np.where(request > 0, hist["run"] / request, np.nan)
        info = self._sorted_history(hist, query, usage)
        best = _recent(hist, query, info, usage, self.n_recent, False)
        return np.where(np.isnan(best), 1.0, best) * query["req_time"]


class RecentAverage(OnlineRuntimeEstimator):
    """Average runtime of the user's last ``n_recent`` completed jobs, capped at the request.

    Tsafrir, Etsion & Feitelson, "Backfilling using system-generated
    predictions rather than user runtime estimates" (IEEE TPDS 2007): the
    prediction is the mean runtime of the user's two most recent completed
    jobs; with one completed job its runtime; with none, the request. Their
    scheduler-side correction of underpredictions is not part of it.

    Parameters
    ----------
    n_recent : int, default=2
        How many of the user's most recent completed jobs to average.
    clip_to_request : bool, default=True
        Clip to ``[1 s, req_time]``; a job without a request keeps the average.

    Attributes
    ----------
    history_ : dict of ndarray
        Completed jobs seen so far.
    n_history_ : int
        Number of completed jobs in the history.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.runtime import RecentAverage
    >>> done = pd.DataFrame({"submit_time": [0.0, 0.0], "wait_time": [0.0, 0.0],
    ...                      "req_time": [1000.0, 1000.0], "user_id": [1.0, 1.0]})
    >>> new = pd.DataFrame({"submit_time": [5000.0], "req_time": [2000.0], "user_id": [1.0]})
    >>> RecentAverage().fit(done, [100.0, 400.0]).predict(new)
    array([250.])
    """

    _parameter_constraints = {
        "n_recent": [Interval(Integral, 1, None, closed="left")],
        "clip_to_request": ["boolean"],
    }

    def __init__(self, *, n_recent=2, clip_to_request=True):
        self.n_recent = n_recent
        self.clip_to_request = clip_to_request

    def _predict_raw(self, hist, query):
        info = self._sorted_history(hist, query, hist["run"])
        mean = _recent(hist, query, info, hist["run"], self.n_recent, True)
        return np.where(np.isnan(mean), query["req_time"], mean)


REGISTERED = (
    RegisteredPredictor(
        name="usage-max", rank=2, estimator=RecentUsageMax,
        summary="RecentUsageMax: request x max usage ratio of the user's last jobs "
                "(Klusacek & Soysal 2019 eq. 2)"),
    RegisteredPredictor(
        name="recent-average", rank=3, estimator=RecentAverage,
        summary="RecentAverage: mean of the user's last runtimes, capped at the request "
                "(Tsafrir, Etsion & Feitelson 2007)"),
)

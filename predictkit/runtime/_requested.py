"""The baseline runtime predictor: the user's requested walltime."""

import numpy as np

from ._base import OnlineRuntimeEstimator
from ._registered import RegisteredPredictor

__all__ = ["RequestedTime"]


class RequestedTime(OnlineRuntimeEstimator):
    """Predict each job's runtime as its requested time (``req_time``).

    The baseline of every comparison in Tang et al. (2013), section 4.2
    ("the original average accuracy"). It keeps a history only to follow the
    online protocol; the history never changes a prediction.

    Parameters
    ----------
    clip_to_request : bool, default=True
        Clip to ``[1 s, req_time]``: only raises requests below 1 s to 1 s.

    Attributes
    ----------
    history_ : dict of ndarray
        Completed jobs seen so far (known time, runtime, request ...).
    n_history_ : int
        Number of completed jobs in the history.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.runtime import RequestedTime
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 10.0], "wait_time": [0.0, 0.0],
    ...                      "req_time": [3600.0, 600.0], "user_id": [1.0, 1.0]})
    >>> RequestedTime().fit(jobs, [100.0, 50.0]).predict(jobs)
    array([3600.,  600.])
    """

    _parameter_constraints = {"clip_to_request": ["boolean"]}

    def __init__(self, *, clip_to_request=True):
        self.clip_to_request = clip_to_request

    def _required_columns(self):
        return ("submit_time", "req_time")

    def _group_keys(self):
        return ()

    def _predict_raw(self, hist, query):
        return query["req_time"].copy()

    def _replay(self, X, y, known):
        self._setup()
        query = self._query(X)
        return self._clip(np.array(query["req_time"]), query["req_time"])


REGISTERED = (RegisteredPredictor(name="requested", rank=0, estimator=RequestedTime,
                                  summary="the user's requested time (baseline)"),)

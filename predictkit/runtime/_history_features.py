"""Leakage-free numeric features of a job from its user's completed jobs."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from .._table import MAX_EXACT, requested_width
from ..exceptions import JobTableError
from .._validation import Interval, ParamsValidatedMixin, check_fitted
from ._base import OnlineRuntimeEstimator, check_jobs
from ._kernels import recent_features, user_column_count

__all__ = ["HistoryFeatures", "submission_columns"]

_SUBMIT_COLUMNS = ("req_time", "procs", "hour", "weekday")


class HistoryFeatures(ParamsValidatedMixin, TransformerMixin, BaseEstimator):
    """Turn a job table into numeric features that use only what was known at submission.

    For each job, placed at its submit time ``s``, the features are

    * what the job itself says at submission: ``req_time``, ``procs``
      (``req_procs``, or ``n_procs`` where the request is unknown), ``hour``
      (0-23) and ``weekday`` (0 = Monday) of submission in UTC
      (``submit_time + attrs["unix_start_time"]``; without that header the
      log's clock starts on a Thursday at midnight, the Unix epoch);
    * from the user's completed jobs with ``end_time <= s`` (the no-peeking
      rule, as in :mod:`predictkit.runtime`): the last ``n_recent`` runtimes
      and usage ratios ``run / request`` (newest first, ``NaN`` when missing),
      the number of completed jobs, their mean runtime and mean usage ratio,
      and the time since the newest one ended.

    The history is what ``fit``/``partial_fit`` received; ``fit_transform`` on
    a whole trace therefore gives every job the features a scheduler would
    have had. So ``make_pipeline(HistoryFeatures(),
    HistGradientBoostingRegressor(loss="quantile", quantile=0.85))`` is a
    runtime predictor (see ``docs/runtime.md``). Features follow Tsafrir et al.
    (2007) (recent runtimes) and Klusacek & Soysal (2019) eq. 1 (usage ratios).

    Parameters
    ----------
    n_recent : int, default=3
        How many recent runtimes and usage ratios to include.

    Attributes
    ----------
    history_ : dict of ndarray
        Completed jobs seen so far.
    n_history_ : int
        Number of completed jobs in the history.
    unix_start_time_ : float
        Offset added to ``submit_time`` for the calendar features.
    """

    target_known_at = "end"

    _parameter_constraints = {"n_recent": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, *, n_recent=3):
        self.n_recent = n_recent

    _history = OnlineRuntimeEstimator._history_chunk
    _append = OnlineRuntimeEstimator._append
    _history_for = OnlineRuntimeEstimator._history_for
    _sorted_history = OnlineRuntimeEstimator._sorted_history

    def _required_columns(self):
        return ("submit_time", "req_time", "user_id")

    def _group_keys(self):
        return ("user_id",)

    def fit(self, X, y):
        """Reset the history and add the completed jobs ``X`` with runtimes ``y``."""
        for name in ("history_", "n_history_", "unix_start_time_"):
            if hasattr(self, name):
                delattr(self, name)
        return self.partial_fit(X, y)

    def partial_fit(self, X, y):
        """Add completed jobs to the history (the first call resets it)."""
        if not hasattr(self, "history_"):
            self._validate_params()
            attrs = getattr(X, "attrs", {}) or {}
            self.unix_start_time_ = _unix_start_time(attrs.get("unix_start_time"))
        self._append(self._history(X, y))
        return self

    def transform(self, X):
        """Return the feature matrix (one row per job, see :meth:`get_feature_names_out`)."""
        check_fitted(self, "history_")
        query = check_jobs(X, self._required_columns(), name="jobs to transform",
                           owner="HistoryFeatures")
        hist = self._history_for(query)
        request = hist["req_time"]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(request > 0, hist["run"] / request, np.nan)
        h_code, h_order, q_code, q_order = self._sorted_history(hist, query, hist["run"])
        past = np.empty((len(X), user_column_count(self.n_recent)))
        past[q_order] = recent_features(
            h_code[h_order], hist["known"][h_order], hist["run"][h_order], ratio[h_order],
            q_code[q_order], query["submit_time"][q_order], int(self.n_recent))
        now = submission_columns(X, query["submit_time"], query["req_time"],
                                 self.unix_start_time_)
        return np.hstack([now, past])

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns."""
        k = range(1, self.n_recent + 1)
        names = list(_SUBMIT_COLUMNS)
        names += [f"user_run_{i}" for i in k] + [f"user_ratio_{i}" for i in k]
        names += ["user_n_done", "user_mean_run", "user_mean_ratio", "user_since_last_end"]
        return np.asarray(names, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = True
        return tags


def _unix_start_time(value):
    """``attrs["unix_start_time"]`` as seconds (0 when unset), or a JobTableError: what an
    SWF header's ``UnixStartTime`` may hold, a number of seconds in [0, 2**53)."""
    if value is None:
        return 0.0
    if (isinstance(value, (str, bytes, bool, np.bool_)) or not isinstance(value, Real)
            or not 0 <= value < MAX_EXACT):
        raise JobTableError(f"HistoryFeatures: the table's attrs['unix_start_time'] is "
                            f"{value!r}, not seconds since 1970 in [0, 2**53) (the SWF header's "
                            "UnixStartTime); set it to such a number or remove it")
    return float(value)


def submission_columns(jobs, submit_time, req_time, unix_start_time):
    """The first four ``HistoryFeatures`` columns, known from the job alone.

    Its request, requested width (:func:`~predictkit._table.requested_width`;
    NaN where the table has no width), and the hour of the day and day of the
    week (0: Monday; 1 January 1970 was a Thursday) of its submission, on the
    log's clock (``submit_time`` plus ``unix_start_time``, UTC).
    """
    procs = (requested_width(jobs) if "req_procs" in jobs.columns or "n_procs" in jobs.columns
             else np.full(len(jobs), np.nan))
    clock = submit_time + unix_start_time
    hour = np.floor(np.mod(clock, 86400.0) / 3600.0)
    weekday = np.mod(np.floor(clock / 86400.0) + 3.0, 7.0)
    return np.column_stack([req_time, procs, hour, weekday])

"""A learned runtime predictor held online to a bad-estimate budget."""

import hashlib
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from .._reference_path import compiled_paths_on
from .._table import requested_width
from .._validation import HasMethods, Interval, invalid_parameter
from ._base import OnlineRuntimeEstimator, check_jobs, checked_column, group_codes
from ._learned_kernels import budgeted_predictions, event_order, submission_features
from ._learned_online import LearnedOnlineState
from ._learned_trees import model_predict, tree_tables
from ._registered import RegisteredPredictor

__all__ = ["LearnedRuntime"]

_OPTIONAL = ("group_id", "width", "status")
"""Columns read where the log has them (NaN otherwise)."""

_RING = 16
"""Completed jobs per user kept for the features and the residual samples."""
_POOLED = 128
"""Residuals of all users mixed into every job's samples."""
_POOLED_WEIGHT = 2.0
"""Weight of the pooled residuals, in jobs of the user (a prior of two jobs)."""
_SENTINEL = 0.02
"""Weight of the pseudo-job that outruns its request (in jobs of the user): small, it
only makes every adjusted estimate carry some risk, so that the penalty can always
bring the bad share down."""
_SESSION = 3600.0
"""Completed jobs submitted this long before a job count as earlier jobs of its burst."""
_LOG_LAM = (-7.0, 12.0)
"""Lowest and highest log multiplier of the bad-estimate penalty (it starts at
1 / max_bad_share: a bad estimate weighs as much as the accuracy of the jobs
the budget grants one to)."""

_ONLINE_CONSTANTS = dict(ring=_RING, pooled=_POOLED, pooled_weight=_POOLED_WEIGHT,
                         sentinel=_SENTINEL, min_user_jobs=5, session=_SESSION,
                         log_lam_low=_LOG_LAM[0], log_lam_high=_LOG_LAM[1])
"""Constants of the passes, for the state kept between simulator calls."""


def _default_regressor():
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(max_iter=100, early_stopping=False, random_state=0)


class LearnedRuntime(OnlineRuntimeEstimator):
    """Runtime estimates learned from submission features, held to a bad-estimate budget.

    For each job, placed at its submit time ``s`` and seeing only the jobs
    ended by then (the no-peeking rule of :mod:`predictkit.runtime`):

    1. **Features known at submission** (:data:`FEATURE_NAMES` of
       ``_learned_kernels``): the request and width; the user's completed
       jobs (count, last three ratios ``run / request`` and their mean,
       spread and trend, last runtime, time since the last one ended and
       since the last one was submitted, how many were submitted within the
       hour before ``s``: the job's position in a burst, and the share that
       did not complete normally where the log has a status); the last and
       moving-mean ratio of the same user and request (Tang et al. 2013's
       keys) and of the project.
    2. **A model of log(run / request)** (``regressor``, gradient boosting by
       default) refitted on the history, ordered by known time, each time it
       doubles from ``min_train`` jobs and then every ``refit_every`` jobs,
       on the most recent ``max_train`` of them. Until the first fit, the
       model predicts the request.
    3. **A decision under a budget**: the estimate minimises
       ``-E[accuracy] + lam * P(bad estimate)`` (Tang's accuracy, eq. 3;
       bad: underestimated by more than ``bad_threshold``, section 4.2.2)
       over sampled ratios: those of the last 16 jobs with the same user and
       request (of the user when there are fewer than 5), mixed with the
       model's prediction plus its last 128 residuals over all users (the
       learned prior, weight of two jobs) and a pseudo-job that outruns its
       request (weight 1/50), so that every adjusted estimate carries some
       risk; the user's newest jobs weigh most (each older sample 0.7 times
       the next newer one). Short jobs, which cannot be bad estimates, get
       accurate estimates; the risk goes where it buys the most accuracy.
    4. **Online calibration** of ``lam``: each time an estimated job ends,
       ``log lam += step * (bad - t)``, the adaptive conformal update of
       Gibbs & Candes (2021), so that over any long stretch the share of
       bad estimates follows ``t`` whatever the drift of the log.
       ``max_bad_share`` is a maximum: ``t`` is the share whose one-sided 95%
       binomial bound over 1,000 completions equals it, ``t + 1.645 sqrt(t (1
       - t) / 1000) = max_bad_share`` (1.39% for the default 2%; aiming at the
       budget itself would exceed it over half the stretches). Where even the
       most accurate estimates are rarely bad, the share stays below ``t``.

    A job without a request gets ``NaN``; until a model has been fitted, a
    job whose user has fewer than 5 completed jobs keeps its request.

    Parameters
    ----------
    max_bad_share : float in (0, 1), default=0.02
        Budget: the largest share of jobs underestimated by more than
        ``bad_threshold`` over long stretches of jobs. The calibration aims
        below it (see 4.) by the margin that would keep 95% of the stretches
        of 1,000 jobs within it were bad estimates independent; they come in
        bursts (a user's jobs fail together), so more short stretches than
        that exceed it.
    bad_threshold : float, default=1800
        Seconds of underestimate that make a bad estimate (Tang: 30 min).
    min_train : int, default=1000
        Completed jobs before the first fit of the model.
    refit_every : int, default=25000
        Refit interval (completed jobs) once the history no longer doubles
        between fits.
    max_train : int, default=50000
        Most recent completed jobs a fit uses.
    step : float, default=0.05
        Learning rate of the calibration (``gamma`` of Gibbs & Candes).
    regressor : estimator or None, default=None
        Regressor of log(run / request) on the features (NaN allowed);
        ``None``: ``HistGradientBoostingRegressor(max_iter=100,
        early_stopping=False, random_state=0)``. It must be deterministic:
        the same history must give the same model.
    clip_to_request : bool, default=True
        Clip to ``[1 s, req_time]`` (estimates never exceed the request).

    Attributes
    ----------
    history_ : dict of ndarray
        Completed jobs seen so far.
    n_history_ : int
        Number of completed jobs in the history.

    Examples
    --------
    >>> from predictkit.datasets import make_workload
    >>> from predictkit.model_selection import replay
    >>> from predictkit.runtime import make_predictor
    >>> jobs = make_workload(n_jobs=300, random_state=0)
    >>> y = jobs["run_time"]
    >>> pred = replay(make_predictor("learned"), jobs, y, known_time=jobs["submit_time"] + y)
    >>> bool(((pred >= 1) & (pred <= jobs["req_time"])).all())
    True
    """

    _parameter_constraints = {
        "max_bad_share": [Interval(Real, 0.0, 1.0, closed="neither")],
        "bad_threshold": [Interval(Real, 0.0, None, closed="left")],
        "min_train": [Interval(Integral, 2, None, closed="left")],
        "refit_every": [Interval(Integral, 1, None, closed="left")],
        "max_train": [Interval(Integral, 2, None, closed="left")],
        "step": [Interval(Real, 0.0, None, closed="neither")],
        "regressor": [HasMethods(["fit", "predict"]), None],
        "clip_to_request": ["boolean"],
    }

    def __init__(self, *, max_bad_share=0.02, bad_threshold=1800.0, min_train=1000,
                 refit_every=25000, max_train=50000, step=0.05, regressor=None,
                 clip_to_request=True):
        self.max_bad_share = max_bad_share
        self.bad_threshold = bad_threshold
        self.min_train = min_train
        self.refit_every = refit_every
        self.max_train = max_train
        self.step = step
        self.regressor = regressor
        self.clip_to_request = clip_to_request

    def _validate_params(self):
        super()._validate_params()
        if self.max_train < self.min_train:
            raise invalid_parameter("max_train", type(self).__name__,
                                    f"at least min_train ({self.min_train}): the first model "
                                    f"is fitted on min_train jobs", self.max_train)

    def _setup(self):
        super()._setup()
        # fitted models by the content of their training data: a refit on the same
        # history (a replay at another budget, a simulation) reuses them
        self.__dict__.setdefault("_models", {})

    def _required_columns(self):
        return ("submit_time", "req_time", "user_id")

    def _group_keys(self):
        # every prediction reads the whole history (_history_for): no rows by group
        return ()

    @staticmethod
    def _optional(X, arrays, *, outcome, name):
        """Add the optional columns of ``X`` to ``arrays`` (NaN where absent), each checked
        as the required ones are (:func:`~predictkit.runtime._base.checked_column`)."""
        n = len(X)

        def column(key, read=True):
            if not read or key not in X.columns:
                return np.full(n, np.nan)
            return checked_column(X, key, name=name, owner="LearnedRuntime")

        arrays["group_id"] = column("group_id")
        arrays["width"] = (requested_width(X) if "req_procs" in X.columns
                           or "n_procs" in X.columns else np.full(n, np.nan))
        arrays["status"] = column("status", outcome)
        return arrays

    def _history_chunk(self, X, y, known=None):
        return self._optional(X, super()._history_chunk(X, y, known), outcome=True,
                              name="completed jobs")

    def _query(self, X):
        return self._optional(X, super()._query(X), outcome=False, name="jobs")

    def start(self, jobs):
        """Prepare to predict for ``jobs`` (:class:`~predictkit.runtime.OnlinePredictor`)."""
        arrays = check_jobs(jobs, self._required_columns(), name="jobs",
                            owner=type(self).__name__)
        arrays["job_id"] = (np.asarray(jobs["job_id"], dtype=np.float64)
                            if "job_id" in jobs.columns else np.full(len(jobs), np.nan))
        self._optional(jobs, arrays, outcome=True, name="jobs")
        self._jobs = arrays
        self._blank = ["status"]
        if not hasattr(self, "history_"):
            self._setup()
            self._append({**{c: v[:0] for c, v in arrays.items()},
                          "known": np.empty(0), "run": np.empty(0)})
        # the passes kept running between calls (_learned_online); a history fitted
        # before is only served by the passes over the whole history
        # (outside reference_path(); within it every predict_for reruns them: the reference)
        incremental = compiled_paths_on()
        self._online = LearnedOnlineState(self, arrays, _ONLINE_CONSTANTS) \
            if incremental and self.n_history_ == 0 else None
        # why the passes over the whole history serve the calls (None: they do not)
        self._online_stopped = None if self._online is not None else (
            "a history fitted before start" if incremental else "not incremental")
        if incremental and self._online is None:
            warnings.warn(
                f"{type(self).__name__} was fitted before start ({self.n_history_:,} jobs): "
                "each prediction runs the passes over the whole history again, hundreds of "
                "times slower than an unfitted one, whose passes are kept between calls; to "
                "start from that history at full speed, simulate its jobs too", UserWarning,
                stacklevel=2)
        return self

    def _fitted(self):
        # after start, the passes kept between calls no longer hold the history:
        # predict_for is then served by the passes over the whole history, as predict is
        if getattr(self, "_online", None) is not None:
            self._online, self._online_stopped = None, "a history fitted after start"

    def observe(self, index, start_time, end_time, run_time):
        """Add the completed jobs ``index`` of the :meth:`start` table to the history.

        Each entry's known time is ``end_time``; ``start_time`` is not used.
        """
        super().observe(index, start_time, end_time, run_time)
        online = getattr(self, "_online", None)
        if online is not None and not online.observe(index, end_time, run_time):
            self._online, self._online_stopped = None, online.stopped

    def predict_for(self, index):
        """Predict jobs ``index`` of the :meth:`start` table, as :meth:`predict` would."""
        online = getattr(self, "_online", None)
        raw = online.predict(index) if online is not None else None
        if raw is None:
            if online is not None:
                self._online, self._online_stopped = None, online.stopped
            return super().predict_for(index)
        return self._clip(raw, self._jobs["req_time"][index])

    def _history_for(self, query):
        # every entry matters: the model and the pooled residuals use all users
        return self.history_

    def _refit_sizes(self, n_done):
        """History sizes (completed jobs in recent order) at which the model is refitted."""
        sizes, size = [], int(self.min_train)
        while size <= n_done:
            sizes.append(size)
            size = min(2 * size, size + int(self.refit_every))
        return sizes

    def _regressor_key(self):
        """Every setting of the regressor, nested ones included (a change made by
        ``set_params`` or on the regressor itself must not reuse a cached model)."""
        if self.regressor is None:
            return "default"
        params = self.regressor.get_params(deep=True)
        return repr((type(self.regressor).__qualname__, sorted(
            (name, repr(value)) for name, value in params.items())))

    def _fit_model(self, features, target):
        """The regressor fitted on ``features`` and its flat trees (``_learned_trees``).

        Cached by content: the same data and regressor settings give the same model.
        """
        digest = hashlib.blake2b(features.tobytes() + target.tobytes()
                                 + self._regressor_key().encode(), digest_size=16).digest()
        cache = self.__dict__.setdefault("_models", {})
        fitted = cache.get(digest)
        if fitted is None:
            model = clone(self.regressor) if self.regressor is not None else _default_regressor()
            with threadpool_limits(1):  # one thread: the same model on any machine
                model.fit(features, target)
            if len(cache) > 64:
                cache.clear()
            fitted = cache[digest] = (model, tree_tables(model))
        return fitted

    def _predict_raw(self, hist, query):
        nh = len(hist["run"])
        copy_of, inputs = self._pass_inputs(hist, query)
        pred, trace = budgeted_predictions(
            *inputs, _RING, _POOLED, _POOLED_WEIGHT, _SENTINEL, 5,
            float(self.bad_threshold), float(self.max_bad_share), float(self.step),
            -np.log(self.max_bad_share), *_LOG_LAM)
        fresh = np.flatnonzero(copy_of < 0)
        source = copy_of.copy()
        source[fresh] = nh + np.arange(len(fresh))
        self._log_lam_trace = trace[source]
        return pred[source]

    def _pass_inputs(self, hist, query):
        """Events, codes, ratios and model predictions of the budgeted pass.

        A query submitted like a history entry (same time, user, group,
        request and width) sees the same state at the same place in the
        passes, so it takes that entry's estimate (in a replay, every query is
        such a copy): the first value returned gives, per query, the history
        row it copies, or -1 for a query that is a row of its own. None of the
        inputs depends on the budget: the last ones are kept, so that a replay
        of the same jobs at another ``max_bad_share`` only reruns the pass.
        """
        digest = hashlib.blake2b(repr((self.min_train, self.refit_every, self.max_train,
                                       self._regressor_key())).encode(), digest_size=16)
        for name in ("submit_time", "req_time", "user_id", "group_id", "width", "run",
                     "status", "known", "job_id", "seq"):
            digest.update(np.ascontiguousarray(hist[name], dtype=np.float64).tobytes())
        for name in ("submit_time", "req_time", "user_id", "group_id", "width"):
            digest.update(np.ascontiguousarray(query[name], dtype=np.float64).tobytes())
        digest = digest.digest()
        kept = self.__dict__.get("_kept_inputs")
        if kept is not None and kept[0] == digest:
            return kept[1]
        nh = len(hist["run"])
        copy_of = _same_submission(hist, query)
        fresh = np.flatnonzero(copy_of < 0)
        both = {c: np.concatenate([hist[c], query[c][fresh]])
                for c in ("submit_time", "req_time", "user_id", "group_id", "width")}
        nq = len(fresh)
        user, group, key = group_codes([both], ("user_id",)) + group_codes(
            [both], ("group_id",)) + group_codes([both], ("user_id", "req_time"))
        req = both["req_time"]
        run = np.concatenate([hist["run"], np.full(nq, np.nan)])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(req > 0, np.minimum(np.maximum(run, 1.0) / req, 2.0), np.nan)
            log_ratio = np.log(ratio)
            log_run = np.log(np.maximum(run, 1.0))
        status = np.concatenate([hist["status"], np.full(nq, np.nan)])
        fail = np.where(status >= 0, (status != 1).astype(np.float64), np.nan)
        kind, row, time = event_order(hist["known"], hist["submit_time"], hist["job_id"],
                                      hist["seq"], both["submit_time"][nh:])
        features = submission_features(
            kind, row, time, user, group, key, both["submit_time"], req, both["width"], fail,
            log_ratio, log_run, int(user.max(initial=-1) + 1), int(group.max(initial=-1) + 1),
            int(key.max(initial=-1) + 1), _RING, _SESSION)
        mu, modeled = self._model_predictions(hist, features, log_ratio, both["submit_time"], nh)
        inputs = (kind, row, user, key, req, run, log_ratio, mu, modeled)
        self.__dict__["_kept_inputs"] = (digest, (copy_of, inputs))
        return copy_of, inputs

    def _model_predictions(self, hist, features, log_ratio, submit, nh):
        """The model's log ratio for every row, from the last fit before its submission."""
        mu = np.zeros(len(submit))
        modeled = np.zeros(len(submit), dtype=np.bool_)
        done = np.flatnonzero(np.isfinite(hist["known"]))
        done = done[np.lexsort((hist["seq"][done], hist["job_id"][done],
                                hist["submit_time"][done], hist["known"][done]))]
        sizes = self._refit_sizes(len(done))
        if not sizes:
            return mu, modeled
        ready = hist["known"][done[np.asarray(sizes) - 1]]
        model_of = np.searchsorted(ready, submit, side="right") - 1
        for k, size in enumerate(sizes):
            rows = np.flatnonzero(model_of == k)
            if not len(rows):
                continue
            train = done[:size][-int(self.max_train):]
            train = train[np.isfinite(log_ratio[train])]
            if len(train) < 2:
                continue
            # a feature the log cannot give (no groups, no status) is left out
            used = np.flatnonzero(np.isfinite(features[train]).any(axis=0))
            model, trees = self._fit_model(np.ascontiguousarray(features[np.ix_(train, used)]),
                                           log_ratio[train])
            mu[rows] = np.minimum(model_predict(model, trees, features[np.ix_(rows, used)]),
                                  0.0)
            modeled[rows] = True
        return mu, modeled

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


def _same_submission(hist, query):
    """For each query, a history entry submitted with the same values (-1: none).

    The values the passes read at a submission: submit time, user, group,
    request and width (every NaN alike).
    """
    columns = ("submit_time", "user_id", "group_id", "req_time", "width")
    nh, nq = len(hist["submit_time"]), len(query["submit_time"])
    copy_of = np.full(nq, -1, dtype=np.int64)
    if not nh or not nq:
        return copy_of
    values = np.stack([np.concatenate([hist[c], query[c]]).astype(np.float64)
                       for c in columns])
    bits = np.where(np.isnan(values), np.nan, values).view(np.int64)
    # equal rows next to each other, each run led by its first history entry
    order = np.lexsort((np.arange(nh + nq),) + tuple(bits))
    ranked = bits[:, order]
    starts = np.ones(nh + nq, dtype=np.bool_)
    starts[1:] = (ranked[:, 1:] != ranked[:, :-1]).any(axis=0)
    leader = order[np.maximum.accumulate(np.where(starts, np.arange(nh + nq), 0))]
    is_query = order >= nh
    found = is_query & (leader < nh)
    copy_of[order[found] - nh] = leader[found]
    return copy_of


REGISTERED = (RegisteredPredictor(
    name="learned", rank=4, estimator=LearnedRuntime,
    summary="LearnedRuntime: run/request learned from submission features, estimates held "
            "to a bad-estimate budget by adaptive conformal calibration (Gibbs & Candes 2021)"),)

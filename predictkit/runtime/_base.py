"""Shared machinery of the online runtime predictors: history, groups, clipping.

Semantics shared by every estimator of :mod:`predictkit.runtime`
-----------------------------------------------------------------
* ``partial_fit(X_done, y_done)`` appends completed jobs to the history. Each
  entry keeps its *known time*: the ``end_time`` column when ``X_done`` has
  one, else ``submit_time + wait_time + y`` (:func:`predictkit.jobs.known_time`,
  the one no-peeking clock). A job whose known time cannot be
  computed (``wait_time`` unknown, as in LLNL-Atlas/Thunder) is refused with a
  :class:`~predictkit.exceptions.JobTableError`; add an ``end_time`` column
  (or pass ``known_time=`` to :func:`~predictkit.model_selection.replay`)
  stating what you assume.
* ``predict(X_new)`` places every job at its own ``submit_time`` ``s`` and uses
  only the history entries with ``known_time <= s`` (a job ending in the same
  second counts as finished). Fitting on a whole trace and predicting it
  therefore gives what :func:`~predictkit.model_selection.replay` gives,
  except for the jobs that end at their own submission (a zero wait and
  runtime): such a job is in its own history there, while replay's clock
  puts its end just after its submission, keeping it from itself and from
  the jobs submitted with it. Evaluate with ``replay``.
* "Recent" means the history ordered by known time, then submit time, then
  ``job_id`` (when present), then the order the jobs were added.
* Output is clipped to ``[1 s, req_time]`` by default: ``max(min(p, req), 1)``
  (a request below 1 s gives 1 s). A job without a request is only capped
  below. ``clip_to_request=False`` returns the raw prediction.
"""

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin

from .._validation import ParamsValidatedMixin, check_fitted
from .._table import MAX_EXACT, OUTCOME_COLUMNS, _numeric, _row, check_target, known_time
from ..exceptions import JobTableError

__all__ = ["OnlineRuntimeEstimator", "group_codes", "check_jobs", "keys_given_for_no_job",
           "OUTCOME_COLUMNS"]

def checked_column(X, column, *, name, owner):
    """A column a predictor reads, as float64 (NaN where missing), or a one-line
    :class:`~predictkit.exceptions.JobTableError` naming its first value that is not
    a number, is infinite or is too large for float64 to hold exactly."""
    values = _numeric(X, column, f"{owner}: {name}")
    huge = np.abs(values) >= MAX_EXACT  # infinite values included
    if huge.any():
        what = ("infinite values" if np.isinf(values[np.argmax(huge)]) else
                "values of 2**53 or more in magnitude, which float64 cannot hold exactly")
        raise JobTableError(f"{name}: column {column!r} holds {what} ({int(huge.sum())} "
                            f"row(s); first at {_row(X, int(np.argmax(huge)))}) for {owner}")
    return values


def check_jobs(X, required, *, name, owner):
    """Check that ``X`` is a job table with the ``required`` columns and known submit times.

    Only the columns a predictor reads are checked, so that odd values in
    unrelated fields of a real trace never block a prediction.

    Returns
    -------
    dict of ndarray
        The required columns as float64 arrays.
    """
    if not isinstance(X, pd.DataFrame):
        raise JobTableError(
            f"{name} must be a pandas DataFrame job table (see predictkit.jobs), "
            f"got {type(X).__name__}"
        )
    missing = [c for c in required if c not in X.columns]
    if missing:
        raise JobTableError(
            f"{name} lack required column(s) {', '.join(missing)} for {owner}"
        )
    arrays = {}
    for column in required:
        arrays[column] = values = checked_column(X, column, name=name, owner=owner)
        if column == "submit_time" and np.isnan(values).any():
            bad = np.isnan(values)
            raise JobTableError(
                f"{name}: column 'submit_time' has {int(bad.sum())} missing value(s) "
                f"(first at {_row(X, int(np.argmax(bad)))}); every job needs a submit time"
            )
        if column == "req_time" and (values < 0).any():
            bad = values < 0
            raise JobTableError(f"{name}: column 'req_time' has negative values "
                                f"({int(bad.sum())} row(s); first at "
                                f"{_row(X, int(np.argmax(bad)))}) for {owner}")
    return arrays


def keys_given_for_no_job(estimator, jobs):
    """The columns ``estimator`` groups its history by that ``jobs`` gives for no job.

    A predictor that learns from each user's (or group's) past jobs learns
    nothing on a log without that column, and keeps every request.

    Returns
    -------
    tuple of str
        Empty for an estimator that groups by nothing, or whose every key
        the log gives for some job.
    """
    keys = estimator._group_keys() if hasattr(estimator, "_group_keys") else ()
    return tuple(key for key in keys
                 if key not in jobs.columns or not pd.notna(jobs[key]).any())


def ungrouped_reason(estimator, jobs):
    """Why ``estimator`` keeps every request on ``jobs``, or None: ``"learns from the past
    jobs of each user_id, which the log gives for no job: it keeps every request"`` for a
    predictor that groups its history by columns the log gives for no job
    (:func:`keys_given_for_no_job`)."""
    missing = keys_given_for_no_job(estimator, jobs)
    if not missing:
        return None
    return (f"learns from the past jobs of each {' and '.join(missing)}, which the log gives "
            "for no job: it keeps every request")


def group_codes(frames, keys):
    """Joint integer codes of the key tuples of several tables (-1 when a key is missing).

    Parameters
    ----------
    frames : list of DataFrame or dict of arrays
        Tables holding the key columns.
    keys : tuple of str
        Key columns.

    Returns
    -------
    list of ndarray of int64
        One code array per table; equal codes mean equal key tuples.
    """
    sizes = [len(next(iter(f.values()))) if isinstance(f, dict) else len(f) for f in frames]
    total = sum(sizes)
    code = np.zeros(total, dtype=np.int64)
    missing = np.zeros(total, dtype=bool)
    for key in keys:
        values = np.concatenate([np.asarray(f[key], dtype=np.float64) for f in frames])
        part, uniques = pd.factorize(values, use_na_sentinel=True)
        missing |= part < 0
        code = code * (len(uniques) + 1) + part.astype(np.int64) + 1
        code = pd.factorize(code)[0].astype(np.int64)
    code[missing] = -1
    return np.split(code, np.cumsum(sizes)[:-1])


class OnlineRuntimeEstimator(ParamsValidatedMixin, RegressorMixin, BaseEstimator):
    """Base of the online runtime predictors (not public).

    Implements the simulator's :class:`~predictkit.runtime.OnlinePredictor`
    protocol (``start``, ``observe``, ``predict_for``) next to the
    scikit-learn online methods (``fit``, ``partial_fit``, ``predict``).
    Subclasses declare the columns they read (``_required_columns()``) and
    group by (``_group_keys()``), and implement ``_predict_raw(hist, query)``
    on dicts of float64 arrays (history entries, jobs to predict).
    """

    target_known_at = "end"

    def _group_keys(self):
        return ("user_id",)

    def _required_columns(self):
        return ("submit_time", "req_time") + tuple(self._group_keys())

    def _setup(self):
        """Validate the parameters (``fit``, first call of ``partial_fit``, replay).

        Raises
        ------
        InvalidParameterError
            Naming the first invalid parameter.
        """
        self._validate_params()

    def fit(self, X, y):
        """Reset the history and add the completed jobs ``X`` with runtimes ``y``.

        Parameters
        ----------
        X : DataFrame
            Job table of completed jobs (see the module notes for the columns).
        y : array-like of shape (n_jobs,)
            Their runtimes in seconds.

        Returns
        -------
        self
        """
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)
        return self.partial_fit(X, y)

    def partial_fit(self, X, y):
        """Add completed jobs to the history (the first call on a new estimator resets it).

        Parameters
        ----------
        X : DataFrame
            Completed jobs; ``submit_time`` and either ``end_time`` or
            ``wait_time`` must be known for every row.
        y : array-like of shape (n_jobs,)
            Their runtimes in seconds (no missing values).

        Returns
        -------
        self
        """
        if not hasattr(self, "history_"):
            self._setup()
        chunk = self._history_chunk(X, y)
        self._append(chunk)
        self._fitted()
        return self

    def _fitted(self):
        """Called after ``fit`` or ``partial_fit`` changed the history (a subclass that
        keeps state built by ``start`` drops what no longer holds)."""

    def _history_chunk(self, X, y, known=None):
        chunk = check_jobs(X, self._required_columns(), name="completed jobs",
                           owner=type(self).__name__)
        # only completed jobs with a known runtime can enter the history (replay
        # leaves the others out itself)
        y = check_target(y, X, what="runtimes", owner=type(self).__name__)
        if known is None:
            known = known_time(X, "end", y=y)
        chunk["known"] = np.asarray(known, dtype=np.float64)
        chunk["run"] = y
        chunk["job_id"] = (np.asarray(X["job_id"], dtype=np.float64)
                           if "job_id" in X.columns else np.full(len(X), np.nan))
        return chunk

    def _append(self, chunk):
        """Add history entries; amortised O(1) per entry.

        The entries live in buffers that double when full (``history_`` holds
        views of their filled part), and the rows of each group are indexed
        so that :meth:`_history_for` can hand a prediction only the entries
        of the groups it asks about.
        """
        if not hasattr(self, "history_"):
            self._buffers, self._group_rows = {}, {}
            n_before = 0
        else:
            n_before = self.n_history_
        m = len(chunk["run"])
        n = n_before + m
        chunk["seq"] = np.arange(n_before, n, dtype=np.float64)
        buffers = self._buffers
        for key, values in chunk.items():
            buf = buffers.get(key)
            if buf is None or len(buf) < n:
                grown = np.empty(max(n, 2 * (len(buf) if buf is not None else 0), 256))
                if buf is not None:
                    grown[:n_before] = buf[:n_before]
                buf = buffers[key] = grown
            buf[n_before:n] = values
        keys = self._group_keys()
        if keys:
            rows = self._group_rows
            columns = [chunk[k].tolist() for k in keys]
            for i, key in enumerate(zip(*columns)):
                if not all(v == v for v in key):  # a missing key value joins no group
                    continue
                entry = rows.get(key)
                if entry is None:
                    entry = rows[key] = [np.empty(8, dtype=np.int64), 0]
                elif entry[1] == len(entry[0]):
                    entry[0] = np.concatenate([entry[0], np.empty_like(entry[0])])
                entry[0][entry[1]] = n_before + i
                entry[1] += 1
        self.history_ = {key: buf[:n] for key, buf in buffers.items()}
        self.n_history_ = n

    def _history_for(self, query):
        """The history entries of the groups of ``query`` (all entries for big queries).

        Every predictor works group by group, so the entries of other groups
        cannot change a prediction; leaving them out makes a prediction for a
        few jobs cost the size of their groups, not of the whole history.
        """
        hist = self.history_
        keys = self._group_keys()
        n = len(hist["run"])
        if not keys or len(query["submit_time"]) > 64 or n < 4096:
            return hist
        rows = self._group_rows
        wanted = set(zip(*[query[k].tolist() for k in keys]))
        parts = [buf[:count] for buf, count in (rows[key] for key in wanted if key in rows)]
        if 2 * sum(map(len, parts)) > n:
            return hist
        index = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
        return {key: values[index] for key, values in hist.items()}

    def _query(self, X):
        return check_jobs(X, self._required_columns(), name="jobs to predict",
                          owner=type(self).__name__)

    def predict(self, X):
        """Predict the runtime of each job from the history known at its submit time.

        Parameters
        ----------
        X : DataFrame
            Jobs to predict (any order); ``submit_time`` must be known.

        Returns
        -------
        ndarray of shape (n_jobs,)
            Predicted runtimes in seconds, clipped to ``[1, req_time]`` unless
            ``clip_to_request=False``; ``NaN`` where the predictor needs a
            request and the job has none.
        """
        check_fitted(self, "history_")
        query = self._query(X)
        raw = self._predict_raw(self._history_for(query), query)
        return self._clip(raw, query["req_time"])

    def score(self, X, y, sample_weight=None):
        """:math:`R^2` of :meth:`predict` against the runtimes ``y`` (scikit-learn's
        ``RegressorMixin.score``).

        Raises
        ------
        JobTableError
            For runtimes that are missing or negative, and for jobs that get
            no prediction (no request), naming how many and the first row:
            leave them out (or give them a request) to score the others.
        """
        from sklearn.metrics import r2_score

        truth = check_target(y, X, what="runtimes", owner=type(self).__name__)
        pred = self.predict(X)
        unpredicted = np.isnan(pred)
        if unpredicted.any():
            raise JobTableError(
                f"{type(self).__name__}.score: {int(unpredicted.sum()):,} job(s) get no "
                f"prediction (no request; first at row {int(np.argmax(unpredicted))}): "
                "leave them out, or give them a request, to score the others")
        return float(r2_score(truth, pred, sample_weight=sample_weight))

    def start(self, jobs):
        """Prepare to predict for ``jobs`` (:class:`~predictkit.runtime.OnlinePredictor`).

        Reads the columns the predictor needs once; :meth:`observe` and
        :meth:`predict_for` then work on rows of them, without job tables.
        A history fitted before is kept.

        Parameters
        ----------
        jobs : DataFrame
            The jobs to come, in submit order (row ``i`` is job ``i``).

        Returns
        -------
        self
        """
        arrays = check_jobs(jobs, self._required_columns(), name="jobs",
                            owner=type(self).__name__)
        arrays["job_id"] = (np.asarray(jobs["job_id"], dtype=np.float64)
                            if "job_id" in jobs.columns else np.full(len(jobs), np.nan))
        self._jobs = arrays
        self._blank = [c for c in arrays if c in OUTCOME_COLUMNS]
        if not hasattr(self, "history_"):
            self._setup()
            self._append({**{c: v[:0] for c, v in arrays.items()},
                          "known": np.empty(0), "run": np.empty(0)})
        return self

    def observe(self, index, start_time, end_time, run_time):
        """Add the completed jobs ``index`` of the :meth:`start` table to the history.

        Each entry's known time is ``end_time``; ``start_time`` is not used.
        """
        chunk = {c: v[index] for c, v in self._jobs.items()}
        chunk.update(known=np.asarray(end_time, dtype=np.float64),
                     run=np.asarray(run_time, dtype=np.float64))
        self._append(chunk)

    def predict_for(self, index):
        """Predict jobs ``index`` of the :meth:`start` table, as :meth:`predict` would."""
        query = {c: v[index] if c not in self._blank else np.full(len(index), np.nan)
                 for c, v in self._jobs.items()}
        raw = self._predict_raw(self._history_for(query), query)
        return self._clip(raw, query["req_time"])

    def _replay(self, X, y, known):
        """Online replay in one pass: fit on every job with a known time, predict all.

        Exact because :meth:`predict` only uses entries with ``known <= submit``.
        """
        self._setup()
        for name in ("history_", "n_history_"):
            if hasattr(self, name):
                delattr(self, name)
        keep = np.isfinite(known) & np.isfinite(y)
        chunk = self._history_chunk(X[keep] if not keep.all() else X, y[keep], known[keep])
        self._append(chunk)
        return self.predict(X)

    def _clip(self, raw, request):
        if not self.clip_to_request:
            return raw
        return np.maximum(np.fmin(raw, request), 1.0)

    def _sorted_history(self, hist, query, value, keys=None):
        """Group codes and orders of history entries with a finite ``value``, and queries."""
        keys = self._group_keys() if keys is None else keys
        h_code, q_code = group_codes([hist, query], keys)
        valid = np.flatnonzero((h_code >= 0) & np.isfinite(value) & np.isfinite(hist["known"]))
        h_order = valid[np.lexsort((hist["seq"][valid], hist["job_id"][valid],
                                    hist["submit_time"][valid], hist["known"][valid],
                                    h_code[valid]))]
        q_order = np.lexsort((query["submit_time"], q_code))
        return h_code, h_order, q_code, q_order

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.requires_fit = True
        tags.input_tags.allow_nan = True
        return tags

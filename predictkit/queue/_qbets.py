"""QBETS: statistically sound upper bounds on queue waits.

Implements Queue Bounds Estimation from Time Series as summarised in Nurmi,
Wolski and Brevik (2008), section 2.3 (and the inverted function
``QBETS(m, q, nodes, wallTime, startDeadline) = prob`` used by VARQ):

- binomial order-statistic bounds (:mod:`._binomial`),
- change-point trimming of the history (:mod:`._changepoint`),
- classes of jobs by requested nodes and requested time (:mod:`._clustering`),
- an online state machine (:mod:`._engine`),
- optionally one independent state machine per queue or partition (the
  paper's predictions are per machine and queue, ``QBETS(m, q, ...)``).
"""

import math
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from .._deprecation import warn_renamed
from .._format import format_count
from .._summary import header_machine_size, wider_than_machine
from .._table import OUTCOME_COLUMNS, _row, check_target, requested_width, said_starts
from .._validation import (RANDOM_STATE, ColumnNames, Interval, ParamsValidatedMixin,
                           StrOptions, as_seed, check_fitted, finite_time,
                           seconds_per_job)
from ..exceptions import ConfigError, InvalidParameterError, JobTableError
from ._binomial import min_history
from ._clustering import job_features, parse_edges
from ._engine import Engine
from ._history import SortedHistory

__all__ = ["QBETS"]


def warn_submitted_after(submit, now, owner):
    """Warn that the jobs of a queue at ``now`` submitted after it are left out (the
    ``observe_queue`` of QBETS and WaitPredictor)."""
    future = submit > now
    if future.any():
        warnings.warn(f"{owner}: {format_count(int(future.sum()), 'job')} submitted after "
                      f"now={now:g} (first at row {int(np.argmax(future))}) left out: not "
                      "in the queue yet", UserWarning, stacklevel=3)


class QBETS(ParamsValidatedMixin, BaseEstimator):
    """Upper bounds on the queue wait of each job, with a stated confidence.

    For a job of a given class, the bound is an order statistic of the waits
    of that class's past jobs (the current region of stationarity): the
    ``q`` quantile of the wait with confidence ``c`` (Nurmi et al. 2008,
    section 2.3). No distribution is assumed.

    Parameters
    ----------
    quantile : float in (0, 1), default=0.95
        The quantile ``q`` of the wait to bound.
    confidence : float in (0, 1), default=0.95
        The confidence ``c`` that the bound is at or above the quantile.
    changepoint : {"runs", "ruptures"} or None, default="runs"
        How the history is trimmed: QBETS's run-length rule, PELT from
        :mod:`ruptures` on recent log waits, or never (see
        :mod:`predictkit.queue._changepoint`).
    clustering : {"auto", "bic"}, None, or bin edges, default="auto"
        Job classes by requested nodes and requested time. ``"auto"``: a
        Gaussian mixture on log nodes and log requested time, number of
        components (up to ``max_classes``) chosen by BIC. ``"bic"``: the
        reference greedy BIC merge of sorted bins (at most 3 intervals per
        feature). Both are refitted when the number of waits seen reaches
        ``cluster_start``, then each time it doubles, on the last
        ``cluster_window`` waits; histories are then rebuilt with the new
        classes. ``None``: one class. Bin edges: ``(node_edges,
        time_edges)`` or ``{"nodes": [...], "req_time": [...]}``, interior
        edges in nodes and seconds, fixed.
    index : {"textbook", "reference"}, default="textbook"
        The order-statistic rule (:mod:`predictkit.queue._binomial`).
    trim_on_hits : bool, default=False
        With ``changepoint="runs"``, also trim after a too long run of hits
        (the bound has become too loose), as the public QBETS implementation
        does. Off by default: on the shared traces it pulls correctness below
        ``q`` (docs/results/queue_bounds.md).
    max_classes : int, default=3
        Largest number of mixture components tried by ``"auto"`` (the
        reference greedy merge also stops at 3 intervals per feature; more
        components give tighter bounds but miss ``q`` on METACENTRUM-2009-2,
        docs/results/queue_bounds.md).
    cluster_start : int, default=1000
        Waits seen before the first class fit.
    cluster_window : int, default=20000
        Most recent waits used by each class fit.
    ruptures_window, ruptures_every : int, default=2000, 1000
        For ``changepoint="ruptures"``: PELT runs on the class's last
        ``ruptures_window`` waits (block means of 10) every
        ``ruptures_every`` waits added to the class.
    ruptures_penalty : float or None, default=None
        PELT penalty; ``None`` is ``3 ln(m) sigma**2`` with a robust noise estimate
        (see :mod:`predictkit.queue._changepoint`).
    proba_step : float, default=0.01
        Step of the quantile grid of :meth:`start_probability`: its multiples
        below 1 (0.3 gives 0.3, 0.6 and 0.9).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the mixture fits of ``clustering="auto"`` (every group's
        engine gets the same seed, as separate estimators would).
    by : tuple of str or None, default=None
        Job-table columns (e.g. ``("queue_id", "partition_id")``) that split
        the jobs into groups before anything else: each distinct combination
        of values (a missing value is a value of its own) has its own,
        independent QBETS state -- histories, change points and classes --
        exactly as if a separate estimator ran on that group's jobs. Nurmi et
        al. (2008, section 2.3) make predictions per machine and queue,
        ``QBETS(m, q, nodes, wallTime, ...)``; ``None`` pools every job. A job
        of a group never seen has no bound (``NaN``). Not the default: on the
        shared traces splitting by queue and partition lowers correctness on
        METACENTRUM-2009-2 (docs/queue.md). A column known only once a job
        has started or ended (``wait_time``, ``run_time``, ...) is refused.

    queued : {"age"} or None, default="age"
        Use the jobs still waiting in the queue (:meth:`observe_queue`; the
        fast replay finds them itself). A queued job whose age is already
        above its class's bound is a miss known before the job starts: its age,
        a lower bound on its wait, joins the class's sample for that
        prediction (the history itself is unchanged), so the bound can only
        rise. Waits are only known at start, so without this a burst of jobs
        that all wait long is invisible until they start; on the shared
        traces it brings correctness up to ``q`` on the logs where the
        history alone falls short, at a small cost in tightness (the rows
        "runs + auto classes + queue (default)" and "runs + auto classes, no
        queue" of docs/results/queue_bounds.md). ``None``: the history
        alone, as in the paper.

    Attributes
    ----------
    n_seen_ : int
        Waits added so far (all groups).
    n_groups_ : int
        Number of groups with a wait seen (always 1 with ``by=None``).
    n_classes_ : int
        Number of job classes now (summed over the groups).
    min_history_ : int
        Waits a class needs before it has a bound: the smallest ``n`` with
        ``q**n <= 1 - c`` (59 for ``q = c = 0.95``).
    machine_procs_ : int or None
        The machine size of the last history that told it
        (``attrs["max_procs"]``, an SWF header's ``MaxProcs``); a job asked
        about that is wider is bounded as its class's jobs are, with a
        warning that it cannot start on that machine.

    Notes
    -----
    A class with fewer than ``min_history_`` waits has **no** bound:
    :meth:`predict` returns ``NaN`` for its jobs rather than invent one.

    :meth:`fit` on a job table with no rows is allowed, as for the runtime
    predictors (an online estimator may start with an empty history and learn
    through :meth:`partial_fit`): until waits arrive every job has no bound
    (``NaN`` from :meth:`predict` and :meth:`start_probability`).

    The widths that place a job in a class, ``req_procs`` (``n_procs``
    where the request is unknown), must be whole numbers > 0 where known,
    as :class:`WaitPredictor` requires: another value is a
    :class:`~predictkit.exceptions.JobTableError` naming the column and the
    first row, in every method that reads a job table (unknown widths are
    allowed; with ``clustering=None`` widths are not read).

    The run-length rule makes QBETS path dependent: :meth:`partial_fit`
    processes the jobs in the order given, which must be the order in which
    their waits became known (start time order). :meth:`fit` does not sort.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from predictkit.queue import QBETS
    >>> rng = np.random.default_rng(0)
    >>> jobs = pd.DataFrame({"req_procs": 4.0, "req_time": 3600.0,
    ...                      "submit_time": np.arange(500.0)})
    >>> waits = rng.exponential(100.0, 500)
    >>> model = QBETS(clustering=None, changepoint=None).fit(jobs, waits)
    >>> bool(model.predict(jobs.iloc[:1])[0] >= np.quantile(waits, 0.9))
    True
    """

    target_known_at = "start"

    _parameter_constraints = {
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "changepoint": [StrOptions({"runs", "ruptures"}), None],
        "clustering": [StrOptions({"auto", "bic"}), None, list, tuple, dict, np.ndarray],
        "index": [StrOptions({"textbook", "reference"})],
        "max_classes": [Interval(Integral, 1, None, closed="left")],
        "cluster_start": [Interval(Integral, 2, None, closed="left")],
        "cluster_window": [Interval(Integral, 2, None, closed="left")],
        "trim_on_hits": ["boolean"],
        "ruptures_window": [Interval(Integral, 20, None, closed="left")],
        "ruptures_every": [Interval(Integral, 1, None, closed="left")],
        "ruptures_penalty": [Interval(Real, 0, None, closed="left"), None],
        "proba_step": [Interval(Real, 0, 0.5, closed="right")],
        "random_state": [RANDOM_STATE],
        "by": [ColumnNames(refused=OUTCOME_COLUMNS), None],
        "queued": [StrOptions({"age"}), None],
    }

    def __init__(self, *, quantile=0.95, confidence=0.95, changepoint="runs",
                 clustering="auto", index="textbook", trim_on_hits=False, max_classes=3,
                 cluster_start=1000, cluster_window=20000, ruptures_window=2000,
                 ruptures_every=1000, ruptures_penalty=None, proba_step=0.01,
                 random_state=None, by=None, queued="age"):
        self.quantile = quantile
        self.confidence = confidence
        self.changepoint = changepoint
        self.clustering = clustering
        self.index = index
        self.trim_on_hits = trim_on_hits
        self.max_classes = max_classes
        self.cluster_start = cluster_start
        self.cluster_window = cluster_window
        self.ruptures_window = ruptures_window
        self.ruptures_every = ruptures_every
        self.ruptures_penalty = ruptures_penalty
        self.proba_step = proba_step
        self.random_state = random_state
        self.by = by
        self.queued = queued

    # -- construction -------------------------------------------------------

    def _reset(self):
        self._validate_params()
        if not isinstance(self.clustering, (str, type(None))):
            try:
                parse_edges(self.clustering)
            except ConfigError as exc:
                raise InvalidParameterError(
                    f"The 'clustering' parameter of QBETS is invalid: {exc}",
                    parameter="clustering", owner="QBETS") from None
        self._seed = as_seed(self.random_state)
        self._engines = {}
        self.machine_procs_ = None

    def _engine_for(self, key):
        engine = self._engines.get(key)
        if engine is None:
            engine = self._engines[key] = self._new_engine()
        return engine

    def _new_engine(self):
        return Engine(
            quantile=float(self.quantile), confidence=float(self.confidence),
            changepoint=self.changepoint, clustering=self.clustering, index=self.index,
            max_classes=self.max_classes, cluster_start=self.cluster_start,
            cluster_window=self.cluster_window,
            ruptures_options={"window": self.ruptures_window, "every": self.ruptures_every,
                              "penalty": self.ruptures_penalty},
            seed=self._seed, proba_step=float(self.proba_step),
            trim_on_hits=bool(self.trim_on_hits))

    def _features(self, X):
        if not isinstance(X, pd.DataFrame):
            raise JobTableError(
                f"QBETS needs a job table (pandas DataFrame with SWF columns), "
                f"got {type(X).__name__}")
        if self.clustering is None:
            return np.zeros((len(X), 2))
        return job_features(X, name="QBETS: job table")

    def _groups(self, X):
        """The group key of each job's group and the rows of each group.

        Returns ``[(key, rows), ...]`` in order of first appearance; ``key`` is
        a tuple of the ``by`` values (``None`` for a missing one), ``()`` with
        ``by=None``.
        """
        if self.by is None:
            return [((), np.arange(len(X)))]
        columns = list(self.by)
        missing = [c for c in columns if c not in X.columns]
        if missing:
            raise JobTableError(f"QBETS: job table lacks the 'by' column(s) {missing} "
                                f"(by={tuple(self.by)!r})")
        codes, uniques = [], []
        for column in columns:
            try:
                code, unique = pd.factorize(X[column], use_na_sentinel=False)
            except TypeError:
                values = X[column].tolist()
                row = next(k for k, v in enumerate(values) if not _hashable(v))
                raise JobTableError(f"QBETS: the 'by' column {column!r} holds a value that "
                                    f"cannot name a group at row {row}: {values[row]!r}"
                                    ) from None
            codes.append(code)
            uniques.append([None if pd.isna(v) else v for v in unique.tolist()])
        combos, first, inverse = np.unique(np.column_stack(codes), axis=0,
                                           return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        members = np.split(np.argsort(inverse, kind="stable"),
                           np.cumsum(np.bincount(inverse, minlength=len(combos)))[:-1])
        return [(tuple(u[k] for u, k in zip(uniques, combos[g].tolist())), members[g])
                for g in np.argsort(first, kind="stable").tolist()]

    def _waits(self, X, y):
        if y is None:
            if "wait_time" not in X.columns:
                raise JobTableError("QBETS: no y given and the job table lacks 'wait_time'")
            return check_target(X["wait_time"], X, what="waits", name="column 'wait_time'",
                                owner="QBETS")
        return check_target(y, X, what="waits", owner="QBETS")

    def fit(self, X, y=None):
        """Reset and add the waits ``y`` of the jobs ``X``, in the given order.

        Parameters
        ----------
        X : DataFrame
            Job table; ``req_procs`` (or ``n_procs``) and ``req_time`` are used
            unless ``clustering=None``.
        y : array-like of shape (n_jobs,), optional
            The waits in seconds (default: ``X["wait_time"]``), in the order in
            which they became known. No rows is an empty history: no bound
            yet (see the notes of :class:`QBETS`).
        """
        self._reset()
        return self.partial_fit(X, y)

    def partial_fit(self, X, y=None):
        """Add completed waits to the history (the first call resets)."""
        if not hasattr(self, "_engines"):
            self._reset()
        features = self._features(X)
        waits = self._waits(X, y)
        header = header_machine_size(X, "QBETS")
        if header is not None:
            self.machine_procs_ = header
        for key, rows in self._groups(X):
            self._engine_for(key).add(features[rows], waits[rows])
        self._queue = None
        self._set_attributes()
        return self

    def observe_queue(self, X, now):
        """Tell the estimator which jobs are waiting in the queue at ``now``.

        With ``queued="age"``, the next :meth:`predict` and
        :meth:`start_probability` calls count each waiting job whose age
        ``now - submit_time`` is already above its class's bound as a known
        miss (:meth:`Engine.queued_bound`). The queue is forgotten at the next
        :meth:`partial_fit` (jobs that started leave it) and replaced by the
        next call. ``model_selection.replay`` calls this before each
        prediction with the jobs submitted before and started after it.

        Parameters
        ----------
        X : DataFrame
            The waiting jobs (``submit_time`` and the class features).
        now : float
            The time the queue is observed at; jobs submitted at it are
            ignored (they have not waited yet), jobs submitted after it left
            out with a warning.

        Raises
        ------
        JobTableError
            For a job submitted before ``now`` whose ``start_time`` (else
            ``submit_time + wait_time``, where known) is at or before it: it
            is not waiting.
        """
        check_fitted(self, "n_seen_")
        if not isinstance(X, pd.DataFrame) or "submit_time" not in X.columns:
            raise JobTableError("observe_queue needs a job table with submit_time")
        now = finite_time(now, "now", "QBETS.observe_queue")
        submit = np.asarray(X["submit_time"], dtype=np.float64)
        if np.isnan(submit).any():
            raise JobTableError(f"observe_queue: {int(np.isnan(submit).sum())} queued "
                                f"job(s) have no submit_time")
        if "start_time" in X.columns or "wait_time" in X.columns:
            start = said_starts(X, "QBETS.observe_queue: job table")
            started = (submit < now) & (start <= now)
            if started.any():
                raise JobTableError(
                    f"QBETS.observe_queue: {int(started.sum()):,} job(s) of the queue at "
                    f"now={now:g} s had started by then (first at "
                    f"{_row(X, int(np.argmax(started)))}): the queue holds the jobs still "
                    "waiting")
        warn_submitted_after(submit, now, "QBETS.observe_queue")
        self._queue = None
        if self.queued is None or len(X) == 0:
            return self
        features = self._features(X)
        queue = {}
        for key, rows in self._groups(X):
            engine = self._engines.get(key)
            rows = rows[submit[rows] < now]
            if engine is None or not len(rows):
                continue
            labels = engine.labels(features[rows]).tolist()
            per_class = queue[key] = {}
            for label, t in zip(labels, submit[rows].tolist()):
                per_class.setdefault(label, SortedHistory()).add(t)
        self._queue = (now, queue)
        return self

    def _queued(self, key):
        """``(now, {label: submit times})`` of a group's observed queue, or None."""
        queue = getattr(self, "_queue", None)
        if queue is None or key not in queue[1]:
            return None
        return queue[0], queue[1][key]

    def _set_attributes(self):
        engines = self._engines.values()
        self.n_seen_ = sum(engine.store.n for engine in engines)
        self.n_groups_ = len(self._engines)
        self.n_classes_ = sum(engine.classifier.n_classes for engine in engines)
        self.min_history_ = min_history(float(self.quantile), float(self.confidence))

    # -- prediction ---------------------------------------------------------

    def predict(self, X):
        """Upper bound (seconds) on the wait of each job submitted now.

        With ``queued="age"`` and a queue given by :meth:`observe_queue`,
        queued jobs already waiting longer than their class's bound raise it.

        Returns
        -------
        ndarray of float64
            ``NaN`` for jobs whose class has fewer than ``min_history_`` waits.
        """
        check_fitted(self, "n_seen_")
        features = self._features(X)
        self._warn_wider(X)
        out = np.full(len(X), np.nan)
        for key, rows in self._groups(X):
            engine = self._engines.get(key)
            if engine is None:
                continue
            labels = engine.labels(features[rows]).tolist()
            queued = self._queued(key)
            if queued is None:
                out[rows] = [engine.bound(label) for label in labels]
            else:
                now, classes = queued
                out[rows] = [engine.queued_bound(label, classes.get(label), now)
                             for label in labels]
        return out

    def _warn_wider(self, X):
        """Warn about jobs asked about that are wider than the history's machine."""
        if self.machine_procs_ is None or self.clustering is None or not len(X):
            return
        wider = int(np.sum(requested_width(X) > self.machine_procs_))
        if wider:
            its, it = ("its", "it") if wider == 1 else ("their", "they")
            warnings.warn(f"QBETS: {wider_than_machine(wider, self.machine_procs_)} given "
                          f"the bound of {its} class, though {it} cannot start on that "
                          "machine", UserWarning, stacklevel=3)

    def start_probability(self, X, within=None):
        """Probability that each job starts within ``within`` seconds.

        The inverted QBETS function (Nurmi et al. 2008, section 2.3): the
        largest quantile on the grid ``0.99, 0.98, ..., 0.01`` (step
        ``proba_step``) whose bound, at the estimator's confidence, is at or
        under ``within``; 0 when even the lowest is above it; ``NaN`` when the
        job's class has no history. An observed queue (:meth:`observe_queue`)
        raises every grid quantile's bound as in :meth:`predict`.

        Parameters
        ----------
        X : DataFrame
            Jobs (classified as in :meth:`predict`).
        within : float or array-like of shape (n_jobs,)
            Seconds from submission, ``>= 0`` (``0``: the probability of
            starting at once).

        Returns
        -------
        ndarray of shape (n_jobs,)
            ``P(wait <= within)`` of each job (one number per job, not
            scikit-learn's per-class ``predict_proba`` matrix).

        Raises
        ------
        InvalidParameterError
            If ``within`` is missing, negative or ``NaN``.
        """
        check_fitted(self, "n_seen_")
        features = self._features(X)
        self._warn_wider(X)
        groups = self._groups(X)
        within = seconds_per_job(within, len(X), "within", "QBETS.start_probability")
        out = np.full(len(X), np.nan)
        for key, rows in groups:
            engine = self._engines.get(key)
            if engine is None:
                continue
            labels = engine.labels(features[rows])
            queued = self._queued(key)
            if queued is None:
                out[rows] = engine.proba(labels, within[rows])
            else:
                now, classes = queued
                out[rows] = engine.queued_proba(labels, within[rows], classes, now)
        return out

    def predict_proba(self, X, within=None):
        """Deprecated name of :meth:`start_probability` (removed in 0.3).

        It returns ``P(wait <= within)`` per job, not scikit-learn's
        ``predict_proba`` class probabilities, hence the new name.
        """
        warn_renamed("QBETS.predict_proba", "QBETS.start_probability")
        return self.start_probability(X, within=within)

    def job_classes(self, X):
        """The class each job falls in now, and how many waits that class holds.

        The class's bound (:meth:`predict`) rests on its own history alone, so
        ``n_history`` is how much history a job's answer rests on.

        Returns
        -------
        DataFrame
            Indexed like ``X``: the ``by`` columns, then ``class``, ``nodes``,
            ``requested_time`` (the class's description, as in
            :meth:`class_bounds`) and ``n_history``; a job of a group never
            seen has class ``-1`` and no history.
        """
        check_fitted(self, "n_seen_")
        features = self._features(X)
        label = np.full(len(X), -1, dtype=np.int64)
        n_history = np.zeros(len(X), dtype=np.int64)
        nodes = np.full(len(X), None, dtype=object)
        requested_time = np.full(len(X), None, dtype=object)
        for key, rows in self._groups(X):
            engine = self._engines.get(key)
            if engine is None:
                continue
            described = {info["class"]: info for info in engine.classifier.describe()}
            for row, value in zip(rows.tolist(), engine.labels(features[rows]).tolist()):
                hist = engine.histories.get(value)
                label[row], n_history[row] = value, len(hist) if hist is not None else 0
                nodes[row] = described[value]["nodes"]
                requested_time[row] = described[value]["requested_time"]
        by = {column: np.asarray(X[column]) for column in self.by or ()}
        return pd.DataFrame({**by, "class": label, "nodes": nodes,
                             "requested_time": requested_time, "n_history": n_history},
                            index=X.index)

    def class_bounds(self):
        """The bound of each class now, with its history size and description.

        Returns
        -------
        DataFrame
            Columns ``class, nodes, requested_time, n_history, bound``,
            preceded by the ``by`` columns (one row per class of each group).
        """
        check_fitted(self, "n_seen_")
        columns = list(self.by or ())
        rows = []
        for key, engine in self._engines.items():
            for info in engine.classifier.describe():
                label = info["class"]
                hist = engine.histories.get(label)
                rows.append({**dict(zip(columns, key)), "class": label,
                             "nodes": info["nodes"],
                             "requested_time": info["requested_time"],
                             "n_history": len(hist) if hist is not None else 0,
                             "bound": engine.bound(label)})
        return pd.DataFrame(rows, columns=[*columns, "class", "nodes", "requested_time",
                                           "n_history", "bound"])

    # -- fast online replay -------------------------------------------------

    def _replay(self, X, y, known):
        """Online bounds for every job, as ``model_selection.replay`` computes them.

        Each job is predicted at its submit time from the waits known by then
        (``known <= submit_time``), added in known-time order (ties by submit
        time, then row); the numbers equal the reference replay. Each ``by``
        group is replayed on its own. Features are computed once and labels
        only after class refits; histories stay sorted.
        """
        self._reset()
        features = self._features(X)
        waits = np.asarray(y, dtype=np.float64)
        submit = np.asarray(X["submit_time"], dtype=np.float64)
        known = np.asarray(known, dtype=np.float64)
        out = np.full(len(X), np.nan)
        for key, rows in self._groups(X):
            if self.by is not None and not np.isfinite(known[rows]).any():
                continue  # no wait of this group is ever known: no engine, no bound
            out[rows] = _replay_group(self._engine_for(key), features[rows], waits[rows],
                                      submit[rows], known[rows],
                                      queued=self.queued is not None)
        self._set_attributes()
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        tags.non_deterministic = (isinstance(self.clustering, str) and self.clustering == "auto"
                                  and self.random_state is None)
        return tags


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _replay_group(engine, features, waits, submit, known, queued=False):
    """Online bounds of one group's jobs from a fresh engine (see ``QBETS._replay``).

    With ``queued``, each job's bound also counts the jobs submitted strictly
    before it that have a known start after its submission (the queue it
    sees), at their age then (:meth:`Engine.queued_bound`).
    """
    order_known = np.flatnonzero(np.isfinite(known))
    order_known = order_known[np.lexsort((order_known, submit[order_known],
                                          known[order_known]))]
    known_sorted = known[order_known]
    order_submit = np.argsort(submit, kind="stable")
    # how many waits are known at each submission, in submission order
    n_known = np.searchsorted(known_sorted, submit[order_submit], side="right").tolist()
    labels = engine.labels(features).tolist()
    wait_list = waits.tolist()
    known_list = order_known.tolist()
    submit_list = submit.tolist()
    submit_order = order_submit.tolist()
    can_queue = np.isfinite(known).tolist()
    absorb, bound, queued_bound = engine.absorb, engine.bound, engine.queued_bound
    out = np.full(len(waits), np.nan)
    started = [False] * len(waits)
    waiting = set()  # jobs queued now
    queues = {}  # class label -> SortedHistory of the submit times of its queued jobs
    entered = 0  # jobs (in submission order) considered for the queue so far
    done = synced = 0
    for pos, j in enumerate(submit_order):
        target = n_known[pos]
        t = submit_list[j]
        while done < target:
            stop = (target if engine.next_refit == math.inf
                    else min(target, int(engine.next_refit)))
            if queued:
                for i in known_list[done:stop]:
                    absorb(labels[i], wait_list[i])
                    started[i] = True
                    if i in waiting:
                        waiting.remove(i)
                        queues[labels[i]].remove(submit_list[i])
            else:
                for i in known_list[done:stop]:
                    absorb(labels[i], wait_list[i])
            done = stop
            if done >= engine.next_refit:
                idx = order_known[synced:done]
                engine.store.extend(features[idx], waits[idx])
                synced = done
                engine.refit()
                labels = engine.labels(features).tolist()
                if queued:
                    queues = _class_queues(waiting, labels, submit_list)
        if queued:
            while entered < pos and submit_list[submit_order[entered]] < t:
                i = submit_order[entered]
                entered += 1
                if can_queue[i] and not started[i]:
                    waiting.add(i)
                    queue = queues.get(labels[i])
                    if queue is None:
                        queue = queues[labels[i]] = SortedHistory()
                    queue.add(submit_list[i])
            out[j] = queued_bound(labels[j], queues.get(labels[j]), t)
        else:
            out[j] = bound(labels[j])
    idx = order_known[synced:done]
    engine.store.extend(features[idx], waits[idx])
    return out


def _class_queues(waiting, labels, submit_list):
    """Per-class sorted submit times of the queued jobs ``waiting``."""
    queues = {}
    for i in waiting:
        queue = queues.get(labels[i])
        if queue is None:
            queue = queues[labels[i]] = SortedHistory()
        queue.add(submit_list[i])
    return queues

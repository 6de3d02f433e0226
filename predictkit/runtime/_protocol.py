"""How the simulator drives a runtime predictor: :class:`OnlinePredictor`.

A simulation asks for estimates at submissions and reports completions in
simulated time. Anything with the three methods of :class:`OnlinePredictor`
can be passed as ``simulate(estimates=...)``; every predictor of
:mod:`predictkit.runtime` implements them. An estimator with only the
scikit-learn online methods (``partial_fit(X, y)`` and ``predict(X)``) is
driven through :class:`PartialFitAdapter`, which hands it job tables. A fitted
pipeline whose first step is :class:`~predictkit.runtime.HistoryFeatures` is
one too: completed jobs go to that step's ``partial_fit``, predictions are the
pipeline's (see :func:`history_pipeline`).
"""

from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from .._sklearn_compat import Constraint
from ._base import OUTCOME_COLUMNS, OnlineRuntimeEstimator

__all__ = ["OnlinePredictor", "PartialFitAdapter", "as_online_predictor", "OUTCOME_COLUMNS",
           "history_pipeline", "HistoryPipeline"]


@runtime_checkable
class OnlinePredictor(Protocol):
    """What a simulation asks of a runtime predictor: start, observe, predict.

    Init state from a job table, update on completion, predict on submission
    (the online protocol, ``docs/runtime.md``). The simulator calls
    :meth:`start` once, then alternates :meth:`observe` (the jobs that
    completed since the last call) and :meth:`predict_for` (jobs being
    submitted). It works on a copy, so the object passed in is unchanged.

    Jobs are named by their row in the table given to :meth:`start`, which
    holds the simulated jobs in submit order. A predictor may read any column
    of a job it is asked about except
    :data:`~predictkit._table.OUTCOME_COLUMNS`, which are that job's
    future; the outcome of a completed job is what :meth:`observe`
    reports (its simulated times, not the log's).
    """

    def start(self, jobs):
        """Prepare to predict for ``jobs``.

        Parameters
        ----------
        jobs : DataFrame
            The simulated jobs in submit order (row ``i`` is job ``i``).
            Completed jobs fitted before (``fit``/``partial_fit``) stay in
            the history.

        Returns
        -------
        self
        """

    def observe(self, index, start_time, end_time, run_time):
        """Add completed jobs to the history.

        Parameters
        ----------
        index : ndarray of int
            Rows of the ``start`` table, in completion order.
        start_time, end_time, run_time : ndarray of float
            Their simulated start and end times and runtimes (seconds; a job
            split into pieces is reported once, when its last piece ends,
            with the sum of the pieces' runtimes).
        """

    def predict_for(self, index):
        """Runtime estimates of jobs being submitted.

        Parameters
        ----------
        index : ndarray of int
            Rows of the ``start`` table, in submit order. Each job is placed
            at its own ``submit_time`` and sees the jobs observed so far that
            ended by then.

        Returns
        -------
        ndarray of float, shape (len(index),)
            Estimates in seconds; ``NaN`` where there is none (the simulator
            then uses the request).
        """


def _is_fitted(estimator):
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimator)
    except (NotFittedError, TypeError):
        return False
    except AttributeError:
        # not a scikit-learn estimator (no tags): scikit-learn's own rule, fitted
        # attributes end with "_"
        return any(name.endswith("_") and not name.startswith("__")
                   for name in getattr(estimator, "__dict__", {}))
    return True


class PartialFitAdapter:
    """An :class:`OnlinePredictor` made of a ``partial_fit``/``predict`` estimator.

    Completed jobs reach ``estimator.partial_fit(rows, run_time)`` as job-table
    rows with their simulated ``wait_time``, ``start_time``, ``end_time`` and
    ``run_time``; jobs to predict reach ``estimator.predict(rows)`` with
    :data:`~predictkit._table.OUTCOME_COLUMNS` blanked. An estimator
    that was not fitted before gets an empty first ``partial_fit``; if it refuses one (``ValueError`` or
    ``TypeError``), it is not asked for predictions (the simulator uses the
    requests) until a job has completed.

    Parameters
    ----------
    estimator : object with ``partial_fit(X, y)`` and ``predict(X)``
        Used as it is (not copied).
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def start(self, jobs):
        # Small tables are built from plain arrays: selecting rows of the job
        # table and setting columns costs milliseconds per call in pandas, and
        # deep-copies attrs (the whole SWF header); predictors read only the
        # clock origin from attrs.
        self._attrs = {k: jobs.attrs[k] for k in ("unix_start_time",) if k in jobs.attrs}
        self._columns = {c: jobs[c].to_numpy() for c in jobs.columns}
        self._n = len(jobs)
        self._ready = _is_fitted(self.estimator)
        if not self._ready:
            empty = self._table(np.empty(0, dtype=np.int64),
                                start_time=np.empty(0), end_time=np.empty(0))
            try:
                self.estimator.partial_fit(empty, np.empty(0))
                self._ready = True
            except (ValueError, TypeError):
                self._ready = False
        return self

    def observe(self, index, start_time, end_time, run_time):
        submit = self._columns["submit_time"][index].astype(np.float64)
        rows = self._table(index, wait_time=start_time - submit, run_time=run_time,
                           start_time=start_time, end_time=end_time)
        self.estimator.partial_fit(rows, run_time)
        self._ready = True

    def predict_for(self, index):
        if not self._ready:
            return np.full(len(index), np.nan)
        blank = {c: np.full(len(index), np.nan) for c in OUTCOME_COLUMNS if c in self._columns}
        return np.asarray(self.estimator.predict(self._table(index, **blank)), dtype=float)

    def _table(self, rows, **replaced):
        """The job-table rows ``rows`` with some columns replaced or added."""
        data = {c: replaced.pop(c) if c in replaced else values[rows]
                for c, values in self._columns.items()}
        data.update(replaced)
        table = pd.DataFrame(data, copy=False)
        table.attrs = dict(self._attrs)
        return table


def history_pipeline(estimator):
    """Whether ``estimator`` is a scikit-learn pipeline whose first step is ``HistoryFeatures``.

    Such a pipeline, fitted on past jobs, is a runtime predictor: its first
    step keeps the users' history (completed jobs reach its ``partial_fit``),
    the later steps map the features to a runtime and are never refitted.
    """
    from sklearn.pipeline import Pipeline

    from ._history_features import HistoryFeatures

    return (isinstance(estimator, Pipeline) and len(estimator.steps) >= 2
            and isinstance(estimator.steps[0][1], HistoryFeatures))


class HistoryPipeline(Constraint):
    """Parameter constraint: a pipeline whose first step is ``HistoryFeatures``."""

    def is_satisfied_by(self, val):
        return history_pipeline(val)

    def __str__(self):
        return "a pipeline whose first step is HistoryFeatures"


class _HistoryPipelineSteps:
    """``partial_fit`` feeds the ``HistoryFeatures`` step; ``predict`` is the pipeline's."""

    def __init__(self, pipeline):
        self.pipeline = pipeline

    def partial_fit(self, X, y):
        self.pipeline.steps[0][1].partial_fit(X, y)
        return self

    def predict(self, X):
        return self.pipeline.predict(X)


def as_online_predictor(estimator):
    """``estimator`` as an :class:`OnlinePredictor` (itself, or adapted).

    An object with ``start``, ``observe`` and ``predict_for`` is used as it is,
    unless it is one of predictkit's predictors whose ``predict`` or
    ``partial_fit`` a subclass overrides: those methods are then the ones
    called, through :class:`PartialFitAdapter`, as for any object with only
    ``partial_fit`` and ``predict``. A pipeline whose first step is
    ``HistoryFeatures`` (:func:`history_pipeline`) is adapted the same way,
    its completed jobs going to that step.

    Returns
    -------
    OnlinePredictor or None
        ``None`` when ``estimator`` is neither.
    """
    if isinstance(estimator, OnlineRuntimeEstimator):
        overridden = any(getattr(type(estimator), name) is not getattr(OnlineRuntimeEstimator, name)
                         for name in ("predict", "partial_fit"))
        return PartialFitAdapter(estimator) if overridden else estimator
    if isinstance(estimator, OnlinePredictor):
        return estimator
    if history_pipeline(estimator):
        adapter = PartialFitAdapter(_HistoryPipelineSteps(estimator))
        adapter.name = type(estimator).__name__
        return adapter
    if hasattr(estimator, "partial_fit") and hasattr(estimator, "predict"):
        return PartialFitAdapter(estimator)
    return None

"""Scheduling-level scoring of runtime predictors (for ``cross_validate`` / ``GridSearchCV``)."""

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._deprecation import renamed_argument
from .._table import copy_attrs, validate_jobs
from .._time import parse_duration
from .._validation import check_instance, check_parameters
from ..exceptions import ConfigError, JobTableError
from ..metrics import schedule_metrics
from ..metrics._schedule import SCHEDULE_METRIC_NAMES

__all__ = ["make_schedule_scorer"]

_ALIASES = {
    "wait": "mean_wait", "response": "mean_response", "slowdown": "mean_slowdown",
    "bounded_slowdown": "mean_bounded_slowdown",
}
_GREATER_IS_BETTER = {"utilization", "backfill_ratio"}


class _ScheduleScorer:
    def __init__(self, metric, simulate_kwargs, history=None, warmup=None):
        self.metric = metric
        self.simulate_kwargs = simulate_kwargs
        self.history = history
        self.warmup = warmup

    def __call__(self, estimator, X, y=None):
        from ..simulate import simulate

        check_instance(estimator, "estimator", "the scorer of make_schedule_scorer")
        if self.history is None:
            if not isinstance(X, pd.DataFrame) or "submit_time" not in X.columns:
                raise JobTableError("the schedule scorer needs a test fold with submit_time")
            validate_jobs(X, required=("submit_time",), check_values=False,
                          columns=("submit_time",), name="test fold")
            fold = X.iloc[_submission_order(X, np.arange(len(X)))]
            fold.attrs = copy_attrs(X)
            schedule = simulate(fold, estimates=estimator, **self.simulate_kwargs)
            table = schedule_metrics(schedule)
        else:
            jobs, in_fold = _fold_with_history(self.history, X, self.warmup)
            schedule = simulate(jobs, estimates=clone(estimator), **self.simulate_kwargs)
            kept = ~np.isin(np.arange(len(jobs)), schedule.rejected.index)
            fold = schedule.jobs.loc[in_fold[kept]]
            if not len(fold):
                raise ConfigError("every job of the test fold is wider than the machine")
            table = schedule_metrics(fold, machine_procs=schedule.machine_procs)
        values = table.set_index("metric")["value"]
        if self.metric not in values.index:
            raise ConfigError(
                f"metric {self.metric!r} is not reported for this schedule; available: "
                f"{', '.join(values.index)}")
        value = float(values[self.metric])
        return value if self.metric in _GREATER_IS_BETTER else -value

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.simulate_kwargs.items())
        if self.history is not None:
            args += f", history=<{len(self.history)} jobs>, warmup={self.warmup!r}"
        return f"make_schedule_scorer(metric={self.metric!r}, {args})"


def _fold_with_history(history, X, warmup):
    """The jobs to simulate for the fold ``X``: the rows of ``history`` submitted before its end.

    Returns the table (sorted as the simulator orders jobs: submit time, then
    ``job_id``) and a mask of the fold's rows in it. The fold's rows are found
    by their index labels in ``history`` (GridSearchCV and cross_validate keep
    them), and must have the same submit times there.
    """
    if not isinstance(X, pd.DataFrame) or "submit_time" not in X.columns or not len(X):
        raise JobTableError("the schedule scorer needs a non-empty test fold with submit_time")
    where = history.index.get_indexer(X.index)
    if (where < 0).any() or not np.array_equal(
            history["submit_time"].to_numpy(dtype=float)[where],
            X["submit_time"].to_numpy(dtype=float), equal_nan=True):
        raise ConfigError(
            "the test fold's rows are not rows of history= (by index label and submit time); "
            "pass the very job table given to fit")
    submit = history["submit_time"].to_numpy(dtype=float)
    end = float(np.nanmax(submit[where]))
    keep = submit <= end
    if warmup is not None:
        keep &= submit >= float(np.nanmin(submit[where])) - warmup
    in_fold = np.zeros(len(history), dtype=bool)
    in_fold[where] = True
    rows = _submission_order(history, np.flatnonzero(keep))
    jobs = history.iloc[rows].reset_index(drop=True)
    jobs.attrs = copy_attrs(history)
    return jobs, in_fold[rows]


def _submission_order(table, rows):
    """``rows`` (positions in ``table``) in the order the simulator takes jobs: submit
    time, then ``job_id`` (then position); a fold need not be sorted."""
    submit = table["submit_time"].to_numpy(dtype=float)[rows]
    job_id = (table["job_id"].to_numpy(dtype=float)[rows] if "job_id" in table.columns
              else rows.astype(float))
    return rows[np.lexsort((job_id, submit))]


def check_simulate_kwargs(simulate_kwargs, owner):
    """Refuse arguments that :func:`~predictkit.simulate.simulate` does not take.

    Found when the scorer or the search is built, not when the first
    simulation runs.

    Raises
    ------
    ConfigError
        Naming the unknown arguments.
    """
    import inspect

    from ..simulate import simulate

    unknown = sorted(set(simulate_kwargs) - set(inspect.signature(simulate).parameters))
    if unknown:
        raise ConfigError(f"{owner}: simulate() takes no argument {', '.join(unknown)} "
                          "(see help(predictkit.simulate.simulate))")
    check_parameters(simulate._parameter_constraints, simulate_kwargs, owner)


def make_schedule_scorer(policy="easy", metric="bounded_slowdown", selective=True, *,
                         history=None, warmup=None, **simulate_kwargs):
    """Score a runtime predictor by the schedule its predictions produce.

    Use it as ``scoring=`` in :func:`sklearn.model_selection.cross_validate`
    or ``GridSearchCV`` with :class:`predictkit.model_selection.TraceSplit`.
    What it simulates for a test fold ``X`` depends on ``history``:

    * ``history=None``: the fold alone, from an empty machine, with the
      fitted estimator as the online estimate source. Its training history
      is kept (each training job counts from the end time the log gives it)
      and the fold's jobs join it when they end in the simulation; a
      prediction at ``t`` uses only jobs known by ``t``. The jobs queued or
      running when the fold begins are not simulated.
    * ``history=jobs`` (the table given to ``fit``): the fold *with the
      history before it* -- every job of ``history`` submitted before the
      fold's last submission (within ``warmup`` before its first, if given),
      simulated with an unfitted clone of the estimator, which learns online
      from the jobs that end in the simulation. Only the fold's jobs are
      scored. This is the schedule a site running the predictor would have
      had, exact and causal (no job after the fold is simulated), and the
      built-in predictors run compiled inside the simulator. What ``fit``
      learned from the log is not used.

    Parameters
    ----------
    policy : str, default "easy"
        Backfilling policy of the simulation.
    metric : str, default "bounded_slowdown"
        A metric of :func:`predictkit.metrics.schedule_metrics` (``"wait"``,
        ``"slowdown"``, ``"bounded_slowdown"`` and ``"response"`` name the
        means). Lower-is-better metrics are negated, as sklearn maximises.
    selective : bool, default True
        Tang et al. (2013) section 5.2 selective use of the predictions.
    history : DataFrame, optional
        The job table the search is fitted on (the folds' rows are found in
        it by index label), to simulate each fold after the jobs before it.
    warmup : duration, optional
        With ``history``: simulate only the jobs submitted within this long
        before the fold (default: all earlier jobs).
    **simulate_kwargs
        Other :func:`~predictkit.simulate.simulate` arguments (pass
        ``machine_procs``: folds may lack the trace header; the deprecated
        ``n_procs`` is renamed here, with a warning).

    Returns
    -------
    callable
        ``scorer(estimator, X, y=None) -> float``. An estimator class
        (``RecentAverage`` for ``RecentAverage()``) is refused with an
        :class:`~predictkit.exceptions.InvalidParameterError`.
    """
    if not isinstance(metric, str):
        raise ConfigError(f"metric must be a string, got {metric!r}")
    if _ALIASES.get(metric, metric) not in SCHEDULE_METRIC_NAMES:
        raise ConfigError(f"metric {metric!r} is not a schedule metric; use one of "
                          f"{', '.join(sorted(_ALIASES))} or "
                          f"{', '.join(SCHEDULE_METRIC_NAMES)}")
    if "estimates" in simulate_kwargs:
        raise ConfigError("the scorer supplies estimates= itself (the estimator being scored)")
    check_simulate_kwargs({k: v for k, v in simulate_kwargs.items() if k != "n_procs"}
                          | {"policy": policy, "selective": selective}, "make_schedule_scorer")
    if "n_procs" in simulate_kwargs:
        simulate_kwargs["machine_procs"] = renamed_argument(
            "make_schedule_scorer", "n_procs", "machine_procs", simulate_kwargs.pop("n_procs"),
            simulate_kwargs.get("machine_procs"), stacklevel=4)
    if history is not None:
        if not isinstance(history, pd.DataFrame) or "submit_time" not in history.columns:
            raise ConfigError("history must be the job table (DataFrame with submit_time) "
                              "given to fit")
        if not history.index.is_unique:
            raise ConfigError("history has repeated index labels; the folds' rows cannot be "
                              "found in it (reset_index first)")
        validate_jobs(history, required=("submit_time",), check_values=False,
                      columns=("submit_time",), name="history")
    elif warmup is not None:
        raise ConfigError(f"warmup applies with history= only (got warmup={warmup!r} "
                          "without history)")
    warmup = parse_duration(warmup, name="warmup", allow_none=True)
    from ..simulate._policies import refuse_blind_scheduler

    refuse_blind_scheduler(policy, simulate_kwargs.get("priority", "fcfs"),
                           [simulate_kwargs.get("backfill_order", "priority")],
                           simulate_kwargs.get("starvation_after"),
                           simulate_kwargs.get("reservation_depth"))
    name = _ALIASES.get(metric, metric)
    kwargs = dict(policy=policy, selective=selective, **simulate_kwargs)
    return _ScheduleScorer(name, kwargs, history, warmup)

"""Metrics of simulated schedules.

User metrics (wait, response, slowdown, bounded slowdown, Tang et al. 2013
eq. 4 weighted wait), system metrics (utilization, makespan and loss of
capacity, Leung et al. 2010 section III.B and eq. 1), the backfill ratio and
the error of the wait predicted at submission by conservative backfilling
(Klusacek & Soysal 2019 sections 3.2 and 4.1), with optional breakdowns by
job width and length (Leung et al. Tables I-II).
"""

from numbers import Real

import numpy as np
import pandas as pd

from .._deprecation import UNSET, renamed_argument
from .._table import _numeric, _raise_rows, per_job_numbers
from .._time import parse_duration
from .._validation import (Duration, check_parameters, invalid_parameter, python_scalar,
                           validate_params)
from ..exceptions import ConfigError, JobTableError
from ._fairness import fair_start_misses, miss_metrics
from ._schedule_table import _holds, _machine_procs, _table, _times, _widths

__all__ = [
    "BOUNDED_SLOWDOWN_THRESHOLD",
    "WIDTH_CATEGORIES",
    "LENGTH_CATEGORIES",
    "slowdown",
    "bounded_slowdown",
    "weighted_wait",
    "utilization",
    "makespan",
    "loss_of_capacity",
    "backfill_ratio",
    "wait_prediction_error",
    "width_category",
    "length_category",
    "schedule_metrics",
]

BOUNDED_SLOWDOWN_THRESHOLD = 10.0
"""Seconds: runtimes shorter than this count as this long in bounded slowdown."""

WIDTH_CATEGORIES = ("1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", "65-128", "129-256",
                    "257-512", "513+")
"""Job width classes of Leung et al. (2010) Tables I-II (processors)."""
_WIDTH_EDGES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])

LENGTH_CATEGORIES = ("0-60 min", "1-8 h", "8-16 h", "16-24 h", "1-2 days", "2+ days")
"""Job length classes of Leung et al. (2010) Tables I-II (simulated runtime)."""
_LENGTH_EDGES = np.array([1, 8, 16, 24, 48]) * 3600.0

SLOWDOWN_FLOOR = 1.0
"""Seconds: runtimes shorter than this count as this long in (plain) slowdown."""


def slowdown(schedule):
    """Per-job slowdown ``max(1, (wait + run) / max(run, 1 s))``.

    ``(wait + run) / run``, at least 1 by definition; a job shorter than a
    second (0 s runs are common in archive logs) counts as running 1 s, and
    its slowdown is then at least 1 too.
    """
    jobs = _table(schedule)
    submit, start, end, run = _times(jobs)
    return per_job_slowdown(end - submit, run, SLOWDOWN_FLOOR)


def per_job_slowdown(response, run, floor):
    """``max(1, response / max(run, floor))``: bounded slowdown, and plain slowdown
    with runtimes floored at ``floor``."""
    return np.maximum(1.0, response / np.maximum(run, floor))


@validate_params({"threshold": [Duration(positive=True)]})
def bounded_slowdown(schedule, *, threshold=BOUNDED_SLOWDOWN_THRESHOLD):
    """Per-job bounded slowdown ``max(1, (wait + run) / max(run, threshold))``.

    ``threshold`` is a duration > 0 (seconds, ``"1min"``, a ``pandas.Timedelta``).
    """
    jobs = _table(schedule)
    submit, start, end, run = _times(jobs)
    threshold = parse_duration(python_scalar(threshold), name="threshold")
    return per_job_slowdown(end - submit, run, threshold)


def weighted_wait(schedule, *, score="auto"):
    """Weighted average wait ``sum(W_i P_i) / sum(P_i)`` (Tang et al. 2013 eq. 4).

    ``P_i`` is the job's priority score when it started: ``"wfp"`` uses eq. 5,
    ``(wait / estimate)**3 * width`` with the estimate the scheduler used
    (``estimate`` column, else ``req_time``); ``"wait"`` uses the wait itself,
    Tang's score for FCFS. ``"auto"`` picks ``"wait"`` for schedules
    simulated with FCFS priority and ``"wfp"`` otherwise; a table of jobs (not
    a :class:`~predictkit.simulate.Schedule`) does not say its priority, and
    is weighed by ``"wait"`` (give ``score="wfp"`` for a WFP schedule's
    ``.jobs``). An estimate below 1 s counts as 1 s. Returns 0 when no job
    waited.

    Raises
    ------
    JobTableError
        With ``"wfp"``: a job whose estimate is missing, negative, infinite
        or not a number, naming the first.
    """
    jobs = _table(schedule)
    submit, start, end, run = _times(jobs)
    wait = start - submit
    if score == "auto":
        params = getattr(schedule, "params", {}) or {}
        score = "wait" if params.get("priority", "fcfs") == "fcfs" else "wfp"
    if score == "wait":
        weights = wait
    elif score == "wfp":
        column = "estimate" if "estimate" in jobs.columns else "req_time"
        if column not in jobs.columns:
            raise JobTableError("weighted_wait with score='wfp' needs 'estimate' or 'req_time'")
        est = _numeric(jobs, column, "schedule")
        bad = ~(est >= 0) | np.isinf(est)
        if bad.any():
            _raise_rows(jobs, bad, f"schedule: weighted_wait with score='wfp' weighs each job "
                        f"by its {column}: jobs without a finite one >= 0")
        est = np.maximum(est, 1.0)
        ratio = wait / est
        weights = ratio ** 3 * _widths(jobs)
    else:
        raise ConfigError(f"score must be 'auto', 'wfp' or 'wait', got {score!r}")
    total = weights.sum()
    return float((wait * weights).sum() / total) if total > 0 else 0.0


def makespan(schedule):
    """Last completion minus first start (Leung et al. section III.B)."""
    jobs = _table(schedule)
    submit, start, end, run = _times(jobs)
    return float(end.max() - start.min())


def utilization(schedule, *, machine_procs=None, n_procs=UNSET):
    """Processor-seconds used over ``makespan * machine_procs`` (Leung et al. III.B).

    ``machine_procs`` defaults to the schedule's machine size, else
    ``attrs["max_procs"]``; ``n_procs`` is its deprecated name (warns,
    removed in 0.3).
    """
    machine_procs = renamed_argument("utilization", "n_procs", "machine_procs", n_procs,
                                     machine_procs)
    jobs = _table(schedule)
    submit, start, end, run = _times(jobs)
    span = end.max() - start.min()
    if span <= 0:
        return 0.0
    used = (_widths(jobs) * run).sum()
    return float(used / (span * _machine_procs(schedule, machine_procs, "utilization")))


def loss_of_capacity(schedule, *, machine_procs=None, n_procs=UNSET):
    """Fraction of processor time left idle while jobs waited (Leung et al. eq. 1).

    ``LOC = integral of min(queued processors, idle processors) dt /
    (span * machine_procs)``, over the span from the first submission to the
    last completion, so that it is a fraction of the processor time it
    integrates over (in a simulated schedule the first job starts when it is
    submitted, and the span is the makespan; a log's own schedule may begin
    with jobs waiting); ``machine_procs`` as in :func:`utilization`
    (``n_procs`` is its deprecated name). The pieces of a split job
    (``max_runtime``) are queued and held as they were
    (:attr:`~predictkit.simulate.Schedule.pieces`); from a table of jobs
    alone, a job counts as held from its start for its ``sim_run_time``.
    """
    machine_procs = renamed_argument("loss_of_capacity", "n_procs", "machine_procs", n_procs,
                                     machine_procs)
    jobs = _table(schedule)
    size = _machine_procs(schedule, machine_procs, "loss_of_capacity")
    submit, start, held_end, width, _ = _holds(schedule, jobs)
    end = jobs["end_time"].to_numpy(dtype=float)
    times = np.concatenate([submit, start, start, held_end])
    queued = np.concatenate([width, -width, np.zeros_like(width), np.zeros_like(width)])
    busy = np.concatenate([np.zeros_like(width), np.zeros_like(width), width, -width])
    order = np.argsort(times, kind="stable")
    times, queued, busy = times[order], np.cumsum(queued[order]), np.cumsum(busy[order])
    rate = np.minimum(queued, size - busy)[:-1]
    lost = (np.maximum(rate, 0.0) * np.diff(times)).sum()
    span = end.max() - min(submit.min(), start.min())
    return float(lost / (span * size)) if span > 0 else 0.0


def backfill_ratio(schedule):
    """Share of jobs that were backfilled (Klusacek & Soysal 2019 section 3.2)."""
    jobs = _table(schedule)
    if "backfilled" not in jobs.columns:
        raise JobTableError("schedule lacks the 'backfilled' column")
    return float(_backfilled(jobs).mean())


def _backfilled(jobs):
    """The ``backfilled`` flags: True/False, or the numbers 0/1; anything else (text,
    a missing flag) is refused rather than read as True."""
    flags = jobs["backfilled"]
    if pd.api.types.is_bool_dtype(flags.dtype) or pd.api.types.is_numeric_dtype(flags.dtype):
        sound = flags.isin([0, 1]).to_numpy(dtype=bool)  # True == 1; NaN and NA are not in it
    else:
        sound = np.array([isinstance(v, (bool, np.bool_, Real)) and v in (0, 1)
                          for v in flags.tolist()], dtype=bool)
    if not sound.all():
        _raise_rows(jobs, ~sound, "schedule: column 'backfilled' holds something other than "
                    "True/False (or 0/1): text or a missing flag")
    return flags.to_numpy(dtype=float, na_value=np.nan) == 1


def wait_prediction_error(schedule):
    """Per-job absolute error of the wait promised at submission (Klusacek 4.1).

    ``|promised_start - start_time|``: the wait a conservative backfilling
    scheduler announces when the job arrives, against the wait it got.
    ``NaN`` for jobs without a promise (other policies).
    """
    jobs = _table(schedule)
    if "promised_start" not in jobs.columns:
        return np.full(len(jobs), np.nan)
    promised = _numeric(jobs, "promised_start", "schedule")
    if np.isinf(promised).any():
        _raise_rows(jobs, np.isinf(promised), "schedule: jobs whose promised_start is infinite")
    return np.abs(promised - _times(jobs)[1])


def width_category(widths):
    """Leung et al. Tables I-II width class of each job (``NaN`` where the width is
    unknown or not a positive number of processors)."""
    return _category(widths, _WIDTH_EDGES, WIDTH_CATEGORIES, lambda w: w > 0, "widths")


def length_category(runtimes):
    """Leung et al. Tables I-II length class of each job (seconds; ``NaN`` where the
    runtime is unknown or negative)."""
    return _category(runtimes, _LENGTH_EDGES, LENGTH_CATEGORIES, lambda r: r >= 0, "runtimes")


def _category(values, edges, names, sound, what):
    values = per_job_numbers(values, what)
    with np.errstate(invalid="ignore"):
        known = sound(values) & np.isfinite(values)
    index = np.searchsorted(edges, values, side="left")
    return pd.Categorical.from_codes(np.where(known, index, -1), names)


def _check_percentiles(percentiles):
    """``percentiles`` as a tuple of distinct numbers in [0, 100]."""
    fine = (not isinstance(percentiles, (str, bytes)) and hasattr(percentiles, "__iter__"))
    values = tuple(percentiles) if fine else ()
    fine = fine and all(isinstance(q, Real) and not isinstance(q, (bool, np.bool_))
                        and 0 <= q <= 100 for q in values)
    if not fine or len(set(values)) != len(values):
        raise invalid_parameter("percentiles", "schedule_metrics",
                                "a sequence of distinct numbers in [0, 100]", percentiles)
    return values


def _user_metrics(jobs, percentiles):
    submit, start, end, run = _times(jobs)
    wait = start - submit
    response = end - submit
    rows = [("n_jobs", float(len(jobs))), ("mean_wait", wait.mean())]
    for q in percentiles:
        rows.append((f"p{q:g}_wait", float(np.percentile(wait, q))))
    rows += [
        ("max_wait", wait.max()),
        ("mean_response", response.mean()),
        ("mean_slowdown", per_job_slowdown(response, run, SLOWDOWN_FLOOR).mean()),
        ("mean_bounded_slowdown",
         per_job_slowdown(response, run, BOUNDED_SLOWDOWN_THRESHOLD).mean()),
    ]
    if "backfilled" in jobs.columns:
        rows.append(("backfill_ratio", float(_backfilled(jobs).mean())))
    return rows


DEFAULT_PERCENTILES = (50, 90, 99)
"""Percentiles of the wait :func:`schedule_metrics` reports by default."""

SCHEDULE_METRIC_NAMES = (
    "n_jobs", "mean_wait", *(f"p{q:g}_wait" for q in DEFAULT_PERCENTILES), "max_wait",
    "mean_response", "mean_slowdown", "mean_bounded_slowdown", "backfill_ratio",
    "weighted_wait", "utilization", "makespan", "loss_of_capacity",
    "mean_wait_prediction_error")
"""The metrics :func:`schedule_metrics` can report with its default ``percentiles``
and without ``fairness`` (``backfill_ratio`` for a simulated schedule,
``mean_wait_prediction_error`` when it holds predicted waits)."""


def schedule_metrics(schedule, *, percentiles=DEFAULT_PERCENTILES, by=None, fairness=False,
                     machine_procs=None, n_procs=UNSET):
    """All schedule metrics as a tidy table.

    Parameters
    ----------
    schedule : Schedule or DataFrame
        A simulated schedule (:func:`predictkit.simulate.simulate`).
    percentiles : sequence of float
        Wait-time percentiles to report (distinct, in [0, 100]).
    by : {None, "width", "length"}
        Add a ``category`` column and report the per-job metrics for each
        Leung et al. width or length class (system-wide metrics are reported
        for the whole schedule only, with category ``"all"``; the fairness
        metrics are per job, by class too: Leung et al. Figs. 6 and 10).
    fairness : bool
        Add the hybrid fair-start-time metrics of Leung et al. section IV
        (:func:`predictkit.metrics.fairness_metrics`; slower).
    machine_procs : int, optional
        Machine size for ``utilization``, ``loss_of_capacity`` and the
        fairness metrics (default: the schedule's, else
        ``attrs["max_procs"]``); a whole number of processors, no smaller
        than the widest job. ``n_procs`` is its deprecated name (warns,
        removed in 0.3).

    Returns
    -------
    DataFrame
        Columns ``metric`` and ``value`` (and ``category`` with ``by``).
        Metrics: ``n_jobs``, ``mean_wait``, ``p<q>_wait``, ``max_wait``,
        ``mean_response``, ``mean_slowdown`` (:func:`slowdown`),
        ``mean_bounded_slowdown``, ``backfill_ratio``, ``weighted_wait`` (eq. 4), ``utilization``,
        ``makespan``, ``loss_of_capacity`` (eq. 1) and, for schedules with
        promised starts, ``mean_wait_prediction_error`` (Klusacek 4.1, over
        the jobs with a ``promised_start``: every job under conservative
        backfilling, the starvation queue's heads under ``starvation_after``).
    """
    machine_procs = renamed_argument("schedule_metrics", "n_procs", "machine_procs", n_procs,
                                     machine_procs)
    jobs = _table(schedule)
    if by not in (None, "width", "length"):
        raise ConfigError(f"by must be None, 'width' or 'length', got {by!r}")
    check_parameters({"fairness": ["boolean"]}, {"fairness": fairness}, "schedule_metrics")
    percentiles = _check_percentiles(percentiles)
    rows = _user_metrics(jobs, percentiles)
    rows += [
        ("weighted_wait", weighted_wait(schedule)),
        ("utilization", utilization(schedule, machine_procs=machine_procs)),
        ("makespan", makespan(schedule)),
        ("loss_of_capacity", loss_of_capacity(schedule, machine_procs=machine_procs)),
    ]
    error = wait_prediction_error(schedule)
    if np.isfinite(error).any():
        rows.append(("mean_wait_prediction_error", float(np.nanmean(error))))
    misses = None
    if fairness:
        misses = fair_start_misses(schedule, machine_procs=machine_procs)
        rows += list(miss_metrics(misses).items())
    table = pd.DataFrame(rows, columns=["metric", "value"])
    table["value"] = table["value"].astype(float)
    if by is None:
        return table
    table.insert(0, "category", "all")
    if by == "width":
        classes = width_category(_widths(jobs))
    else:
        submit, start, end, run = _times(jobs)
        classes = length_category(run)
    parts = [table]
    for name in classes.categories:
        chosen = np.asarray(classes == name)
        members = jobs.loc[chosen]
        if len(members) == 0:
            continue
        rows = _user_metrics(members, percentiles)
        if fairness:
            rows += list(miss_metrics(misses[chosen]).items())
        part = pd.DataFrame(rows, columns=["metric", "value"])
        part.insert(0, "category", name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)

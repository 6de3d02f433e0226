"""The simulated-job table every schedule metric reads, its times and the machine size."""

import numpy as np
import pandas as pd

from .._format import format_count
from .._summary import header_machine_size, whole_machine_size, wider_than_machine
from .._table import _numeric, _raise_rows, job_width
from .._validation import WholeNumber, check_parameters
from ..exceptions import ConfigError, JobTableError

_NEEDED = ("submit_time", "start_time", "end_time")


def _table(schedule):
    jobs = getattr(schedule, "jobs", schedule)
    if not isinstance(jobs, pd.DataFrame):
        raise JobTableError(
            f"expected a Schedule or a DataFrame of simulated jobs, got {type(schedule).__name__}")
    missing = [c for c in _NEEDED if c not in jobs.columns]
    if missing:
        raise JobTableError(
            f"schedule lacks column(s) {', '.join(missing)}; pass the result of simulate()")
    if len(jobs) == 0:
        rejected = getattr(schedule, "rejected", None)
        if rejected is not None and len(rejected):
            machine = getattr(schedule, "params", {}).get("machine_procs")
            raise JobTableError(f"the schedule has no jobs: all {format_count(len(rejected), 'job')} "
                                f"{'is' if len(rejected) == 1 else 'are'} wider than the machine "
                                f"({format_count(machine, 'processor')})")
        raise JobTableError("the schedule has no jobs")
    return jobs


def _widths(jobs):
    """Processors each job held: ``n_procs``, else ``req_procs``, as the simulator
    runs a job (:func:`~predictkit.jobs.job_width`)."""
    width = job_width(jobs)
    if np.isnan(width).any():
        first = int(np.argmax(np.isnan(width)))
        raise JobTableError(f"schedule: {int(np.isnan(width).sum()):,} job(s) have neither "
                            f"n_procs nor req_procs (first at row {first})")
    bad = ~(np.isfinite(width) & (width >= 1) & (width == np.round(width)))
    if bad.any():
        _raise_rows(jobs, bad, "schedule: jobs whose width (n_procs, else req_procs) is not a "
                    "whole number of processors >= 1")
    return width


def _times(jobs):
    """Submit, start and end instants and run times of the jobs, in seconds, checked
    to be a schedule's: every instant known and finite, no start before its
    submission nor end before its start, every run time finite and >= 0."""
    submit, start, end = (_numeric(jobs, column, "schedule") for column in _NEEDED)
    run = (_numeric(jobs, "sim_run_time", "schedule") if "sim_run_time" in jobs.columns
           else end - start)
    for values, column in ((submit, "submit_time"), (start, "start_time"), (end, "end_time")):
        if np.isnan(values).any():
            _raise_rows(jobs, np.isnan(values), f"schedule: jobs without {column}")
        if np.isinf(values).any():
            _raise_rows(jobs, np.isinf(values), f"schedule: jobs whose {column} is infinite")
    for bad, what in ((start < submit, "start before their submit_time"),
                      (end < start, "end before their start_time"),
                      (~(run >= 0) | np.isinf(run),
                       "have no run time (sim_run_time missing, negative or infinite)")):
        if bad.any():
            _raise_rows(jobs, bad, f"schedule: jobs that {what}")
    return submit, start, end, run


def _holds(schedule, jobs):
    """Each stretch a job held processors: ``(submit, start, end, width, row)``
    arrays, one entry per piece of a split job (:attr:`Schedule.pieces`, queued
    from its ``submit_time``), else one per row of ``jobs`` (from its start
    for ``sim_run_time``)."""
    submit, start, end, run = _times(jobs)
    width = _widths(jobs)
    pieces = getattr(schedule, "pieces", None)
    if pieces is None:
        return submit, start, start + run, width, np.arange(len(jobs))
    row = pieces["job"].to_numpy(dtype=np.int64)
    simulated = getattr(schedule, "simulated_index", None)
    if simulated is not None and not jobs.index.equals(simulated):
        if not (simulated.is_unique and jobs.index.is_unique
                and jobs.index.isin(simulated).all()):
            raise JobTableError(
                "schedule: its jobs table is no longer the one simulate() gave (rows sorted, "
                "filtered or added) and row labels cannot say which job each piece of a split "
                "job belongs to (labels repeated, or not the simulated jobs'); compute the "
                "metrics on the schedule as returned")
        row = jobs.index.get_indexer(simulated[row])
        pieces = pieces[row >= 0]
        row = row[row >= 0]
    return (pieces["submit_time"].to_numpy(dtype=float),
            pieces["start_time"].to_numpy(dtype=float),
            pieces["end_time"].to_numpy(dtype=float), width[row], row)


def _machine_procs(schedule, machine_procs, owner="schedule_metrics"):
    """The machine size a metric divides by: ``machine_procs`` (a whole number
    of processors), else the schedule's, else ``attrs["max_procs"]``; no
    smaller than the widest job of the schedule."""
    if machine_procs is not None:
        check_parameters({"machine_procs": [WholeNumber(1)]}, {"machine_procs": machine_procs},
                         owner)
        size = int(machine_procs)
    else:
        params = getattr(schedule, "params", None)
        jobs = getattr(schedule, "jobs", schedule)
        if params and params.get("machine_procs"):
            size = whole_machine_size(params["machine_procs"], "params['machine_procs']", owner)
        else:
            size = header_machine_size(jobs, owner)
        if size is None:
            raise ConfigError(f"{owner}: machine_procs is needed (not a Schedule and no "
                              "attrs['max_procs'])")
    width = _widths(_table(schedule))
    if (width > size).any():
        raise JobTableError(f"{owner}: {wider_than_machine(int((width > size).sum()), size)} "
                            f"in the schedule; machine_procs must be at least its widest job "
                            f"({format_count(int(width.max()), 'processor')})")
    return size

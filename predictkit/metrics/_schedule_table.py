"""The simulated-job table every schedule metric reads, its times and the machine size."""

import numpy as np
import pandas as pd

from .._format import format_count
from .._table import job_width
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
    return width


def _times(jobs):
    submit = jobs["submit_time"].to_numpy(dtype=float)
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    run = (jobs["sim_run_time"].to_numpy(dtype=float) if "sim_run_time" in jobs.columns
           else end - start)
    if np.isnan(start).any() or np.isnan(end).any():
        raise JobTableError("schedule has jobs without start or end times")
    return submit, start, end, run


def _machine_procs(schedule, machine_procs):
    if machine_procs is not None:
        return int(machine_procs)
    params = getattr(schedule, "params", None)
    if params and params.get("machine_procs"):
        return int(params["machine_procs"])
    jobs = getattr(schedule, "jobs", schedule)
    value = jobs.attrs.get("max_procs")
    if value is None or value != value:
        raise ConfigError("machine_procs is needed (not a Schedule and no attrs['max_procs'])")
    return int(value)

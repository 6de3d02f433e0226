"""The evaluation of one grid cell: replay a predictor on a trace, optionally simulate it."""

import functools

import numpy as np

from ._identity import resolve_trace, trace_identity
from ._validate import check_cells

__all__ = ["evaluate_cell", "load_cell_trace"]


@functools.lru_cache(maxsize=4)
def _read(trace, identity, seed, max_jobs):
    """The cleaned job table; ``identity`` (the file's content identity) keys the cache."""
    from ..datasets import load_trace, make_workload
    from ..exceptions import JobTableError
    from ..io import read_log
    from .._table import copy_attrs
    from ..jobs import clean_jobs
    from ..simulate._observed_waits import with_observed_waits

    if trace.startswith("synthetic"):
        n_jobs = int(trace.partition(":")[2] or 10000)
        jobs = make_workload(n_jobs=n_jobs, random_state=seed)
    elif resolve_trace(trace) is not None:
        jobs = read_log(resolve_trace(trace))
    else:
        jobs = load_trace(trace)
    n_read = len(jobs)
    jobs = clean_jobs(jobs, require_request=True)
    if len(jobs) == 0:
        raise JobTableError(f"{trace}: no job left of {n_read:,} after removing those without a "
                            f"usable size, runtime or requested time")
    if max_jobs is not None:
        attrs = copy_attrs(jobs)
        jobs = jobs.iloc[: int(max_jobs)].reset_index(drop=True)
        jobs.attrs = attrs
    return with_observed_waits(jobs)[0]


def load_cell_trace(cell):
    """The job table a cell works on (cached per process).

    ``trace`` is a file path, a name known to :func:`predictkit.datasets.load_trace`
    (``PREDICTKIT_TRACES`` folders, then the cache), or ``"synthetic:N"`` for
    :func:`predictkit.datasets.make_workload` with ``options.seed``. Jobs
    without a usable size, runtime or request are removed
    (:func:`predictkit.clean_jobs`), ``options.max_jobs`` keeps the first
    ones, and a log without waits gets those of an EASY simulation. The
    per-process cache is keyed on the trace file's content identity, so a
    file changed on disk is read again.

    Raises
    ------
    ConfigError
        For any invalid value of the cell (see
        :func:`~predictkit.experiments.check_cells`).
    """
    check_cells([cell])
    options = cell.get("options", {})
    trace = str(cell["trace"])
    return _read(trace, trace_identity(trace), options.get("seed", 0), options.get("max_jobs"))


def evaluate_cell(cell):
    """Evaluate one cell of a sweep and return its metrics.

    The predictor (``cell["predictor"]`` with ``cell["params"]``, see
    :func:`predictkit.runtime.make_predictor`; ``"perfect"`` for the actual
    runtimes) is replayed online over the trace: ``accuracy`` (Tang et al.
    2013 eq. 3), ``underestimated``, ``mae`` and the ``NA``/``OE``/``UE``/``BE``
    shares. With a ``policy``, the trace is also simulated with the
    predictor's estimates (``options.selective``, ``on_underestimate``,
    ``backfill_order``) and ``priority``, adding every schedule metric.
    With ``options.wait_bounds`` (``"qbets"`` or ``"wait"``), per-job wait
    bounds at ``options.wait_quantile`` (default 0.95) are replayed online
    as ``predictkit bounds --method`` does (method defaults; WaitPredictor's
    capacity is ``options.machine_procs``, else the log header's), adding
    :func:`predictkit.metrics.bound_summary` prefixed ``wait_``
    (``wait_correctness``, ``wait_median_ratio``, ...).
    """
    from .._time import parse_duration
    from ..metrics import (adjustment_outcomes, estimate_accuracy, mean_absolute_error,
                           underestimation_rate)
    from ..model_selection import replay
    from ..runtime import make_predictor
    from ..runtime._registry import PERFECT
    from ..simulate import simulate

    jobs = load_cell_trace(cell)
    options = cell.get("options", {})
    run = np.asarray(jobs["run_time"], dtype=float)
    requested = np.asarray(jobs["req_time"], dtype=float)
    out = {"n_jobs": len(jobs)}
    if cell["predictor"] == PERFECT:
        estimator, estimate = "perfect", np.minimum(run, requested)
    else:
        estimator = make_predictor(cell["predictor"], **cell["params"])
        estimate = replay(estimator, jobs, run)
    out["accuracy"] = estimate_accuracy(run, estimate)
    out["underestimated"] = underestimation_rate(run, estimate)
    out["mae"] = mean_absolute_error(run, estimate)
    out.update(adjustment_outcomes(run, requested, estimate,
                                   bad_threshold=parse_duration(options.get("bad_threshold", 1800),
                                                                name="bad_threshold")))
    if "wait_bounds" in options:
        out.update(_wait_bound_metrics(jobs, options))
    if cell.get("policy"):
        kwargs = {k: options[k] for k in ("on_underestimate", "backfill_order", "machine_procs",
                                          "max_runtime") if k in options}
        if cell["policy"] == "no_guarantee":
            kwargs.update({k: options[k] for k in ("starvation_after", "starvation_bar_heavy")
                           if k in options})
        if "n_procs" in options and "machine_procs" not in options:  # deprecated option name
            kwargs["machine_procs"] = options["n_procs"]
        schedule = simulate(jobs, policy=cell["policy"], priority=cell.get("priority") or "fcfs",
                            estimates=estimator, selective=bool(options.get("selective", False)),
                            **kwargs)
        table = schedule.metrics()
        out.update({f"schedule_{m}": float(v) for m, v in zip(table["metric"], table["value"])})
    return out


def _wait_bound_metrics(jobs, options):
    """``bound_summary`` of the cell's wait bounds, keys prefixed ``wait_``."""
    from ..metrics import bound_summary
    from ..queue._replay import make_wait_model, replay_wait_bounds

    quantile = float(options.get("wait_quantile", 0.95))
    capacity = options.get("machine_procs", options.get("n_procs")) or jobs.attrs.get("max_procs")
    model = make_wait_model(options["wait_bounds"], quantile=quantile, capacity=capacity)
    usable, bounds = replay_wait_bounds(model, jobs)
    waits = np.asarray(jobs["wait_time"], dtype=float)[usable]
    summary = bound_summary(waits, bounds, quantile=quantile)
    return {f"wait_{name}": value for name, value in summary.items()}

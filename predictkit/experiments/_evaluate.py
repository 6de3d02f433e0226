"""The evaluation of one grid cell: replay a predictor on a trace, optionally simulate it."""

import functools

import numpy as np

from ..runtime._walltime_adjuster import DEFAULT_KEYS, grouping_keys
from ._identity import cell_trace, is_synthetic, resolve_trace, trace_identity
from ._validate import check_values, simulate_options

__all__ = ["evaluate_cell", "load_cell_trace", "check_trace_jobs"]


def _usable(jobs, trace):
    """The jobs with a usable size, runtime and request (every cell needs the three)."""
    from ..exceptions import JobTableError
    from ..jobs import clean_jobs

    n_read = len(jobs)
    jobs = clean_jobs(jobs, require_request=True)
    if len(jobs) == 0:
        raise JobTableError(f"{trace}: no job left of {n_read:,} after removing those without a "
                            f"usable size, runtime or requested time")
    return jobs


@functools.lru_cache(maxsize=1)
def _logged_jobs(trace, identity):
    """The usable jobs of a trace file or name; ``identity`` (the file's content identity)
    keys the cache, which keeps the last trace read: the one :func:`check_trace_jobs` reads
    last is the first one the cells need."""
    from ..datasets import load_trace
    from ..io import read_log

    path = resolve_trace(trace)
    return _usable(read_log(path) if path is not None else load_trace(trace), trace)


@functools.lru_cache(maxsize=4)
def _read(trace, identity, seed, max_jobs):
    """The cleaned job table of a cell, its first ``max_jobs``, with waits."""
    from ..datasets import make_workload
    from .._summary import first_jobs
    from ..simulate._observed_waits import with_observed_waits

    if is_synthetic(trace):
        n_jobs = int(trace.partition(":")[2] or 10000)
        jobs = _usable(make_workload(n_jobs=n_jobs, random_state=seed), trace)
    else:
        jobs = _logged_jobs(trace, identity)
    if max_jobs is not None:
        jobs = first_jobs(jobs, max_jobs, reset_index=True)
    return with_observed_waits(jobs)[0]


def check_trace_jobs(cells, *, source=None):
    """Read each trace file of a grid once and refuse one that no cell could use.

    Every cell needs jobs with a usable size, runtime and requested time; a
    log whose jobs all lack one (no requested times, as in SDSC-Par-1996)
    would fail only when its first cell runs, after the cells before it. The
    check parses each distinct file once (SWF keeps a column of ``-1`` where
    a log has no value, so only the values tell); ``synthetic:N`` traces are
    not generated for it. The last file read stays in the per-process cache
    and is the first one the cells read.

    Parameters
    ----------
    cells : list of dict
        From :func:`~predictkit.experiments.expand_grid`, already checked
        (:func:`~predictkit.experiments.check_cells`).
    source : str or path, optional
        The grid file, named in error messages.

    Raises
    ------
    ConfigError
        For the first trace that cannot be read or has no usable job, or
        whose jobs a Tang cell's given ``keys`` cannot group (a key the log
        gives for no job: every job would keep its request), naming the grid
        file and the trace.

    Warns
    -----
    UserWarning
        When Tang cells without ``keys`` will leave out a default key that a
        trace gives for no job
        (:func:`predictkit.runtime._walltime_adjuster.grouping_keys`); when
        the machine a trace's cells simulate (``options.machine_procs``, else
        the log's) is narrower than some of its jobs, which their schedules
        leave out, or than what the log keeps busy at once
        (:func:`predictkit._summary.busier_than_machine`), as ``predictkit
        simulate`` warns; when jobs of a trace are left out (no usable size,
        runtime or request: :func:`predictkit.clean_jobs`); when a predictor
        that learns from each user's past jobs runs on a trace that gives no
        user (its cells keep every request).
    """
    import warnings

    from ..exceptions import ConfigError, PredictkitError
    from ..jobs import describe_cleaning
    from ..runtime._walltime_adjuster import unusable_keys

    where = f"{source}: " if source is not None else ""
    files = list(dict.fromkeys(str(path) for path in map(cell_trace, cells) if path is not None))
    for path in reversed(files):
        try:
            jobs = _logged_jobs(path, trace_identity(path))
        except PredictkitError as exc:
            raise ConfigError(f"{where}traces: {str(exc).splitlines()[0]}") from None
        tang = [c for c in cells if c["predictor"] == "tang" and str(cell_trace(c)) == path]
        given = [c["params"]["keys"] for c in tang if "keys" in c["params"]]
        for keys in dict.fromkeys(k if isinstance(k, str) else ",".join(k) for k in given):
            unusable = unusable_keys(jobs, keys)
            if unusable:
                key, reason = next(iter(unusable.items()))
                raise ConfigError(f"{where}tang keys {keys!r}: {path} {reason}, so Tang would "
                                  "adjust no job; leave the key out for this trace")
        left_out = describe_cleaning(jobs.attrs.get("cleaning", []))
        if left_out:
            warnings.warn(f"{path}: left out {left_out}, in every cell (options.max_jobs "
                          "counts the jobs kept)", UserWarning, stacklevel=2)
        _refuse_too_many_pieces(jobs, path, [c for c in cells if str(cell_trace(c)) == path],
                                where)
        _warn_small_machine(jobs, path, [c for c in cells if str(cell_trace(c)) == path])
        _warn_simulated_waits(jobs, path, [c for c in cells if str(cell_trace(c)) == path])
        _warn_ungrouped(jobs, path, [c for c in cells if str(cell_trace(c)) == path
                                     and c["predictor"] != "tang"])
        kept = grouping_keys(jobs)
        if any("keys" not in c["params"] for c in tang) and kept != DEFAULT_KEYS:
            left_out = [k for k in DEFAULT_KEYS if k not in kept]
            warnings.warn(f"{path} gives {', '.join(left_out)} for no job: its tang cells "
                          f"without keys leave {'it' if len(left_out) == 1 else 'them'} out "
                          "(column tang_keys of the results)", UserWarning, stacklevel=2)


def _refuse_too_many_pieces(jobs, path, cells, where):
    """Refuse, before any cell runs, a ``max_runtime`` that would cut the jobs a cell
    simulates into more pieces than ``simulate`` takes
    (:func:`predictkit.simulate._simulate.piece_counts`)."""
    from .._summary import machine_size
    from .._table import job_width
    from .._time import parse_duration
    from ..exceptions import ConfigError
    from ..simulate._simulate import piece_counts, simulated_runtimes

    simulated, _ = simulated_runtimes(np.asarray(jobs["run_time"], dtype=float),
                                      np.asarray(jobs["req_time"], dtype=float))
    width = job_width(jobs)
    seen = set()
    for cell in cells:
        options = cell.get("options", {})
        if not cell.get("policy") or options.get("max_runtime") is None:
            continue
        size = options.get("machine_procs", options.get("n_procs"))
        case = (str(options["max_runtime"]), options.get("max_jobs"), size)
        if case in seen:
            continue
        seen.add(case)
        used = slice(None, options.get("max_jobs"))
        fits = width[used] <= machine_size(jobs, size)[0]
        try:
            piece_counts(simulated[used][fits],
                         parse_duration(options["max_runtime"], name="max_runtime"))
        except ConfigError as exc:
            raise ConfigError(f"{where}options.max_runtime = {options['max_runtime']!r}: on "
                              f"{path}, {exc}") from None


def _warn_simulated_waits(jobs, path, cells):
    """Warn that the jobs of a trace without a wait in the log get the waits of an EASY
    simulation (:func:`~predictkit.simulate._observed_waits.with_observed_waits`): those
    the cells use (their ``options.max_jobs`` first ones)."""
    import warnings

    from .._format import format_count

    cuts = [c.get("options", {}).get("max_jobs") for c in cells]
    used = len(jobs) if not cuts or None in cuts else max(int(cut) for cut in cuts)
    waits = np.asarray(jobs["wait_time"], dtype=float)[:used]
    missing = int((~np.isfinite(waits)).sum())
    if not missing:
        return
    bounded = any("wait_bounds" in c.get("options", {}) for c in cells)
    also = ", and as the waits wait_bounds bound" if bounded else ""
    one = missing == 1
    warnings.warn(f"{path}: {format_count(missing, 'job')} {'has' if one else 'have'} no wait "
                  f"time in the log: every cell takes {'its wait' if one else 'their waits'} "
                  f"from an EASY simulation of the log with requested estimates (for when "
                  f"runtimes become known{also})",
                  UserWarning, stacklevel=3)


def _warn_ungrouped(jobs, path, cells):
    """Warn about each predictor of a trace's cells that learns from the jobs of each
    user (or group) where the log gives none: its cells keep every request."""
    import warnings

    from ..runtime import make_predictor
    from ..runtime._base import ungrouped_reason

    for name in dict.fromkeys(c["predictor"] for c in cells):
        if name == "perfect":
            continue
        params = next(c["params"] for c in cells if c["predictor"] == name)
        reason = ungrouped_reason(make_predictor(name, **params), jobs)
        if reason is not None:
            warnings.warn(f"{path}: {name} (in its {name} cells) {reason}", UserWarning,
                          stacklevel=3)


def _warn_small_machine(jobs, path, cells):
    """Warn, as ``predictkit simulate`` does, about each machine a trace's cells simulate
    that is narrower than some of its jobs or than what its own schedule keeps busy."""
    import warnings

    from .._summary import busier_than_machine, machine_size, wider_than_machine, width_unit
    from .._table import job_width

    sizes = dict.fromkeys(c.get("options", {}).get("machine_procs",
                                                   c.get("options", {}).get("n_procs"))
                          for c in cells if c.get("policy"))
    width = job_width(jobs)
    for size in sizes:
        machine, _ = machine_size(jobs, size)
        wider = int((width > machine).sum())
        where = f"options.machine_procs {size:,}" if size is not None else "the log's"
        if wider:
            warnings.warn(f"{path}: {wider_than_machine(wider, machine, width_unit(jobs))} left "
                          f"out of its cells' schedules ({where}; see schedule_n_jobs)",
                          UserWarning, stacklevel=3)
        note = busier_than_machine(jobs, size, option="options.machine_procs")
        if note:
            warnings.warn(f"{path}: {note}", UserWarning, stacklevel=3)


def load_cell_trace(cell):
    """The job table a cell works on (cached per process).

    ``trace`` is a file path (relative ones from the cell's ``grid_folder``,
    else the working folder), a name known to :func:`predictkit.datasets.load_trace`
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
    check_values([cell])
    options = cell.get("options", {})
    path = cell_trace(cell)
    trace = str(cell["trace"]) if path is None else str(path)
    return _read(trace, trace_identity(trace), options.get("seed", 0), options.get("max_jobs"))


def evaluate_cell(cell):
    """Evaluate one cell of a sweep and return its metrics.

    The predictor (``cell["predictor"]`` with ``cell["params"]``, see
    :func:`predictkit.runtime.make_predictor`; ``"perfect"`` for the actual
    runtimes, capped at the request as the simulator caps every estimate)
    is replayed online over the trace: ``accuracy`` (Tang et al. 2013 eq. 3), ``underestimated``, ``mae`` and the ``NA``/``OE``/``UE``/``BE``
    shares. With a ``policy``, the trace is also simulated with the
    predictor's estimates, ``priority`` and the options its policy uses
    (``selective``, ``on_underestimate``, ``machine_procs``, ``max_runtime``;
    ``backfill_order`` for policies that backfill in an order,
    ``starvation_after`` and ``starvation_bar_heavy`` for ``no_guarantee``),
    adding every schedule metric.
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
        params = dict(cell["params"])
        if cell["predictor"] == "tang" and "keys" not in params:
            params["keys"] = grouping_keys(jobs)
            out["tang_keys"] = ",".join(params["keys"])
        estimator = make_predictor(cell["predictor"], **params)
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
        schedule = simulate(jobs, policy=cell["policy"], priority=cell.get("priority") or "fcfs",
                            estimates=estimator, **simulate_options(cell))
        if len(schedule.rejected) and is_synthetic(cell["trace"]):
            _warn_rejected(cell, len(schedule.rejected), schedule.machine_procs)
        table = schedule.metrics()
        out.update({f"schedule_{m}": float(v) for m, v in zip(table["metric"], table["value"])})
    return out


def _warn_rejected(cell, n_rejected, machine):
    """Warn that a synthetic trace's jobs wider than the cell's machine were left out
    of its schedule (a log's are warned of before the sweep, by :func:`check_trace_jobs`)."""
    import warnings

    from .._summary import wider_than_machine
    from ..workload._synthetic import DEFAULT_MACHINE_PROCS

    warnings.warn(f"{cell['trace']}: {wider_than_machine(n_rejected, machine)} left out of its "
                  f"cells' schedules (options.machine_procs {int(machine):,}; see "
                  "schedule_n_jobs): a synthetic workload is generated for "
                  f"{DEFAULT_MACHINE_PROCS:,} processors", UserWarning, stacklevel=3)


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

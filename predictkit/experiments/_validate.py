"""Checking every value of a grid before any cell runs, so a sweep fails in its first second.

Each error is one :class:`~predictkit.exceptions.ConfigError` line naming the
grid file and the key, e.g. ``grid.toml: predictors.tang.params.quantile = 7:
...`` or ``grid.toml: options.max_jobs = -5: must be a whole number >= 1``.
"""

import functools
import numbers
import os
import re

from .._deprecation import warn_renamed
from .._validation import MAX_SEED
from ..exceptions import ConfigError, PredictkitError
from ._identity import FOLDER_KEY, SYNTHETIC_TRACE, is_synthetic, resolve_trace, trace_path

__all__ = ["check_cells", "check_values", "simulate_options", "OPTIONS", "DEPRECATED_OPTIONS"]



def _count(minimum, maximum=None):
    bounds = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum:,}"

    def check(value):
        if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                or value < minimum or (maximum is not None and value > maximum)):
            raise ValueError(f"must be a whole number {bounds}")
        return int(value)
    return check


def _flag(value):
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _choice(*choices):
    def check(value):
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value
    return check


def _duration(value):
    from .._time import parse_duration

    return parse_duration(value, name="it")


def _positive_duration(value):
    seconds = _duration(value)
    if not seconds > 0:
        raise ValueError("must be a positive duration")
    return seconds


def _fraction(value):
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not 0 < value < 1):
        raise ValueError("must be a number in (0, 1)")
    return float(value)


def _wait_method(value):
    from ..queue._replay import WAIT_METHODS

    return _choice(*WAIT_METHODS)(value)


def _underestimate(value):
    from ..simulate._estimates import UNDERESTIMATE_RULES

    return _choice(*UNDERESTIMATE_RULES)(value)


OPTIONS = {
    "max_jobs": (_count(1), "keep the first N jobs of the cleaned trace"),
    "seed": (_count(0, MAX_SEED), "random seed of synthetic traces (default 0: a sweep "
                                  "repeats)"),
    "selective": (_flag, "selective backfilling (simulate(selective=...))"),
    "on_underestimate": (_underestimate, "what the simulator does when an estimate runs out"),
    "backfill_order": (_choice("priority", "sjf"), "order of backfill candidates"),
    "bad_threshold": (_duration, "over-estimate threshold for adjustment outcomes"),
    "machine_procs": (_count(1), "machine size in processors"),
    "max_runtime": (_positive_duration, "split longer jobs into chained pieces "
                                        "(simulate(max_runtime=...), Leung V.A)"),
    "starvation_after": (_duration, "no_guarantee cells: CPlant's FCFS starvation queue, "
                                    "entered after this wait (simulate(starvation_after=...))"),
    "starvation_bar_heavy": (_flag, "no_guarantee cells with starvation_after: heavy users do "
                                    "not enter the starvation queue"),
    "wait_bounds": (_wait_method, "also replay per-job wait bounds online, as 'predictkit "
                                  "bounds --method' does: qbets or wait (WaitPredictor)"),
    "wait_quantile": (_fraction, "wait_bounds cells: quantile of the wait to bound "
                                 "(default 0.95)"),
}
"""Options a grid may set: name -> (checker, meaning)."""

DEPRECATED_OPTIONS = {"n_procs": "machine_procs"}
"""Old option names still accepted, with a ``DeprecationWarning``, until 0.3: old -> new."""


_POLICY_OPTIONS = {"backfill_order": "backfill_order", "starvation_after": "starvation_after",
                   "starvation_bar_heavy": "starvation_after"}
"""Options that only some policies use: name -> the ``simulate`` parameter whose policies
take it (:func:`predictkit.simulate._policies.policies_taking`)."""

_SIMULATE_OPTIONS = ("selective", "on_underestimate", "machine_procs", "max_runtime",
                     *_POLICY_OPTIONS)
"""The options passed on to ``simulate``."""


def _simulates(cell):
    return cell["policy"] is not None


def _users(name):
    """``(whether a cell uses option name, which cells do)``, or None when all cells do."""
    if name in _POLICY_OPTIONS:
        from ..simulate._policies import policies_taking

        takers = policies_taking(_POLICY_OPTIONS[name])
        return (lambda cell: cell["policy"] in takers), "policy " + " or ".join(takers)
    if name == "machine_procs":  # also the machine size of wait bounds
        return (lambda cell: _simulates(cell) or "wait_bounds" in cell.get("options", {}),
                "a policy or options.wait_bounds")
    if name in _SIMULATE_OPTIONS:
        return _simulates, "a policy"
    if name == "seed":
        return (lambda cell: is_synthetic(cell["trace"]),
                "a synthetic trace ('synthetic:N')")
    return None


def simulate_options(cell):
    """The keyword arguments of ``simulate`` that a cell's options give for its policy.

    An option the cell's policy does not use is left out (``starvation_after``
    for the ``easy`` cells of a grid that also has ``no_guarantee`` cells):
    ``simulate`` would refuse or ignore it. :func:`check_cells` refuses an
    option that no cell of the grid uses. An old name of
    :data:`DEPRECATED_OPTIONS` gives way to the new one.
    """
    options = cell.get("options", {})
    options = {**{DEPRECATED_OPTIONS.get(name, name): value for name, value in options.items()},
               **{name: value for name, value in options.items() if name in OPTIONS}}
    return {name: options[name] for name in _SIMULATE_OPTIONS
            if name in options and _users(name)[0](cell)}


def _fail(source, key, value, reason):
    where = f"{source}: " if source is not None else ""
    reason = str(reason).splitlines()[0] if str(reason) else type(reason).__name__
    raise ConfigError(f"{where}{key} = {value!r}: {reason}")


def _check_options(options, source):
    for name, value in options.items():
        known = DEPRECATED_OPTIONS.get(name, name)
        if known not in OPTIONS:
            where = f"{source}: " if source is not None else ""
            raise ConfigError(f"{where}unknown option options.{name}; known: "
                              f"{', '.join(sorted(OPTIONS))}")
        try:
            OPTIONS[known][0](value)
        except (PredictkitError, ValueError, TypeError) as exc:
            _fail(source, f"options.{name}", value, exc)
    if options.get("starvation_bar_heavy") and "starvation_after" not in options:
        _fail(source, "options.starvation_bar_heavy", options["starvation_bar_heavy"],
              "needs options.starvation_after (it bars heavy users from the starvation queue)")
    if "wait_quantile" in options and "wait_bounds" not in options:
        _fail(source, "options.wait_quantile", options["wait_quantile"],
              "needs options.wait_bounds (qbets or wait: the wait bound it sets the quantile of)")


def _predictor_of(cell):
    """A cell's predictor and parameters, as one hashable value."""
    return cell["predictor"], repr(sorted(cell["params"].items()))


def _warn_blind_schedulers(cells):
    """Warn once per scheduler of the grid whose schedules no runtime estimate changes,
    when the grid compares predictors: their cells' schedule metrics are all equal
    (:func:`predictkit.simulate._policies.estimates_matter`)."""
    import warnings

    from ..simulate._policies import estimates_matter

    if len({_predictor_of(cell) for cell in cells}) < 2:
        return
    blind = {}
    for cell in cells:
        if not cell["policy"]:
            continue
        options = simulate_options(cell)
        priority = cell["priority"] or "fcfs"
        if not estimates_matter(cell["policy"], priority,
                                options.get("backfill_order", "priority"),
                                options.get("starvation_after"),
                                options.get("reservation_depth")):
            blind.setdefault((cell["policy"], priority))
    for policy, priority in blind:
        warnings.warn(f"no runtime estimate changes the schedules of policy {policy} with "
                      f"priority {priority} (no backfilling, or backfilling in queue order "
                      f"without reservations): their schedule metrics are the same for every "
                      f"predictor", UserWarning, stacklevel=3)


def _check_used(cells, source):
    """Refuse an option that no cell uses (say, ``selective`` in a grid without policies)."""
    given = {}
    for cell in cells:
        given.update(cell.get("options", {}))
    for name, value in given.items():
        users = _users(DEPRECATED_OPTIONS.get(name, name))
        if users is not None and not any(name in cell.get("options", {}) and users[0](cell)
                                         for cell in cells):
            _fail(source, f"options.{name}", value,
                  f"used only by cells with {users[1]}, and this grid has none")


_BYTES_PER_SYNTHETIC_JOB = 2048
"""Rough peak memory of one generated job through a cell (generation, replay, simulation)."""


def _memory_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None


def _check_trace(trace, folder, source):
    match = SYNTHETIC_TRACE.fullmatch(trace)
    if match:
        count = match.group(1)
        if count is not None and not re.fullmatch(r"[1-9][0-9_]*", count.strip()):
            _fail(source, "traces", trace,
                  "a synthetic trace is 'synthetic' or 'synthetic:N' with N a whole number "
                  ">= 1 written without leading zeros (jobs to generate)")
        need = int(count or 10000) * _BYTES_PER_SYNTHETIC_JOB
        memory = _memory_bytes()
        if memory is not None and need > memory:
            _fail(source, "traces", trace,
                  f"{int(count):,} jobs would need about {need / 2**30:,.0f} GiB of memory "
                  f"(about {_BYTES_PER_SYNTHETIC_JOB // 1024} KiB per job); this machine has "
                  f"{memory / 2**30:,.0f} GiB")
        return
    path = trace_path(trace, folder)
    if path.is_dir():
        _fail(source, "traces", trace, "is a directory, not a trace file")
    if resolve_trace(trace, folder) is None:
        beside = (f" (a relative path starts from the grid's folder, {folder})"
                  if path != trace_path(trace) else "")
        _fail(source, "traces", trace, "no such file, and no trace of that name in the "
                                       "PREDICTKIT_TRACES folders or the cache "
                                       f"('predictkit fetch NAME' downloads archive logs){beside}")


@functools.lru_cache(maxsize=1)
def _tiny_jobs():
    import pandas as pd

    from ..jobs import as_job_table

    return as_job_table(pd.DataFrame({
        "job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0], "wait_time": [0.0, 0.0, 0.0],
        "run_time": [5.0, 6.0, 7.0], "n_procs": [1.0, 1.0, 1.0], "req_procs": [1.0, 1.0, 1.0],
        "req_time": [60.0, 60.0, 60.0], "status": [1.0, 1.0, 1.0], "user_id": [1.0, 1.0, 2.0],
        "group_id": [1.0, 1.0, 1.0], "app_id": [1.0, 1.0, 1.0], "queue_id": [1.0, 1.0, 1.0],
        "partition_id": [1.0, 1.0, 1.0]}))


def _fit_tiny(name, params):
    from ..runtime import make_predictor

    jobs = _tiny_jobs()
    make_predictor(name, **params).fit(jobs, jobs["run_time"])


def _check_predictor(name, params, source):
    from ..runtime._registry import ESTIMATE_NAMES, PERFECT

    if name not in ESTIMATE_NAMES:
        _fail(source, "predictors", name,
              f"unknown predictor; choose one of {', '.join(ESTIMATE_NAMES)}")
    if name == PERFECT:
        if params:
            _fail(source, f"predictors.{name}.params", params, f"{PERFECT!r} takes no parameters")
        return
    for key, value in params.items():
        try:
            _fit_tiny(name, {key: value})
        except (PredictkitError, ValueError, TypeError) as exc:
            _fail(source, f"predictors.{name}.params.{key}", value, exc)
    try:
        _fit_tiny(name, params)
    except (PredictkitError, ValueError, TypeError) as exc:
        _fail(source, f"predictors.{name}.params", params, exc)


def _check_choice(kind, value, choices, source):
    if value is not None and value not in choices:
        _fail(source, kind, value, f"must be one of {', '.join(choices)}")


def check_cells(cells, *, source=None):
    """Check every value of a grid's cells for :func:`~predictkit.experiments.evaluate_cell`.

    The options are checked for the grid as a whole too: an option that no
    cell uses is refused (``starvation_after`` in a grid without
    ``no_guarantee`` cells, ``selective`` in a grid without policies, ``seed``
    without a synthetic trace), while a grid whose cells use it only in part
    applies it to those (``simulate_options``).

    Parameters
    ----------
    cells : list of dict
        From :func:`~predictkit.experiments.expand_grid`.
    source : str or path, optional
        The grid file, named in error messages.

    Raises
    ------
    ConfigError
        The first invalid value, as one line naming the file and the key:
        a trace that is no file, no known trace and no ``synthetic:N``; an
        unknown predictor or parameter, or a parameter value the predictor
        refuses (a quantile of 7, a negative window); an unknown policy or
        priority; an unknown option or an option value out of range
        (``max_jobs`` must be a whole number >= 1); an option no cell uses.

    Warns
    -----
    DeprecationWarning
        Once per old option name of :data:`DEPRECATED_OPTIONS` the grid uses
        (``n_procs``, now ``machine_procs``).
    """
    check_values(cells, source)
    _check_used(cells, source)
    _warn_blind_schedulers(cells)


def check_values(cells, source=None):
    """The checks of :func:`check_cells` that hold cell by cell (not the options' use)."""
    from ..simulate import POLICIES, PRIORITIES

    seen = set()
    renamed = set()
    for cell in cells:
        missing = [k for k in ("trace", "predictor", "params", "policy", "priority")
                   if not isinstance(cell, dict) or k not in cell]
        if missing:
            raise ConfigError(f"a cell needs the keys trace, predictor, params, policy, "
                              f"priority (as expand_grid makes them); {cell!r} lacks "
                              f"{', '.join(missing)}")
        _check_options(cell.get("options", {}), source)
        renamed.update(set(cell.get("options", {})) & set(DEPRECATED_OPTIONS))
        if cell["priority"] is not None and cell["policy"] is None:
            _fail(source, "priorities", cell["priority"],
                  "a priority needs a policy (add policies = [\"easy\"] or another)")
        predictor = _predictor_of(cell)
        for kind, item, check in (
                ("trace", (cell["trace"], cell.get(FOLDER_KEY)),
                 lambda: _check_trace(cell["trace"], cell.get(FOLDER_KEY), source)),
                ("predictor", predictor,
                 lambda: _check_predictor(cell["predictor"], cell["params"], source)),
                ("policy", cell["policy"],
                 lambda: _check_choice("policies", cell["policy"], POLICIES, source)),
                ("priority", cell["priority"],
                 lambda: _check_choice("priorities", cell["priority"], PRIORITIES, source))):
            if (kind, item) not in seen:
                check()
                seen.add((kind, item))
    _refuse_one_file_twice(cells, source)
    for old in sorted(renamed):
        warn_renamed(f"options.{old}", f"options.{DEPRECATED_OPTIONS[old]}")


def _refuse_one_file_twice(cells, source):
    """Two traces naming one file (``t.swf`` and ``./t.swf``, a name and its path)
    would repeat every cell of it."""
    first = {}
    for trace, folder in dict.fromkeys((cell["trace"], cell.get(FOLDER_KEY)) for cell in cells):
        path = resolve_trace(trace, folder)
        if path is None:
            continue
        status = os.stat(path)
        file = (status.st_dev, status.st_ino)
        if file in first and first[file] != trace:
            _fail(source, "traces", trace, f"names the same file as {first[file]!r} "
                                           f"({path}), which would repeat cells")
        first.setdefault(file, trace)

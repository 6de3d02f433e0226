"""Running grids with joblib: in-process, on local cores, or on a Dask cluster.

The same call runs everywhere: ``backend=None`` runs cell by cell in this
process; ``backend="loky"`` uses local processes; ``backend="dask"`` hands the
cells to a Dask ``distributed`` cluster (``scheduler="tcp://host:8786"``, or
an existing client). Finished cells are stored one file each beside the result
table, named by :func:`~predictkit.experiments.cell_key` (configuration and
trace content), so an interrupted sweep resumes where it stopped and a changed
trace file is never served from old cells.
"""

import contextlib
import json
import numbers
import os
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import joblib
import numpy as np
import pandas as pd

from .._atomic import check_output, open_output, write_errors
from .._deprecation import UNSET, renamed_argument
from .._format import displayable, format_count
from .._validation import check_path_or_file, invalid_parameter
from ..exceptions import ConfigError, OutputError
from ._evaluate import check_trace_jobs, evaluate_cell
from ._grid import cell_key
from ._identity import FOLDER_KEY, cell_trace, trace_identity
from ._validate import check_cells

__all__ = ["run_grid", "SweepProgress"]


class SweepProgress(NamedTuple):
    """What a ``progress`` callback of :func:`run_grid` receives.

    Attributes
    ----------
    done : int
        Cells computed so far in this run (0 in the first call, made before
        any cell runs).
    total : int
        Cells to compute in this run (the grid minus the reused ones).
    reused : int
        Finished cells found in the ``.parts`` folder and not recomputed.
    elapsed : float
        Seconds since the run started.
    row : dict or None
        The row of the cell that just finished (None in the first call).
    """

    done: int
    total: int
    reused: int
    elapsed: float
    row: dict | None


def _flatten(cell, result, key=None):
    row = {"cell": key or cell_key(cell), "trace": cell["trace"], "predictor": cell["predictor"],
           "policy": cell["policy"], "priority": cell["priority"]}
    row.update({f"param_{k}": v for k, v in cell["params"].items()})
    row.update({f"option_{k}": v for k, v in cell["options"].items()})
    clash = [name for name in result if name in row or name == MADE_BY]
    if clash:
        raise ConfigError(f"evaluate returned the metric(s) {', '.join(map(repr, clash))}, "
                          "which would overwrite the cell's configuration in its row; name "
                          "them otherwise")
    row.update(result)
    # a results table holds text as UTF-8: a file name that is none is shown as pages show it
    return {name: displayable(value) if isinstance(value, str) else value
            for name, value in row.items()}


def _run_one(evaluate, cell, parts, key, sent, identity, made_by):
    """Evaluate ``sent`` (``cell`` with its trace file as the sweep found it, whose
    content ``identity`` the cell is keyed on) and keep the row of ``cell`` in ``parts``
    with what made it."""
    _check_same_trace(cell, sent, identity)
    result = evaluate(sent)
    if not isinstance(result, dict):
        raise ConfigError(f"evaluate must return a dict of metrics, got "
                          f"{type(result).__name__}")
    row = _flatten(cell, result, key)
    if parts is not None:
        part = Path(parts) / f"{row['cell']}.json"
        with open_output(part) as stream, write_errors(part):
            stream.write(json.dumps({**row, MADE_BY: made_by}, default=_json_value).encode())
    return row


MADE_BY = "_made_by"
"""The entry of a finished cell's file naming the ``evaluate`` function and the
predictkit version that computed it: a cell is reused only by the same two."""


def _made_by(evaluate):
    """``module.name predictkit VERSION`` of an ``evaluate`` function (its ``repr`` when
    it has no name: such a cell is reused only by the very same object)."""
    from .. import __version__

    name = getattr(evaluate, "__qualname__", None)
    what = f"{evaluate.__module__}.{name}" if name else repr(evaluate)
    return f"{what} predictkit {__version__}"


def _sent_cell(cell):
    """``cell`` as a worker gets it: its trace as the absolute path of the file found
    here (a worker's working folder and ``PREDICTKIT_TRACES`` may differ), and the
    content identity the cell is keyed on (None without a file)."""
    path = cell_trace(cell)
    if path is None:
        return cell, None
    sent = {name: value for name, value in cell.items() if name != FOLDER_KEY}
    return ({**sent, "trace": str(path.resolve())},
            trace_identity(cell.get("trace"), cell.get(FOLDER_KEY)))


def _check_same_trace(cell, sent, expected):
    """Refuse to compute a cell on another file than the one it is keyed on."""
    if expected is None:
        return
    found = trace_identity(sent["trace"])
    if found != expected:
        where = "is missing" if found is None else "differs (size, time or content)"
        raise ConfigError(f"{cell['trace']}: the file {sent['trace']} {where} where this cell "
                          "is computed: the workers must read the same files as the sweep "
                          "that started them (a shared folder)")


BACKENDS = (None, "loky", "threading", "dask")
"""The values of ``run_grid``'s ``backend``: this process, local workers, or Dask."""


def _json_value(value):
    """What ``json`` cannot write itself: a NumPy scalar as the Python value it
    holds (an ``int64`` stays an integer, a ``bool_`` a boolean), else a float."""
    if isinstance(value, np.generic):
        return value.item()
    return float(value)


@contextlib.contextmanager
def _backend(backend, scheduler, n_workers):
    if backend == "dask" or scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:  # pragma: no cover - optional dependency
            raise ConfigError("the dask backend needs: pip install 'predictkit[dask]'") from None
        if scheduler is None:
            raise ConfigError("backend='dask' needs scheduler='tcp://host:port' or a Client")
        try:
            client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        except (ValueError, TypeError, OSError) as exc:  # a bad address, or no scheduler there
            raise ConfigError(f"cannot connect to the Dask scheduler {scheduler!r}: "
                              f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__} "
                              f"(give tcp://host:port)") from None
        try:
            with joblib.parallel_config(backend="dask"):
                yield -1
        finally:
            if not isinstance(scheduler, Client):
                client.close()
    elif backend is None:
        yield 1
    else:
        with joblib.parallel_config(backend=backend):
            yield n_workers


def _check_results(path):
    """Refuse, before any work, a results file :func:`_write_table` could not write."""
    if not isinstance(path, (str, os.PathLike)):
        raise invalid_parameter("results", "run_grid", "a path (str or os.PathLike) of a "
                                ".csv or .parquet file, or None", path)
    check_path_or_file(path, "results", "run_grid", files=False)
    if Path(path).suffix.lower() not in (".csv", ".parquet"):
        named = Path(path).name or str(path)
        raise ConfigError(f"results must be a .csv or .parquet file, got {named!r}")
    check_output(path)


def _write_table(table, path):
    path = Path(path)
    with open_output(path) as stream, write_errors(path):
        if path.suffix.lower() == ".parquet":
            _parquet_ready(table).to_parquet(stream, index=False)
        else:
            stream.write(table.to_csv(index=False).encode())


def _parquet_ready(table):
    """``table`` with each column whose values are of several types (a grid's
    ``quantile=[0.9, "mean"]``) as text: a Parquet column has one type."""
    mixed = [name for name in table.columns if table[name].dtype == object
             and len({type(v) for v in table[name] if v is not None and v == v}) > 1]
    if not mixed:
        return table
    table = table.copy()
    for name in mixed:
        table[name] = [None if v is None or v != v else str(v) for v in table[name]]
    return table


def _finished_cells(parts, cells, made_by):
    """Rows of the readable cell files in ``parts`` of the cells of this grid.

    ``cells`` maps each key of the grid to its cell. A file of a cell of the
    grid that is corrupt, empty or holds another configuration than its cell's
    (edited by hand, or from another version) is named and its cell computed
    again, and so are those ``made_by`` another evaluate function or version
    (counted in one warning); files of cells not in the grid are left alone.
    """
    other = []
    done = {}
    for file in sorted(parts.glob("*.json")):
        if file.stem not in cells:
            continue
        try:
            row = json.loads(file.read_text(encoding="utf-8"))
            if not isinstance(row, dict) or row.get("cell") != file.stem:
                raise ValueError(f"it does not hold the result of cell {file.stem}")
            if row.pop(MADE_BY, None) != made_by:
                other.append(file.stem)
                continue
            expected = json.loads(json.dumps(_flatten(cells[file.stem], {}, file.stem),
                                             default=_json_value))
            differs = [name for name, value in expected.items() if row.get(name) != value]
            if differs:
                raise ValueError(f"its {differs[0]} is {row.get(differs[0])!r}, not the cell's "
                                 f"{expected[differs[0]]!r}")
        except (ValueError, UnicodeDecodeError, OSError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            warnings.warn(f"{file}: unreadable cell result ({reason}); the cell is computed "
                          f"again", UserWarning, stacklevel=3)
            continue
        done[row["cell"]] = row
    if other:
        warnings.warn(f"{parts}: {format_count(len(other), 'finished cell')} of this grid "
                      f"made by another evaluate function or predictkit version than "
                      f"{made_by} (first: {other[0]}); computed again", UserWarning,
                      stacklevel=3)
    return done


def run_grid(cells, evaluate, *, results=None, backend=None, scheduler=None, n_workers=2,
             progress=False, source=None, n_jobs=UNSET):
    """Evaluate every cell of a grid and return one tidy table.

    Parameters
    ----------
    cells : list of dict
        From :func:`~predictkit.experiments.expand_grid`.
    evaluate : callable
        ``evaluate(cell) -> dict`` of metric name to value (picklable, e.g. a
        module-level function, for the process and Dask backends).
    results : str or path, optional
        A ``.csv`` or ``.parquet`` file for the table. Finished cells are kept
        in the folder ``<results>.parts/`` and skipped when the sweep runs
        again (resume after an interruption).
    backend : {None, "loky", "threading", "dask"}
        ``None`` runs in this process.
    scheduler : str or distributed.Client, optional
        Dask scheduler address (``tcp://host:8786``) or client; implies
        ``backend="dask"`` (another backend is refused).
    n_workers : int, default=2
        Local workers for ``loky`` / ``threading``.
    progress : bool or callable
        ``True`` shows a progress bar (tqdm) while cells finish; a callable
        is called with a :class:`SweepProgress` once before the first cell
        and once after each cell (the command line prints a line each time).
    source : str or path, optional
        The grid file, named in error messages.
    n_jobs : int
        Deprecated name of ``n_workers`` (``n_jobs`` counts HPC jobs
        elsewhere in predictkit); warns, removed in 0.3.

    Returns
    -------
    DataFrame
        One row per cell: its configuration (``trace``, ``predictor``,
        ``param_*``, ``policy``, ``priority``, ``option_*``) and its metrics,
        in the order of ``cells``. A text that is no UTF-8 (a trace file
        named by bytes that are none) is written with U+FFFD in its place;
        the ``cell`` key still tells such cells apart.

    Raises
    ------
    ConfigError, OutputError
        Before any cell runs: ``cells`` that are not a list of dicts, an
        ``evaluate`` that is not callable, a ``progress`` neither a bool nor
        callable (:class:`~predictkit.exceptions.InvalidParameterError`); a
        ``scheduler`` with a backend other than
        ``"dask"``; a ``results`` name that is not ``.csv`` or ``.parquet``,
        or a file that cannot be written there; with
        :func:`~predictkit.experiments.evaluate_cell`, the first invalid
        value of any cell (:func:`~predictkit.experiments.check_cells`) and
        a trace file of a cell still to compute without a usable job
        (:func:`~predictkit.experiments.check_trace_jobs`). While running:
        an ``evaluate`` that returns no dict, or a metric named as a column
        of the cell's configuration (``trace``, ``param_...``).

    Warns
    -----
    UserWarning
        For each file in ``<results>.parts/`` of a cell of the grid that is
        corrupt, empty or holds another configuration than the cell's,
        naming it; that cell is computed again.

    Notes
    -----
    Cells are keyed on their configuration and on the content identity of
    their trace file (size, modification time, hash of its first and last
    MiB; see :func:`~predictkit.experiments.trace_identity`). After a trace
    file changes, its cells get new keys and are computed again; the files
    of the old cells stay in the ``.parts`` folder but are not used.
    """
    n_workers = renamed_argument("run_grid", "n_jobs", "n_workers", n_jobs, n_workers,
                                 new_default=2)
    started = time.monotonic()
    if scheduler is not None and backend not in (None, "dask"):
        raise ConfigError(f"scheduler runs the cells on Dask; it cannot be combined with "
                          f"backend={backend!r}")
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, "
                          f"got {backend!r}")
    if not isinstance(n_workers, numbers.Integral) or isinstance(n_workers, bool) or (
            n_workers < 1 and n_workers != -1):
        raise ConfigError(f"n_workers must be a whole number >= 1 (or -1: one per core), "
                          f"got {n_workers!r}")
    if not isinstance(cells, (list, tuple)) or not all(isinstance(c, dict) for c in cells):
        raise invalid_parameter("cells", "run_grid", "a list of cells (dicts), as expand_grid "
                                "makes", cells)
    if not callable(evaluate):
        raise invalid_parameter("evaluate", "run_grid", "a function evaluate(cell) -> dict of "
                                "metrics", evaluate)
    if not (isinstance(progress, bool) or callable(progress)):
        raise invalid_parameter("progress", "run_grid", "True, False or a function called "
                                "with a SweepProgress", progress)
    if results is not None:
        _check_results(results)
    if evaluate is evaluate_cell:
        check_cells(cells, source=source)
    keys = [cell_key(c) for c in cells]
    made_by = _made_by(evaluate)
    parts = None
    done = {}
    if results is not None:
        # absolute: a Dask worker's working folder is not this one
        parts = Path(os.path.abspath(f"{results}.parts"))
        if parts.exists() and not parts.is_dir():
            raise OutputError(f"cannot keep finished cells in {parts}: it is not a folder "
                              f"(move it away)")
        done = _finished_cells(parts, dict(zip(keys, cells)), made_by)
    todo = [(c, k) for c, k in zip(cells, keys) if k not in done]
    reused = len(set(keys) & set(done))
    report = progress if callable(progress) else None
    # the scheduler is reached first: a wrong address fails before the traces are read
    with _backend(backend, scheduler, n_workers) as workers:
        if evaluate is evaluate_cell:
            check_trace_jobs([cell for cell, _ in todo], source=source)
        if parts is not None:
            parts.mkdir(parents=True, exist_ok=True)
            if todo:  # a folder that refuses the cells' files fails before the first cell
                check_output(parts / f"{todo[0][1]}.json")
        if report is not None:
            report(SweepProgress(0, len(todo), reused, time.monotonic() - started, None))
        sent = [_sent_cell(cell) for cell, _ in todo]
        if workers == 1:
            iterator = (_run_one(evaluate, cell, parts, key, *job, made_by)
                        for (cell, key), job in zip(todo, sent))
        else:
            iterator = joblib.Parallel(n_jobs=workers, return_as="generator_unordered")(
                joblib.delayed(_run_one)(evaluate, cell, parts, key, *job, made_by)
                for (cell, key), job in zip(todo, sent))
        if progress is True:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, total=len(todo), desc="cells", unit="cell")
        for count, row in enumerate(iterator, start=1):
            done[row["cell"]] = row
            if report is not None:
                report(SweepProgress(count, len(todo), reused, time.monotonic() - started, row))
    table = pd.DataFrame([done[k] for k in keys])
    if results is not None:
        _write_table(table, results)
    return table

"""Running grids with joblib: in-process, on local cores, or on a Dask cluster.

The same call runs everywhere: ``backend=None`` runs cell by cell in this
process; ``backend="loky"`` uses local processes; ``backend="dask"`` hands the
cells to a Dask ``distributed`` cluster (``scheduler="tcp://host:8786"``, or
an existing client). Finished cells are stored one file each beside the result
table, so an interrupted sweep resumes where it stopped.
"""

import contextlib
import json
from pathlib import Path

import joblib
import pandas as pd

from .._atomic import open_output
from ..exceptions import ConfigError
from ._grid import cell_key

__all__ = ["run_grid"]


def _flatten(cell, result):
    row = {"cell": cell_key(cell), "trace": cell["trace"], "predictor": cell["predictor"],
           "policy": cell["policy"], "priority": cell["priority"]}
    row.update({f"param_{k}": v for k, v in cell["params"].items()})
    row.update({f"option_{k}": v for k, v in cell["options"].items()})
    row.update(result)
    return row


def _run_one(evaluate, cell, parts):
    result = evaluate(cell)
    if not isinstance(result, dict):
        raise TypeError(f"evaluate must return a dict of metrics, got {type(result).__name__}")
    row = _flatten(cell, result)
    if parts is not None:
        with open_output(Path(parts) / f"{row['cell']}.json") as stream:
            stream.write(json.dumps(row, default=float).encode())
    return row


@contextlib.contextmanager
def _backend(backend, scheduler, n_jobs):
    if backend == "dask" or scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:  # pragma: no cover - optional dependency
            raise ConfigError("the dask backend needs: pip install 'predictkit[dask]'") from None
        client = scheduler if isinstance(scheduler, Client) else (
            Client(scheduler) if scheduler is not None else None)
        if client is None:
            raise ConfigError("backend='dask' needs scheduler='tcp://host:port' or a Client")
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
            yield n_jobs


def _write_table(table, path):
    path = Path(path)
    if path.suffix == ".parquet":
        with open_output(path) as stream:
            table.to_parquet(stream, index=False)
    elif path.suffix == ".csv":
        with open_output(path) as stream:
            stream.write(table.to_csv(index=False).encode())
    else:
        raise ConfigError(f"results must be a .csv or .parquet file, got {path.name!r}")


def run_grid(cells, evaluate, *, results=None, backend=None, scheduler=None, n_jobs=2,
             progress=False):
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
        ``backend="dask"``.
    n_jobs : int
        Local workers for ``loky`` / ``threading``.
    progress : bool
        Show a progress bar (tqdm) while cells finish.

    Returns
    -------
    DataFrame
        One row per cell: its configuration (``trace``, ``predictor``,
        ``param_*``, ``policy``, ``priority``, ``option_*``) and its metrics,
        in the order of ``cells``.
    """
    parts = None
    done = {}
    if results is not None:
        parts = Path(f"{results}.parts")
        parts.mkdir(parents=True, exist_ok=True)
        for file in parts.glob("*.json"):
            row = json.loads(file.read_text())
            done[row["cell"]] = row
    todo = [c for c in cells if cell_key(c) not in done]
    with _backend(backend, scheduler, n_jobs) as workers:
        if workers == 1:
            iterator = (_run_one(evaluate, cell, parts) for cell in todo)
        else:
            iterator = joblib.Parallel(n_jobs=workers, return_as="generator_unordered")(
                joblib.delayed(_run_one)(evaluate, cell, parts) for cell in todo)
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, total=len(todo), desc="cells", unit="cell")
        for row in iterator:
            done[row["cell"]] = row
    table = pd.DataFrame([done[cell_key(c)] for c in cells])
    if results is not None:
        _write_table(table, results)
    return table

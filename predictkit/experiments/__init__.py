"""Parameter sweeps over traces, predictors, policies and priorities (joblib; Dask for clusters)."""

from ._evaluate import evaluate_cell, load_cell_trace
from ._grid import cell_key, expand_grid, load_grid
from ._runner import run_grid

__all__ = ["expand_grid", "load_grid", "cell_key", "run_grid", "evaluate_cell", "load_cell_trace"]

"""Experiments: parameter sweeps over traces, predictors, policies and priorities (joblib;
Dask for clusters), and the VARQ simulation experiment of Nurmi et al. (2008)."""

from ._evaluate import check_trace_jobs, evaluate_cell, load_cell_trace
from ._grid import cell_key, expand_grid, load_grid
from ._identity import trace_identity
from ._runner import SweepProgress, run_grid
from ._validate import check_cells
from ._varq_experiment import varq_experiment

__all__ = ["expand_grid", "load_grid", "check_cells", "cell_key", "trace_identity", "run_grid",
           "SweepProgress", "evaluate_cell", "load_cell_trace", "check_trace_jobs",
           "varq_experiment"]

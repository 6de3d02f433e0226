"""The one switch between the predictors' fast online paths and their references.

Each of these has a fast path and a plain reference that it must equal job
by job: the built-in predictors inside a simulation
(``simulate/_online_predictors.py``; reference: driven from Python), a
pipeline on ``HistoryFeatures`` inside a simulation (``simulate/_learned.py``;
reference: ``transform`` and ``predict`` on job tables), and
``LearnedRuntime``'s passes kept between calls (``runtime/_learned_online.py``;
reference: the passes rerun over the whole history at each call). Tests and
benchmarks select the references with :func:`reference_path`; the choice is
made when a simulation or a predictor's ``start`` begins.
"""

import contextlib

__all__ = ["reference_path", "compiled_paths_on"]

_COMPILED_ON = [True]


@contextlib.contextmanager
def reference_path(on=True):
    """Within this block, every predictor takes its reference path (``on=False``: its fast one)."""
    before = _COMPILED_ON[0]
    _COMPILED_ON[0] = not on
    try:
        yield
    finally:
        _COMPILED_ON[0] = before


def compiled_paths_on():
    """Whether the compiled predictor paths may be used (outside :func:`reference_path`)."""
    return _COMPILED_ON[0]

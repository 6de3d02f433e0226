"""What a runtime predictor is to the registry: :class:`RegisteredPredictor`."""

from dataclasses import dataclass
from typing import Any, Callable, Optional

__all__ = ["RegisteredPredictor"]


@dataclass(frozen=True)
class RegisteredPredictor:
    """A runtime predictor by name, as listed in :data:`predictkit.runtime.PREDICTORS`.

    Every module of ``predictkit/runtime/`` that defines ``REGISTERED``, a
    tuple of these, adds its predictors to the registry; nothing else lists
    them (the command line, sweeps, tests and benchmarks all read the
    registry).

    Attributes
    ----------
    name : str
        The name :func:`~predictkit.runtime.make_predictor`, ``--predictor``,
        ``--method`` and sweep grids use.
    summary : str
        One line: what the predictor does, with its source.
    estimator : type
        The estimator class; ``estimator(**params)`` builds it.
    rank : int
        Position in listings and help.
    parse_params : callable, optional
        ``parse_params(dict) -> dict``: turns the text forms the command line
        and grid files allow (``"user,group"``, ``"all"``) into parameters.
    """

    name: str
    summary: str
    estimator: Any
    rank: int
    parse_params: Optional[Callable] = None

"""Queue priorities: FCFS, SJF, WFP (Tang et al. 2013 eq. 5), fairshare (Leung
et al. 2010 section II.A) or a user function."""

import numpy as np

from .._time import parse_duration
from ..exceptions import ConfigError, SimulationError
from ._engine import PRIO_FAIRSHARE, PRIO_STATIC, PRIO_WFP

__all__ = ["PRIORITIES", "resolve_priority", "callable_keys"]

PRIORITIES = ("fcfs", "sjf", "wfp", "fairshare")


def resolve_priority(priority, fairshare_decay, fairshare_factor):
    """Return ``(engine code, period seconds, factor, kind)`` for a priority.

    ``kind`` is the name, or ``"callable"``.
    """
    period = parse_duration(fairshare_decay, name="fairshare_decay")
    if period <= 0:
        raise ConfigError(f"fairshare_decay must be positive, got {fairshare_decay!r}")
    factor = float(fairshare_factor)
    if not 0.0 <= factor <= 1.0:
        raise ConfigError(f"fairshare_factor must be in [0, 1], got {fairshare_factor!r}")
    if callable(priority):
        return PRIO_STATIC, period, factor, "callable"
    if not isinstance(priority, str) or priority not in PRIORITIES:
        raise ConfigError(
            f"priority must be one of {', '.join(PRIORITIES)} or a callable; got {priority!r}")
    code = {"wfp": PRIO_WFP, "fairshare": PRIO_FAIRSHARE}.get(priority, PRIO_STATIC)
    return code, period, factor, priority


def callable_keys(priority, jobs):
    """Static keys (lower is served first) from a user priority function.

    The function receives the job table (the simulated jobs, in submit order)
    and returns one score per job; higher scores are served first.
    """
    returned = priority(jobs)
    try:
        scores = np.asarray(returned, dtype=float)
    except (TypeError, ValueError):
        raise SimulationError(
            f"the priority function returned {type(returned).__name__} values that are not "
            "numbers; it must return one numeric score per job") from None
    if scores.shape != (len(jobs),):
        raise SimulationError(
            f"the priority function returned shape {scores.shape}, expected ({len(jobs)},)")
    if not np.isfinite(scores).all():
        raise SimulationError("the priority function returned missing or infinite scores")
    return -scores

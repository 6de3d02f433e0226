"""Queue priorities: FCFS, SJF, WFP (Tang et al. 2013 eq. 5), fairshare (Leung
et al. 2010 section II.A) or a user function."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._time import parse_duration
from ..exceptions import ConfigError, SimulationError
from ._engine import PRIO_FAIRSHARE, PRIO_STATIC, PRIO_WFP

__all__ = ["Priority", "REGISTRY", "PRIORITIES", "resolve_priority", "callable_keys"]


@dataclass(frozen=True)
class Priority:
    """A queue order, as listed in :data:`PRIORITIES`.

    Attributes
    ----------
    name : str
        The value of ``simulate(priority=...)`` and ``--priority``.
    summary : str
        One line: what the order is, with its source.
    code : int
        How the engine orders the queue: ``PRIO_STATIC`` (by a key fixed
        at submission, lower first; ties by submission, then ``job_id``),
        ``PRIO_WFP`` or ``PRIO_FAIRSHARE`` (recomputed at every pass).
    key_is_estimate : bool
        With ``PRIO_STATIC``: the key is the job's runtime estimate (else 0,
        which leaves submission order).
    """

    name: str
    summary: str
    code: int
    key_is_estimate: bool = False

    @property
    def reads_estimates(self):
        """Whether the order depends on the jobs' runtime estimates (SJF, WFP)."""
        return self.key_is_estimate or self.code == PRIO_WFP


REGISTRY = {priority.name: priority for priority in (
    Priority("fcfs", "first come, first served", PRIO_STATIC),
    Priority("sjf", "shortest estimate first", PRIO_STATIC, key_is_estimate=True),
    Priority("wfp", "(wait / estimate)**3 * width, largest first (Tang et al. 2013 eq. 5)",
             PRIO_WFP),
    Priority("fairshare", "the user with the least decayed processor-seconds first "
             "(Leung et al. 2010 section II.A)", PRIO_FAIRSHARE),
)}
"""Every queue order by name, in listing order: the one list that
``simulate``, the command line, the tests and the benchmarks read."""

PRIORITIES = tuple(REGISTRY)


def resolve_priority(priority, fairshare_decay, fairshare_factor):
    """Return ``(engine code, period seconds, factor, kind)`` for a priority.

    ``kind`` is the name, or ``"callable"`` (static keys from the function).
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
    return REGISTRY[priority].code, period, factor, priority


def callable_keys(priority, jobs):
    """Static keys (lower is served first) from a user priority function.

    The function receives the job table (the simulated jobs, in submit order,
    labelled 0 to n - 1) and returns one score per job; higher scores are
    served first. A Series is taken by its labels, as pandas would assign it
    to a column of the table, so one that comes back sorted (``sort_values``)
    still scores each job by its own row.

    Raises
    ------
    SimulationError
        The function raises (its error is chained), or returns something
        other than one finite number per job: a Series labelled for other
        rows, the wrong shape, text, ``NaN``.
    """
    try:
        returned = priority(jobs)
    except Exception as error:
        raise SimulationError(f"the priority function raised {type(error).__name__}: "
                              f"{error}") from error
    if isinstance(returned, pd.Series) and len(returned) == len(jobs) \
            and not returned.index.equals(jobs.index):
        if not (returned.index.is_unique and returned.index.isin(jobs.index).all()):
            extra = returned.index[~returned.index.isin(jobs.index)]
            which = (f"label {extra[0]!r} is not a row of it" if len(extra) else
                     "its labels are not the table's, each once")
            raise SimulationError(
                f"the priority function returned a Series labelled for other rows than the "
                f"table it was given ({which}); return one score per row of that table")
        returned = returned.reindex(jobs.index)
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

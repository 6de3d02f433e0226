"""Backfilling policies by name (Leung et al. 2010 section I)."""

import numbers

from ..exceptions import ConfigError
from ._engine import CONSERVATIVE, DEPTH, EASY, FCFS

__all__ = ["POLICIES", "resolve_policy"]

POLICIES = ("fcfs", "easy", "conservative", "no_guarantee")
"""``"fcfs"``: no backfilling; ``"easy"``: a reservation for the first waiting
job only (aggressive backfilling); ``"conservative"``: a reservation for every
job at arrival, compressed when jobs end early; ``"no_guarantee"``: backfill
whatever fits, with no reservation at all (CPlant)."""


def resolve_policy(policy, reservation_depth):
    """Return ``(engine code, depth)`` for a policy name and reservation depth.

    ``reservation_depth=k`` is only meaningful for ``"easy"``: the first ``k``
    waiting jobs in priority order that cannot start get reservations,
    recomputed at every scheduling pass (``k=1`` is EASY itself, ``k=0`` is
    no-guarantee backfilling).
    """
    if not isinstance(policy, str) or policy not in POLICIES:
        raise ConfigError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    if reservation_depth is not None:
        if (isinstance(reservation_depth, bool)
                or not isinstance(reservation_depth, numbers.Integral)
                or reservation_depth < 0):
            raise ConfigError(
                f"reservation_depth must be a non-negative integer, got {reservation_depth!r}")
        if policy != "easy":
            raise ConfigError(
                f"reservation_depth applies to policy='easy' only, not {policy!r} "
                "(conservative reserves for every job, fcfs and no_guarantee for none)")
    if policy == "fcfs":
        return FCFS, 0
    if policy == "conservative":
        return CONSERVATIVE, 0
    if policy == "no_guarantee":
        return DEPTH, 0
    depth = 1 if reservation_depth is None else int(reservation_depth)
    return (EASY, 1) if depth == 1 else (DEPTH, depth)

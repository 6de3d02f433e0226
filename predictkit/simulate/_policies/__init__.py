"""Backfilling policies by name (Leung et al. 2010 section I).

Each public module of this package that defines ``POLICY`` (a
:class:`~._policy.Policy`) is a policy: this registry, ``simulate(policy=...)``,
the command line, the tests and the benchmarks all list policies from it.
"""

import importlib
import numbers
import pkgutil

from ...exceptions import ConfigError
from ._policy import Policy

__all__ = ["BACKFILL_ORDERS", "POLICIES", "REGISTRY", "Policy", "estimates_matter", "policies_taking",
           "refuse_blind_scheduler", "resolve_policy"]


def _discover():
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        policy = getattr(importlib.import_module(f"{__name__}.{info.name}"), "POLICY", None)
        if isinstance(policy, Policy):
            found.append(policy)
    return {policy.name: policy for policy in sorted(found, key=lambda p: (p.rank, p.name))}


REGISTRY = _discover()
"""Every policy by name, in listing order."""

BACKFILL_ORDERS = ("priority", "sjf")
"""The orders a backfilling policy tries waiting jobs in (``backfill_order``):
the queue's priority, or shortest estimate first."""

POLICIES = tuple(REGISTRY)
"""``"fcfs"``: no backfilling; ``"easy"``: a reservation for the first waiting
job only (aggressive backfilling); ``"conservative"``: a reservation for every
job at arrival, compressed when jobs end early; ``"no_guarantee"``: backfill
whatever fits, with no reservation at all (CPlant)."""


def policies_taking(option):
    """The names of the policies that use ``simulate(option=...)``, in listing order.

    Parameters
    ----------
    option : {"reservation_depth", "backfill_order", "starvation_after"}
        A parameter of :func:`~predictkit.simulate.simulate` that only some
        policies use (:class:`~._policy.Policy` ``takes_<option>``).

    Returns
    -------
    tuple of str
    """
    return tuple(name for name, policy in REGISTRY.items() if getattr(policy, f"takes_{option}"))


def estimates_matter(policy, priority="fcfs", backfill_order="priority", starvation_after=None,
                     reservation_depth=None):
    """Whether runtime estimates can change a simulation's schedule.

    They cannot under ``"fcfs"`` (no backfilling) or ``"no_guarantee"``
    (backfilling in priority order, no reservation; also ``"easy"`` with
    ``reservation_depth=0``) unless the queue order reads them (``"sjf"``,
    ``"wfp"``, a callable) or, for the latter, jobs backfill shortest first
    or the starvation queue reserves.

    Parameters
    ----------
    policy : str
        A name in :data:`POLICIES`.
    priority : str or callable
        A name in :data:`predictkit.simulate.PRIORITIES`, or a function
        (assumed to read estimates).
    backfill_order, starvation_after, reservation_depth
        As :func:`~predictkit.simulate.simulate` takes them.

    Returns
    -------
    bool
    """
    from .._priorities import REGISTRY as PRIORITY_REGISTRY

    order = PRIORITY_REGISTRY.get(priority) if isinstance(priority, str) else None
    return (REGISTRY[policy].reads_estimates(backfill_order, starvation_after, reservation_depth)
            or order is None or order.reads_estimates)


def refuse_blind_scheduler(policy, priority, backfill_orders, starvation_after=None,
                           reservation_depth=None, *, refused="a runtime predictor",
                           backfill_advice="backfill_order='sjf'"):
    """Refuse a scheduler whose schedule no runtime estimate changes.

    Every predictor would give the same schedule and score the same under
    it, so a search would keep the first candidate without a word.

    Parameters
    ----------
    policy, priority, starvation_after, reservation_depth
        As :func:`~predictkit.simulate.simulate` takes them (an unknown
        policy is left to ``simulate`` to refuse).
    backfill_orders : list of str
        The backfilling orders the candidates use.
    refused : str
        What is refused, to start the message with.
    backfill_advice : str
        How the caller asks for shortest-first backfilling without
        reservations, for the message.

    Raises
    ------
    ConfigError
        When estimates change the schedule under none of ``backfill_orders``
        (:func:`estimates_matter`).
    """
    if not isinstance(policy, str) or policy not in REGISTRY:
        return
    if any(estimates_matter(policy, priority, order, starvation_after, reservation_depth)
           for order in backfill_orders):
        return
    depth = " (reservation_depth=0)" if reservation_depth == 0 else ""
    raise ConfigError(
        f"{refused} cannot change the schedule: policy={policy!r}{depth} with "
        f"priority={priority!r} never reads a runtime estimate, so every predictor gives the "
        "same schedule and the same score; choose a policy with reservations ('easy', "
        "'conservative'), a priority that reads estimates ('sjf', 'wfp') or, to backfill "
        f"without reservations, {backfill_advice}")


def resolve_policy(policy, reservation_depth, starvation_after=None):
    """Return ``(compiled loop, settings depth, reported depth)`` for a policy.

    ``reservation_depth=k`` is only meaningful for ``"easy"``: the first ``k``
    waiting jobs in priority order that cannot start get reservations,
    recomputed at every scheduling pass (``k=1`` is EASY itself, ``k=0`` is
    no-guarantee backfilling). The reported depth (``Schedule.params``) is
    ``None`` for policies that take none. ``starvation_after`` (seconds) is
    only meaningful for ``"no_guarantee"``: CPlant's FCFS starvation queue
    (:mod:`.starvation_queue`).
    """
    if not isinstance(policy, str) or policy not in REGISTRY:
        raise ConfigError(f"policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    chosen = REGISTRY[policy]
    if reservation_depth is not None:
        if (isinstance(reservation_depth, bool)
                or not isinstance(reservation_depth, numbers.Integral)
                or reservation_depth < 0):
            raise ConfigError(
                f"reservation_depth must be a non-negative integer, got {reservation_depth!r}")
        if not chosen.takes_reservation_depth:
            takers = ", ".join(map(repr, policies_taking("reservation_depth")))
            raise ConfigError(
                f"reservation_depth applies to policy={takers} only, not {policy!r} "
                f"({policy}: {chosen.summary})")
    if starvation_after is None:
        run, depth = chosen.loop(reservation_depth)
    elif not chosen.takes_starvation_after:
        takers = ", ".join(map(repr, policies_taking("starvation_after")))
        raise ConfigError(f"starvation_after applies to policy={takers} only, not {policy!r} "
                          f"({policy}: {chosen.summary})")
    else:
        run, depth = chosen.loop(reservation_depth, starvation_after)
    return run, depth, depth if chosen.takes_reservation_depth else None

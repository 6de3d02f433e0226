"""What a scheduling policy is to the simulator: :class:`Policy`."""

from dataclasses import dataclass
from typing import Any

__all__ = ["Policy"]


@dataclass(frozen=True)
class Policy:
    """A scheduling policy, as listed in :data:`predictkit.simulate.POLICIES`.

    Every module of ``predictkit/simulate/_policies/`` that defines
    ``POLICY = Policy(...)`` is a policy; nothing else lists them.

    Attributes
    ----------
    name : str
        The value of ``simulate(policy=...)`` and ``--policy``.
    summary : str
        One line: what the policy does.
    run : numba dispatcher
        The event loop compiled with the policy's hooks,
        ``run(state, settings) -> NEED_ESTIMATES | NO_ESTIMATE | DONE`` (see
        :func:`predictkit.simulate._engine.event_loop`).
    rank : int
        Position in :data:`~predictkit.simulate.POLICIES` (listings, help).
    """

    name: str
    summary: str
    run: Any
    rank: int

    takes_reservation_depth = False
    """Whether ``simulate(reservation_depth=...)`` applies to this policy."""

    takes_backfill_order = False
    """Whether the policy backfills waiting jobs in an order that
    ``simulate(backfill_order=...)`` sets (others ignore it: a search over
    policies may pass it to every one)."""

    takes_starvation_after = False
    """Whether ``simulate(starvation_after=...)`` applies to this policy: only
    policies that take it are given it in :meth:`loop`."""

    def reads_estimates(self, backfill_order="priority", starvation_after=None,
                        reservation_depth=None):
        """Whether the policy's own decisions read the jobs' runtime estimates.

        A policy that reserves nothing and backfills in priority order starts
        a job as soon as it fits, whatever its estimate: its schedule depends
        on estimates only through a queue order that reads them (see
        :func:`~predictkit.simulate._policies.estimates_matter`).

        Parameters
        ----------
        backfill_order : {"priority", "sjf"}
            ``simulate(backfill_order=...)``.
        starvation_after : float, optional
            ``simulate(starvation_after=...)``, in seconds.
        reservation_depth : int, optional
            ``simulate(reservation_depth=...)``.
        """
        return True

    def loop(self, reservation_depth, starvation_after=None):
        """The compiled loop and the reservation depth for one simulation.

        Parameters
        ----------
        reservation_depth : int or None
            Already checked: ``None`` unless :attr:`takes_reservation_depth`.
        starvation_after : float, optional
            Seconds; passed (not ``None``) only to policies that
            :attr:`takes_starvation_after`.

        Returns
        -------
        run : numba dispatcher
        depth : int
            ``Settings.reservation_depth``: how many blocked jobs a
            depth-planning pass reserves for (0 when the policy does not
            plan that way).
        """
        return self.run, 0

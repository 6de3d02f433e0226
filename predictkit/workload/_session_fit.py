"""The session parameters of :func:`make_workload`, and their fit to a log's locality.

How much a synthetic user's runtimes repeat and when the next job comes
(:mod:`._session_arrivals`) is set by five numbers, :class:`SessionParameters`.
Their defaults lie in the middle of the archive logs' range. A site fitted to
a log (:class:`SiteModel`) chooses them by the simulated method of moments
(McFadden, Econometrica 57(5), 1989): each parameter is paired with the
statistic of :func:`runtime_locality` it moves most, and set, by bisection on
workloads generated with fixed random draws, so that the generated workload's
statistic equals the log's; a few sweeps over the four pairs settle their
interactions. The statistics not used (the share of pairs within a factor of
the median ratio, the correlation of consecutive runtimes) are left to check the fit.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._locality import runtime_locality

__all__ = ["DEFAULT_SESSIONS", "FIT_PAIRS", "SessionParameters", "fit_sessions"]


class SessionParameters(NamedTuple):
    """How synthetic users' runtimes repeat and when their next job comes.

    Attributes
    ----------
    runtime_spread : float
        Weight of each job's own normal score in its runtime score, in [0, 1].
    persistence : float
        Share of a session's score that is its application's, in [0, 1].
    user_affinity : float
        Share of an application's score that is its user's, in [0, 1] (a
        user's applications run alike).
    repeat : float
        Probability that a job repeats its session's previous runtime.
    burst : float
        Share of a session's jobs whose next job is due at once.
    """

    runtime_spread: float
    persistence: float
    user_affinity: float
    repeat: float
    burst: float


DEFAULT_SESSIONS = SessionParameters(runtime_spread=0.3, persistence=0.9, user_affinity=0.5,
                                     repeat=0.5, burst=0.5)
"""The built-in site's session parameters (the middle of the archive logs' range)."""

FIT_PAIRS = (("repeat", "share_within_12pct", +1),
             ("runtime_spread", "share_within_2x", -1),
             ("burst", "share_after_run", -1),
             ("user_affinity", "user_share_of_variance", +1))
"""Each fitted parameter, the statistic it is matched on, and the sign of its effect."""

FIT_JOBS = 10_000
"""Jobs of each workload generated while fitting (0.03 s each)."""

FIT_SEEDS = 4
"""Workloads generated per evaluation (their pairs pooled: a few heavy users hold much of
one workload's pairs)."""

FIT_SWEEPS = 3
"""Sweeps over :data:`FIT_PAIRS`."""

FIT_STEPS = 8
"""Bisection steps per parameter and sweep (a resolution of 1/256)."""


def fit_sessions(generate, target, start=DEFAULT_SESSIONS):
    """Session parameters whose generated workload has the locality ``target``.

    Parameters
    ----------
    generate : callable
        ``generate(parameters, seed)`` returns a job table generated with the
        :class:`SessionParameters` ``parameters`` and the random draws of
        ``seed`` (0 to :data:`FIT_SEEDS` - 1), the same at every call.
    target : dict
        The log's :func:`runtime_locality`.
    start : SessionParameters

    Returns
    -------
    SessionParameters
        Each parameter of :data:`FIT_PAIRS` in [0, 1]; at a bound of the
        interval when no value reaches the log's statistic (parameters not in :data:`FIT_PAIRS` stay at
        ``start``). ``persistence`` stays at ``start``: with applications
        unseen in a log, it cannot be told apart from ``user_affinity``.
    """
    current = start
    for _ in range(FIT_SWEEPS):
        for name, statistic, sign in FIT_PAIRS:
            goal = target.get(statistic)
            if goal is None:
                continue

            def gap(value, name=name, statistic=statistic, goal=goal, sign=sign):
                trial = current._replace(**{name: value})
                found = runtime_locality(pd.concat(
                    [_distinct_users(generate(trial, seed), seed) for seed in range(FIT_SEEDS)]))
                measured = None if found is None else found[statistic]
                return 0.0 if measured is None else sign * (measured - goal)

            current = current._replace(**{name: _bisect(gap)})
    return current


def _distinct_users(jobs, seed):
    """``jobs`` with user ids that no other seed's workload uses (pairs stay within one)."""
    return jobs.assign(user_id=jobs["user_id"] + seed * (jobs["user_id"].max() + 1))


def _bisect(gap):
    """The value in [0, 1] where the non-decreasing ``gap`` crosses 0, in
    :data:`FIT_STEPS` halvings (a bound when it does not cross)."""
    low, high = 0.0, 1.0
    if gap(low) >= 0.0:
        return low
    if gap(high) <= 0.0:
        return high
    for _ in range(FIT_STEPS):
        middle = 0.5 * (low + high)
        if gap(middle) < 0.0:
            low = middle
        else:
            high = middle
    return float(np.round(0.5 * (low + high), 4))

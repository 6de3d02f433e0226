"""The session parameters of :func:`make_workload`, and their fit to a log's locality.

How much a synthetic user's runtimes repeat and when the next job comes
(:mod:`._session_arrivals`) is set by five numbers, :class:`SessionParameters`.
Their defaults lie in the middle of the archive logs' range. A site fitted to
a log (:class:`SiteModel`) chooses them by the simulated method of moments
(McFadden, Econometrica 57(5), 1989): each parameter is paired with the
statistic of :func:`runtime_locality` it moves most, and the four are set,
one at a time on workloads generated with fixed random draws, to bring the
generated workloads' statistics closest to the log's (least squares); a few
sweeps settle their interactions. The statistics not used (the median ratio,
the correlation of consecutive runtimes) are left to check the fit.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._locality import LOCALITY_COLUMNS, runtime_locality

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

FIT_PAIRS = (("repeat", "share_within_12pct"),
             ("runtime_spread", "share_within_2x"),
             ("burst", "share_after_run"),
             ("user_affinity", "user_share_of_variance"))
"""Each fitted parameter and the statistic it moves most (the order of a sweep)."""

FIT_JOBS = 10_000
"""Jobs of each workload generated while fitting (0.03 s each)."""

FIT_SEEDS = 4
"""Workloads generated per evaluation (their pairs pooled: a few heavy users hold much of
one workload's pairs)."""

FIT_SWEEPS = 3
"""Sweeps over :data:`FIT_PAIRS`."""

FIT_STEPS = 10
"""Golden-section steps per parameter and sweep (an interval of 0.618**10 = 0.008)."""


def fit_sessions(generate, target, start=DEFAULT_SESSIONS):
    """Session parameters whose generated workload has the locality ``target``.

    Minimizes the misfit, the sum over the statistics of :data:`FIT_PAIRS`
    (those the log has) of the squared difference between the generated
    workloads' statistic and the log's, one parameter at a time (golden-section
    search on [0, 1]), sweeping :data:`FIT_SWEEPS` times. Where the log's
    statistics can all be reached, the misfit is 0 there; where one cannot
    (a log whose users nearly never submit before their last job ended), the
    others are not pushed to a bound to make up for it.

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
        Each parameter of :data:`FIT_PAIRS` in [0, 1]; ``persistence`` stays
        at ``start``: with applications unseen in a log, it cannot be told
        apart from ``user_affinity``.
    """
    statistics = [statistic for _, statistic in FIT_PAIRS if target.get(statistic) is not None]
    if not statistics:
        return start

    def misfit(parameters):
        found = runtime_locality(pd.concat(
            [_distinct_users(generate(parameters, seed), seed) for seed in range(FIT_SEEDS)]))
        if found is None:
            return float(len(statistics))
        return sum((found[name] - target[name]) ** 2 if found[name] is not None else 1.0
                   for name in statistics)

    current = start
    for _ in range(FIT_SWEEPS):
        for name, _ in FIT_PAIRS:
            value = _golden_section(lambda v, name=name: misfit(current._replace(**{name: v})))
            current = current._replace(**{name: value})
    return current


def _distinct_users(jobs, seed):
    """The columns of ``jobs`` :func:`runtime_locality` reads, with user ids that no other
    seed's workload uses (pairs stay within one)."""
    return jobs[list(LOCALITY_COLUMNS)].assign(user_id=jobs["user_id"]
                                         + seed * (jobs["user_id"].max() + 1))


GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def _golden_section(objective):
    """The point of [0, 1] where ``objective`` is least, by golden-section search in
    :data:`FIT_STEPS` steps, the bounds and the last bracket's best point compared."""
    low, high = 0.0, 1.0
    left, right = high - GOLDEN * (high - low), low + GOLDEN * (high - low)
    f_left, f_right = objective(left), objective(right)
    for _ in range(FIT_STEPS):
        if f_left <= f_right:
            high, right, f_right = right, left, f_left
            left = high - GOLDEN * (high - low)
            f_left = objective(left)
        else:
            low, left, f_left = left, right, f_right
            right = low + GOLDEN * (high - low)
            f_right = objective(right)
    candidates = [(f_left, left), (f_right, right), (objective(0.0), 0.0),
                  (objective(1.0), 1.0)]
    return float(np.round(min(candidates)[1], 4))

"""How the scores of the past periods make one cross-validation score.

:func:`~predictkit.model_selection.select_by_schedule` scores every
candidate on each past period (the mean metric over the jobs submitted in
it); a criterion turns a candidate's row of period scores into the one
number the choice minimises. They differ in what they guard against:

``"mean"``
    The mean of the period scores: every month counts the same, however
    many jobs it had.
``"jobs"``
    The mean over the jobs of all past periods (each period weighted by its
    number of jobs): the metric a site would read for the whole past.
``"recent"``
    The period scores weighted by ``0.5 ** (age / half_life)``, the last past
    period having age 0: a workload drifts (users, codes, machine
    configuration change), so the recent months say more about the
    following ones.
``"rank"``
    The mean over the periods of the candidate's rank in that period (1 the
    best; ties share the mean rank): one overloaded month, whose bounded
    slowdowns are ten times those of the others, weighs no more than any
    other month.
"""

import numpy as np

from ..exceptions import ConfigError

__all__ = ["SCHEDULE_CRITERIA", "cross_validation_scores"]

SCHEDULE_CRITERIA = ("mean", "jobs", "recent", "rank")
"""Names of the ways :func:`cross_validation_scores` combines period scores."""


def cross_validation_scores(fold_scores, *, criterion="mean", job_counts=None, half_life=3.0):
    """One cross-validation score per candidate from its scores on the past periods.

    Parameters
    ----------
    fold_scores : array-like of shape (n_candidates, n_periods)
        The mean metric of each candidate over the jobs submitted in each past
        period, oldest period first; NaN for a period without jobs (left out).
    criterion : {"mean", "jobs", "recent", "rank"}, default "mean"
        See the module documentation.
    job_counts : array-like of shape (n_periods,), optional
        Jobs submitted in each period; required by ``"jobs"``.
    half_life : float, default 3.0
        Age, in periods, at which ``"recent"`` halves a period's weight.

    Returns
    -------
    ndarray of shape (n_candidates,)
        Lower is better; NaN for a candidate with no scored period.

    Raises
    ------
    ConfigError
        For an unknown criterion, a non-positive ``half_life``, or missing or
        mismatched ``job_counts``.
    """
    if criterion not in SCHEDULE_CRITERIA:
        raise ConfigError(f"criterion must be one of {', '.join(SCHEDULE_CRITERIA)}, "
                          f"got {criterion!r}")
    scores = np.atleast_2d(np.asarray(fold_scores, dtype=float))
    n_periods = scores.shape[1]
    present = ~np.isnan(scores)
    if criterion == "jobs":
        if job_counts is None:
            raise ConfigError('criterion "jobs" needs job_counts, the jobs of each period')
        weights = np.asarray(job_counts, dtype=float)
        if weights.shape != (n_periods,) or (weights < 0).any() or np.isnan(weights).any():
            raise ConfigError(f"job_counts must be {n_periods} counts >= 0, one a period, "
                              f"got {job_counts!r}")
    elif criterion == "recent":
        if isinstance(half_life, bool) or not isinstance(half_life, (int, float, np.number)) \
                or not half_life > 0 or not np.isfinite(half_life):
            raise ConfigError(f"half_life must be a positive number of periods, got "
                              f"{half_life!r}")
        weights = 0.5 ** (np.arange(n_periods)[::-1] / float(half_life))
    elif criterion == "rank":
        scores = _period_ranks(scores)
        weights = np.ones(n_periods)
    else:
        weights = np.ones(n_periods)
    weights = np.where(present, weights, 0.0)
    total = weights.sum(axis=1)
    weighted = np.where(present, scores, 0.0) * weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, weighted.sum(axis=1) / total, np.nan)


def _period_ranks(scores):
    """Rank of each candidate within each period (1 the lowest; ties share their mean rank)."""
    ranks = np.full(scores.shape, np.nan)
    for k in range(scores.shape[1]):
        column = scores[:, k]
        valid = ~np.isnan(column)
        values = column[valid]
        order = np.sort(values)
        low = np.searchsorted(order, values, side="left")
        high = np.searchsorted(order, values, side="right")
        ranks[valid, k] = (low + high + 1) / 2.0
    return ranks

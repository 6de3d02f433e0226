"""Pairing estimates with jobs: the random-shuffle algorithm and its session form.

Section 11.2 of Tsafrir, Etsion and Feitelson (JSSPP 2005): given ``N``
runtimes and ``N`` estimates, each job, taken in descending runtime order,
gets an estimate drawn uniformly from the remaining ones that are at least
its runtime. Estimates are modal (a few hundred distinct values), so the
remaining multiset is kept as counts per distinct value in a Fenwick tree:
one draw costs ``O(log K)`` and the whole assignment ``O(N log N)`` (the sort
dominates), instead of the ``O(N^2)`` scan of a literal reading.

The session form (the paper's future work, section 11.4) draws once per
session — a burst of one user's jobs, see :mod:`._sessions` — with the same
rule applied to the longest runtime of the session, and gives that estimate
to every job of the session.
"""

import numba
import numpy as np

from .._fenwick import fenwick_add, fenwick_find, fenwick_prefix
from ..exceptions import ConfigError

__all__ = ["mode_counts", "assign", "assign_modes", "assign_values"]


def mode_counts(percent, n_jobs):
    """Turn mode percentages into job counts summing exactly to ``n_jobs``.

    Largest-remainder rounding of ``percent * n_jobs / 100`` (deterministic:
    ties go to the earlier mode).
    """
    share = np.asarray(percent, dtype=float) * n_jobs / np.sum(percent)
    counts = np.floor(share).astype(np.int64)
    short = int(n_jobs - counts.sum())
    if short > 0:
        order = np.argsort(-(share - counts), kind="stable")
        counts[order[:short]] += 1
    return counts


@numba.njit(cache=True)
def _draw(counts, prefix_len, weights, u):
    """Fenwick-tree draws; ``counts`` are per value in descending value order.

    Item ``i`` may use values ``0 .. prefix_len[i]-1``; it takes value ``j``
    with probability proportional to the remaining count of ``j`` and removes
    up to ``weights[i]`` copies. Returns the value index, or -1 when the
    eligible values are used up.
    """
    k = counts.shape[0]
    tree = np.zeros(k + 1, dtype=np.int64)
    for i in range(k):
        fenwick_add(tree, 0, k, i, counts[i])
    left = counts.copy()
    out = np.empty(prefix_len.shape[0], dtype=np.int64)
    for i in range(prefix_len.shape[0]):
        total = fenwick_prefix(tree, 0, prefix_len[i])
        if total == 0:
            out[i] = -1
            continue
        target = int(u[i] * total)
        if target >= total:
            target = total - 1
        pos = fenwick_find(tree, 0, k, target)
        out[i] = pos
        take = min(weights[i], left[pos])
        left[pos] -= take
        fenwick_add(tree, 0, k, pos, -take)
    return out


def assign_values(values, counts, need, rng, weights=None):
    """Assign pooled estimates to items with the random-shuffle rule.

    Parameters
    ----------
    values : ndarray
        Distinct estimate values, ascending.
    counts : ndarray of int
        How many jobs may use each value.
    need : ndarray
        Per item (job or session) the runtime its estimate must cover.
    rng : numpy.random.Generator
    weights : ndarray of int, optional
        Jobs per item (1 for plain jobs).

    Returns
    -------
    ndarray
        One estimate per item, always ``>= need``. When every remaining
        estimate that covers an item is taken, the item gets the smallest
        value that covers it (a reused mode) — the only way to stay feasible.
    """
    need = np.asarray(need, dtype=float)
    n = need.size
    values = np.asarray(values, dtype=float)
    if n and need.max() > values[-1]:
        raise ConfigError(
            f"a runtime ({need.max():g} s) exceeds the largest estimate ({values[-1]:g} s)")
    weights = np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights, np.int64)
    desc_values = values[::-1]
    desc_counts = np.ascontiguousarray(np.asarray(counts, dtype=np.int64)[::-1])
    order = np.argsort(-need, kind="stable")
    prefix = (values.size - np.searchsorted(values, need[order], side="left")).astype(np.int64)
    u = rng.random(n)
    picked = _draw(desc_counts, prefix, weights[order], u)
    fallback = picked < 0
    picked[fallback] = prefix[fallback] - 1
    out = np.empty(n)
    out[order] = desc_values[picked]
    return out


def assign(estimates, runtimes, rng, groups=None):
    """Random-shuffle ``estimates`` over jobs so that each covers its runtime.

    Parameters
    ----------
    estimates : array-like, shape (n,)
        The estimate multiset (e.g. drawn from the modes, or a log's own).
    runtimes : array-like, shape (n,)
        Runtimes (already limited to the largest estimate).
    rng : numpy.random.Generator
    groups : array-like of int, optional
        Session label per job; jobs of one session share one estimate.

    Returns
    -------
    ndarray, shape (n,)
    """
    values, counts = np.unique(np.asarray(estimates, dtype=float), return_counts=True)
    return assign_modes(values, counts, runtimes, rng, groups=groups)


def assign_modes(values, counts, runtimes, rng, groups=None):
    """Like :func:`assign`, with the estimates given as distinct values and job counts.

    A value may have a count of 0: no job draws it, but a job that no other
    remaining value covers still gets it (the model's ``t_max`` at
    ``p_max=0``, or a mode rounded to 0 jobs).

    Parameters
    ----------
    values : array-like, shape (k,)
        Distinct estimate values, ascending.
    counts : array-like of int, shape (k,)
        How many jobs may use each value.
    runtimes, rng, groups
        As in :func:`assign`.

    Returns
    -------
    ndarray, shape (n,)
    """
    runtimes = np.asarray(runtimes, dtype=float)
    if groups is None:
        return assign_values(values, counts, runtimes, rng)
    labels, inverse, sizes = np.unique(np.asarray(groups), return_inverse=True,
                                       return_counts=True)
    longest = np.full(labels.size, -np.inf)
    np.maximum.at(longest, inverse, runtimes)
    per_group = assign_values(values, counts, longest, rng, weights=sizes)
    return per_group[inverse]

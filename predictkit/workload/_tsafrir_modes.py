"""The modes of the Tsafrir-Etsion-Feitelson estimate model.

D. Tsafrir, Y. Etsion, D. G. Feitelson, "Modeling user runtime estimates",
JSSPP 2005. The model describes the estimates of ``N`` jobs as ``K`` modes
``(t_i, p_i)``: an estimate value in seconds and the percent of jobs using it.
This module builds them:

* ``K`` from ``N`` (section 6, Table 3, or the power model of Fig. 7);
* ``K`` time values from ``F_tim`` (section 7, Fig. 9);
* 20 "head" times from the joint times and multiples of ``T_round``
  (section 9.2), replacing the closest ``F_tim`` values;
* ``K`` sizes from ``F_pop`` (section 8, Fig. 10);
* the head mapped by the pool algorithm over Table 6 (section 9.3), the tail
  mapped at random (section 9.1);
* user-supplied modes embedded as section 9.4 says.

The constants are those of the public reference implementation
(``m_tsafrir05`` in the Parallel Workloads Archive).
"""

import numpy as np
import pandas as pd

from ..exceptions import ConfigError

__all__ = ["n_modes", "head_times", "popularity", "tim_times", "pool_mapping",
           "make_modes", "JOINT_TIMES", "T_ROUNDS", "F_LOG"]

MIN, HOUR = 60.0, 3600.0

K_POINTS_N = np.array([0, 20, 200, 1_000, 10_000, 70_000, 250_000], dtype=float)
K_POINTS_K = np.array([0, 10, 20, 35, 90, 340, 565], dtype=float)
"""Table 3: the linear model of K (number of modes) from N (number of jobs)."""

K_POWER = (1.1, 0.5)
"""The power model ``K = alpha * N ** beta``, fitted to the four traces at once (Fig. 7)."""

A_FIT = (12.1039, -0.6026)
"""``a(K) = 1 + alpha * K ** beta`` (Fig. 9)."""

HEAD_EXP = (14.0491, -0.177531, 0.462513)
"""Head sizes, ranks 2..20: ``alpha * exp(beta * x) + gamma`` percent (Fig. 10)."""

TAIL_POW = (795.6, -2.267)
"""Tail sizes, ranks >= 21: ``omega * x ** rho``, rescaled to the tail mass (Fig. 10)."""

N_HEAD = 20
HEAD_MASS = 89.0
"""Percent of jobs in the 20 most popular modes (Table 2, Table 5)."""

JOINT_TIMES = tuple(m * MIN for m in (5, 10, 15, 20, 30)) + tuple(
    h * HOUR for h in (1, 2, 3, 4, 5, 6, 8, 10, 12, 18))
"""The 15 head times shared by all traces (Table 5, section 9.2)."""

T_ROUNDS = tuple(h * HOUR for h in (200, 100, 50, 10, 5, 2, 1)) + tuple(
    m * MIN for m in (20, 10, 5))
"""Rounding units filling the remaining head slots (section 9.2, step 3)."""

TAIL_NUDGES = (0.0, 30.0, -30.0, 20.0, -20.0, 10.0, -10.0)
"""Offsets (s) tried when a tail time rounded to the minute collides."""

F_LOG = np.array([
    # ttr: SDSC-106, CTC, KTH4H, BLUE (Table 6)
    [3, 1, 1, 1], [1, 3, 4, 6], [4, 4, 10, 5], [17, 2, 14, 3], [13, 12, 20, 7],
    [7, 9, 2, 2], [8, 8, 3, 18], [18, 18, 7, 19], [2, 6, 12, 4], [6, 7, 6, 11],
    [16, 11, 19, 20], [10, 20, 5, 9], [5, 16, 18, 10], [15, 5, 16, 14],
    [14, 14, 9, 13], [19, 13, 17, 16], [11, 10, 15, 15], [12, 15, 13, 17],
    [9, 17, 8, 8], [20, 19, 11, 12],
], dtype=np.int64)
"""Table 6: popularity rank of the mode with top-20 time rank ``ttr`` in each trace."""


def n_modes(n_jobs, k_model="linear"):
    """Number of modes ``K`` for ``n_jobs`` jobs (section 6).

    ``"linear"`` interpolates Table 3 (capped at 565 modes beyond 250,000
    jobs); ``"power"`` is ``K = 1.1 * N ** 0.5`` (Fig. 7). At least one mode.
    """
    n = float(n_jobs)
    if k_model == "linear":
        k = np.interp(n, K_POINTS_N, K_POINTS_K)
    elif k_model == "power":
        k = K_POWER[0] * n ** K_POWER[1]
    else:
        raise ConfigError(f"k_model must be 'linear' or 'power', got {k_model!r}")
    return max(1, int(round(k)))


def head_times(t_max):
    """The 20 head times for the maximal estimate ``t_max`` (section 9.2).

    ``t_max`` first, then every joint time below it, then multiples of
    ``T_round`` (200 h, 100 h, ..., 5 min) below ``t_max`` counting down,
    until 20 distinct values are chosen. When ``t_max`` is so short that
    5-minute multiples do not reach 20 values (below 1 h 40 min), whole
    minutes fill the rest (an extension: the paper never needs it).

    Returns
    -------
    ndarray
        20 distinct times, ``t_max`` first, the rest ascending.
    """
    if not t_max / max(T_ROUNDS) < 2.0**52:
        # counting multiples down would never move (float precision)
        raise ConfigError(f"t_max must be below {2.0**52 * max(T_ROUNDS):.3g} s, got {t_max:g} s")
    chosen = [float(t_max)]
    chosen += [t for t in JOINT_TIMES if t < t_max]
    taken = set(chosen)
    for unit in T_ROUNDS + (MIN,):
        multiple = np.ceil(t_max / unit) - 1
        while multiple >= 1 and len(chosen) < N_HEAD:
            value = multiple * unit
            if value not in taken:
                chosen.append(value)
                taken.add(value)
            multiple -= 1
        if len(chosen) >= N_HEAD:
            break
    return np.array([chosen[0]] + sorted(chosen[1:N_HEAD]))


def tim_times(k, t_max):
    """``F_tim(i) = T_max (a - 1)(i/K) / (a - i/K)`` for ``i = 1..K`` (section 7, Fig. 9)."""
    a = 1.0 + A_FIT[0] * float(k) ** A_FIT[1]
    x = np.arange(1, k + 1, dtype=float) / k
    return t_max * (a - 1.0) * x / (a - x)


def popularity(k):
    """``F_pop(i)`` for ranks ``i = 1..max(K, 20)``, in percent (section 8).

    Ranks 2..20 follow the exponential head; rank 1 gets 89% minus their sum
    (about 22%); ranks 21..K share the remaining 11% as the power-law tail.
    """
    ranks = np.arange(1, max(k, N_HEAD) + 1, dtype=float)
    sizes = np.empty_like(ranks)
    head = ranks[1:N_HEAD]
    sizes[1:N_HEAD] = HEAD_EXP[0] * np.exp(HEAD_EXP[1] * head) + HEAD_EXP[2]
    sizes[0] = HEAD_MASS - sizes[1:N_HEAD].sum()
    if k > N_HEAD:
        tail = TAIL_POW[0] * ranks[N_HEAD:] ** TAIL_POW[1]
        sizes[N_HEAD:] = tail * (100.0 - HEAD_MASS) / tail.sum()
    return sizes


def pool_mapping(rng, skip_ttrs=(), avoid_ranks=()):
    """The pool algorithm of section 9.3: popularity rank of each top-20 time rank.

    ``ttr = 0`` (``T_max``) always gets rank 1. For ``ttr = 1..19`` in order,
    the ranks of that row of Table 6 not mapped yet enter the pool; a rank
    seen four times is mapped at once (the smallest such), otherwise the
    smaller of two uniform draws from the pool is. Section 9.4's refinement:
    ``skip_ttrs`` (user-supplied times) are not mapped and ``avoid_ranks``
    (user-supplied sizes) never enter the pool.

    Returns
    -------
    ndarray of int, shape (20,)
        Rank per ttr; 0 where the ttr is skipped or no rank was left.
    """
    skip, avoid = set(skip_ttrs), set(avoid_ranks) | {1}
    mapping = np.zeros(N_HEAD, dtype=np.int64)
    if 0 not in skip:
        mapping[0] = 1
    mapped = {1}
    pool = []
    for ttr in range(1, N_HEAD):
        pool += [int(r) for r in F_LOG[ttr] if r not in mapped and r not in avoid]
        if ttr in skip:
            continue
        if not pool:
            remaining = [r for r in range(2, N_HEAD + 1) if r not in mapped and r not in avoid]
            if not remaining:
                continue
            choice = remaining[0]
        else:
            counts = np.bincount(pool, minlength=N_HEAD + 1)
            full = np.flatnonzero(counts >= 4)
            if full.size:
                choice = int(full[0])
            else:
                i, j = rng.integers(0, len(pool), size=2)
                choice = min(pool[i], pool[j])
        mapping[ttr] = choice
        mapped.add(choice)
        pool = [r for r in pool if r != choice]
    return mapping


def _closest_free(values, target, used):
    order = np.argsort(np.abs(values - target), kind="stable")
    for index in order:
        if index not in used:
            return int(index)
    return -1


def _tail_times(raw, taken, t_max):
    """Round tail times to the minute, nudging collisions (reference behaviour)."""
    out = np.empty_like(raw)
    for i, value in enumerate(raw):
        base = np.round(value / MIN) * MIN
        for candidate in _candidates(base):
            if 1.0 <= candidate < t_max and candidate not in taken:
                break
        taken.add(candidate)
        out[i] = candidate
    return out


def _candidates(base):
    yield from (base + d for d in TAIL_NUDGES)
    step = 1.0
    while True:  # the reference leaves this case open: take the nearest free second
        yield base + step
        yield base - step
        step += 1.0


def make_modes(n_jobs, t_max, *, p_max=None, user_modes=(), k_model="linear", rng):
    """All ``K`` modes of the model (section 10, steps 1-7).

    Parameters
    ----------
    n_jobs : int
        Number of jobs ``N`` (sets ``K``).
    t_max : float
        Maximal estimate in seconds (at least 1 h).
    p_max : float or None
        Percent of jobs at ``t_max``; ``None`` keeps ``F_pop(1)`` (about 22%).
    user_modes : sequence of (seconds, percent)
        Up to 20 modes embedded as section 9.4 says (already validated).
    k_model : {"linear", "power"}
    rng : numpy.random.Generator

    Returns
    -------
    DataFrame
        Columns ``estimate`` (s), ``percent`` (sums to 100), ``rank`` (popularity
        rank in the model), ``head`` (bool), sorted by estimate. The last row
        is always ``t_max``, with ``p_max`` percent even when that is 0.
    """
    k = n_modes(n_jobs, k_model)
    heads = head_times(t_max)
    sizes = popularity(k)
    head_sizes = sizes[:N_HEAD].copy()

    user = [(float(t), float(p)) for t, p in user_modes]
    if p_max is not None:
        user = [(t, p) for t, p in user if t != t_max] + [(float(t_max), float(p_max))]
    user_time_ttr, user_rank = {}, {}
    for t, p in sorted(user, key=lambda tp: -tp[1]):
        if t == t_max:
            ttr = 0
        else:
            ttr = _closest_free(heads[1:], t, {i - 1 for i in user_time_ttr.values() if i}) + 1
        user_time_ttr[t] = ttr
        if ttr == 0:
            rank = 0
        else:
            taken = {r - 1 for r in user_rank.values() if r >= 1}
            rank = _closest_free(head_sizes[1:], p, taken) + 1
        user_rank[t] = rank
        heads[ttr] = t

    user_mass = sum(p for _, p in user)
    free_ranks = [r for r in range(N_HEAD) if r not in set(user_rank.values())]
    free_mass = head_sizes[free_ranks].sum()
    if user_mass <= HEAD_MASS and free_mass > 0:
        head_sizes[free_ranks] *= (HEAD_MASS - user_mass) / free_mass
        tail_mass = 100.0 - HEAD_MASS
    else:  # scaling is not possible (section 9.4): the tail takes the rest
        head_sizes[free_ranks] = 0.0
        tail_mass = 100.0 - user_mass
    for t, p in user:
        head_sizes[user_rank[t]] = p

    skip = set(user_time_ttr.values()) - {0}
    avoid = {r + 1 for r in user_rank.values()}
    mapping = pool_mapping(rng, skip_ttrs=skip, avoid_ranks=avoid)
    ranks = mapping.copy()
    for t, ttr in user_time_ttr.items():
        ranks[ttr] = user_rank[t] + 1
    head_pct = np.where(ranks > 0, head_sizes[np.maximum(ranks, 1) - 1], 0.0)

    times = [heads]
    pct = [head_pct]
    rank_out = [ranks]
    if k > N_HEAD:
        raw = tim_times(k, t_max)
        replaced = set()
        for t in heads:
            replaced.add(_closest_free(raw, t, replaced))
        keep = np.array([i for i in range(k) if i not in replaced])
        tail_t = _tail_times(raw[keep], set(heads.tolist()), t_max)
        tail_sizes = sizes[N_HEAD:]
        tail_sizes = tail_sizes * tail_mass / tail_sizes.sum()
        order = rng.permutation(tail_t.size)
        times.append(tail_t)
        pct.append(tail_sizes[order])
        rank_out.append(np.arange(N_HEAD + 1, k + 1)[order])
    modes = pd.DataFrame({
        "estimate": np.concatenate(times),
        "percent": np.concatenate(pct),
        "rank": np.concatenate(rank_out).astype(np.int64),
    })
    modes["head"] = modes["rank"] <= N_HEAD
    is_t_max = modes["estimate"] == t_max
    used = modes[(modes["percent"] > 0) & (modes["rank"] >= 1) & ~is_t_max]
    if k < N_HEAD:
        # Fewer modes than head slots (N < 200): keep the K most popular.
        used = used.sort_values("rank", kind="stable").head(k - int(
            modes.loc[is_t_max, "percent"].sum() > 0))
    # The t_max mode is always part of the model (section 10), even at 0% of the
    # jobs: it is the estimate of a job that no shorter estimate covers.
    modes = pd.concat([used, modes[is_t_max]])
    modes["percent"] *= 100.0 / modes["percent"].sum()
    return modes.sort_values("estimate", kind="stable").reset_index(drop=True)

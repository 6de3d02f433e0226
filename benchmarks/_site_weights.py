"""Mixture weights of the built-in site: equal weights, the minimax center, the margin rule.

The built-in site mixes the runtime distributions (per size class) and the
padding distributions (per runtime bin) of several fitted sites with weights
``w``. The accuracy distribution of the default workload it generates is then
exactly quadratic in ``w``: a job's runtime comes from site ``j`` with
probability ``w_j`` and its padding from site ``i`` with probability ``w_i``,
independently, so

    G_w(x) = sum_ij w_i w_j A_ij(x),

where ``A_ij`` is the accuracy CDF of the default workload whose built-in
site has the paddings of site ``i`` and the runtimes of site ``j``
(:func:`pair_cdfs`, measured once by generating those workloads).
:func:`minimax_weights` finds the weights of the *central* site: the
``w`` on the simplex minimizing the largest KS distance
``max_k sup_x |G_w(x) - F_k(x)|`` to the sources' own accuracy CDFs ``F_k``,
by sequential linear programming with a trust region (the problem is a
small non-convex quadratic minimax). :func:`margin_weights` targets both KS
criteria at once: the weights with the largest common margin below a cap on
the largest distance and a cap on the median one. Either rule applies to any
set of fitted sites; rebuilt without one log, it is measured on the log left
out.
"""

import numpy as np
from scipy.optimize import linprog

GRID_POINTS = 400
"""Accuracy values at which the CDFs are compared (quantiles of the sources' pooled)."""
PAIR_JOBS, PAIR_SEEDS = 50_000, (100, 101)
"""Jobs and seeds of each pair workload (seeds apart from the ones that check the site)."""


def sorted_cdf(sorted_values, x):
    """Empirical CDF of ``sorted_values`` at ``x``."""
    return np.searchsorted(sorted_values, x, side="right") / sorted_values.size


def ks_distance(a, b):
    """Two-sample KS distance (the statistic of ``scipy.stats.ks_2samp``)."""
    a, b = np.sort(a), np.sort(b)
    x = np.concatenate([a, b])
    return float(np.max(np.abs(sorted_cdf(a, x) - sorted_cdf(b, x))))


def pairwise_ks(accuracies):
    """KS distance between every two logs' accuracy distributions (names sorted)."""
    names = sorted(accuracies)
    return names, [[ks_distance(accuracies[a], accuracies[b]) for b in names] for a in names]


def comparison_grid(accuracies, points=GRID_POINTS):
    """Accuracy values at which to compare CDFs: quantiles of all sources together."""
    pooled = np.concatenate([np.quantile(a, np.linspace(0, 1, points))
                             for a in accuracies.values()])
    return np.unique(np.quantile(pooled, np.linspace(0, 1, points)))


def pair_cdfs(names, generate, grid):
    """``A[i, j]``: accuracy CDF on ``grid`` with paddings of site ``i``, runtimes of ``j``.

    ``generate(padding_name, runtime_name, seed)`` returns the accuracies of
    one such default workload; the CDF averages over :data:`PAIR_SEEDS`.
    Returned symmetrized (``G_w`` only depends on the symmetric part).
    """
    k = len(names)
    table = np.zeros((k, k, grid.size))
    for i, pad in enumerate(names):
        for j, run in enumerate(names):
            table[i, j] = np.mean([sorted_cdf(np.sort(generate(pad, run, seed)), grid)
                                   for seed in PAIR_SEEDS], axis=0)
    return (table + table.transpose(1, 0, 2)) / 2


def mixture_cdf(weights, pairs):
    """``G_w = sum_ij w_i w_j A_ij`` on the grid."""
    return np.einsum("i,ijx,j->x", weights, pairs, weights)


def distances(weights, pairs, targets):
    """KS distance (on the grid) of the mixture to each target CDF (rows of ``targets``)."""
    return np.abs(mixture_cdf(weights, pairs)[None] - targets).max(axis=1)


def minimax_weights(pairs, targets, *, iterations=200):
    """Weights on the simplex minimizing the largest KS distance to the targets.

    Sequential linear programming from equal weights: at ``w`` the mixture
    CDF is linearized (``G_{w+d} ~ G_w + 2 A w . d``), the linear program
    ``min t`` subject to ``|G_w + J d - F_k| <= t`` on the grid for every
    target ``k``, ``sum d = 0``, ``w + d >= 0``, ``|d| <= r`` is solved, and
    the step is kept if the true largest distance falls (the trust radius
    ``r`` grows by 1.5), else ``r`` halves; stops below ``r = 1e-4``.

    Returns
    -------
    weights : ndarray
    largest : float
        The largest grid KS distance at ``weights``.
    """
    k, m = pairs.shape[0], targets.shape[1]
    w = np.full(k, 1.0 / k)
    best = distances(w, pairs, targets).max()
    radius = 0.2
    cost = np.zeros(k + 1)
    cost[-1] = 1.0
    ones = np.ones((m, 1))
    for _ in range(iterations):
        mix = mixture_cdf(w, pairs)
        jac = 2 * np.einsum("ijx,j->xi", pairs, w)
        rows, bound = [], []
        for target in targets:
            gap = mix - target
            rows += [np.hstack([jac, -ones]), np.hstack([-jac, -ones])]
            bound += [-gap, gap]
        res = linprog(cost, A_ub=np.vstack(rows), b_ub=np.concatenate(bound),
                      A_eq=np.r_[np.ones(k), 0.0][None], b_eq=[0.0],
                      bounds=[(max(-wi, -radius), radius) for wi in w] + [(0, None)],
                      method="highs")
        if res.status == 0:
            step = np.maximum(w + res.x[:k], 0.0)
            step /= step.sum()
            value = distances(step, pairs, targets).max()
        if res.status == 0 and value < best - 1e-6:
            w, best = step, value
            radius = min(radius * 1.5, 0.5)
        else:
            radius /= 2
            if radius < 1e-4:
                break
    return w, float(best)


FRONTIER_CAPS = (0.30, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36, 0.38, 0.40)
"""Largest KS distances at which :func:`frontier` looks for the smallest median."""
FRONTIER_SAMPLES = 4000
"""Random weight vectors per Dirichlet concentration in :func:`frontier`."""


def _candidates(k, rng):
    """The simplex's vertices and :data:`FRONTIER_SAMPLES` Dirichlet draws per concentration."""
    return np.vstack([np.eye(k)] + [rng.dirichlet(np.full(k, alpha), FRONTIER_SAMPLES)
                                    for alpha in (0.1, 0.3, 1.0, 3.0)])


def _softmax(theta):
    w = np.exp(theta - theta.max())
    return w / w.sum()


def shortfall(d, *, largest, median):
    """``max(max(d) - largest, median(d) - median)``: negative when both caps hold,
    by the smaller of the two margins."""
    return max(float(np.max(d)) - largest, float(np.median(d)) - median)


def margin_weights(pairs, targets, *, largest, median, seed=0, polish=5):
    """Weights with the largest common margin below both KS caps.

    Minimizes :func:`shortfall` of the distances to the targets, that is
    ``max(max_k d_k(w) - largest, median_k d_k(w) - median)``: among weights
    meeting both caps, the ones farthest from the nearer cap (seed-to-seed
    variation can then move either statistic by that much before a cap
    fails); otherwise the ones failing by least. Searched over the vertices
    and Dirichlet draws of :func:`frontier`, the ``polish`` best polished by
    Powell's method on the softmax of free parameters (an upper bound on the
    optimum, on the model's grid).

    Returns
    -------
    weights : ndarray
    shortfall : float
        Negative: the margin below both caps, on the grid.
    """
    from scipy.optimize import minimize

    k = pairs.shape[0]
    weights = _candidates(k, np.random.default_rng(seed))
    mixes = np.einsum("ni,ijx,nj->nx", weights, pairs, weights)
    ks = np.abs(mixes[:, None, :] - targets[None]).max(axis=2)
    scores = np.maximum(ks.max(axis=1) - largest, np.median(ks, axis=1) - median)

    def objective(theta):
        return shortfall(distances(_softmax(theta), pairs, targets), largest=largest,
                         median=median)

    best_w, best = None, np.inf
    for start in np.argsort(scores, kind="stable")[:polish]:
        res = minimize(objective, np.log(np.maximum(weights[start], 1e-6)), method="Powell",
                       options={"maxiter": 4000, "xtol": 1e-3, "ftol": 1e-6})
        w, value = _softmax(res.x), float(res.fun)
        if scores[start] < value:
            w, value = weights[start], float(scores[start])
        if value < best:
            best_w, best = w, value
    return best_w, best


def frontier(pairs, targets, *, caps=FRONTIER_CAPS, seed=0):
    """Smallest median KS distance found among weights whose largest is at most each cap.

    Searches weights drawn from Dirichlet laws (concentrations 0.1, 0.3, 1
    and 3, :data:`FRONTIER_SAMPLES` each; seed ``seed``) and the vertices of
    the simplex, then polishes the best weights of each cap by Powell's
    method on ``median + 10 * max(largest - cap, 0)``. An upper bound on the
    true trade-off (a search, not a proof), on the model's grid.

    Returns
    -------
    list of dict
        Per cap: ``cap``, ``largest``, ``median`` and ``weights`` of the best
        weights found (``None`` values when no weights meet the cap).
    """
    from scipy.optimize import minimize

    k = pairs.shape[0]
    weights = _candidates(k, np.random.default_rng(seed))
    mixes = np.einsum("ni,ijx,nj->nx", weights, pairs, weights)
    ks = np.abs(mixes[:, None, :] - targets[None]).max(axis=2)
    largest, median = ks.max(axis=1), np.median(ks, axis=1)
    out = []
    for cap in caps:
        inside = np.flatnonzero(largest <= cap)
        if inside.size == 0:
            out.append({"cap": cap, "largest": None, "median": None, "weights": None})
            continue
        start = weights[inside[np.argmin(median[inside])]]

        def penalized(theta, cap=cap):
            d = distances(_softmax(theta), pairs, targets)
            return np.median(d) + 10 * max(d.max() - cap, 0.0)

        res = minimize(penalized, np.log(np.maximum(start, 1e-6)), method="Powell",
                       options={"maxiter": 3000, "xtol": 1e-3, "ftol": 1e-6})
        best = _softmax(res.x)
        d = distances(best, pairs, targets)
        if d.max() > cap or np.median(d) > np.median(distances(start, pairs, targets)):
            best, d = start, distances(start, pairs, targets)
        out.append({"cap": cap, "largest": float(d.max()), "median": float(np.median(d)),
                    "weights": np.round(best, 4).tolist()})
    return out

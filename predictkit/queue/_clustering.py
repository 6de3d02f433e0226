"""Job classes for QBETS: by requested nodes and requested time.

QBETS keeps one history (and one bound) per class of jobs that experience
similar delays (Nurmi et al. 2008, section 2.3: "on-line model-based
clustering ... based on their node counts and execution times"). A class is
found from two features known at submission, ``log2`` of the requested
nodes (``req_procs``, ``n_procs`` where the request is unknown) and ``log`` of
the requested time (``req_time``). A feature value that is missing or not
positive is replaced by the median of the sample the classes were fitted on
(a feature missing for the whole sample is constant, so it splits nothing).

Classifiers (each has ``labels(features)``, ``n_classes`` and ``describe()``):

- :class:`SingleClass` -- every job in one class.
- :class:`BinClasses` -- interval classes on each feature (the product of the
  node intervals and the time intervals). Built from explicit bin edges, or by
  :func:`fit_bic_bins`, the greedy BIC merge of the QBETS reference
  implementation.
- :class:`GaussianMixtureClasses` -- built by :func:`fit_gaussian_mixture`: a
  Gaussian mixture on the two log features, number of components chosen by
  BIC.
"""

import math

import numpy as np

from .._table import WIDTH_COLUMNS, validate_jobs
from ..exceptions import ConfigError, JobTableError

__all__ = ["job_features", "SingleClass", "BinClasses", "GaussianMixtureClasses",
           "fit_bic_bins", "fit_gaussian_mixture", "parse_edges"]

FEATURE_NAMES = ("log2 requested nodes", "log requested time")


def job_features(X, *, name="job table"):
    """The two clustering features of each job, ``NaN`` where unknown.

    Parameters
    ----------
    X : DataFrame
        Jobs with ``req_procs`` and/or ``n_procs``, and ``req_time``.
    name : str
        How messages call the table (e.g. ``"QBETS: job table"``).

    Raises
    ------
    JobTableError
        If ``X`` has neither ``req_procs`` nor ``n_procs``, or no ``req_time``,
        or one of them holds text, an infinite value or one of 2**53 or more;
        or a width read (``req_procs``, and ``n_procs`` where ``req_procs`` is
        unknown) is not a whole number > 0, or a requested time is negative,
        as WaitPredictor refuses them.
    """
    columns = getattr(X, "columns", ())
    if "req_procs" not in columns and "n_procs" not in columns:
        raise JobTableError(f"{name} lacks both 'req_procs' and 'n_procs' "
                            "(needed to classify jobs by requested nodes)")
    if "req_time" not in columns:
        raise JobTableError(f"{name} lacks 'req_time' (needed to classify jobs "
                            "by requested time)")
    # text, infinite or inexact values would make classes of nonsense
    validate_jobs(X, columns=("job_id", "req_procs", "n_procs", "req_time"),
                  check_values=False, name=name)
    # so would widths that are no processor count; the allocation is read only where
    # the request is unknown (logs such as LPC-EGEE record 0 for some allocations)
    unknown = np.full(len(X), np.nan)
    asked = np.asarray(X["req_procs"], dtype=np.float64) if "req_procs" in columns else unknown
    allocated = np.asarray(X["n_procs"], dtype=np.float64) if "n_procs" in columns else unknown
    read = np.where(np.isnan(asked), allocated, asked)
    if (np.isfinite(read) & ((read <= 0) | (read != np.floor(read)))).any():
        # the table's own check words the error (a replay calls this once per job)
        widths = X[[c for c in ("job_id", *WIDTH_COLUMNS) if c in columns]]
        if "req_procs" in columns and "n_procs" in columns:
            widths = widths.assign(n_procs=np.where(np.isnan(asked), allocated, np.nan))
        validate_jobs(widths, whole=WIDTH_COLUMNS, name=name)
    nodes = read  # requested_width(X): no width read is <= 0 from here on
    req = np.asarray(X["req_time"], dtype=np.float64)
    if (req < 0).any():
        validate_jobs(X, columns=("job_id", "req_time"), name=name)  # words the error
    with np.errstate(divide="ignore", invalid="ignore"):
        f_nodes = np.where(nodes > 0, np.log2(nodes), np.nan)
        f_time = np.where(req > 0, np.log(req), np.nan)
    return np.column_stack([f_nodes, f_time])


def _medians(features):
    out = np.zeros(features.shape[1])
    for j in range(features.shape[1]):
        col = features[:, j]
        col = col[np.isfinite(col)]
        out[j] = float(np.median(col)) if len(col) else 0.0
    return out


def _impute(features, medians):
    bad = ~np.isfinite(features)
    if not bad.any():
        return features
    out = features.copy()
    rows, cols = np.nonzero(bad)
    out[rows, cols] = medians[cols]
    return out


class SingleClass:
    """Every job in class 0."""

    n_classes = 1

    def labels(self, features):
        return np.zeros(len(features), dtype=np.int64)

    def describe(self):
        return [{"class": 0, "nodes": "all", "requested_time": "all"}]


class BinClasses:
    """Product of interval classes on requested nodes and requested time.

    Parameters
    ----------
    node_edges, time_edges : sequence of float
        Increasing interior edges in the original units (nodes, seconds). A
        job with value ``v`` falls in interval ``i`` = the number of edges
        ``<= v`` (so ``[16, 64]`` gives ``v < 16``, ``16 <= v < 64``, ``v >= 64``).
    medians : array of 2 floats, optional
        Log-feature values used for jobs whose feature is unknown. Default 0
        (1 node, 1 second): explicit edges are not fitted, so an unknown
        value falls in the first interval of its feature.
    """

    def __init__(self, node_edges, time_edges, medians=None):
        self.node_edges = np.asarray(node_edges, dtype=np.float64)
        self.time_edges = np.asarray(time_edges, dtype=np.float64)
        self.medians = np.zeros(2) if medians is None else np.asarray(medians)
        self.n_classes = (len(self.node_edges) + 1) * (len(self.time_edges) + 1)

    def labels(self, features):
        f = _impute(features, self.medians)
        with np.errstate(divide="ignore"):
            node_cut = np.log2(self.node_edges)
            time_cut = np.log(self.time_edges)
        i = np.searchsorted(node_cut, f[:, 0], side="right")
        j = np.searchsorted(time_cut, f[:, 1], side="right")
        return (i * (len(self.time_edges) + 1) + j).astype(np.int64)

    def describe(self):
        node_bounds = [0.0, *self.node_edges.tolist(), math.inf]
        time_bounds = [0.0, *self.time_edges.tolist(), math.inf]
        out = []
        for i in range(len(node_bounds) - 1):
            for j in range(len(time_bounds) - 1):
                out.append({"class": i * (len(time_bounds) - 1) + j,
                            "nodes": f"[{node_bounds[i]:g}, {node_bounds[i + 1]:g})",
                            "requested_time": f"[{time_bounds[j]:g}, {time_bounds[j + 1]:g})"})
        return out


class GaussianMixtureClasses:
    """Classes = components of a fitted :class:`sklearn.mixture.GaussianMixture`."""

    def __init__(self, mixture, medians):
        self.mixture = mixture
        self.medians = medians
        self.n_classes = mixture.n_components

    def labels(self, features):
        """Most probable component of each job.

        The Gaussian log densities are written out for two features (no BLAS
        call, which costs more than the arithmetic for small batches).
        """
        f = _impute(features, self.medians)
        mix = self.mixture
        best = np.full(len(f), -np.inf)
        out = np.zeros(len(f), dtype=np.int64)
        for k in range(mix.n_components):
            chol = mix.precisions_cholesky_[k]
            d0 = f[:, 0] - mix.means_[k, 0]
            d1 = f[:, 1] - mix.means_[k, 1]
            y0 = d0 * chol[0, 0] + d1 * chol[1, 0]
            y1 = d0 * chol[0, 1] + d1 * chol[1, 1]
            score = (math.log(mix.weights_[k]) + math.log(chol[0, 0] * chol[1, 1])
                     - 0.5 * (y0 * y0 + y1 * y1))
            better = score > best
            out[better] = k
            best[better] = score[better]
        return out

    def describe(self):
        out = []
        for k in range(self.n_classes):
            mean = self.mixture.means_[k]
            out.append({"class": k, "nodes": f"~{2.0 ** mean[0]:.3g}",
                        "requested_time": f"~{math.exp(mean[1]):.3g}",
                        "weight": float(self.mixture.weights_[k])})
        return out


def parse_edges(clustering):
    """Validate explicit bin edges ``(node_edges, time_edges)`` or a dict of them."""
    if isinstance(clustering, dict):
        unknown = set(clustering) - {"nodes", "req_time"}
        if unknown:
            raise ConfigError(f"clustering edges: unknown key(s) {sorted(unknown)}; "
                              "use 'nodes' and 'req_time'")
        pair = (clustering.get("nodes", ()), clustering.get("req_time", ()))
    else:
        try:
            pair = tuple(clustering)
        except TypeError:
            raise ConfigError(f"clustering must be 'auto', 'bic', None or bin edges, "
                              f"got {clustering!r}") from None
        if len(pair) != 2:
            raise ConfigError("clustering edges must be (node_edges, time_edges), "
                              f"got {len(pair)} item(s)")
    out = []
    for name, edges in zip(("node", "time"), pair):
        try:
            arr = np.asarray(edges if edges is not None else (), dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise ConfigError(f"clustering {name} edges are not numbers: {edges!r}") from None
        if (arr <= 0).any() or not np.isfinite(arr).all() or (np.diff(arr) <= 0).any():
            raise ConfigError(f"clustering {name} edges must be positive, finite and "
                              f"strictly increasing, got {arr.tolist()}")
        out.append(arr)
    return out


def _exp_loglik(n, total):
    mean = total / n
    return -n * (math.log(mean) + 1.0)


def _greedy_bins(values, waits, *, n_bins, max_bins):
    """Interior edges (in feature units) from the greedy BIC merge on one feature."""
    order = np.argsort(values, kind="stable")
    v = values[order]
    w = waits[order] + 1.0  # exponential likelihood needs positive waits
    n = len(v)
    distinct_starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    if len(distinct_starts) < 2:
        return np.zeros(0)
    targets = np.linspace(0, n, n_bins + 1)[1:-1]
    cuts = np.unique(distinct_starts[np.clip(
        np.searchsorted(distinct_starts, targets), 0, len(distinct_starts) - 1)])
    cuts = cuts[cuts > 0]
    bounds = [0, *cuts.tolist(), n]
    csum = np.r_[0.0, np.cumsum(w)]
    bins = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]

    def loglik(a, b):
        return _exp_loglik(b - a, csum[b] - csum[a])

    def bic(bs):
        k = len(bs)
        return sum(loglik(a, b) for a, b in bs) - (2 * k - 1) * math.log(n) / 2.0

    current = bic(bins)
    while len(bins) > 1:
        best, best_bins = -math.inf, None
        for i in range(len(bins) - 1):
            merged = bins[:i] + [(bins[i][0], bins[i + 1][1])] + bins[i + 2:]
            score = bic(merged)
            if score > best:
                best, best_bins = score, merged
        if best < current and len(bins) <= max_bins:
            break
        bins, current = best_bins, best
    return np.array([v[a] for a, _ in bins[1:]])


def fit_bic_bins(features, waits, *, n_bins=20, max_bins=3):
    """The reference clustering: greedy BIC merge of sorted bins, per feature.

    For each feature the jobs are sorted, cut into at most ``n_bins`` bins of
    about equal count (cuts only between distinct values, so ties stay
    together), and adjacent bins are merged greedily (the merge that gives the
    best BIC first) while BIC improves, and further until at most ``max_bins``
    remain. The likelihood models each bin's waits (plus one second) as
    exponential with the bin's own mean; BIC = log-likelihood
    ``- (2k - 1) ln(N) / 2`` for ``k`` bins (``k`` rates, ``k - 1`` cuts).
    Classes are the product of the node bins and the time bins.
    """
    medians = _medians(features)
    f = _impute(features, medians)
    waits = np.asarray(waits, dtype=np.float64)
    node_cut = _greedy_bins(f[:, 0], waits, n_bins=n_bins, max_bins=max_bins)
    time_cut = _greedy_bins(f[:, 1], waits, n_bins=n_bins, max_bins=max_bins)
    return BinClasses(2.0 ** node_cut, np.exp(time_cut), medians)


def fit_gaussian_mixture(features, *, max_components=6, random_state=0, max_sample=3000):
    """A Gaussian mixture on the log features, components chosen by BIC.

    Fits ``1..max_components`` full-covariance components (k-means
    initialisation, ``random_state``) on at most ``max_sample`` jobs (evenly
    spaced through ``features``) and keeps the one with the lowest BIC.
    """
    from sklearn.mixture import GaussianMixture
    from threadpoolctl import threadpool_limits

    medians = _medians(features)
    f = _impute(features, medians)
    if len(f) > max_sample:
        f = f[np.linspace(0, len(f) - 1, max_sample).astype(np.int64)]
    best, best_bic = None, math.inf
    n_distinct = len(np.unique(f, axis=0))
    # 2x2 linear algebra: BLAS threads only add overhead
    with threadpool_limits(1):
        for k in range(1, min(max_components, n_distinct) + 1):
            model = GaussianMixture(n_components=k, covariance_type="full",
                                    reg_covar=1e-3, random_state=random_state,
                                    max_iter=100).fit(f)
            score = model.bic(f)
            if score < best_bic:
                best, best_bic = model, score
    return GaussianMixtureClasses(best, medians)

"""The QBETS state machine shared by the estimator and its fast replay.

The state after a sequence of completed waits is a function of that sequence
only (not of how it was split into ``partial_fit`` calls):

1. Each wait joins the history of its job class. Before it is added, the
   class's current bound is noted; the change-point rule then compares the
   wait with that bound and may trim the history.
2. Classes come from a classifier refitted whenever the number of waits seen
   reaches ``cluster_start``, ``2 * cluster_start``, ``4 * cluster_start``, ...
   on the most recent ``cluster_window`` of them. Before the first refit every
   job is in one class. After a refit the class histories are rebuilt by
   running step 1 over every wait seen so far with the new classes, so the
   state is always "QBETS with the current classes run from the beginning".
   With doubling, the rebuilds cost at most twice the waits seen.
"""

import math

import numpy as np

from ._binomial import index_table, min_history
from ._changepoint import make_rule
from ._clustering import (BinClasses, SingleClass, fit_bic_bins,
                          fit_gaussian_mixture, parse_edges)
from ._history import ClassHistory, SortedHistory, union_kth

__all__ = ["Engine", "proba_indices"]

_EMPTY = SortedHistory()


def proba_indices(n, grid, c, index):
    """Order-statistic index for each quantile of ``grid`` with ``n`` waits (0: none)."""
    return np.array([index_table(float(p), c, index)[n] for p in grid], dtype=np.int64)


class _Store:
    """Growable arrays of the features and waits seen, in arrival order."""

    def __init__(self):
        self.features = np.empty((1024, 2))
        self.waits = np.empty(1024)
        self.n = 0

    def extend(self, features, waits):
        need = self.n + len(waits)
        if need > len(self.waits):
            size = max(need, 2 * len(self.waits))
            self.features = np.resize(self.features, (size, 2))
            self.waits = np.resize(self.waits, size)
        self.features[self.n:need] = features
        self.waits[self.n:need] = waits
        self.n = need


class Engine:
    """QBETS histories, bounds and classes (see the module docstring)."""

    def __init__(self, *, quantile, confidence, changepoint, clustering, index,
                 max_classes, cluster_start, cluster_window, ruptures_options, seed,
                 proba_step, trim_on_hits=True):
        self.q, self.c, self.index = quantile, confidence, index
        self.n_min = min_history(quantile, confidence)
        self.table = index_table(quantile, confidence, index)
        self.rule = make_rule(changepoint, quantile, self.n_min, ruptures_options,
                              trim_on_hits)
        self.clustering = clustering
        self.max_classes = max_classes
        self.cluster_start = cluster_start
        self.cluster_window = cluster_window
        self.seed = seed
        # the multiples of the step below 1, rounded so that 0.01 steps give k / 100 exactly
        self.grid = np.round(np.arange(1, math.floor((1.0 - 1e-9) / proba_step) + 1)
                             * proba_step, 12)
        self._grid_cache = {}
        self.store = _Store()
        self.n_refits = 0
        if clustering is None or isinstance(clustering, str):
            self.classifier = SingleClass()
            self.next_refit = cluster_start if clustering is not None else math.inf
        else:
            node_edges, time_edges = parse_edges(clustering)
            self.classifier = BinClasses(node_edges, time_edges)
            self.next_refit = math.inf
        self._reset_histories()

    def _reset_histories(self):
        self.histories = {}
        self._arrays = {}

    def bound(self, label):
        """Current bound of a class (``NaN`` with too little history)."""
        hist = self.histories.get(label)
        if hist is None:
            return math.nan
        b = hist.bound
        if b is None:
            k = self.table[len(hist.sorted)]
            b = hist.bound = hist.sorted.kth(k) if k else math.nan
        return b

    def queued_bound(self, label, queued, now):
        """Bound of a class, raised by its queued jobs that already exceed it.

        ``queued`` holds the submit times of the class's jobs still waiting
        at ``now`` (a :class:`SortedHistory`, possibly empty). A queued job
        whose age ``now - submit`` is above the history's bound is a miss
        already known; its age, a lower bound on its wait, joins the sample
        and the order statistic is taken for ``n + m`` values. The bound can
        only rise.
        """
        b = self.bound(label)
        if queued is None or not len(queued) or b != b:
            return b
        m = queued.count_lt(now - b)
        if m == 0:
            return b
        values = self.histories[label].sorted
        k = self.table[len(values) + m]
        return union_kth(values, queued, now, k, m)

    def absorb(self, label, wait):
        """Add one wait to a class history (step 1)."""
        hist = self.histories.get(label)
        if hist is None:
            hist = self.histories[label] = ClassHistory(self.rule.keep)
        prior = hist.bound
        if prior is None:
            prior = self.bound(label)
        hist.add(wait)
        self.rule.update(hist, wait, prior)
        if self._arrays:
            self._arrays.pop(label, None)

    def add(self, features, waits):
        """Add completed waits in order, refitting the classes when due."""
        start = 0
        n = len(waits)
        while start < n:
            stop = n if self.next_refit == math.inf else min(
                n, start + int(self.next_refit - self.store.n))
            labels = self.classifier.labels(features[start:stop])
            self.store.extend(features[start:stop], waits[start:stop])
            for label, wait in zip(labels.tolist(), waits[start:stop].tolist()):
                self.absorb(label, wait)
            start = stop
            if self.store.n >= self.next_refit:
                self.refit()

    def refit(self):
        """Refit the classifier on recent waits and rebuild every history (step 2)."""
        n = self.store.n
        lo = max(0, n - self.cluster_window)
        features = self.store.features[lo:n]
        if self.clustering == "bic":
            self.classifier = fit_bic_bins(features, self.store.waits[lo:n],
                                           max_bins=3)
        else:
            self.classifier = fit_gaussian_mixture(
                features, max_components=self.max_classes,
                random_state=(self.seed + self.n_refits) % (2 ** 31 - 1))
        self.n_refits += 1
        self.next_refit = 2 * self.next_refit
        self._reset_histories()
        labels = self.classifier.labels(self.store.features[:n])
        for label, wait in zip(labels.tolist(), self.store.waits[:n].tolist()):
            self.absorb(label, wait)

    def labels(self, features):
        return self.classifier.labels(features)

    def proba(self, labels, within):
        """Inverted bound for each job: the largest grid quantile whose bound is
        ``<= within`` (0 if none, ``NaN`` if the class has no bound at any
        grid quantile)."""
        labels = np.asarray(labels)
        within = np.asarray(within, dtype=np.float64)
        out = np.full(len(labels), np.nan)
        for label in np.unique(labels).tolist():
            rows = np.flatnonzero(labels == label)
            hist = self.histories.get(label)
            n = len(hist) if hist is not None else 0
            if n == 0:
                continue
            ks = self._grid_indices(n)
            valid = int(np.count_nonzero(ks))
            if valid == 0:
                continue
            values = self._sorted_array(label, hist)
            m = np.searchsorted(values, within[rows], side="right")
            # grid ascending, k nondecreasing on the quantiles that have a bound
            pos = np.searchsorted(ks[:valid], m, side="right") - 1
            out[rows] = np.where(pos >= 0, self.grid[np.maximum(pos, 0)], 0.0)
        return out

    def queued_proba(self, labels, within, queues, now):
        """:meth:`proba` with each grid quantile's bound raised by the queue.

        ``queues`` maps a class label to the submit times of its queued jobs
        (see :meth:`queued_bound`, applied at every quantile of the grid).
        """
        labels = np.asarray(labels)
        within = np.asarray(within, dtype=np.float64)
        out = np.full(len(labels), np.nan)
        for label in np.unique(labels).tolist():
            rows = np.flatnonzero(labels == label)
            queued = queues.get(label)
            hist = self.histories.get(label)
            n = len(hist) if hist is not None else 0
            if queued is None or not len(queued) or n == 0:
                out[rows] = self.proba(labels[rows], within[rows])
                continue
            ks = self._grid_indices(n)
            if not ks.any():
                continue
            bounds = np.full(len(ks), np.inf)
            for i, k in enumerate(ks.tolist()):
                if not k:
                    continue
                b = hist.sorted.kth(k)
                m = queued.count_lt(now - b)
                if m:
                    b = union_kth(hist.sorted, queued, now, int(self._grid_indices(n + m)[i]), m)
                bounds[i] = b
            fits = bounds[None, :] <= within[rows, None]
            last = len(ks) - 1 - np.argmax(fits[:, ::-1], axis=1)
            out[rows] = np.where(fits.any(axis=1), self.grid[last], 0.0)
        return out

    def _grid_indices(self, n):
        ks = self._grid_cache.get(n)
        if ks is None:
            ks = proba_indices(n, self.grid, self.c, self.index)
            if len(self._grid_cache) > 4096:
                self._grid_cache.clear()
            self._grid_cache[n] = ks
        return ks

    def _sorted_array(self, label, hist):
        values = self._arrays.get(label)
        if values is None:
            values = self._arrays[label] = np.fromiter(hist.sorted, dtype=np.float64,
                                                       count=len(hist))
        return values

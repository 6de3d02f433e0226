"""Change-point rules that trim a QBETS class history.

QBETS only uses the history of the current region of stationarity (Nurmi et
al. 2008, section 2.3). Three rules are offered:

``"runs"`` (:class:`RunsRule`)
    QBETS's own rule. Each new wait is compared with the bound that was
    current *before* it was added. A run of consecutive misses (wait above the
    bound) or of consecutive hits that is too long to be chance declares a
    change point, and the history is trimmed to its most recent
    ``min_history`` waits. The run length that counts as "too long" grows with
    the lag-1 autocorrelation ``rho`` of the normal scores of the ranks of the
    class's last (at most) 100 waits: for ``rho`` in the bins
    ``[0, .1), [.1, .2), ..., [.9, 1), [1, 1]`` the miss thresholds are
    :data:`MISS_THRESHOLDS` and the hit thresholds :data:`HIT_THRESHOLDS`
    (those of the public QBETS implementation, for ``q = 0.95``). Both tables
    correspond to the same false-alarm probability under independence
    (``0.05**3`` and ``0.95**174`` are both about ``1.3e-4``); for another
    quantile each run length ``r`` is converted to the one with the same
    probability, ``ceil(r * ln(p_ref) / ln(p_q))`` with ``p`` the miss
    probability ``1 - q`` (hit probability ``q`` for hits). At ``q = 0.95``
    this gives the tables unchanged.
``"ruptures"`` (:class:`RupturesRule`)
    Every ``every`` waits added to a class, PELT (:mod:`ruptures`, L2 cost)
    runs on ``log1p`` of the class's most recent ``window`` waits, averaged in
    blocks of ``block`` consecutive waits to bound the cost. The penalty is
    ``3 ln(m) sigma**2`` (a BIC-type penalty, raised from ``2 ln m`` to keep
    false alarms on stationary waits rare) with ``m`` the number of blocks and
    ``sigma`` a
    robust noise estimate (median absolute first difference of the block
    means / (0.6745 sqrt 2)) unless a fixed ``penalty`` is given. When a
    change point is found the history keeps only the last segment (at least
    ``min_history`` waits).
``None``
    Keep every wait.
"""

import math

import numpy as np
from scipy import special

__all__ = ["MISS_THRESHOLDS", "HIT_THRESHOLDS", "run_thresholds",
           "lag1_rank_autocorrelation", "RunsRule", "RupturesRule", "make_rule"]

MISS_THRESHOLDS = (3, 3, 4, 4, 5, 6, 8, 10, 14, 28, 28)
"""Consecutive misses that declare a change point, by ``rho`` bin (q = 0.95)."""
HIT_THRESHOLDS = (174, 179, 186, 194, 210, 233, 254, 305, 400, 629, 3648)
"""Consecutive hits that declare the bound too loose, by ``rho`` bin (q = 0.95)."""
_REFERENCE_Q = 0.95
AUTOCORRELATION_WINDOW = 100


def run_thresholds(q):
    """Miss and hit run thresholds for quantile ``q``, one per ``rho`` bin.

    Returns
    -------
    misses, hits : tuple of int
        At ``q = 0.95`` exactly :data:`MISS_THRESHOLDS` and :data:`HIT_THRESHOLDS`.
    """
    miss_scale = math.log(1.0 - _REFERENCE_Q) / math.log(1.0 - q)
    hit_scale = math.log(_REFERENCE_Q) / math.log(q)
    misses = tuple(_round_up(r * miss_scale) for r in MISS_THRESHOLDS)
    hits = tuple(_round_up(r * hit_scale) for r in HIT_THRESHOLDS)
    return misses, hits


def _round_up(runs):
    """A scaled run length rounded up, at least 1; a run length within a
    millionth of a whole number is that number (a quantile given in single
    precision, ``np.float32(0.95)``, gives the thresholds of 0.95)."""
    return max(1, math.ceil(runs * (1.0 - 1e-6)))


def lag1_rank_autocorrelation(values):
    """Lag-1 autocorrelation of the normal scores of the ranks of ``values``.

    Ranks are average ranks (ties share one), normal scores are
    ``Phi^-1((rank - 0.5) / m)``; the autocorrelation is the usual estimator
    (``statsmodels.tsa.stattools.acf(x, nlags=1)[1]``). Returns 0 for fewer
    than 3 values or when every value is equal.
    """
    x = np.asarray(values, dtype=np.float64)
    m = len(x)
    if m < 3:
        return 0.0
    scores = special.ndtri((_average_ranks(x) - 0.5) / m)
    scores -= scores.mean()
    denom = float(np.dot(scores, scores))
    if denom <= 0.0:
        return 0.0
    return float(np.dot(scores[:-1], scores[1:]) / denom)


def _average_ranks(x):
    """``scipy.stats.rankdata(x)`` (ties share their average rank), without its overhead."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new = np.r_[True, xs[1:] != xs[:-1]]
    dense = np.cumsum(new)
    bounds = np.r_[np.flatnonzero(new), len(x)]
    ranks = np.empty(len(x))
    ranks[order] = 0.5 * (bounds[dense] + bounds[dense - 1] + 1)
    return ranks


def _rho_bin(rho):
    return min(10, max(0, int(math.floor(rho * 10.0 + 1e-12))))


class RunsRule:
    """QBETS's run-length change-point rule (see the module docstring)."""

    name = "runs"

    def __init__(self, q, n_min, trim_on_hits=True):
        self.n_min = n_min
        self.misses, self.hits = run_thresholds(q)
        if not trim_on_hits:
            self.hits = (math.inf,) * len(self.hits)
        self.min_misses = min(self.misses)
        self.min_hits = min(self.hits)
        self.keep = max(AUTOCORRELATION_WINDOW, n_min)

    def update(self, history, wait, bound):
        """Count the new wait against its prior bound; trim on a change point.

        Returns True when the history was trimmed.
        """
        if bound != bound:  # no bound yet
            return False
        if wait > bound:
            history.misses += 1
            history.hits = 0
        else:
            history.hits += 1
            history.misses = 0
        if history.misses < self.min_misses and history.hits < self.min_hits:
            return False
        recent = history.recent
        tail = list(recent)[-AUTOCORRELATION_WINDOW:]
        b = _rho_bin(lag1_rank_autocorrelation(tail))
        if history.misses >= self.misses[b] or history.hits >= self.hits[b]:
            history.trim(self.n_min)
            return True
        return False


def _noise(signal):
    """The standard deviation of the noise around a piecewise-constant ``signal``, from
    its successive differences (each the difference of two noises: ``sqrt(2)`` times
    it): the median absolute difference scaled to a normal's, robust to the few
    differences that span a change; where most differences are 0 (a class whose waits
    are nearly all 0), their mean absolute value, scaled the same way, since a median
    of 0 would make every nonzero block a change."""
    diffs = np.abs(np.diff(signal))
    sigma = np.median(diffs) / (0.6745 * math.sqrt(2.0))
    if sigma > 0:
        return sigma
    return diffs.mean() * math.sqrt(math.pi) / 2.0


class RupturesRule:
    """PELT on recent log waits, keeping the last segment (see the module docstring)."""

    name = "ruptures"

    def __init__(self, n_min, *, window=2000, block=10, every=1000, penalty=None,
                 min_blocks=5, jump=5):
        self.n_min = n_min
        self.window = window
        self.block = block
        self.every = every
        self.penalty = penalty
        self.min_blocks = min_blocks
        self.jump = jump
        self.keep = max(AUTOCORRELATION_WINDOW, n_min, window)

    def last_change(self, values):
        """Offset into ``values`` where the last segment starts (0 if none)."""
        import ruptures

        n_blocks = len(values) // self.block
        if n_blocks < 2 * self.min_blocks:
            return 0
        used = np.log1p(np.asarray(values[len(values) - n_blocks * self.block:],
                                   dtype=np.float64))
        signal = used.reshape(n_blocks, self.block).mean(axis=1)
        if self.penalty is None:
            penalty = 3.0 * math.log(n_blocks) * max(_noise(signal) ** 2, 1e-12)
        else:
            penalty = float(self.penalty)
        algo = ruptures.Pelt(model="l2", min_size=self.min_blocks, jump=self.jump)
        breaks = algo.fit(signal).predict(pen=penalty)
        if len(breaks) < 2:
            return 0
        return len(values) - n_blocks * self.block + breaks[-2] * self.block

    def update(self, history, wait, bound):
        """Run PELT every ``every`` additions to the class; trim on a change point."""
        if history.since_check < self.every:
            return False
        history.since_check = 0
        n_window = min(len(history), self.window)
        values = list(history.recent)[-n_window:]
        start = self.last_change(values)
        if start <= 0:
            return False
        history.trim(max(len(values) - start, self.n_min))
        return True


class _KeepAll:
    name = None

    def __init__(self, n_min):
        self.keep = max(AUTOCORRELATION_WINDOW, n_min)

    def update(self, history, wait, bound):
        return False


def make_rule(changepoint, q, n_min, ruptures_options=None, trim_on_hits=True):
    """Build the change-point rule named by QBETS's ``changepoint`` parameter."""
    if changepoint == "runs":
        return RunsRule(q, n_min, trim_on_hits)
    if changepoint == "ruptures":
        return RupturesRule(n_min, **(ruptures_options or {}))
    return _KeepAll(n_min)

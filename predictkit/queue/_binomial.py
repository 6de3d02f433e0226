"""The binomial order-statistic bound on a quantile (QBETS / BMBP).

Nurmi, Wolski and Brevik (2008), section 2.3, summarise the QBETS method
(Nurmi, Brevik and Wolski, JSSPP 2007; Brevik, Nurmi and Wolski, PPoPP 2006):
an upper bound on the ``q`` quantile of the waits, with confidence ``c``, is
an order statistic of the ``n`` past waits, chosen with no assumption about
their distribution. The number of past waits below the true quantile is
Binomial(n, q); the ``k``-th smallest wait exceeds the quantile unless ``k`` or
more of them fall below it, so ``X_(k)`` is a level-``c`` upper bound when
``P(Binomial(n, q) <= k - 1) >= c``.

Two index rules are offered:

``"textbook"`` (default)
    ``k`` is the smallest 1-based index with ``P(Bin(n, q) <= k - 1) >= c``.
    The bound has at least the stated confidence for every ``n``.
``"reference"``
    The public BMBP implementation: the smallest ``j`` with
    ``P(Bin(n, q) <= j) > c``, used as a 1-based index. It is one order
    statistic lower than the textbook rule, so its confidence is below ``c``
    at small ``n`` (``n = 59, q = c = 0.95``: the second-largest value, true
    confidence about 0.80).

For ``n > 500`` both use the normal approximation of the reference,
``j = floor(q n + z_c sqrt(n q (1 - q)) + 0.5)`` (``z_c`` the standard normal
``c`` quantile); the textbook rule adds one and, where that still falls short
of the stated confidence (e.g. ``c = 0.5``, or ``q = 0.99, c = 0.8``, for
some ``n``), takes the exact index instead. At ``c = 0.95`` and the usual
quantiles the approximation is never short (it is at times one order
statistic above the exact index).
"""

import functools
import math
from numbers import Integral, Real

import numpy as np
from scipy import stats

from .._validation import Interval, StrOptions, check_parameters

__all__ = ["INDEX_RULES", "NORMAL_APPROXIMATION_N", "min_history",
           "order_statistic_index", "IndexTable", "index_table"]

INDEX_RULES = ("textbook", "reference")
NORMAL_APPROXIMATION_N = 500
"""Histories longer than this use the normal approximation."""


_CONSTRAINTS = {"q": [Interval(Real, 0, 1, closed="neither")],
                "c": [Interval(Real, 0, 1, closed="neither")],
                "index": [StrOptions(set(INDEX_RULES))]}


def _check(q, c, index, owner="min_history"):
    check_parameters(_CONSTRAINTS, {"q": q, "c": c, "index": index}, owner)


def min_history(q, c):
    """Smallest history ``n`` with ``q**n <= 1 - c``: below it no bound exists.

    With fewer waits even the largest one is not a level-``c`` bound on the
    ``q`` quantile (it falls below the quantile with probability ``q**n``).
    59 for ``q = c = 0.95``.
    """
    _check(q, c, "textbook")
    n = max(1, math.ceil(math.log(1.0 - c) / math.log(q)))
    while n > 1 and q ** (n - 1) <= 1.0 - c:
        n -= 1
    while q ** n > 1.0 - c:
        n += 1
    return n


def _exact_index(n, q, c, index):
    cdf = stats.binom.cdf(np.arange(n + 1), n, q)
    if index == "textbook":
        # k - 1 = smallest m with cdf[m] >= c
        return int(np.argmax(cdf >= c)) + 1
    return max(1, int(np.argmax(cdf > c)))


def _exact_indices(ns, q, c, index):
    """:func:`_exact_index` for many ``n`` at once (one CDF table)."""
    cdf = stats.binom.cdf(np.arange(int(ns.max()) + 1)[None, :], ns[:, None], q)
    if index == "textbook":
        return np.argmax(cdf >= c, axis=1) + 1
    return np.maximum(1, np.argmax(cdf > c, axis=1))


def _normal_index(n, q, c, index):
    z = stats.norm.ppf(c)
    j = np.floor(q * n + z * np.sqrt(n * q * (1.0 - q)) + 0.5).astype(np.int64)
    if index == "textbook":
        # at least the exact index: the smallest k with P(Bin(n, q) <= k - 1) >= c
        exact = stats.binom.ppf(c, n, q).astype(np.int64) + 1
        j = np.maximum(j + 1, exact)
    return np.clip(j, 1, n)


def order_statistic_index(n, q, c, index="textbook"):
    """1-based index of the order statistic bounding the ``q`` quantile.

    Parameters
    ----------
    n : int
        Number of past waits.
    q, c : float in (0, 1)
        Quantile and confidence.
    index : {"textbook", "reference"}
        The index rule (see the module docstring).

    Returns
    -------
    int
        ``k`` in ``1..n`` such that the ``k``-th smallest of the ``n`` waits is
        the bound, or 0 when ``n < min_history(q, c)`` (no bound).
    """
    _check(q, c, index, "order_statistic_index")
    check_parameters({"n": [Interval(Integral, 0, None, closed="left")]}, {"n": n},
                     "order_statistic_index")
    n = int(n)
    if n < min_history(q, c):
        return 0
    if n > NORMAL_APPROXIMATION_N:
        return int(_normal_index(np.array([n]), q, c, index)[0])
    return _exact_index(n, q, c, index)


class IndexTable:
    """Order-statistic indices for every history length, computed once.

    ``table[n]`` is :func:`order_statistic_index` ``(n, q, c, index)``; the
    table grows on demand. Exact binomial indices are computed for
    ``n <= 500`` (500 CDF evaluations at most), the normal approximation
    (vectorised) beyond.
    """

    def __init__(self, q, c, index="textbook"):
        _check(q, c, index, "IndexTable")
        self.q, self.c, self.index = q, c, index
        self.n_min = min_history(q, c)
        self._table = np.zeros(0, dtype=np.int64)
        self._grow(64)  # on demand: n_min may be billions for q near 1

    def _grow(self, n_max):
        old = len(self._table)
        size = max(n_max + 1, 2 * old)
        ns = np.arange(old, size)
        values = np.zeros(len(ns), dtype=np.int64)
        exact = (ns >= self.n_min) & (ns <= NORMAL_APPROXIMATION_N)
        if exact.any():
            values[exact] = _exact_indices(ns[exact], self.q, self.c, self.index)
        approx = (ns >= self.n_min) & (ns > NORMAL_APPROXIMATION_N)
        if approx.any():
            values[approx] = _normal_index(ns[approx], self.q, self.c, self.index)
        self._table = np.concatenate([self._table, values])
        self._list = self._table.tolist()

    def array(self, n_max):
        """The table as an array covering at least ``0..n_max``."""
        if n_max >= len(self._table):
            self._grow(n_max)
        return self._table

    def __getitem__(self, n):
        try:
            return self._list[n]
        except IndexError:
            self._grow(n)
            return self._list[n]


@functools.lru_cache(maxsize=None)
def index_table(q, c, index="textbook"):
    """A shared :class:`IndexTable` for ``(q, c, index)`` (tables only grow)."""
    return IndexTable(q, c, index)

"""Sorted wait histories that grow one value at a time without re-sorting.

QBETS needs, after every completed wait, the ``k``-th smallest wait of a class
(the bound) and, for the inverted function, how many waits are at or under a
time. :class:`SortedHistory` keeps the values in a list of sorted blocks (the
layout of the ``sortedcontainers`` package): an insertion is a binary search
plus an insertion into one block of at most ``2 * load`` values, a rank query
walks cumulative block sizes. Nothing is ever re-sorted.
"""

import bisect
import collections
import itertools
import math

__all__ = ["SortedHistory", "ClassHistory", "union_kth"]


class SortedHistory:
    """A multiset of floats kept in sorted order.

    Parameters
    ----------
    values : iterable of float, optional
        Initial values (sorted once).
    load : int
        Target block size; blocks split at ``2 * load``.
    """

    def __init__(self, values=(), load=512):
        self._load = load
        self._lists = []
        self._maxes = []
        self._cum = None
        self._len = 0
        self.reset(values)

    def reset(self, values=()):
        """Replace the content by ``values``."""
        data = sorted(values)
        load = self._load
        self._lists = [data[i:i + load] for i in range(0, len(data), load)]
        self._maxes = [block[-1] for block in self._lists]
        self._len = len(data)
        self._cum = None

    def __len__(self):
        return self._len

    def add(self, value):
        """Insert one value."""
        self._cum = None
        self._len += 1
        if not self._maxes:
            self._lists.append([value])
            self._maxes.append(value)
            return
        pos = bisect.bisect_right(self._maxes, value)
        if pos == len(self._maxes):
            pos -= 1
            self._lists[pos].append(value)
            self._maxes[pos] = value
        else:
            bisect.insort_right(self._lists[pos], value)
        block = self._lists[pos]
        if len(block) > 2 * self._load:
            half = block[self._load:]
            del block[self._load:]
            self._lists.insert(pos + 1, half)
            self._maxes[pos] = block[-1]
            self._maxes.insert(pos + 1, half[-1])

    def remove(self, value):
        """Remove one occurrence of ``value`` (``ValueError`` if absent)."""
        pos = bisect.bisect_left(self._maxes, value)
        if pos == len(self._maxes):
            raise ValueError(f"{value!r} not in history")
        block = self._lists[pos]
        i = bisect.bisect_left(block, value)
        if i == len(block) or block[i] != value:
            raise ValueError(f"{value!r} not in history")
        del block[i]
        self._cum = None
        self._len -= 1
        if not block:
            del self._lists[pos]
            del self._maxes[pos]
        elif i == len(block):
            self._maxes[pos] = block[-1]

    def _cumulative(self):
        if self._cum is None:
            self._cum = list(itertools.accumulate(map(len, self._lists)))
        return self._cum

    def kth(self, k):
        """The ``k``-th smallest value (1-based)."""
        if not 1 <= k <= self._len:
            raise IndexError(f"k={k} outside 1..{self._len}")
        if len(self._lists) == 1:
            return self._lists[0][k - 1]
        if self._cum is None and 2 * k > self._len:
            # upper quantiles: walk back from the largest block, no prefix sums
            after = self._len
            for block in reversed(self._lists):
                after -= len(block)
                if after < k:
                    return block[k - 1 - after]
        cum = self._cumulative()
        pos = bisect.bisect_left(cum, k)
        before = cum[pos - 1] if pos else 0
        return self._lists[pos][k - 1 - before]

    def count_lt(self, value):
        """Number of values ``< value``."""
        if not self._maxes:
            return 0
        pos = bisect.bisect_left(self._maxes, value)
        if pos == len(self._maxes):
            return self._len
        cum = self._cumulative()
        before = cum[pos - 1] if pos else 0
        return before + bisect.bisect_left(self._lists[pos], value)

    def __iter__(self):
        return itertools.chain.from_iterable(self._lists)


class ClassHistory:
    """The history of one job class: sorted waits plus their arrival order.

    The arrival-ordered tail (``recent``) holds the last ``keep`` waits, enough
    for trimming to the most recent ``n_min`` values and for the
    autocorrelation of the last 100 waits; ``n_added`` counts every wait ever
    added (used to schedule periodic change-point checks).
    """

    __slots__ = ("sorted", "recent", "misses", "hits", "n_added", "since_check", "bound")

    def __init__(self, keep):
        self.sorted = SortedHistory()
        self.recent = collections.deque(maxlen=keep)
        self.misses = 0
        self.hits = 0
        self.n_added = 0
        self.since_check = 0
        self.bound = None  # cached by the engine; None when stale

    def add(self, value):
        self.bound = None
        self.sorted.add(value)
        self.recent.append(value)
        self.n_added += 1
        self.since_check += 1

    def trim(self, n_keep):
        """Keep only the ``n_keep`` most recent waits; reset the run counters."""
        tail = list(self.recent)[-n_keep:] if n_keep else []
        self.sorted.reset(tail)
        self.bound = None
        self.misses = 0
        self.hits = 0

    def __len__(self):
        return len(self.sorted)


def union_kth(values, ages_from, now, k, m=None):
    """The ``k``-th smallest (1-based) of ``values`` united with queued ages.

    Parameters
    ----------
    values : SortedHistory
        Completed waits.
    ages_from : SortedHistory
        Submit times of queued jobs; their ages at ``now`` are ``now - s``
        (ascending ages are descending submit times).
    now : float
        The time the ages are taken at (every submit time is before it).
    k : int
        ``1 <= k <= len(values) + m``.
    m : int, optional
        Use only the ``m`` oldest queued jobs (default: all).

    Binary search on how many of the ``k`` smallest are ages: ``O(log^2)``
    rank queries, nothing merged.
    """
    n = len(values)
    if m is None:
        m = len(ages_from)
    lo, hi = max(0, k - n), min(k, m)
    while lo < hi:
        a = (lo + hi) // 2
        # is the (a+1)-th smallest age below the (k-a)-th smallest wait?
        if now - ages_from.kth(m - a) < values.kth(k - a):
            lo = a + 1
        else:
            hi = a
    h = k - lo
    wait = values.kth(h) if h else -math.inf
    age = now - ages_from.kth(m - lo + 1) if lo else -math.inf
    return max(wait, age)

"""Fenwick trees of counts (compiled): the one home of their add, prefix and search steps.

A Fenwick (binary indexed) tree keeps counts at positions ``0 .. size - 1``
so that adding to one count, summing the counts before a position, and
finding the position that holds the ``rank``-th unit each take
``O(log size)`` steps (Fenwick 1994, "A new data structure for cumulative
frequency tables"). Tang's windowed quantiles and the simulator's online
predictors keep one tree of counts over the ranks of a group's values (the
order statistics of a sliding window); the estimate assignment of the
workload models keeps one over values still to be drawn.

A tree of ``size`` counts occupies ``tree[base + 1 : base + size + 1]`` of
an integer array, so that the trees of many groups share one array; the
entry at ``base + i`` (``1 <= i <= size``) holds the sum of the counts at
positions ``i - (i & -i) .. i - 1``.
"""

from numba import njit

__all__ = ["fenwick_add", "fenwick_prefix", "fenwick_find"]


@njit(cache=True, inline="always", _nrt=False)
def fenwick_add(tree, base, size, position, delta):
    """Add ``delta`` to the count at ``position`` (0-based)."""
    i = position + 1
    while i <= size:
        tree[base + i] += delta
        i += i & (-i)


@njit(cache=True, inline="always", _nrt=False)
def fenwick_prefix(tree, base, count):
    """Sum of the counts at the first ``count`` positions (``0 .. count - 1``)."""
    total = 0
    i = count
    while i > 0:
        total += tree[base + i]
        i -= i & (-i)
    return total


@njit(cache=True, inline="always", _nrt=False)
def fenwick_find(tree, base, size, rank):
    """The position holding the ``rank``-th unit (0-based) of the counts in position order.

    That is the position ``p`` with ``prefix(p) <= rank < prefix(p + 1)``
    (:func:`fenwick_prefix`), for ``0 <= rank < prefix(size)``: with counts
    of how many window values have each rank, the rank of the ``rank``-th
    smallest value.
    """
    top = 1
    while top * 2 <= size:
        top *= 2
    position = 0
    rest = rank
    step = top
    while step > 0:
        following = position + step
        if following <= size and tree[base + following] <= rest:
            position = following
            rest -= tree[base + following]
        step >>= 1
    return position

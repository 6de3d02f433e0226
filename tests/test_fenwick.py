"""Fenwick trees of counts against a plain list of counts."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit._fenwick import fenwick_add, fenwick_find, fenwick_prefix


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 20), min_size=1, max_size=4), data=st.data())
def test_trees_sharing_an_array_answer_as_their_lists_of_counts(sizes, data):
    bases = np.concatenate([[0], np.cumsum(np.asarray(sizes) + 1)[:-1]]).astype(np.int64)
    tree = np.zeros(int(sum(sizes) + len(sizes)), dtype=np.int64)
    counts = [[0] * size for size in sizes]
    for _ in range(data.draw(st.integers(0, 40))):
        g = data.draw(st.integers(0, len(sizes) - 1))
        if not sizes[g]:
            continue
        position = data.draw(st.integers(0, sizes[g] - 1))
        delta = data.draw(st.integers(-counts[g][position], 5))
        fenwick_add(tree, bases[g], sizes[g], position, delta)
        counts[g][position] += delta
        for other, size in enumerate(sizes):
            mine = counts[other]
            for count in range(size + 1):
                assert fenwick_prefix(tree, bases[other], count) == sum(mine[:count])
            units = [p for p, c in enumerate(mine) for _ in range(c)]
            for rank, expected in enumerate(units):
                assert fenwick_find(tree, bases[other], size, rank) == expected

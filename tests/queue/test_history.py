"""SortedHistory and the union order statistic against plain sorted lists."""

import bisect

from hypothesis import given
from hypothesis import strategies as st

from predictkit.queue._history import ClassHistory, SortedHistory, union_kth

values = st.lists(st.integers(0, 50).map(float), max_size=300)


@given(initial=values, added=values, load=st.integers(2, 8))
def test_sorted_history_matches_sorted_list(initial, added, load):
    hist = SortedHistory(initial, load=load)
    reference = sorted(initial)
    for value in added:
        hist.add(value)
        bisect.insort(reference, value)
        assert len(hist) == len(reference)
    assert list(hist) == reference
    for k in range(1, len(reference) + 1):
        assert hist.kth(k) == reference[k - 1]
    for probe in [-1.0, 0.0, 10.0, 25.5, 50.0, 99.0]:
        assert hist.count_lt(probe) == bisect.bisect_left(reference, probe)


@given(initial=values, ops=st.lists(st.tuples(st.booleans(), st.integers(0, 50)), max_size=300),
       load=st.integers(2, 8))
def test_remove_keeps_the_multiset(initial, ops, load):
    hist = SortedHistory(initial, load=load)
    reference = sorted(initial)
    for remove, value in ops:
        if remove and reference:
            gone = reference.pop(value % len(reference))
            hist.remove(gone)
        else:
            hist.add(float(value))
            bisect.insort(reference, float(value))
        assert len(hist) == len(reference)
    assert list(hist) == reference
    for k in range(1, len(reference) + 1):
        assert hist.kth(k) == reference[k - 1]


def test_remove_of_an_absent_value_raises():
    hist = SortedHistory([1.0, 3.0])
    for value in (2.0, 5.0):
        try:
            hist.remove(value)
        except ValueError:
            continue
        raise AssertionError(f"remove({value}) did not raise")


@given(waits=values, submits=values, load=st.integers(2, 8), data=st.data())
def test_union_kth_is_the_kth_of_the_merged_values(waits, submits, load, data):
    now = 60.0
    m = data.draw(st.integers(0, len(submits)))
    if not waits and not m:
        return
    oldest = sorted(submits)[:m]
    merged = sorted(waits + [now - s for s in oldest])
    history, queue = SortedHistory(waits, load=load), SortedHistory(submits, load=load)
    for k in range(1, len(merged) + 1):
        assert union_kth(history, queue, now, k, m) == merged[k - 1]


def test_kth_out_of_range():
    hist = SortedHistory([1.0, 2.0])
    for k in (0, 3):
        try:
            hist.kth(k)
        except IndexError:
            continue
        raise AssertionError(f"kth({k}) did not raise")


def test_class_history_trim_keeps_most_recent():
    hist = ClassHistory(keep=100)
    for value in [5.0, 1.0, 9.0, 3.0, 7.0]:
        hist.add(value)
    hist.misses = 2
    hist.trim(3)
    assert list(hist.sorted) == [3.0, 7.0, 9.0]
    assert hist.misses == 0 and hist.n_added == 5

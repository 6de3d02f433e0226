"""Building blocks of the availability profile (``predictkit/simulate/_profile.py``)
against plain Python: float helpers, searches and shifts of sorted arrays, the gap
index's record of what was given back, and what it keeps of the searches that found
nothing."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from predictkit.simulate._engine import GAP_LEVELS, GAP_SEGMENTS, GAP_SPANS, GapIndex, Profile
from predictkit.simulate._profile import (_log2_floor, first_at_or_after, float_spacing,
                                          gap_index_build, gap_index_given_back,
                                          gap_index_rule_out, gap_index_ruled_out, profile_add,
                                          profile_add_near,
                                          profile_advance, profile_compact,
                                          profile_earliest_between, shift_left, shift_right)


@njit(cache=True)
def _spacings(xs, out):
    for i in range(len(xs)):
        out[i] = float_spacing(xs[i])


@njit(cache=True)
def _log2_floors(xs, out):
    for i in range(len(xs)):
        out[i] = _log2_floor(xs[i])


EDGES = [0.0, 5e-324, 1e-310, 2.0 ** -1022, 2.0 ** -970, 2.0 ** -969, 0.5, 1.0, 2.0, 3.0,
         2.0 ** 52, 2.0 ** 53 + 2.0, 2.0 ** 62, 2.0 ** 63, 1.7e308, np.inf, np.nan]


@given(st.lists(st.floats(min_value=0.0), max_size=50))
def test_float_spacing_is_numpys(values):
    xs = np.array(EDGES + values)
    out = np.empty_like(xs)
    _spacings(xs, out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, np.spacing(xs))


@given(st.lists(st.floats(min_value=0.5, allow_nan=False, allow_infinity=False), max_size=50))
def test_log2_floor_is_the_float_exponent(values):
    xs = np.array([0.5, 0.75, 1.0, 1.5, 2.0, 2.0 ** 62, 2.0 ** 63, 1.7e308] + values)
    out = np.empty(len(xs), dtype=np.int64)
    _log2_floors(xs, out)
    assert list(out) == [min(math.frexp(x)[1] - 1, 62) for x in xs]


def _profile(size):
    return Profile(times=np.empty(size), free=np.empty(size, dtype=np.int64),
                   length=np.ones(1, dtype=np.int64), running_max=np.empty(size, dtype=np.int64),
                   running_min=np.empty(size, dtype=np.int64))


def _index():
    return GapIndex(times=np.empty(GAP_SEGMENTS), free=np.empty(GAP_SEGMENTS, dtype=np.int64),
                    longest=np.empty((GAP_LEVELS, GAP_SEGMENTS)),
                    length=np.zeros(1, dtype=np.int64), levels=np.zeros(1, dtype=np.int64),
                    built=np.zeros(1, dtype=np.int64),
                    changed=np.full((2, GAP_SPANS), -np.inf), stale=np.zeros(1, dtype=np.int64),
                    run=np.array([np.inf, -np.inf, np.inf]),
                    ruled_out=np.full((GAP_LEVELS, GAP_SPANS), -np.inf),
                    ruled_length=np.full((GAP_LEVELS, GAP_SPANS), np.inf),
                    ruling=np.zeros(1, dtype=np.int64))


@njit(cache=True)
def _apply(profile, index, ops, steps):
    for k in range(len(ops)):
        start, end, delta = ops[k, 0], ops[k, 1], np.int64(ops[k, 2])
        profile_add(profile, start, end, delta)
        if delta > 0:
            gap_index_given_back(profile, index, start, end, steps)
        if ops[k, 3] > 0:
            profile_compact(profile)


def _free_stretches(times, free, width):
    """Maximal stretches ``[a, b)`` with at least ``width`` free (plain Python)."""
    out = []
    begin = None
    for t, f in zip(list(times) + [np.inf], list(free) + [-1]):
        if f >= width and begin is None:
            begin = t
        elif f < width and begin is not None:
            out.append((begin, t))
            begin = None
    return out


def _crowded(rng, n_ops, machine=8):
    """A profile of ``machine`` processors with 12 random reservations (room for
    ``n_ops`` more edits), compacted, and its gap index."""
    profile = _profile(2 * (12 + n_ops) + 8)
    profile.times[0] = 0.0
    profile.free[0] = machine
    index = _index()
    for _ in range(12):
        a = float(rng.integers(0, 40))
        profile_add(profile, a, a + float(rng.integers(1, 20)), -int(rng.integers(1, 5)))
    profile_compact(profile)
    gap_index_build(profile, index)
    return profile, index


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 40), st.sampled_from([2, 8, 1024]))
def test_the_record_of_what_was_given_back_bounds_every_new_stretch(seed, n_ops, steps):
    """After taking and giving back processors, a stretch with ``w`` free for ``L``
    seconds that was not free when the index was built, ending at ``e``, has
    ``changed[1, b] <= e`` for ``2**b <= L`` (and ``changed[0, b]`` the same for width 1
    when it meets what was given back before ``e``); the run bounds kept between records
    (``index.run``) must not break this."""
    rng = np.random.default_rng(seed)
    profile, index = _crowded(rng, n_ops)
    before = (profile.times[:profile.length[0]].copy(), profile.free[:profile.length[0]].copy())
    ops = []
    for _ in range(n_ops):
        a = float(rng.integers(0, 60))
        b = a + float(rng.integers(1, 25))
        delta = int(rng.integers(1, 4)) * (1 if rng.random() < 0.6 else -1)
        ops.append((a, b, delta, float(rng.random() < 0.2)))
    _apply(profile, index, np.array(ops, dtype=np.float64), steps)
    now = (profile.times[:profile.length[0]], profile.free[:profile.length[0]])
    for width in (1, 2, 4):
        old = _free_stretches(*before, width)
        for a, e in _free_stretches(*now, width):
            if e == np.inf:
                continue
            for b in range(GAP_SPANS):
                length = 2.0 ** b
                if length > e - a:
                    break
                # a window [t, t + length) within [a, e) that was not free before
                for t in np.arange(a, e - length + 0.5, 1.0):
                    if any(x <= t and t + length <= y for x, y in old):
                        continue
                    end = t + length
                    assert index.changed[1, b] <= end, (width, a, e, b, t)


ADD, SEARCH, COMPACT, ADVANCE = 0, 1, 2, 3


@njit(cache=True)
def _first_false_claim(profile, index):
    """``(level, b)`` of a claim of ``index.ruled_out`` that the profile contradicts
    (a start before it with ``2**level`` free for ``ruled_length``), or ``(-1, -1)``."""
    for level in range(GAP_LEVELS):
        for b in range(GAP_SPANS):
            before = index.ruled_out[level, b]
            if before > -np.inf:
                length = index.ruled_length[level, b]
                if profile_earliest_between(profile, 1 << level, length, 0, before) < before:
                    return level, b
    return -1, -1


@njit(cache=True)
def _run_and_check(profile, index, ops, steps, asked, found):
    """Apply ``ops`` (kind, a, b, amount), checking every claim after each one;
    ``asked[k]``: what :func:`gap_index_ruled_out` answered before search ``k``,
    ``found[k]``: the first start that search found.
    Returns the first op after which a claim is false (``-1``: none)."""
    for k in range(len(ops)):
        kind, a, b, amount = np.int64(ops[k, 0]), ops[k, 1], ops[k, 2], np.int64(ops[k, 3])
        if kind == ADD:
            profile_add(profile, max(a, profile.times[0]), b, amount)
            if amount > 0:
                gap_index_given_back(profile, index, max(a, profile.times[0]), b, steps)
        elif kind == SEARCH:
            # width ``amount`` for ``b`` seconds starting before ``a``
            asked[k] = gap_index_ruled_out(index, amount, b)
            t = profile_earliest_between(profile, amount, b, 0, a)
            found[k] = t
            gap_index_rule_out(index, amount, b, min(t, a))
        elif kind == COMPACT:
            profile_compact(profile)
        elif a > profile.times[0]:
            profile_advance(profile, a)
        level, _ = _first_false_claim(profile, index)
        if level >= 0:
            return k
    return -1


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 60), st.sampled_from([2, 8, 1024]))
def test_what_searches_rule_out_stays_true_through_taking_giving_back_and_time(
        seed, n_ops, steps):
    """A search that found no start before ``limit`` (or found the first at
    ``limit``) rules out starts before it for that width and longer windows;
    taking processors, compacting and advancing keep that true, and giving
    back lowers it just enough (checked against a fresh search after every step).
    What it answers before a search never excludes the start that search finds."""
    rng = np.random.default_rng(seed)
    profile, index = _crowded(rng, n_ops)
    ops = []
    clock = 0.0
    for _ in range(n_ops):
        kind = rng.choice([ADD, SEARCH, SEARCH, COMPACT, ADVANCE], p=[0.4, 0.2, 0.2, 0.1, 0.1])
        if kind == ADD:
            a = float(rng.integers(0, 60))
            ops.append((ADD, a, a + float(rng.integers(1, 25)),
                        int(rng.integers(1, 4)) * (1 if rng.random() < 0.5 else -1)))
        elif kind == SEARCH:
            ops.append((SEARCH, float(rng.integers(1, 70)),
                        float(rng.choice([0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 30.0])),
                        int(rng.integers(1, 6))))
        elif kind == ADVANCE:
            clock += float(rng.integers(0, 5))
            ops.append((ADVANCE, clock, 0.0, 0))
        else:
            ops.append((COMPACT, 0.0, 0.0, 0))
    ops = np.array(ops, dtype=np.float64)
    asked = np.full(len(ops), -np.inf)
    found = np.full(len(ops), np.inf)
    before = (profile.times[:profile.length[0]].copy(), profile.free[:profile.length[0]].copy())
    assert _run_and_check(profile, index, ops, steps, asked, found) == -1, (before, ops)
    assert (asked <= found).all()
    assert index.ruling[0] > 0 or not (ops[:, 0] == SEARCH).any()


@njit(cache=True)
def _searches(a, n, ts, hints, out):
    for i in range(len(ts)):
        out[i] = first_at_or_after(a, n, ts[i], hints[i])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=40, unique=True), st.integers(0, 2 ** 32 - 1))
def test_the_search_from_a_hint_finds_what_searchsorted_finds(values, seed):
    rng = np.random.default_rng(seed)
    a = np.array(sorted(values) + [0] * 5, dtype=np.float64)
    n = len(values)
    ts = rng.integers(-60, 60, 30).astype(np.float64)
    ts[:len(values)] = a[:n][:30] if n else ts[:0]
    hints = rng.integers(-3, n + 4, 30)
    out = np.empty(30, dtype=np.int64)
    _searches(a, n, ts, hints, out)
    np.testing.assert_array_equal(out, np.searchsorted(a[:n], ts, side="left"))


@njit(cache=True)
def _shifts(a, pos, n, by):
    shift_right(a, pos, n)
    shift_left(a, pos, n + 1, by)


@given(st.integers(1, 30), st.data())
def test_shifts_move_what_a_plain_loop_moves(n, data):
    pos = data.draw(st.integers(0, n))
    by = data.draw(st.integers(1, n + 1 - pos))
    for dtype in (np.float64, np.int64):
        a = np.arange(n + 1, dtype=dtype) * 3 + 1
        expected = a.copy()
        expected[pos + 1:n + 1] = expected[pos:n].copy()
        expected[pos:n + 1 - by] = expected[pos + by:n + 1].copy()
        _shifts(a, pos, n, by)
        np.testing.assert_array_equal(a, expected)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(1, 30))
def test_an_edit_searched_from_any_hint_is_the_edit_by_bisection(seed, n_edits):
    rng = np.random.default_rng(seed)
    near, _ = _crowded(rng, n_edits)
    plain = _profile(len(near.times))
    for name in ("times", "free", "length"):
        getattr(plain, name)[:] = getattr(near, name)
    for _ in range(n_edits):
        a = float(rng.integers(0, 60)) + rng.choice([0.0, 0.5])
        b = a + float(rng.integers(0, 25))
        delta = int(rng.integers(-3, 4))
        hint = int(rng.integers(-1, near.length[0] + 3))
        profile_add_near(near, a, b, delta, hint)
        profile_add(plain, a, b, delta)
        n = plain.length[0]
        assert near.length[0] == n
        np.testing.assert_array_equal(near.times[:n], plain.times[:n])
        np.testing.assert_array_equal(near.free[:n], plain.free[:n])

"""The random-shuffle assignment (section 11.2) against a plain O(n^2) reference."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from predictkit.exceptions import ConfigError
from predictkit.workload._assignment import assign, assign_values, mode_counts


def reference_assign(values, counts, need, u, weights):
    """Literal section 11.2: items in descending need order, each takes a uniformly
    random remaining estimate >= its need (the same uniform draws as the fast path)."""
    remaining = {v: int(c) for v, c in zip(values, counts)}
    order = sorted(range(len(need)), key=lambda i: -need[i])
    out = np.empty(len(need))
    for position, i in enumerate(order):
        eligible = sorted((v for v in remaining if v >= need[i]), reverse=True)
        pool = [v for v in eligible for _ in range(remaining[v])]
        if not pool:
            out[i] = min(eligible)
            continue
        target = min(int(u[position] * len(pool)), len(pool) - 1)
        value = pool[target]
        out[i] = value
        remaining[value] -= min(weights[i], remaining[value])
    return out


class _FixedUniforms:
    def __init__(self, u):
        self.u = u

    def random(self, n):
        assert n == len(self.u)
        return self.u


runtimes = st.lists(st.integers(0, 50), min_size=1, max_size=60)


@given(runtimes, st.integers(0, 2**32 - 1))
def test_fast_assignment_equals_reference(run, seed):
    rng = np.random.default_rng(seed)
    run = np.array(run, dtype=float)
    estimates = np.maximum(np.sort(run) + rng.integers(0, 10, run.size), 1.0)
    values, counts = np.unique(estimates, return_counts=True)
    u = rng.random(run.size)
    weights = rng.integers(1, 4, run.size)
    fast = assign_values(values, counts, run, _FixedUniforms(u), weights=weights)
    slow = reference_assign(values, counts, run, u, weights)
    np.testing.assert_array_equal(fast, slow)


@given(runtimes, st.integers(0, 2**32 - 1))
def test_estimates_cover_runtimes_and_keep_the_multiset(run, seed):
    rng = np.random.default_rng(seed)
    run = np.array(run, dtype=float)
    estimates = np.sort(run)[::-1] + rng.integers(0, 5, run.size)
    rng.shuffle(estimates)
    out = assign(estimates, run, rng)
    assert (out >= run).all()
    # a feasible multiset (sorted estimates dominate sorted runtimes) is kept whole
    np.testing.assert_array_equal(np.sort(out), np.sort(estimates))


def test_assignment_is_uniform_among_eligible():
    # one job with runtime 5 and estimates {10, 20, 30}: each equally likely
    rng = np.random.default_rng(0)
    seen = [assign(np.array([10.0, 20.0, 30.0]), np.array([5.0, 0.0, 0.0]), rng)[0]
            for _ in range(3000)]
    _, counts = np.unique(seen, return_counts=True)
    assert counts.min() > 900


def test_infeasible_pool_falls_back_to_smallest_covering_value():
    out = assign(np.array([1.0, 1.0, 100.0]), np.array([50.0, 60.0, 0.0]),
                 np.random.default_rng(0))
    assert (out[:2] == 100.0).all()


def test_runtime_above_every_estimate_is_an_error():
    with pytest.raises(ConfigError, match="exceeds the largest estimate"):
        assign(np.array([10.0]), np.array([11.0]), np.random.default_rng(0))


def test_sessions_share_one_estimate_covering_their_longest_job():
    rng = np.random.default_rng(3)
    run = rng.uniform(0, 1000, 500)
    groups = rng.integers(0, 40, 500)
    est = np.repeat([600.0, 1200.0, 3600.0], [200, 150, 150])
    out = assign(est, run, rng, groups=groups)
    assert (out >= run).all()
    for g in np.unique(groups):
        assert np.unique(out[groups == g]).size == 1


def test_mode_counts_sum_exactly():
    counts = mode_counts([33.3, 33.3, 33.4], 10)
    assert counts.sum() == 10 and counts.tolist() == [3, 3, 4]
    assert mode_counts([50, 50], 0).sum() == 0

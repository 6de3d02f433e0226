"""Mixture weights of the built-in site: KS distances, the pair CDFs, the minimax center."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

from benchmarks import _site_weights as sw
from benchmarks.workload_validation import default_site
from predictkit.workload import SiteModel, make_workload
from predictkit.workload._runtimes import PROBABILITIES


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=40),
       st.lists(st.floats(0, 1), min_size=1, max_size=40))
def test_ks_distance_is_the_two_sample_statistic(a, b):
    expected = ks_2samp(a, b, method="asymp").statistic
    assert sw.ks_distance(np.array(a), np.array(b)) == pytest.approx(expected, abs=1e-12)


def test_pairwise_ks_is_symmetric_with_a_zero_diagonal():
    rng = np.random.default_rng(0)
    accs = {"b": rng.random(300), "a": rng.random(200) ** 2, "c": rng.random(100) ** 0.5}
    names, matrix = sw.pairwise_ks(accs)
    matrix = np.array(matrix)
    assert names == ["a", "b", "c"]
    assert np.allclose(matrix, matrix.T) and np.allclose(np.diag(matrix), 0)
    assert matrix[0, 2] == pytest.approx(sw.ks_distance(accs["a"], accs["c"]))


def test_pair_cdfs_of_one_site_give_its_own_accuracy_cdf():
    grid = np.linspace(0, 1, 51)
    samples = {"a": np.linspace(0, 0.5, 101), "b": np.linspace(0.5, 1, 101)}

    def generate(pad, run, seed):
        return samples[pad] if pad == run else np.concatenate([samples[pad], samples[run]])

    pairs = sw.pair_cdfs(["a", "b"], generate, grid)
    assert np.allclose(pairs, pairs.transpose(1, 0, 2))
    assert np.allclose(sw.mixture_cdf(np.array([1.0, 0.0]), pairs),
                       sw.sorted_cdf(samples["a"], grid))


def _linear_pairs(cdfs):
    """Pairs whose mixture is the plain mixture of ``cdfs`` (A_ij = (F_i + F_j) / 2)."""
    return (cdfs[:, None, :] + cdfs[None, :, :]) / 2


def test_minimax_of_two_point_masses_is_the_midpoint():
    grid = np.linspace(0, 1, 101)
    cdfs = np.array([grid >= 0.2, grid >= 0.8], dtype=float)
    weights, largest = sw.minimax_weights(_linear_pairs(cdfs), cdfs)
    assert weights == pytest.approx([0.5, 0.5], abs=1e-3)
    assert largest == pytest.approx(0.5, abs=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_minimax_matches_a_brute_force_search_over_the_simplex(seed):
    rng = np.random.default_rng(seed)
    cdfs = np.array([np.sort(rng.random(60)) for _ in range(3)])
    cdfs[:, -1] = 1.0
    # a mixture that is not linear in the weights: one pair is not the average of its two
    pairs = _linear_pairs(cdfs)
    pairs[0, 1] = pairs[1, 0] = np.maximum(cdfs[0], cdfs[1])
    weights, largest = sw.minimax_weights(pairs, cdfs)
    step = 0.01
    best = min(sw.distances(np.array([a, b, 1 - a - b]), pairs, cdfs).max()
               for a, b in itertools.product(np.arange(0, 1 + step / 2, step), repeat=2)
               if a + b <= 1 + 1e-9)
    assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()
    assert largest == pytest.approx(sw.distances(weights, pairs, cdfs).max())
    assert largest <= best + 0.01


@pytest.fixture(scope="module")
def two_sites():
    return {name: SiteModel(fit_sessions=False).fit(make_workload(2000, random_state=seed))
            for name, seed in (("a", 1), ("b", 2))}


def test_default_site_with_all_weight_on_one_site_is_that_site(two_sites):
    data = default_site(two_sites, weights=[0.0, 2.0])
    assert data["weights"] == [0.0, 1.0]
    assert data["method"].startswith("weighted mixture")
    inner = (PROBABILITIES > 0.02) & (PROBABILITIES < 0.98)
    assert np.allclose(np.array(data["padding_quantiles"])[:, inner],
                       two_sites["b"].estimates_.padding_quantiles_[:, inner], atol=0.05)


def test_default_site_weights_default_to_equal(two_sites):
    assert default_site(two_sites) == {**default_site(two_sites, weights=[1.0, 1.0]),
                                       "method": default_site(two_sites)["method"]}


def test_frontier_finds_no_weights_below_the_minimax_distance():
    grid = np.linspace(0, 1, 101)
    cdfs = np.array([grid >= 0.2, grid >= 0.8, grid >= 0.5], dtype=float)
    rows = sw.frontier(_linear_pairs(cdfs), cdfs, caps=(0.4, 0.6))
    assert rows[0]["largest"] is None and rows[0]["weights"] is None
    assert rows[1]["largest"] <= 0.6
    weights = np.array(rows[1]["weights"])
    found = sw.distances(weights / weights.sum(), _linear_pairs(cdfs), cdfs)
    assert np.median(found) == pytest.approx(rows[1]["median"], abs=1e-3)


def test_shortfall_is_the_smaller_margin_below_both_caps():
    d = np.array([0.1, 0.2, 0.3])
    assert sw.shortfall(d, largest=0.35, median=0.25) == pytest.approx(-0.05)
    assert sw.shortfall(d, largest=0.25, median=0.25) == pytest.approx(0.05)
    assert sw.shortfall(d, largest=0.5, median=0.1) == pytest.approx(0.1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_margin_weights_match_a_brute_force_search_over_the_simplex(seed):
    rng = np.random.default_rng(seed)
    cdfs = np.array([np.sort(rng.random(60)) for _ in range(3)])
    cdfs[:, -1] = 1.0
    pairs = _linear_pairs(cdfs)
    pairs[0, 1] = pairs[1, 0] = np.maximum(cdfs[0], cdfs[1])
    caps = {"largest": 0.4, "median": 0.2}
    weights, value = sw.margin_weights(pairs, cdfs, **caps)
    step = 0.01
    best = min(sw.shortfall(sw.distances(np.array([a, b, 1 - a - b]), pairs, cdfs), **caps)
               for a, b in itertools.product(np.arange(0, 1 + step / 2, step), repeat=2)
               if a + b <= 1 + 1e-9)
    assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()
    assert value == pytest.approx(sw.shortfall(sw.distances(weights, pairs, cdfs), **caps))
    assert value <= best + 0.01


def test_margin_weights_leave_the_largest_distance_for_the_median():
    # three point masses: the middle one is the median target's natural center,
    # but a loose median cap lets the rule balance the two outer ones
    grid = np.linspace(0, 1, 101)
    cdfs = np.array([grid >= 0.2, grid >= 0.8, grid >= 0.5], dtype=float)
    pairs = _linear_pairs(cdfs)
    weights, value = sw.margin_weights(pairs, cdfs, largest=0.6, median=0.6)
    d = sw.distances(weights, pairs, cdfs)
    assert value < 0 and d.max() <= 0.6 and np.median(d) <= 0.6
    assert weights[0] == pytest.approx(weights[1], abs=0.05)

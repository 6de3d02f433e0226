import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.queue._aggregate import MISS_CAP, ExpertAggregator

OFFSET = 60.0


def reference_losses(history, quantile, memory):
    """Discounted capped pinball loss of each expert (None before any job counts), plainly."""
    gamma = 1.0 - 1.0 / memory
    counted = [(past, w) for past, w in history if all(math.isfinite(b) for b in past)]
    if not counted:
        return None
    losses = []
    for i in range(len(counted[0][0])):
        total = 0.0
        for age, (past, w) in enumerate(reversed(counted)):
            u = math.log(w + OFFSET) - math.log(past[i] + OFFSET)
            loss = quantile * min(u, MISS_CAP) if u > 0 else (quantile - 1.0) * u
            total += gamma ** age * loss
        losses.append(total)
    return losses


bound_values = st.one_of(st.floats(0.0, 1e6), st.just(math.nan), st.just(math.inf))


@settings(max_examples=80, deadline=None)
@given(history=st.lists(st.tuples(st.lists(bound_values, min_size=3, max_size=3),
                                  st.floats(0.0, 1e6)), max_size=25),
       bounds=st.lists(bound_values, min_size=3, max_size=3),
       quantile=st.sampled_from([0.5, 0.75, 0.95]), memory=st.integers(1, 20))
def test_follows_the_expert_with_the_smallest_discounted_loss(history, bounds, quantile, memory):
    agg = ExpertAggregator(quantile, n_experts=3, memory=memory, step=0.01)
    for past, wait in history:
        agg.add("band", past, wait)
    losses = reference_losses(history, quantile, memory)
    finite = [i for i, b in enumerate(bounds) if math.isfinite(b)]
    chosen = agg.choose("band", bounds)
    final = agg.bound("band", bounds)
    if not finite:
        assert chosen == -1 and (math.isnan(final) or final == math.inf)
        return
    if losses is None:  # nothing learnt: the most conservative expert
        assert bounds[chosen] == max(bounds[i] for i in finite)
    else:
        assert chosen in finite
        assert all(losses[chosen] <= losses[i] + 1e-9 * (1 + abs(losses[i])) for i in finite)
    assert final == bounds[chosen]  # no outcome seen: nothing raised


@settings(max_examples=60, deadline=None)
@given(outcomes=st.lists(st.booleans(), max_size=200),
       bounds=st.lists(st.floats(0.0, 1e6), min_size=3, max_size=3),
       wait=st.floats(0.0, 1e6))
def test_final_raise_moves_toward_the_anchor_in_log_space(outcomes, bounds, wait):
    """From the chosen bound c to max(c, anchor) by the weight min(1, delta), never beyond."""
    agg = ExpertAggregator(0.95, n_experts=3, memory=50, step=0.05, anchor=2)
    agg.add("band", bounds, wait)
    for missed in outcomes:
        agg.outcome("band", missed)
        assert agg.delta["band"] >= 0.0
    chosen = agg.choose("band", bounds)
    final = agg.bound("band", bounds)
    low, top = bounds[chosen], max(bounds[chosen], bounds[2])
    weight = min(1.0, agg.delta.get("band", 0.0))
    expected = math.exp(math.log(low + OFFSET)
                        + weight * (math.log(top + OFFSET) - math.log(low + OFFSET))) - OFFSET
    assert math.isclose(final, expected, rel_tol=1e-9, abs_tol=1e-6)
    assert low <= final <= top


def test_final_raise_never_passes_the_anchor_nor_raises_above_it():
    """A larger non-anchor expert is no ceiling; an anchor under the chosen bound means no raise."""
    agg = ExpertAggregator(0.95, n_experts=3, memory=1000, step=0.5, anchor=2)
    agg.add("band", [100.0, 1e5, 1000.0], 50.0)  # expert 0 leads
    for _ in range(10):
        agg.outcome("band", True)
    assert agg.delta["band"] >= 1.0
    assert agg.choose("band", [100.0, 1e5, 1000.0]) == 0
    assert agg.bound("band", [100.0, 1e5, 1000.0]) == 1000.0  # at the anchor, not 1e5
    assert agg.bound("band", [100.0, 1e5, 50.0]) == 100.0  # anchor below: the chosen bound
    agg.delta["band"] = 0.5
    halfway = math.sqrt((100.0 + OFFSET) * (1000.0 + OFFSET)) - OFFSET
    assert math.isclose(agg.bound("band", [100.0, 1e5, 1000.0]), halfway, rel_tol=1e-12)


def test_final_step_brings_coverage_back_when_the_chosen_expert_is_too_tight():
    """A cheap expert that misses half the time is chosen; the raise restores q."""
    rng = np.random.default_rng(0)
    q = 0.9
    agg = ExpertAggregator(q, n_experts=2, memory=1000, step=0.05)
    waits = rng.exponential(3600.0, size=20000)
    median = 3600.0 * math.log(2.0)
    safe = 1e7  # always holds, but so loose that the tight expert keeps the lead
    missed = []
    for w in waits:
        b = agg.bound("band", [median, safe])
        missed.append(w > b)
        agg.add("band", [median, safe], w)
        agg.outcome("band", w > b)
    assert agg.choose("band", [median, safe]) == 0
    assert np.mean(missed[2000:]) <= 1 - q + 0.01
    assert np.mean(np.array(waits) > median) > 0.45  # the chosen expert alone misses half


def test_no_expert_bound_gives_nan_or_infinity():
    agg = ExpertAggregator(0.95, n_experts=2, memory=10, step=0.01)
    assert math.isnan(agg.bound("band", [math.nan, math.nan]))
    assert agg.bound("band", [math.nan, math.inf]) == math.inf
    assert agg.bound("band", [math.inf, 120.0]) == 120.0


def test_a_far_miss_costs_no_more_than_a_near_one():
    """Bounds judged by how often they fail and how loose they are, not by how far."""
    agg = ExpertAggregator(0.95, n_experts=2, memory=1000, step=0.01)
    for _ in range(10):
        agg.add("band", [1000.0, 3000.0], 0.0)
    agg.add("band", [1000.0, 3000.0], 1e6)  # both fail; the tighter one by farther
    assert agg.choose("band", [1000.0, 3000.0]) == 0
    plain = [sum(0.05 * math.log((b + OFFSET) / OFFSET) for _ in range(10))
             + 0.95 * math.log((1e6 + OFFSET) / (b + OFFSET)) for b in (1000.0, 3000.0)]
    assert plain[1] < plain[0]  # the uncapped pinball loss would choose the looser one

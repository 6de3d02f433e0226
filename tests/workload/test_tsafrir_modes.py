"""The modes of the Tsafrir et al. (2005) model against the paper's tables."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.workload._tsafrir_modes import (
    F_LOG, JOINT_TIMES, K_POINTS_K, K_POINTS_N, head_times, make_modes, n_modes,
    pool_mapping, popularity, tim_times)

HOUR = 3600.0


@pytest.mark.parametrize("n, k", list(zip(K_POINTS_N[1:], K_POINTS_K[1:])))
def test_k_follows_table_3_within_10_percent(n, k):
    assert abs(n_modes(int(n)) - k) <= 0.1 * k


def test_k_is_capped_and_power_model():
    assert n_modes(10_000_000) == 565
    assert n_modes(10_000, "power") == 110  # 1.1 * N ** 0.5, Fig. 7


def test_k_of_generated_modes_matches_table_3():
    for n, k in [(1_000, 35), (10_000, 90), (70_000, 340)]:
        modes = make_modes(n, 18 * HOUR, rng=np.random.default_rng(0))
        assert abs(len(modes) - k) <= 0.1 * k


def test_head_times_for_18h_hold_the_15_joint_times():
    heads = head_times(18 * HOUR)
    assert len(heads) == 20 and len(set(heads)) == 20
    assert heads[0] == 18 * HOUR
    assert len(set(heads) & set(JOINT_TIMES)) == 15
    # filled by multiples of 5h, 2h, 1h counting down from 18 h (section 9.2)
    assert set(heads) - set(JOINT_TIMES) == {h * HOUR for h in (13, 14, 15, 16, 17)}


def test_head_times_below_t_max_and_distinct():
    for t_max in (HOUR, 1.5 * HOUR, 4 * HOUR, 36 * HOUR, 500 * HOUR):
        heads = head_times(t_max)
        assert len(set(heads)) == 20
        assert heads[0] == t_max and (heads[1:] < t_max).all()


def test_popularity_head_and_tail_constants():
    sizes = popularity(340)
    assert sizes.sum() == pytest.approx(100)
    assert sizes[:20].sum() == pytest.approx(89)
    assert sizes[1] == pytest.approx(14.0491 * np.exp(-0.177531 * 2) + 0.462513)
    assert 20 < sizes[0] < 23  # "a bit more than 20%" (section 8)
    tail = sizes[20:]
    assert tail[0] / tail[1] == pytest.approx((21 / 22) ** -2.267)


def test_f_tim_is_fractional_and_ends_at_t_max():
    times = tim_times(100, 4 * HOUR)
    assert times[-1] == pytest.approx(4 * HOUR)
    assert (np.diff(times) > 0).all()
    a = 1 + 12.1039 * 100 ** -0.6026
    assert times[49] == pytest.approx(4 * HOUR * (a - 1) * 0.5 / (a - 0.5))


@given(st.integers(0, 2**32 - 1))
def test_pool_algorithm_is_a_permutation_keeping_rank_1_at_t_max(seed):
    mapping = pool_mapping(np.random.default_rng(seed))
    assert mapping[0] == 1
    assert sorted(mapping) == list(range(1, 21))


@given(st.integers(0, 2**32 - 1))
def test_pool_algorithm_never_maps_a_rank_before_table_6_shows_it(seed):
    mapping = pool_mapping(np.random.default_rng(seed))
    for ttr in range(1, 20):
        assert mapping[ttr] in F_LOG[: ttr + 1].ravel()


def test_pool_algorithm_takes_the_smallest_rank_seen_in_all_four_traces():
    # Step 2 of section 9.3: once an unmapped rank has been seen in rows 1..J
    # of all four columns of Table 6, the smallest such rank is mapped to J.
    for seed in range(200):
        mapping = pool_mapping(np.random.default_rng(seed))
        for ttr in range(1, 20):
            earlier = set(mapping[:ttr])
            seen = F_LOG[1: ttr + 1]
            full = [r for r in range(2, 21)
                    if r not in earlier and (seen == r).sum() == 4]
            if full:
                assert mapping[ttr] == min(full)


def test_vanilla_modes_have_the_paper_shape():
    for seed in range(20):
        modes = make_modes(50_000, 18 * HOUR, rng=np.random.default_rng(seed))
        assert modes["percent"].sum() == pytest.approx(100)
        top = modes.sort_values("percent", ascending=False)
        assert 85 <= top["percent"].iloc[:20].sum() <= 93
        assert top["estimate"].iloc[0] == 18 * HOUR
        assert top["percent"].iloc[0] == pytest.approx(popularity(20)[0])
        assert modes["estimate"].is_unique
        assert (modes["estimate"] > 0).all() and modes["estimate"].max() == 18 * HOUR
        assert len(set(top["estimate"].iloc[:20]) & set(JOINT_TIMES)) == 15


@pytest.mark.parametrize("p_max", [15.0, 24.0, 35.0])
def test_requested_p_max_is_the_largest_mode(p_max):
    modes = make_modes(50_000, 18 * HOUR, p_max=p_max, rng=np.random.default_rng(1))
    top = modes.sort_values("percent", ascending=False).iloc[0]
    assert top["estimate"] == 18 * HOUR
    assert top["percent"] == pytest.approx(p_max)
    assert modes.sort_values("percent", ascending=False)["percent"].iloc[:20].sum() == \
        pytest.approx(89)


def test_user_modes_are_embedded_with_their_percent():
    user = [(300.0, 25.0)]
    modes = make_modes(23_000, 4 * HOUR, user_modes=user, rng=np.random.default_rng(2))
    row = modes[modes["estimate"] == 300.0]
    assert row["percent"].iloc[0] == pytest.approx(25.0)
    assert modes["percent"].sum() == pytest.approx(100)
    assert modes.loc[modes["estimate"] == 4 * HOUR, "percent"].iloc[0] > 10


def test_user_modes_can_replace_t_max_popularity():
    # BLUE in section 9.4: (36h, 1%) demotes the maximum, (2h, 27%) makes 2 h the top mode
    user = [(36 * HOUR, 1.0), (2 * HOUR, 27.0)]
    modes = make_modes(200_000, 36 * HOUR, user_modes=user, rng=np.random.default_rng(3))
    top = modes.sort_values("percent", ascending=False)
    assert top["estimate"].iloc[0] == 2 * HOUR
    assert modes.loc[modes["estimate"] == 36 * HOUR, "percent"].iloc[0] == pytest.approx(1.0)


def test_user_modes_above_head_mass_eliminate_other_head_sizes():
    user = [(300.0, 50.0), (3600.0, 45.0)]
    modes = make_modes(10_000, 18 * HOUR, user_modes=user, rng=np.random.default_rng(4))
    assert modes["percent"].sum() == pytest.approx(100)
    assert modes.loc[modes["estimate"] == 300.0, "percent"].iloc[0] == pytest.approx(50)
    # the two user modes, and t_max kept at 0% (the model always has its t_max mode)
    assert modes.loc[modes["head"] & (modes["percent"] > 0), "estimate"].tolist() == [300, 3600]
    assert modes["estimate"].iloc[-1] == 18 * HOUR
    assert modes["percent"].iloc[-1] == 0
    assert modes.loc[~modes["head"], "percent"].sum() == pytest.approx(5)


@pytest.mark.parametrize("n_jobs", [1, 10, 150, 2000, 100_000])
@pytest.mark.parametrize("p_max", [0.0, 0.5, 2.0, 50.0, 100.0])
def test_t_max_is_always_the_largest_mode(n_jobs, p_max):
    modes = make_modes(n_jobs, 18 * HOUR, p_max=p_max, rng=np.random.default_rng(1))
    assert modes["estimate"].iloc[-1] == 18 * HOUR
    if n_jobs >= 2000:  # below, the kept modes are rescaled to 100%
        assert modes["percent"].iloc[-1] == pytest.approx(p_max)
    assert (modes["percent"].iloc[-1] == 0) == (p_max == 0)
    assert modes["percent"].sum() == pytest.approx(100)


def test_few_jobs_give_few_modes():
    modes = make_modes(20, 18 * HOUR, rng=np.random.default_rng(0))
    assert len(modes) == 10
    assert modes["percent"].sum() == pytest.approx(100)
    assert modes.sort_values("percent")["estimate"].iloc[-1] == 18 * HOUR


def test_modes_are_reproducible():
    a = make_modes(5_000, 8 * HOUR, rng=np.random.default_rng(7))
    b = make_modes(5_000, 8 * HOUR, rng=np.random.default_rng(7))
    assert a.equals(b)


@settings(max_examples=25)
@given(st.lists(st.tuples(st.integers(1, 17 * 60).map(lambda m: m * 60.0), st.floats(0.5, 8)),
                max_size=10, unique_by=lambda tp: tp[0]),
       st.integers(1_000, 300_000), st.integers(0, 2**32 - 1))
def test_user_modes_keep_their_percent_and_the_total(user, n, seed):
    modes = make_modes(n, 18 * HOUR, user_modes=user, rng=np.random.default_rng(seed))
    assert modes["percent"].sum() == pytest.approx(100)
    assert modes["estimate"].is_unique and modes["estimate"].max() == 18 * HOUR
    by_time = modes.set_index("estimate")["percent"]
    for t, p in user:
        assert by_time[t] == pytest.approx(p)


def test_head_times_refuse_a_t_max_too_large_to_count_down_from():
    # counting multiples of 200 h down from 1e30 h never moves in float64: refuse, not hang
    from predictkit.exceptions import ConfigError
    from predictkit.workload._tsafrir_modes import head_times

    with pytest.raises(ConfigError, match="t_max must be below"):
        head_times(1e30 * 3600)
    assert len(head_times(1e15 * 3600)) == 20

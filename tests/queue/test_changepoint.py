"""Change-point rules: thresholds, the run rule on hand-made and generated signals."""

import math

import numpy as np
import pytest
from scipy import special, stats
from statsmodels.tsa.stattools import acf

from predictkit.queue import QBETS
from predictkit.queue._changepoint import (HIT_THRESHOLDS, MISS_THRESHOLDS,
                                           lag1_rank_autocorrelation, run_thresholds)

SINGLE = dict(clustering=None)


def test_thresholds_at_reference_quantile_are_the_tables():
    assert run_thresholds(0.95) == (MISS_THRESHOLDS, HIT_THRESHOLDS)
    assert 0.05 ** 3 == pytest.approx(1.25e-4)


@pytest.mark.parametrize("q", [0.5, 0.75, 0.9, 0.99])
def test_thresholds_keep_the_false_alarm_probability(q):
    misses, hits = run_thresholds(q)
    for r_ref, r in zip(MISS_THRESHOLDS, misses):
        assert (1 - q) ** r <= 0.05 ** r_ref * (1 + 1e-9)
        assert (1 - q) ** (r - 1) > 0.05 ** r_ref
    for r_ref, r in zip(HIT_THRESHOLDS, hits):
        assert q ** r <= 0.95 ** r_ref * (1 + 1e-9)


@pytest.mark.parametrize("q", [0.5, 0.75, 0.9, 0.95, 0.99])
def test_a_quantile_in_single_precision_gives_its_thresholds(q):
    for near in (float(np.float32(q)), np.nextafter(q, 0.0), np.nextafter(q, 1.0), q + 1e-8):
        assert run_thresholds(near) == run_thresholds(q)


def test_lag1_autocorrelation_matches_statsmodels():
    rng = np.random.default_rng(1)
    x = np.round(rng.exponential(100, 100))  # with ties
    scores = special.ndtri((stats.rankdata(x) - 0.5) / len(x))
    assert lag1_rank_autocorrelation(x) == pytest.approx(acf(scores, nlags=1)[1], abs=1e-12)
    assert lag1_rank_autocorrelation(np.arange(100.0)) > 0.9
    assert lag1_rank_autocorrelation([5.0] * 10) == 0.0


def _uncorrelated_history(seed=0):
    """59 distinct waits in an order whose rank autocorrelation stays below 0.1."""
    rng = np.random.default_rng(seed)
    while True:
        values = rng.permutation(np.arange(1.0, 60.0))
        tail = np.r_[values, 100.0, 200.0, 300.0]
        if all(lag1_rank_autocorrelation(tail[:m]) < 0.1 for m in (60, 61, 62)):
            return values


def _sizes(model, waits):
    sizes = []
    for w in waits:
        model.partial_fit(_jobs(1), [w])
        sizes.append(int(model.class_bounds()["n_history"].iloc[0]))
    return sizes


def _jobs(n):
    import pandas as pd
    return pd.DataFrame({"submit_time": np.zeros(n), "req_procs": 1.0, "req_time": 60.0})


def test_three_misses_trim_to_min_history():
    values = _uncorrelated_history()
    model = QBETS(**SINGLE).fit(_jobs(59), values)
    assert model.predict(_jobs(1))[0] == 59.0  # textbook: the largest of 59
    # each wait is above the bound current before it (a wait equal to it is a hit)
    sizes = _sizes(model, [100.0, 200.0, 300.0])
    assert sizes == [60, 61, 59]
    assert model.predict(_jobs(1))[0] == 300.0


def test_a_hit_breaks_the_run():
    values = _uncorrelated_history()
    model = QBETS(**SINGLE).fit(_jobs(59), values)
    assert _sizes(model, [100.0, 200.0, 1.0, 300.0, 400.0]) == [60, 61, 62, 63, 64]


def level_shift_signal(seed, n=4000, shifts=(2000,), factor=30.0):
    """Log-normal waits whose level jumps by ``factor`` at each known change point."""
    rng = np.random.default_rng(seed)
    level = np.ones(n)
    for s in shifts:
        level[s:] *= factor
    return level * rng.lognormal(4.0, 1.0, n), list(shifts)


@pytest.mark.parametrize("changepoint", ["runs", "ruptures"])
def test_rule_trims_after_a_level_shift(changepoint):
    waits, (shift,) = level_shift_signal(0)
    model = QBETS(changepoint=changepoint, ruptures_every=100, **SINGLE)
    model.fit(_jobs(shift), waits[:shift])
    before = int(model.class_bounds()["n_history"].iloc[0])
    assert before > 1000
    sizes = _sizes(model, waits[shift:shift + 300])
    first_drop = next(i for i in range(1, len(sizes)) if sizes[i] < sizes[i - 1])
    assert first_drop < (20 if changepoint == "runs" else 300)
    assert sizes[-1] < 600
    # after the trim the bound follows the new level
    assert model.predict(_jobs(1))[0] > 30 * np.exp(4.0)


@pytest.mark.parametrize("changepoint, trim_on_hits", [("runs", False), ("runs", True),
                                                       ("ruptures", False)])
def test_rule_keeps_history_on_stationary_data(changepoint, trim_on_hits):
    waits, _ = level_shift_signal(1, n=4000, shifts=())
    model = QBETS(changepoint=changepoint, trim_on_hits=trim_on_hits, ruptures_every=100,
                  **SINGLE)
    model.fit(_jobs(200), waits[:200])
    sizes = _sizes(model, waits[200:1200])
    trims = sum(1 for a, b in zip(sizes, sizes[1:]) if b < a)
    # false alarms are about 1.3e-4 per job for the run rule
    assert trims <= 1
    assert sizes[-1] >= 600


def test_no_changepoint_keeps_everything():
    waits, _ = level_shift_signal(2)
    model = QBETS(changepoint=None, **SINGLE).fit(_jobs(len(waits)), waits)
    assert model.class_bounds()["n_history"].iloc[0] == len(waits)


def test_hit_runs_trim_when_the_bound_is_loose():
    waits, _ = level_shift_signal(3, shifts=(2000,), factor=1 / 30)
    model = QBETS(trim_on_hits=True, **SINGLE).fit(_jobs(2000), waits[:2000])
    sizes = _sizes(model, waits[2000:2000 + 400])
    drop = next(i for i in range(1, len(sizes)) if sizes[i] < sizes[i - 1])
    # the run of hits may start a little before the shift
    assert 100 <= drop <= 260
    assert sizes[drop] == 59
    assert not math.isnan(model.predict(_jobs(1))[0])


def test_ruptures_keeps_a_stationary_history_of_waits_that_are_nearly_all_zero():
    """Most block means are 0, so the median of their differences is 0: the noise is then
    their mean difference, else every block holding a wait would be a change."""
    from predictkit.queue._changepoint import RupturesRule

    rng = np.random.default_rng(1)
    waits = np.where(rng.random(2000) < 0.02, rng.exponential(3600, 2000).round(), 0.0)
    assert RupturesRule(59).last_change(list(waits)) == 0
    # a real change still is one: the waits become long for good, and the history kept
    # starts after it
    shifted = np.concatenate([waits, rng.exponential(3600, 1000) + 600])
    assert RupturesRule(59, window=3000).last_change(list(shifted)) >= 1950

"""The built-in site: equal weights fixed in advance, and its leave-one-out rebuild.

Also the candidate site (stratified user scores, margin-rule weights) that the
validation benchmark measures next to it.
"""

import json
from importlib import resources

import numpy as np
import pytest

from benchmarks import _site_weights
from benchmarks.workload_validation import (CANDIDATE_LABEL, CANDIDATE_RULE, KS_MEDIAN_TARGET,
                                            KS_TARGET, QUEUED_LOGS, SHIPPED_RULE, built_in_site,
                                            candidate_site, default_site, leave_one_out,
                                            margin_rule_weights, user_scores)
from predictkit.workload import SiteModel, make_workload
from predictkit.workload._runtimes import PROBABILITIES


@pytest.fixture(scope="module")
def sites():
    """Three small sites fitted to different synthetic workloads."""
    out = {}
    for name, seed in (("a", 1), ("b", 2), ("c", 3)):
        jobs = make_workload(3000, random_state=seed)
        out[name] = SiteModel(fit_sessions=False).fit(jobs)
    return out


def test_the_shipped_site_gives_every_log_the_same_weight():
    text = resources.files("predictkit.workload").joinpath("data", "default_site.json").read_text(
        encoding="utf-8")
    data = json.loads(text)
    assert sorted(data["sources"]) == sorted(QUEUED_LOGS)
    assert np.allclose(data["weights"], 1 / len(QUEUED_LOGS), atol=1e-4)
    assert data["method"].startswith(SHIPPED_RULE)


def _model(k, seed):
    """A quadratic model of ``k`` sites: random pair CDFs and target CDFs on 30 points."""
    rng = np.random.default_rng(seed)
    cdfs = np.sort(rng.random((k, 30)), axis=1)
    pairs = (cdfs[:, None, :] + cdfs[None, :, :]) / 2
    pairs = np.maximum(pairs, np.sort(rng.random((k, k, 30)), axis=2) * 0.1)
    return (pairs + pairs.transpose(1, 0, 2)) / 2, np.sort(rng.random((k, 30)), axis=1)


def test_candidate_site_applies_the_margin_rule_with_both_targets(sites):
    model = _model(3, 0)
    data = candidate_site(sites, model)
    expected = _site_weights.margin_weights(*model, largest=KS_TARGET, median=KS_MEDIAN_TARGET)[0]
    assert np.allclose(data["weights"], np.round(expected / expected.sum(), 4))
    assert data["method"].startswith(CANDIDATE_RULE)
    assert data == default_site(sites, weights=expected, rule=CANDIDATE_RULE)


def test_user_scores_switch_the_default_workload_only_inside_the_block():
    before = make_workload(3000, random_state=0)
    with user_scores("stratified"):
        inside = make_workload(3000, random_state=0)
    after = make_workload(3000, random_state=0)
    assert not np.array_equal(before["req_time"], inside["req_time"])
    assert np.array_equal(before["req_time"], after["req_time"])


def test_default_site_weights_are_equal_and_shares_are_medians(sites):
    data = default_site(sites)
    assert data["sources"] == ["a", "b", "c"]
    assert data["weights"] == [round(1 / 3, 4)] * 3
    shares = [s.estimates_.user_share_ for s in sites.values()]
    assert data["user_share"] == pytest.approx(np.median(shares), abs=1e-4)


def test_a_mixture_of_one_site_is_that_site(sites):
    data = default_site({"a": sites["a"]})
    mixed = np.array(data["padding_quantiles"])
    own = sites["a"].estimates_.padding_quantiles_
    inner = (PROBABILITIES > 0.02) & (PROBABILITIES < 0.98)
    assert np.allclose(mixed[:, inner], own[:, inner], atol=0.05)


def test_built_in_site_is_swapped_only_inside_the_block(sites):
    before = make_workload(2000, random_state=0)
    with built_in_site(default_site({"c": sites["c"]})):
        inside = make_workload(2000, random_state=0)
    after = make_workload(2000, random_state=0)
    assert not np.array_equal(before["req_time"], inside["req_time"])
    assert np.array_equal(before["req_time"], after["req_time"])


def test_leave_one_out_compares_each_log_with_a_site_built_without_it(sites, monkeypatch):
    built = []
    real = default_site

    def recording(subset):
        built.append(sorted(subset))
        return real(subset)

    monkeypatch.setattr("benchmarks.workload_validation.default_site", recording)
    accuracy = {name: np.linspace(0.01, 1.0, 50) for name in sites}
    rows = leave_one_out(sites, accuracy, 2000, seeds=(0, 1))
    assert [row["trace"] for row in rows] == ["a", "b", "c"]
    assert built == [["b", "c"], ["a", "c"], ["a", "b"]]
    assert all(len(row["ks"]) == 2 and 0 <= min(row["ks"]) <= max(row["ks"]) <= 1
               for row in rows)


def test_candidate_leave_one_out_applies_the_margin_rule_to_the_other_logs(sites, monkeypatch):
    built = []
    real = default_site

    def recording(subset, **options):
        built.append((sorted(subset), options))
        return real(subset, **options)

    monkeypatch.setattr("benchmarks.workload_validation.default_site", recording)
    accuracy = {name: np.linspace(0.01, 1.0, 50) for name in sites}
    pairs, targets = model = _model(3, 1)
    rows = leave_one_out(sites, accuracy, 2000, seeds=(0, 1), model=model)
    assert [row["trace"] for row in rows] == ["a", "b", "c"]
    assert [names for names, _ in built] == [["b", "c"], ["a", "c"], ["a", "b"]]
    for h, (_, options) in enumerate(built):
        rest = [i for i in range(3) if i != h]
        assert np.array_equal(options["weights"],
                              margin_rule_weights(pairs[np.ix_(rest, rest)], targets[rest]))
        assert options["rule"] == CANDIDATE_RULE
    assert all(len(row["ks"]) == 2 and 0 <= min(row["ks"]) <= max(row["ks"]) <= 1
               for row in rows)


def _run(ks_by_log, accuracy=0.4):
    """An in-sample run of two seeds with the given KS distances per log."""
    return {"ks": {name: [ks, ks] for name, ks in ks_by_log.items()},
            "mean_accuracy": [accuracy, accuracy]}


def _held(ks_by_log):
    return [{"trace": name, "ks": [ks, ks]} for name, ks in ks_by_log.items()]


_NAMES = ["a", "b", "c"]
_SHIPPED_KS = {"a": 0.40, "b": 0.15, "c": 0.10}
_GOOD_KS = {"a": 0.30, "b": 0.18, "c": 0.10}


def _validation_result(margin_in_sample, margin_held_out):
    """A page result with the shipped site at ``_SHIPPED_KS`` and the margin rule's runs."""
    seeds = [{"seed": s, "ks": _SHIPPED_KS, "mean_accuracy": 0.4} for s in (0, 1)]
    rules = {"names": _NAMES,
             "minimax": {"in_sample": _run({"a": 0.3, "b": 0.25, "c": 0.25}),
                         "held_out": _held(_SHIPPED_KS)},
             "margin": {"weights": [0.5, 0.5, 0.0], "grid_shortfall": -0.02,
                        "grid_ks": [0.3, 0.18, 0.1], "in_sample": margin_in_sample,
                        "held_out": margin_held_out},
             "ceilings": []}
    return {"default_seeds": seeds, "default_jobs": 1000,
            "leave_one_out": _held(_SHIPPED_KS), "weight_rules": rules}


def test_candidates_adopt_only_a_site_meeting_both_targets_in_sample_and_not_worse_held_out():
    from benchmarks.workload_validation import candidate_lines

    shipped, good = _SHIPPED_KS, _GOOD_KS
    result = _validation_result(_run(good), _held({"a": 0.39, "b": 0.2, "c": 0.1}))
    rules = result["weight_rules"]
    text = "\n".join(candidate_lines(result))
    assert "Meeting that: margin rule, t_max 18 h." in text
    # held out worse than the shipped site: not adopted
    rules["margin"]["held_out"] = _held({"a": 0.45, "b": 0.2, "c": 0.1})
    text = "\n".join(candidate_lines(result))
    assert "None does: the closest in-sample, margin rule, t_max 18 h" in text
    # the mean accuracy outside its band: not adopted either
    rules["margin"]["held_out"] = _held(shipped)
    rules["margin"]["in_sample"] = _run(good, accuracy=0.7)
    assert "None does" in "\n".join(candidate_lines(result))


def test_seed_spread_measures_every_variant_on_every_log_and_seed(sites):
    from benchmarks.workload_validation import SPREAD_VARIANTS, seed_spread

    accuracy = {name: np.linspace(0.01, 1.0, 50) for name in sites}
    rows = seed_spread(sites, accuracy, 2000, seeds=(0, 1))
    assert [row["variant"] for row in rows] == [label for label, _, _ in SPREAD_VARIANTS]
    assert all(sorted(row["ks"]) == ["a", "b", "c"] and all(len(v) == 2 for v in row["ks"].values())
               for row in rows)


def _demo(correctness, request=0.33, best=0.34):
    return [{"seed": 0, "correctness": correctness, "quantile": 0.95,
             "meets_quantile": correctness >= 0.95, "request_accuracy": request,
             "best_predictor": "Tang p85", "best_accuracy": best}]


def test_the_candidate_is_reported_apart_and_never_adopted_by_the_ks_rule():
    from benchmarks.workload_validation import candidate_lines

    shipped, good = _SHIPPED_KS, _GOOD_KS
    result = _validation_result(_run(shipped), _held(shipped))
    cand = {"user_scores": "stratified", "rule": CANDIDATE_RULE, "names": _NAMES,
            "weights": [0.6, 0.4, 0.0],
            "in_sample": [{"seed": s, "ks": good, "mean_accuracy": 0.4} for s in (0, 1)],
            "held_out": _held({"a": 0.39, "b": 0.2, "c": 0.1}), "demo": _demo(0.9488)}
    result.update(candidate=cand, shipped_demo=_demo(0.952, 0.35, 0.36))
    text = "\n".join(candidate_lines(result))
    assert f"| {CANDIDATE_LABEL} | 0.300-0.300 | 0.180-0.180 | 2 of 2 |" in text
    # it meets the KS rule, yet is not adopted: the demo's headline fails with it
    assert "Meeting that" not in text and "None does" in text
    assert "By the KS rule above it would be adopted." in text
    assert "at seed 0 0.9488" in text and "the demo's headline fails with it" in text
    assert "The candidate stays opt-in" in text
    # a candidate that misses the targets in-sample is not adopted by the KS rule either
    cand["in_sample"] = [{"seed": s, "ks": shipped, "mean_accuracy": 0.4} for s in (0, 1)]
    assert "it would not be adopted." in "\n".join(candidate_lines(result))

"""The built-in site: the margin-rule mixture of the nine logs, and its leave-one-out rebuild."""

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from benchmarks import _site_weights
from benchmarks.workload_validation import (KS_MEDIAN_TARGET, KS_TARGET, QUEUED_LOGS,
                                            SHIPPED_RULE, built_in_site, default_site,
                                            leave_one_out, margin_rule_weights, shipped_site)
from predictkit.workload import SiteModel, make_workload
from predictkit.workload._runtimes import PROBABILITIES


@pytest.fixture(scope="module")
def sites():
    """Three small sites fitted to different synthetic workloads."""
    out = {}
    for name, seed in (("a", 1), ("b", 2), ("c", 3)):
        jobs = make_workload(3000, random_state=seed, p_max=10.0 * seed)
        out[name] = SiteModel().fit(jobs)
    return out


RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "workload_validation.json"


def test_the_shipped_site_is_the_margin_rule_mixture_recorded_by_its_benchmark():
    text = resources.files("predictkit.workload").joinpath("data", "default_site.json").read_text(
        encoding="utf-8")
    data = json.loads(text)
    assert data["sources"] == sorted(QUEUED_LOGS)
    assert data["method"].startswith(SHIPPED_RULE)
    assert sum(data["weights"]) == pytest.approx(1.0, abs=1e-3)
    # the run of benchmarks/workload_validation.py on the results page wrote these weights
    recorded = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert recorded["shipped_rule"] == SHIPPED_RULE
    assert data["weights"] == recorded["shipped_weights"]


def _model(k, seed):
    """A quadratic model of ``k`` sites: random pair CDFs and target CDFs on 30 points."""
    rng = np.random.default_rng(seed)
    cdfs = np.sort(rng.random((k, 30)), axis=1)
    pairs = (cdfs[:, None, :] + cdfs[None, :, :]) / 2
    pairs = np.maximum(pairs, np.sort(rng.random((k, k, 30)), axis=2) * 0.1)
    return (pairs + pairs.transpose(1, 0, 2)) / 2, np.sort(rng.random((k, 30)), axis=1)


def test_shipped_site_applies_the_margin_rule_with_both_targets(sites):
    model = _model(3, 0)
    data = shipped_site(sites, model)
    expected = _site_weights.margin_weights(*model, largest=KS_TARGET, median=KS_MEDIAN_TARGET)[0]
    assert np.allclose(data["weights"], np.round(expected / expected.sum(), 4))
    assert data["method"].startswith(SHIPPED_RULE)
    assert data == default_site(sites, weights=expected, rule=SHIPPED_RULE)


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


def test_leave_one_out_applies_the_same_rule_to_the_other_logs(sites, monkeypatch):
    built = []
    real = default_site

    def recording(subset, **options):
        built.append((sorted(subset), options))
        return real(subset, **options)

    monkeypatch.setattr("benchmarks.workload_validation.default_site", recording)
    accuracy = {name: np.linspace(0.01, 1.0, 50) for name in sites}
    pairs, targets = model = _model(3, 1)
    rows = leave_one_out(sites, accuracy, 2000, model, seeds=(0, 1))
    assert [row["trace"] for row in rows] == ["a", "b", "c"]
    assert [names for names, _ in built] == [["b", "c"], ["a", "c"], ["a", "b"]]
    for h, (_, options) in enumerate(built):
        rest = [i for i in range(3) if i != h]
        assert np.array_equal(options["weights"],
                              margin_rule_weights(pairs[np.ix_(rest, rest)], targets[rest]))
        assert options["rule"] == SHIPPED_RULE
    assert all(len(row["ks"]) == 2 and 0 <= min(row["ks"]) <= max(row["ks"]) <= 1
               for row in rows)


def _run(ks_by_log, accuracy=0.4):
    """An in-sample run of two seeds with the given KS distances per log."""
    return {"ks": {name: [ks, ks] for name, ks in ks_by_log.items()},
            "mean_accuracy": [accuracy, accuracy]}


def _held(ks_by_log):
    return [{"trace": name, "ks": [ks, ks]} for name, ks in ks_by_log.items()]


def test_candidates_adopt_only_a_site_meeting_both_targets_in_sample_and_not_worse_held_out():
    from benchmarks.workload_validation import candidate_lines

    names = ["a", "b", "c"]
    shipped = {"a": 0.40, "b": 0.15, "c": 0.10}
    good = {"a": 0.30, "b": 0.18, "c": 0.10}
    seeds = [{"seed": s, "ks": shipped, "mean_accuracy": 0.4} for s in (0, 1)]
    rules = {"names": names, "minimax": {"in_sample": _run({"a": 0.3, "b": 0.25, "c": 0.25}),
                                         "held_out": _held(shipped)},
             "margin": {"weights": [0.5, 0.5, 0.0], "grid_shortfall": -0.02,
                        "grid_ks": [0.3, 0.18, 0.1]},
             "equal": {"in_sample": _run(good),
                       "held_out": _held({"a": 0.39, "b": 0.2, "c": 0.1})},
             "ceilings": []}
    result = {"default_seeds": seeds, "default_jobs": 1000, "leave_one_out": _held(shipped),
              "weight_rules": rules}
    text = "\n".join(candidate_lines(result))
    assert "Meeting that: equal weights, t_max 18 h." in text
    assert "The shipped site meets both KS targets on 0 of 2 seeds in-sample" in text
    # held out worse than the shipped site: not adopted
    rules["equal"]["held_out"] = _held({"a": 0.45, "b": 0.2, "c": 0.1})
    text = "\n".join(candidate_lines(result))
    assert "None does: the closest in-sample, equal weights, t_max 18 h" in text
    # the mean accuracy outside its band: not adopted either
    rules["equal"]["held_out"] = _held(shipped)
    rules["equal"]["in_sample"] = _run(good, accuracy=0.7)
    assert "None does" in "\n".join(candidate_lines(result))


def test_seed_spread_measures_every_variant_on_every_log_and_seed(sites):
    from benchmarks.workload_validation import SPREAD_VARIANTS, seed_spread

    accuracy = {name: np.linspace(0.01, 1.0, 50) for name in sites}
    rows = seed_spread(default_site(sites), accuracy, 2000, seeds=(0, 1))
    assert [row["variant"] for row in rows] == [label for label, _, _ in SPREAD_VARIANTS]
    assert all(sorted(row["ks"]) == ["a", "b", "c"] and all(len(v) == 2 for v in row["ks"].values())
               for row in rows)

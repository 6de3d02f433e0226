"""The built-in site: equal weights fixed in advance, and its leave-one-out rebuild."""

import json
from importlib import resources

import numpy as np
import pytest

from benchmarks.workload_validation import (QUEUED_LOGS, built_in_site, default_site,
                                            leave_one_out)
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


def test_the_shipped_site_gives_every_log_the_same_weight():
    text = resources.files("predictkit.workload").joinpath("data", "default_site.json").read_text(
        encoding="utf-8")
    data = json.loads(text)
    assert sorted(data["sources"]) == sorted(QUEUED_LOGS)
    assert np.allclose(data["weights"], 1 / len(QUEUED_LOGS), atol=1e-4)


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

import numpy as np
import pytest

from browser import images_loaded
from predictkit.datasets import make_workload
from predictkit.report import analyze, build_report
from tracedata import load_trace


@pytest.fixture(scope="module")
def synthetic_analysis():
    jobs = make_workload(n_jobs=3000, random_state=1)
    return analyze(jobs, name="synthetic", policies=("easy",))


def test_analysis_of_a_synthetic_workload_has_every_section(synthetic_analysis):
    a = synthetic_analysis
    assert a.summary["n_jobs"] == 3000
    assert any("no wait time" in note for note in a.notes)  # waits come from a simulation
    assert np.isfinite(a.jobs["wait_time"]).all()
    table = a.predictor_table.set_index("predictor")
    assert set(table.index) >= {"request", "RecentUsageMax (last 5)"}
    assert np.allclose(table[["NA", "OE", "UE", "BE"]].sum(axis=1), 1.0)
    assert a.best_predictor != "request"
    assert table.loc[a.best_predictor, "accuracy"] >= table.loc["request", "accuracy"]
    assert len(a.bounds) == len(a.jobs)
    assert set(a.schedule_table["estimates"]) == {"request", f"{a.best_predictor}, selective"}
    assert set(a.fairness_table["label"]) == {"EASY / request",
                                              f"EASY / {a.best_predictor}, selective"}


def test_report_page_renders_every_figure_in_a_browser(synthetic_analysis, tmp_path):
    page = build_report(synthetic_analysis, tmp_path / "report")
    text = page.read_text()
    assert text.count("<img ") == 8 and "Runtime predictions" in text
    probe = images_loaded(page)
    assert probe["total"] == 8 and probe["loaded"] == 8, probe


def test_log_without_requests_skips_what_needs_them(tmp_path):
    jobs = load_trace("SDSC-Par-1996-3.1-cln", n_jobs=3000)
    a = analyze(jobs, fairness=False)
    assert a.predictor_table is None and a.schedule_table is None and a.modes is None
    assert any("no requested times" in note for note in a.notes)
    page = build_report(a, tmp_path)
    assert "Queue-wait bounds" in page.read_text() and "Runtime predictions" not in page.read_text()


def test_real_log_report(tmp_path):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", n_jobs=4000)
    a = analyze(jobs, fairness=False, policies=("easy",))
    assert a.bound_table["jobs"].iloc[0] == 4000 - sum(r["removed"] for r in a.cleaning)
    page = build_report(a, tmp_path)
    assert images_loaded(page)["loaded"] == page.read_text().count("<img ")


def test_equal_random_states_give_equal_analyses_and_progress_is_reported():
    import pandas as pd

    jobs = make_workload(1500, 128, random_state=3)
    steps = []
    runs = [analyze(jobs, fairness=False, policies=("easy",), random_state=3,
                    progress=lambda step, seconds: steps.append((step, seconds)))
            for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].bound_table, runs[1].bound_table)
    np.testing.assert_array_equal(runs[0].bounds, runs[1].bounds)
    assert [s for s, _ in steps[:5]] == ["prepare", "predictors", "bounds", "schedules",
                                         "fairness"]
    assert all(seconds >= 0 for _, seconds in steps)

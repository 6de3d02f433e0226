import re

import numpy as np
import pandas as pd
import pytest

from browser import images_loaded
from predictkit.datasets import make_workload
from predictkit.report import _analysis as report_analysis
from predictkit.report import analyze, build_report
from predictkit.report._html import Section, render_page
from tracedata import load_trace
from numpy.testing import assert_array_equal
from predictkit.model_selection import replay
from predictkit.runtime import RecentAverage, WalltimeAdjuster


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
    assert len(a.bounds) == len(a.jobs) == len(a.wait_bounds)
    assert list(a.bound_table["method"]) == ["QBETS", "WaitPredictor"]
    assert a.bound_table["jobs with a bound"].iloc[1] > 0.9 * len(a.jobs)
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


TABLES = ("predictor_table", "bound_table", "schedule_table", "fairness_table")


def test_same_seed_same_tables_and_page(synthetic_analysis, tmp_path):
    jobs = make_workload(n_jobs=3000, random_state=1)
    again = analyze(jobs, name="synthetic", policies=("easy",), random_state=0)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(again, table), getattr(synthetic_analysis, table))
    np.testing.assert_array_equal(again.bounds, synthetic_analysis.bounds)
    first = build_report(synthetic_analysis, tmp_path / "one").read_text()
    second = build_report(again, tmp_path / "two").read_text()
    assert _tables_of(first) == _tables_of(second)


def test_the_seed_reaches_qbets(monkeypatch):
    seen = []
    original = report_analysis.make_wait_model

    def recording(method, **kwargs):
        if method == "qbets":
            seen.append(kwargs.get("random_state", "missing"))
        return original(method, **kwargs)

    monkeypatch.setattr(report_analysis, "make_wait_model", recording)
    analyze(make_workload(n_jobs=300, random_state=2), policies=(), fairness=False,
            random_state=17)
    assert seen == [17]


def _tables_of(page):
    return re.findall(r"<table.*?</table>", page, re.S)


def test_tables_use_one_number_format_and_readable_durations(synthetic_analysis, tmp_path):
    page = build_report(synthetic_analysis, tmp_path).read_text()
    tables = "".join(_tables_of(page))
    assert not re.search(r"\d\.?\d*[eE][+-]?\d", tables), "scientific notation in a table"
    assert not re.search(r"<td>-?\d{4,}(\.\d*)?</td>", tables), "a number without separators"
    assert "mean wait (h)" not in tables and "estimate (h)" not in tables
    cells = re.findall(r"<td>([^<]*)</td>", tables)
    durations = [c for c in cells if re.fullmatch(r"\d[\d,]* (d|h|min|s)( \d+ (h|min|s))?", c)]
    assert len(durations) >= 20  # 20 modes, mean runtime, request, waits, errors


def test_render_page_never_writes_scientific_notation():
    frame = pd.DataFrame({"label": ["a", "b", "c"], "value": [3820.0, 1.5e7, 0.000123],
                          "count": [3000, 12, 1_000_000], "ok": [True, False, True]})
    html = render_page("t", "s", [Section("x", tables=[(frame, "numbers")])])
    for text in ("3,820", "15,000,000", "0.000", "3,000", "1,000,000", "True"):
        assert f"<td>{text}</td>" in html
    assert not re.search(r"\de[+-]\d", html)


def test_demo_twice_with_one_seed_writes_the_same_tables(tmp_path):
    from predictkit.cli import main

    pages = []
    for run in ("first", "second"):
        assert main(["demo", "--jobs", "1500", "--seed", "3", "-q", "-o",
                     str(tmp_path / run)]) == 0
        pages.append((tmp_path / run / "index.html").read_text())
    assert _tables_of(pages[0]) == _tables_of(pages[1])


def test_equal_random_states_give_equal_analyses_and_progress_is_reported():
    import pandas as pd

    jobs = make_workload(1500, machine_procs=128, random_state=3)
    steps = []
    runs = [analyze(jobs, fairness=False, policies=("easy",), random_state=3,
                    progress=lambda step, seconds: steps.append((step, seconds)))
            for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].bound_table, runs[1].bound_table)
    np.testing.assert_array_equal(runs[0].bounds, runs[1].bounds)
    # fairness=False: no "fairness" step is reported as done
    assert [s for s, _ in steps[:4]] == ["prepare", "predictors", "bounds", "schedules"]
    assert "fairness" not in [s for s, _ in steps]
    assert all(seconds >= 0 for _, seconds in steps)


def test_a_log_whose_every_job_is_left_out_is_an_error_naming_it():
    from predictkit.exceptions import JobTableError

    jobs = make_workload(50, random_state=0)
    jobs["run_time"] = np.nan  # a log of jobs still pending
    jobs.attrs["source"] = "pending.txt"
    with pytest.raises(JobTableError, match=r"^pending\.txt: no job can be analysed: every job "
                                            r"was left out \(50 jobs with run_time unknown"):
        analyze(jobs, fairness=False)


def test_a_log_too_short_for_bounds_shows_n_a_not_nan_or_false():
    table = analyze(make_workload(20, random_state=0), fairness=False).bound_table
    assert (table["jobs with a bound"] == 0).all()
    assert (table["95% interval"] == "n/a").all() and table["meets quantile"].isna().all()


def test_tang_keys_leave_out_what_the_log_gives_for_no_job():
    jobs = load_trace("SDSC-BLUE-2000-4.2-cln", n_jobs=3000)  # no group in this log
    a = analyze(jobs, fairness=False, policies=())
    assert ("Tang's similarity keys leave out group_id: the log gives it for no job."
            in a.notes)
    run = a.jobs["run_time"].to_numpy()
    assert_array_equal(a.predictions["Tang p85 (user+request, 30D)"],
                       replay(WalltimeAdjuster(keys=("user_id", "req_time")), a.jobs, run))
    # every label names the keys used: the tables, the figures and the schedules
    assert not any("group" in label for label in a.predictions)
    assert "Tang p70 (user+request, 30D)" in set(a.predictor_table["predictor"])
    own = analyze(jobs, fairness=False, policies=(), predictors={
        "Tang p85 (user+group+request, 30D)": ("tang", {"keys": ("user_id", "req_time")})})
    assert list(own.predictions) == ["Tang p85 (user+group+request, 30D)"]  # a caller's label


def test_log_with_few_requests_predicts_the_jobs_that_have_one(tmp_path):
    jobs = load_trace("LLNL-Thunder-2007-1.1-cln", n_jobs=4000)  # about a third have a request
    a = analyze(jobs, fairness=False)
    with_request = np.isfinite(a.jobs["req_time"].to_numpy(dtype=float))
    assert 0 < with_request.sum() < len(a.jobs) / 2
    assert len(a.jobs_with_requests) == with_request.sum()
    assert (f"Only {with_request.sum():,} of {len(a.jobs):,} jobs" in " ".join(a.notes))
    assert a.bound_table["jobs"].iloc[0] == len(a.jobs)  # bounds for every job
    assert a.schedule_table is None
    assert a.modes["jobs"].sum() == with_request.sum()
    run = a.jobs_with_requests["run_time"].to_numpy()
    assert_array_equal(a.predictions["RecentAverage (last 2)"],
                       replay(RecentAverage(), a.jobs_with_requests, run))
    assert (a.predictor_table.set_index("predictor").loc["request", "accuracy"]
            < a.predictor_table["accuracy"].max())
    page = build_report(a, tmp_path).read_text()
    assert "Runtime predictions" in page and "User requests" in page
    assert "Only " in page


@pytest.mark.parametrize("few_requests", [False, True])
def test_jobs_requesting_no_time_are_left_out_and_said_to_be(few_requests):
    jobs = make_workload(n_jobs=600, random_state=3).assign(wait_time=np.nan)  # waits simulated
    jobs.loc[[5, 40, 60], "req_time"] = 0.0
    if few_requests:  # fewer than half the jobs have one: the rest keep no request
        jobs.loc[jobs.index >= 100, "req_time"] = np.nan
    a = analyze(jobs, fairness=False)
    assert len(a.jobs) == 597
    assert (a.jobs["req_time"] != 0).all()
    said = " ".join(a.notes)
    assert ("Jobs requesting 0 s were left out (3)." in said
            or "Jobs without a requested time were left out (3)." in said)


def test_requests_over_a_year_are_noted_and_kept():
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 5000.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 100.0, 50.0],
                         "n_procs": [8.0, 8.0, 4.0],
                         "req_time": [200.0, 2147483647.0, 2147483647.0],
                         "user_id": [1.0, 2.0, 1.0]})
    jobs.attrs["max_procs"] = 16
    analysis = analyze(jobs, fairness=False, policies=())
    assert "2 jobs request more than a year (the longest 2,147,483,647 s, 68 years)" in (
        " ".join(analysis.notes))
    assert analysis.summary["mean_req_time"] == pytest.approx((200 + 2 * 2147483647) / 3)


@pytest.mark.parametrize("max_procs", [None, 8])
def test_a_log_busier_than_the_machine_is_noted(max_procs):
    # two 8-wide jobs overlap: 16 processors busy at once
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 5000.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 100.0, 50.0],
                         "n_procs": [8.0, 8.0, 4.0], "req_time": [200.0, 200.0, 100.0],
                         "user_id": [1.0, 2.0, 1.0]})
    if max_procs is not None:
        jobs.attrs["max_procs"] = max_procs
    notes = " ".join(analyze(jobs, fairness=False, policies=()).notes)
    assert "The log keeps up to 16 processors busy at once, more than the" in notes
    assert ("from the log's header or as given" in notes) == (max_procs is not None)
    assert ("give its size (--machine-procs, or attrs['max_procs'])." in notes) == (
        max_procs is None)
    jobs.attrs["max_procs"] = 16
    notes = " ".join(analyze(jobs, fairness=False, policies=()).notes)
    assert "busy at once" not in notes


def test_jobs_wider_than_the_machine_are_noted_as_left_out_of_the_schedules():
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 5000.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 100.0, 50.0],
                         "n_procs": [8.0, 16.0, 4.0], "req_time": [200.0, 200.0, 100.0],
                         "user_id": [1.0, 2.0, 1.0]})
    jobs.attrs["max_procs"] = 8
    notes = analyze(jobs, fairness=False, policies=("easy",)).notes
    assert notes.count("1 job wider than the machine (8 processors) is left out of the "
                       "schedules.") == 1
    jobs.attrs["max_procs"] = 16
    assert not any("left out of the schedules" in note
                   for note in analyze(jobs, fairness=False, policies=("easy",)).notes)


def test_a_report_of_the_first_jobs_summarises_them_beside_the_whole_log(tmp_path):
    jobs = make_workload(600, random_state=3)
    analysis = analyze(jobs, max_jobs=200, fairness=False, policies=())
    assert analysis.summary["n_jobs"] == 600 and analysis.analysed_summary["n_jobs"] == 200
    assert analysis.analysed_summary["n_estimates"] == len(analysis.modes)
    page = build_report(analysis, tmp_path).read_text()
    assert "first 200 jobs, analysed" in page and "whole log" in page
    assert analyze(jobs, max_jobs=600, fairness=False, policies=()).analysed_summary is None


def test_per_user_predictors_on_a_log_without_users_are_said_to_keep_the_requests():
    jobs = make_workload(n_jobs=600, random_state=2).assign(user_id=np.nan)
    a = analyze(jobs, fairness=False, policies=())
    for label in ("RecentUsageMax (last 5)", "RecentAverage (last 2)"):
        assert (f"{label} learns from the past jobs of each user_id, which the log gives "
                "for no job: it keeps every request.") in a.notes
        assert_array_equal(a.predictions[label], a.predictions["request"])
    assert not any(note.startswith("Tang") and "keeps every request" in note
                   for note in a.notes)


def test_a_log_in_any_order_is_analysed_as_sorted_by_submit_time():
    # as every command reads a log: the rows of a file need not be in submit order
    jobs = make_workload(n_jobs=400, random_state=5)
    shuffled = jobs.sample(frac=1.0, random_state=1)
    shuffled.attrs = dict(jobs.attrs)
    options = dict(max_jobs=400, random_state=0, policies=(), fairness=False)
    a, b = analyze(jobs, **options), analyze(shuffled, **options)
    pd.testing.assert_frame_equal(a.predictor_table, b.predictor_table)
    pd.testing.assert_frame_equal(a.bound_table, b.bound_table)


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"predictors": {"x": "tang"}}, "predictors"),
    ({"predictors": {"x": ("tang", 5)}}, "predictors"),
    ({"predictors": ["requested"]}, "predictors"),
    ({"predictors": {}}, "predictors"),
    ({"max_jobs": 0}, "max_jobs"),
    ({"max_jobs": 2.5}, "max_jobs"),
])
def test_analyze_names_an_argument_it_cannot_use(kwargs, name):
    from predictkit.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=rf"^The '{name}' parameter of analyze"):
        analyze(make_workload(50, random_state=0), **kwargs)


def test_analyze_takes_a_whole_float_job_count():
    jobs = make_workload(80, random_state=0)
    result = analyze(jobs, max_jobs=40.0, policies=("easy",), fairness=False,
                     predictors={"request": ("requested", {})})
    assert "Only the first 40 jobs (after cleaning) are analysed." in result.notes


def test_analyze_runs_its_first_jobs_on_the_whole_logs_widest_job():
    jobs = make_workload(400, random_state=0)
    jobs.attrs.pop("max_procs", None)
    jobs.loc[350, ["n_procs", "req_procs"]] = 200.0
    result = analyze(jobs, max_jobs=100, policies=("easy",), fairness=False,
                     predictors={"request": ("requested", {})})
    from predictkit._summary import machine_size

    assert len(result.jobs) == 100 and machine_size(result.jobs) == (200.0, False)


def test_the_cleaning_table_chains_to_the_jobs_analysed():
    jobs = make_workload(600, random_state=3)
    jobs.loc[[5, 9], "run_time"] = np.nan
    analysis = analyze(jobs, max_jobs=200, fairness=False, policies=())
    rows = analysis.cleaning
    assert rows[-1] == {"rule": "after the first 200 (--max-jobs)", "removed": 398,
                        "remaining": 200}
    assert all(a["remaining"] - b["removed"] == b["remaining"] for a, b in zip(rows, rows[1:]))
    assert rows[0]["remaining"] + rows[0]["removed"] == 600
    assert rows[-1]["remaining"] == len(analysis.jobs)


def test_jobs_without_a_simulated_wait_close_the_cleaning_table():
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 5000.0],
                         "wait_time": np.nan, "run_time": [100.0, 100.0, 50.0],
                         "n_procs": [8.0, 16.0, 4.0],
                         "req_time": [200.0, 200.0, 100.0], "user_id": [1.0, 2.0, 1.0]})
    jobs.attrs["max_procs"] = 8
    analysis = analyze(jobs, fairness=False, policies=())
    assert analysis.cleaning[-1] == {"rule": "wider than the machine (no wait)", "removed": 1,
                                     "remaining": 2}
    assert len(analysis.jobs) == 2


def test_bounds_on_a_log_where_no_job_waited_are_not_judged(tmp_path):
    jobs = make_workload(400, random_state=0).assign(wait_time=0.0)
    analysis = analyze(jobs, fairness=False, policies=())
    table = analysis.bound_table
    assert (table["correctness"] == 1).all() and table["meets quantile"].isna().all()
    assert (table["95% interval"] == "n/a").all()
    page = build_report(analysis, tmp_path).read_text()
    assert "No job waited here (all 400 waits are 0 s)" in page
    waited = analyze(make_workload(400, random_state=0), fairness=False, policies=())
    assert "No job waited" not in build_report(waited, tmp_path / "w").read_text()

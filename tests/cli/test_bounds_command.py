"""``predictkit bounds``: the per-class table, per-job output and argument errors."""

import json

import numpy as np
import pandas as pd
import pytest
from tracedata import load_trace

from predictkit.cli import main
from predictkit.io import write_swf


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "kth.swf"
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 3000), path)
    return path


def test_bounds_prints_classes_and_writes_per_job_csv(small_trace, tmp_path, capsys):
    out = tmp_path / "bounds.csv"
    assert main(["bounds", str(small_trace), "--quantile", "0.9", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "bound per class now" in text and "correct" in text
    table = pd.read_csv(out)
    assert list(table.columns) == ["job_id", "submit_time", "wait_time", "bound"]
    assert len(table) == 3000
    assert table["bound"].notna().mean() > 0.9


def test_bounds_json_summary(small_trace, capsys):
    assert main(["bounds", str(small_trace), "--clustering", "none", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["classes"]) == 1
    assert 0.9 < data["summary"]["correctness"] <= 1.0


def test_bounds_method_wait_writes_per_job_bounds(small_trace, tmp_path, capsys):
    out = tmp_path / "wait.csv"
    assert main(["bounds", str(small_trace), "--method", "wait", "--quantile", "0.9",
                 "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("WaitPredictor q=0.9 (100 processors)") and "correct" in text
    assert "bound per class" not in text
    table = pd.read_csv(out)
    assert list(table.columns) == ["job_id", "submit_time", "wait_time", "bound"]
    has = table["bound"].notna()
    assert has.mean() > 0.9
    assert (table["wait_time"][has] <= table["bound"][has]).mean() >= 0.9


def test_bounds_method_wait_json_and_capacity(small_trace, capsys):
    assert main(["bounds", str(small_trace), "--method", "wait", "--capacity", "64",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["capacity"] == 64
    assert 0.9 < summary["correctness"] <= 1.0


def test_a_log_too_short_for_any_bound_says_so_without_n_a(tmp_path, capsys):
    short = tmp_path / "short.swf"
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 20), short)
    assert main(["bounds", str(short)]) == 0
    text = capsys.readouterr().out
    assert "per-job bounds: none of the 20 jobs got one (too little history before each)" in text
    assert "n/a" not in text.split("per-job bounds")[1]


def test_bounds_without_a_long_wait_leave_out_the_ratios(tmp_path, capsys):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 400)
    quick = tmp_path / "quick.swf"
    write_swf(jobs.assign(wait_time=np.minimum(jobs["wait_time"], 30.0)), quick)
    assert main(["bounds", str(quick), "--clustering", "none"]) == 0
    summary = capsys.readouterr().out.split("per-job bounds: ")[1]
    assert "of 400 jobs got one; correct " in summary
    assert summary.rstrip().endswith("no bounded job waited more than 60 s")


@pytest.mark.parametrize("args, message", [
    (["--quantile", "1.5"], "--quantile must be in (0, 1)"),
    (["--quantile", "0"], "--quantile must be in (0, 1)"),
    (["--confidence", "-0.1"], "--confidence must be in (0, 1)"),
])
def test_bad_arguments_are_one_line_errors(small_trace, capsys, args, message):
    assert main(["bounds", str(small_trace), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_trace_without_waits(tmp_path, capsys):
    path = tmp_path / "nowait.swf"
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 50)
    jobs["wait_time"] = np.nan
    write_swf(jobs, path)
    assert main(["bounds", str(path)]) == 2
    assert "no job has a known wait" in capsys.readouterr().err


def test_output_format_is_refused_before_the_log_is_read(tmp_path, capsys):
    # the log does not exist: an error naming -o shows the output was checked first
    assert main(["bounds", str(tmp_path / "missing.swf"), "-o", str(tmp_path / "x.swf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "x.swf: use a .csv or .json file name, or --format" in err
    assert not list(tmp_path.iterdir())


def test_a_capacity_is_a_whole_number_and_narrower_jobs_are_warned_about(small_trace, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bounds", str(small_trace), "--method", "wait", "--capacity", "2.5"])
    assert stop.value.code == 2
    assert "--capacity: invalid int value: '2.5'" in capsys.readouterr().err
    assert main(["bounds", str(small_trace), "--method", "wait", "--capacity", "2", "-q"]) == 0
    err = capsys.readouterr().err
    assert "wider than the machine (2 processors) are forecast as asking for the whole" in err


def test_json_names_the_settings(small_trace, capsys):
    assert main(["bounds", str(small_trace), "--quantile", "0.9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"] == {
        "method": "qbets", "quantile": 0.9, "confidence": 0.95, "changepoint": "runs",
        "clustering": "auto", "index": "textbook", "seed": 0}
    assert main(["bounds", str(small_trace), "--method", "wait", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"] == {
        "method": "wait", "quantile": 0.95, "capacity": None}


def test_a_confidence_is_shown_with_every_digit_given(small_trace, capsys):
    assert main(["bounds", str(small_trace), "--confidence", "0.9999999"]) == 0
    captured = capsys.readouterr()
    assert "QBETS q=0.95 c=0.9999999:" in captured.out
    assert "confidence=0.9999999 " in captured.err


def test_jobs_without_a_width_are_left_out_of_wait_bounds_and_counted(tmp_path, capsys):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 1500).reset_index(drop=True)
    unsized = jobs.copy()
    unsized.loc[700, ["n_procs", "req_procs"]] = np.nan
    with_it, without = tmp_path / "unsized.swf", tmp_path / "without.swf"
    write_swf(unsized, with_it)
    write_swf(jobs.drop(index=700), without)
    bounds = {}
    for path in (with_it, without):
        out = tmp_path / f"{path.stem}.csv"
        assert main(["bounds", str(path), "--method", "wait", "--capacity", "100",
                     "-o", str(out), "--json"]) == 0
        captured = capsys.readouterr()
        bounds[path.stem] = (pd.read_csv(out), json.loads(captured.out)["summary"], captured.err)
    table, summary, err = bounds["unsized"]
    assert summary["n_skipped_no_width"] == 1 and summary["n_jobs"] == 1499
    job_id = int(jobs.loc[700, "job_id"])
    assert (f"left out 1 job without a width (n_procs or req_procs unknown or 0), which the "
            f"simulated queue cannot place (first: job_id {job_id})") in err
    pd.testing.assert_frame_equal(table, bounds["without"][0])
    assert bounds["without"][1]["n_skipped_no_width"] == 0
    # QBETS classes jobs by their request and keeps the job
    assert main(["bounds", str(with_it), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["n_jobs"] == 1500


def test_cancelled_jobs_that_never_ran_are_counted_as_censored_waits(tmp_path, capsys):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 1500).reset_index(drop=True)
    jobs.loc[[10, 20, 30], "status"] = 5
    jobs.loc[[10, 20], "run_time"] = 0
    jobs.loc[30, "run_time"] = 100  # cancelled after it ran: its wait ended in a start
    path = tmp_path / "cancelled.swf"
    write_swf(jobs, path)
    assert main(["bounds", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["n_cancelled_before_running"] == 2
    assert ("2 jobs cancelled before running (status 5, no run time) count the time until "
            "the cancel as their wait") in captured.err
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 1500).assign(status=1), path)
    assert main(["bounds", str(path)]) == 0
    assert "cancelled before running" not in capsys.readouterr().err

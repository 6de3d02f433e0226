"""``predictkit predict``: options, outputs and errors, run in-process."""

import io
import json

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from tracedata import load_trace, trace_file

from predictkit.cli import main
from predictkit.cli._predict import summarize_predictions
from predictkit.io import read_swf
from predictkit.model_selection import replay
from predictkit.runtime import RecentAverage, WalltimeAdjuster


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    from predictkit.io import write_swf

    path = tmp_path_factory.mktemp("trace") / "kth.swf"
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 3000), path)
    return path


def test_tang_to_csv_keeps_requests_and_matches_replay(small_trace, tmp_path, capsys):
    out = tmp_path / "adjusted.csv"
    code = main(["predict", str(small_trace), "--keys", "user,group,request", "--window", "30D",
                 "--quantile", "0.85", "-o", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "accuracy (Tang eq. 3)" in printed and "BE" in printed
    table = pd.read_csv(out)
    jobs = read_swf(small_trace)
    y = jobs["run_time"].to_numpy()
    assert_array_equal(table["requested_time"].to_numpy(), jobs["req_time"].to_numpy())
    assert_array_equal(table["req_time"].to_numpy(), replay(WalltimeAdjuster(), jobs, y))


def test_swf_output_and_json_summary(small_trace, tmp_path, capsys):
    out = tmp_path / "adjusted.swf"
    code = main(["predict", str(small_trace), "--method", "usage-max", "--json", "-o", str(out)])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_scored"] == 3000
    assert summary["accuracy_predicted"] > summary["accuracy_requested"]
    assert set(summary["outcomes"]) == {"NA", "OE", "UE", "BE"}
    written = read_swf(out)
    assert len(written) == 3000
    assert (written["req_time"] <= read_swf(small_trace)["req_time"]).all()
    assert "predicted online" in " ".join(written.attrs.get("note", []))


def test_options_reach_the_estimator(small_trace, capsys):
    main(["predict", str(small_trace), "--keys", "user", "--window", "all",
          "--quantile", "mean", "--floor", "none", "--min-jobs", "3", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert "quantile='mean'" in summary["method"] and "floor=None" in summary["method"]
    assert "window=None" in summary["method"] and "min_jobs=3" in summary["method"]


@pytest.mark.parametrize("argv, message", [
    (["--quantile", "0.2"], "--quantile"),
    (["--quantile", "high"], "--quantile"),
    (["--floor", "2"], "--floor"),
    (["--min-jobs", "0"], "--min-jobs"),
    (["--window", "ten days"], "window"),
    (["--method", "usage-max", "--n-recent", "0"], "--n-recent"),
])
def test_bad_options_are_one_line_errors(small_trace, capsys, argv, message):
    assert main(["predict", str(small_trace), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_logs_without_waits_need_an_assumption(capsys):
    path = str(trace_file("LLNL-Atlas-2006-2.1-cln"))
    assert main(["predict", path, "--method", "recent-average"]) == 2
    assert "--assume-no-wait" in capsys.readouterr().err
    assert main(["predict", path, "--method", "recent-average", "--assume-no-wait",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_scored"] < summary["n_jobs"]
    assert np.isfinite(summary["accuracy_predicted"])


def test_csv_to_standard_output_keeps_the_summary_off_it(small_trace, capsys):
    assert main(["predict", str(small_trace), "--method", "recent-average", "--format", "csv",
                 "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].startswith("job_id,")
    assert "requested_time" in captured.out.splitlines()[0]
    assert "accuracy (Tang eq. 3)" in captured.err


def test_unknown_output_extension_is_refused_before_reading(tmp_path, capsys):
    out = tmp_path / "out.xlsx"
    # the log does not exist: an error naming -o shows the output was checked first
    assert main(["predict", str(tmp_path / "missing.swf"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.swf" not in err
    assert f"-o {out}: give a file name ending in .swf, .csv, .json, or --format" in err
    assert not out.exists()


def test_unknown_output_extension_with_format_is_written(small_trace, tmp_path, capsys):
    out = tmp_path / "out.txt"
    assert main(["predict", str(small_trace), "--method", "requested", "-q", "-o", str(out),
                 "--format", "csv"]) == 0
    assert len(pd.read_csv(out)) == 3000


def test_devices_and_standard_output_still_get_swf(small_trace, capsys):
    assert main(["predict", str(small_trace), "--method", "requested", "-q", "-o", "-"]) == 0
    assert len(read_swf(io.StringIO(capsys.readouterr().out))) == 3000
    assert main(["predict", str(small_trace), "--method", "requested", "-q",
                 "-o", "/dev/null"]) == 0


@pytest.fixture(scope="module")
def trace_without_groups(tmp_path_factory):
    from predictkit.io import write_swf

    jobs = load_trace("KTH-SP2-1996-2.1-cln", 3000)
    jobs["group_id"] = np.nan  # written as -1, as SDSC-BLUE and the LLNL logs have it
    path = tmp_path_factory.mktemp("trace") / "nogroups.swf"
    write_swf(jobs, path)
    return path


def test_default_keys_leave_out_a_key_the_log_gives_for_no_job(trace_without_groups, capsys):
    assert main(["predict", str(trace_without_groups), "--json"]) == 0
    captured = capsys.readouterr()
    assert (f"Tang's keys leave out group_id: {trace_without_groups} gives it for no job"
            in captured.err)
    summary = json.loads(captured.out)
    assert "keys=('user_id', 'req_time')" in summary["method"]
    jobs = read_swf(trace_without_groups)
    y = jobs["run_time"].to_numpy()
    adjusted = replay(WalltimeAdjuster(keys=("user_id", "req_time")), jobs, y)
    unadjusted = replay(WalltimeAdjuster(), jobs, y)  # no job has a group: none is adjusted
    assert_array_equal(unadjusted, jobs["req_time"].to_numpy())
    assert summary["accuracy_predicted"] == pytest.approx(
        summarize_predictions(y, jobs["req_time"].to_numpy(), adjusted)["accuracy_predicted"])
    assert summary["accuracy_predicted"] > summary["accuracy_requested"]


def test_given_keys_the_log_gives_for_no_job_are_refused(trace_without_groups, capsys):
    assert main(["predict", str(trace_without_groups), "--keys", "user,group", "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (f"predictkit predict: error: --keys user,group: {trace_without_groups} gives "
                   "group_id for no job, so Tang would adjust no job (leave the key out, or use "
                   "user, group, request, queue, partition, app or procs)\n")


@pytest.mark.parametrize(("keys", "refused"), [("run_time", "run_time"),
                                              ("user,status", "status"),
                                              ("user, wait_time", "wait_time")])
def test_keys_known_only_after_a_job_ended_are_refused(small_trace, capsys, keys, refused):
    assert main(["predict", str(small_trace), "--keys", keys, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("predictkit predict: error: The '--keys' parameter of WalltimeAdjuster "
                          "must be column names known when a job is submitted: "
                          f"{refused} is known only once a job has started or ended")
    assert err.count("\n") == 1


def test_requests_need_no_wait_times(tmp_path, capsys):
    path = tmp_path / "atlas.swf"
    from predictkit.io import write_swf

    write_swf(load_trace("LLNL-Atlas-2006-2.1-cln", 2000), path)  # no waits in this log
    assert main(["predict", str(path), "--method", "requested", "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["accuracy_predicted"] == summary["accuracy_requested"]


@pytest.mark.parametrize("method", ["tang", "usage-max", "learned", "requested"])
def test_a_log_without_requests_is_refused_by_predictors_that_start_from_them(
        tmp_path, capsys, method):
    from predictkit.io import write_swf

    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 200.0, 400.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 50.0, 70.0],
                         "n_procs": [8.0, 4.0, 4.0], "user_id": [1.0, 1.0, 1.0]})
    write_swf(jobs, tmp_path / "norequests.swf")
    out = tmp_path / "predicted.swf"
    code = main(["predict", str(tmp_path / "norequests.swf"), "--method", method,
                 "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1] == (
        f"predictkit predict: error: {tmp_path / 'norequests.swf'}: no job got a predicted "
        f"runtime: no job has a requested time, which {method} predictions start from")
    assert not out.exists()
    # a predictor of runtimes alone still predicts
    assert main(["predict", str(tmp_path / "norequests.swf"), "--method", "recent-average",
                 "-o", str(out), "-q"]) == 0
    assert_array_equal(read_swf(out)["req_time"], [np.nan, 100.0, 75.0])
    # and is scored alone, against the runtimes, since no request can be compared
    assert main(["predict", str(tmp_path / "norequests.swf"), "--method", "recent-average",
                 "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["requests"] is False and summary["n_scored"] == 2
    assert summary["mae_predicted"] == pytest.approx((50 + 5) / 2)
    assert not any(key.endswith("_requested") for key in summary) and "outcomes" not in summary
    assert main(["predict", str(tmp_path / "norequests.swf"), "--method", "recent-average",
                 "-q"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1] == ("jobs: 3  scored (runtime and prediction known; the log gives no "
                        "requests to compare with): 2")
    assert table[2].split() == ["predicted"]
    assert table[5].split()[-1] == f"{55 / 2 / 3600:.3f}"


def test_jobs_without_a_submit_time_are_not_predicted_and_said_so(small_trace, tmp_path, capsys):
    from predictkit.io import write_swf

    jobs = read_swf(small_trace)
    jobs.loc[[5, 40], "submit_time"] = np.nan
    path = tmp_path / "unplaced.swf"
    write_swf(jobs, path)
    out = tmp_path / "predicted.csv"
    assert main(["predict", str(path), "--method", "recent-average", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("warning: 2 jobs without a submit time (first at row 5) cannot be placed in the "
            "online history: not predicted (their prediction is written as unknown)") in err
    written = pd.read_csv(out)
    assert len(written) == len(jobs) and written["req_time"].isna()[[5, 40]].all()
    placed = jobs["submit_time"].notna().to_numpy()
    expected = replay(RecentAverage(), jobs[placed], jobs["run_time"][placed])
    assert_array_equal(written["req_time"].to_numpy()[placed], expected)
    assert_array_equal(written["requested_time"], jobs["req_time"])
    # with a wait missing too: assumed for the placed jobs only, by any method
    jobs.loc[7, "wait_time"] = np.nan
    write_swf(jobs, path)
    for argv in (["--method", "recent-average", "--assume-no-wait"], ["--method", "requested"]):
        assert main(["predict", str(path), *argv, "--json", "-q"]) == 0
        assert json.loads(capsys.readouterr().out)["n_jobs"] == len(jobs)


def test_a_newly_registered_predictor_is_built_by_its_name_not_taken_for_tang(monkeypatch):
    import argparse

    from predictkit.cli import _predict
    from predictkit.runtime import RecentAverage
    from predictkit.runtime._registry import REGISTRY, RegisteredPredictor

    monkeypatch.setitem(REGISTRY, "last-runtime", RegisteredPredictor(
        name="last-runtime", rank=9, summary="the user's last runtime",
        estimator=lambda: RecentAverage(n_recent=1)))
    built = _predict.build_estimator(argparse.Namespace(method="last-runtime"))
    assert isinstance(built, RecentAverage) and built.n_recent == 1


@pytest.fixture(scope="module")
def trace_without_users(tmp_path_factory):
    from predictkit.io import write_swf

    jobs = load_trace("KTH-SP2-1996-2.1-cln", 2000)
    jobs["user_id"] = np.nan  # written as -1, as ANL-Theta-2022 has it
    path = tmp_path_factory.mktemp("trace") / "nousers.swf"
    write_swf(jobs, path)
    return path


@pytest.mark.parametrize("command", [["predict", "--method", "usage-max"],
                                     ["predict", "--method", "recent-average"],
                                     ["simulate", "--predictor", "usage-max"]])
def test_a_per_user_predictor_on_a_log_without_users_says_it_keeps_every_request(
        trace_without_users, capsys, command):
    assert main([command[0], str(trace_without_users), *command[1:]]) == 0
    name = command[-1]
    assert (f"warning: {trace_without_users}: {name} learns from the past jobs of each "
            "user_id, which the log gives for no job: it keeps every request"
            in capsys.readouterr().err)


def test_default_keys_that_group_no_job_are_named_as_the_defaults(tmp_path, capsys):
    from predictkit.io import write_swf

    jobs = load_trace("KTH-SP2-1996-2.1-cln", 500)
    jobs[["user_id", "group_id", "req_time"]] = np.nan
    path = tmp_path / "anonymous.swf"
    write_swf(jobs, path)
    assert main(["predict", str(path), "--method", "tang", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("predictkit predict: error: Tang's default keys (user,group,request): "
                          f"{path} gives user_id for no job, and none of them groups a job")
    assert "--keys user" not in err


def test_jobs_cancelled_before_they_ran_are_not_scored(small_trace, tmp_path, capsys):
    from predictkit.io import write_swf

    jobs = read_swf(small_trace)
    jobs.loc[[10, 20], ["run_time", "status"]] = [0.0, 5.0]
    path = tmp_path / "cancelled.swf"
    write_swf(jobs, path)
    assert main(["predict", str(path), "--method", "requested", "--json", "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n_cancelled_before_running"] == 2
    scored = np.isfinite(jobs["run_time"]) & np.isfinite(jobs["req_time"])
    assert summary["n_scored"] == int(scored.sum()) - 2
    assert main(["predict", str(path), "--method", "requested", "-q"]) == 0
    assert ("not scored: 2 jobs cancelled before they ran (a runtime of 0 that is no runtime)"
            in capsys.readouterr().out.splitlines())

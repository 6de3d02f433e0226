"""`varq` and `wait` take --machine-procs; a log busier than the machine is warned of."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predictkit.cli import main
from predictkit.datasets import make_workload
from predictkit.io import write_swf

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "datasets" / "sacct_sample.txt")
"""A sacct log: its widest job has 128 processors, its own jobs keep 1,118 busy at once."""
WAIT = ["wait", SAMPLE, "--procs", "256", "--time", "1:00:00"]
VARQ = ["varq", SAMPLE, "--fractions", "0.1", "--probabilities", "0.5", "--start", "10D",
        "--days", "2D"]
GUESSED = ("warning: the log keeps up to 1,118 processors busy at once, more than the 128 "
           "processors of its widest job, which stand for the machine size: if the machine "
           "is larger, give its size (--machine-procs)")


def outcome(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def overlapping(tmp_path_factory):
    """Two 8-wide jobs running together, so 16 processors busy; no machine size in the header."""
    path = tmp_path_factory.mktemp("machine") / "overlap.swf"
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 5000.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 100.0, 50.0],
                         "n_procs": [8.0, 8.0, 4.0], "req_procs": [8.0, 8.0, 4.0],
                         "req_time": [200.0, 200.0, 100.0], "user_id": [1.0, 2.0, 1.0]})
    write_swf(jobs, path)
    return path


def test_wait_takes_the_machine_size_for_a_job_wider_than_the_widest(capsys):
    status, _, err = outcome(capsys, WAIT)
    assert status == 2 and err.splitlines()[-1] == (
        f"predictkit wait: error: --procs 256 is wider than the machine of {SAMPLE} (128 "
        "processors, its widest job): such a job never starts; if the machine is larger, "
        "give its size with --machine-procs")
    status, out, _ = outcome(capsys, [*WAIT, "--machine-procs", "1200"])
    assert status == 0 and out.startswith("A job of 256 processors asking for 01:00:00")
    status, _, err = outcome(capsys, [*WAIT, "--machine-procs", "200", "-q"])
    warning, error = err.splitlines()
    assert status == 2 and error == ("predictkit wait: error: --procs 256 is wider than the "
                                     "machine (--machine-procs 200): such a job never starts")
    assert warning.startswith("predictkit wait: warning: the log keeps up to 1,118 processors")


def test_wait_warns_of_a_log_busier_than_the_machine(capsys):
    argv = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00"]
    status, _, err = outcome(capsys, argv)
    assert status == 0 and f"predictkit wait: {GUESSED}\n" in err
    status, _, err = outcome(capsys, [*argv, "--machine-procs", "1200"])
    assert status == 0 and "warning" not in err
    status, _, err = outcome(capsys, [*argv, "--machine-procs", "1000"])
    assert status == 0 and ("warning: the log keeps up to 1,118 processors busy at once, more "
                            "than the machine size of 1,000 processors (as given)") in err
    # the warning says the answer is for a smaller machine: --quiet keeps it, alone
    assert outcome(capsys, [*argv, "-q"])[2] == f"predictkit wait: {GUESSED}\n"


def test_varq_simulates_the_machine_given(capsys):
    status, out, err = outcome(capsys, [*VARQ, "--json"])
    assert status == 0 and f"predictkit varq: {GUESSED}\n" in err
    small = pd.DataFrame(json.loads(out))
    assert "machine-procs=from the log" in err.splitlines()[0]
    status, out, err = outcome(capsys, [*VARQ, "--json", "--machine-procs", "1200"])
    assert status == 0 and "machine-procs=1200" in err
    # the only warning left: the jobs without a runtime, left out
    assert [line for line in err.splitlines() if "warning" in line] == [
        "predictkit varq: warning: left out 85 jobs with run_time unknown or negative"]
    large = pd.DataFrame(json.loads(out))
    # on the widest job's 128 processors the queue grows for weeks: every request is refused
    assert small["count"].tolist() == [0] and small["refused"].tolist() == [9]
    assert large["count"].tolist() == [9] and large["refused"].tolist() == [0]


def test_simulate_warns_of_a_log_busier_than_the_machine(overlapping, capsys):
    status, _, err = outcome(capsys, ["simulate", str(overlapping)])
    assert status == 0 and ("predictkit simulate: warning: in the log, the 3 jobs kept keep up "
                            "to 16 processors busy at once, more than the 8 processors of its "
                            "widest job") in err
    status, _, err = outcome(capsys, ["simulate", str(overlapping), "--machine-procs", "16"])
    assert status == 0 and "warning" not in err
    err = outcome(capsys, ["simulate", str(overlapping), "-q"])[2]
    assert err.startswith("predictkit simulate: warning: in the log, the 3 jobs kept keep up to "
                          "16 processors")
    assert len(err.splitlines()) == 1


def test_select_warns_of_a_header_machine_too_small(tmp_path, capsys):
    log = tmp_path / "log.swf"
    jobs = make_workload(600, machine_procs=32, random_state=4).assign(wait_time=0.0)
    write_swf(jobs, log)
    # every job starts when submitted: the busiest instant, by a sweep over starts and ends
    events = sorted([(t, p) for t, p in zip(jobs["submit_time"], jobs["n_procs"])]
                    + [(t + r, -p) for t, r, p in zip(jobs["submit_time"], jobs["run_time"],
                                                      jobs["n_procs"])])
    busy = max(np.cumsum([p for _, p in events]))  # an end sorts before a start at one time
    assert busy > 32
    argv = ["select", str(log), "--predictors", "requested", "--no-easy-pp-style",
            "--period", "1D", "--test-periods", "1"]
    status, _, err = outcome(capsys, argv)
    assert status == 0 and (
        f"predictkit select: warning: in the log, the 600 jobs kept keep up to {busy:.0f} "
        "processors busy at once, "
        "more than the machine size of 32 processors (from the log's header or as given): the "
        "log's own jobs overlap more than that machine holds") in err
    status, _, err = outcome(capsys, [*argv, "--machine-procs", f"{busy:.0f}"])
    assert status == 0 and "warning" not in err


@pytest.mark.parametrize("command", [WAIT, VARQ])
@pytest.mark.parametrize("value, message", [
    ("0", "--machine-procs must be positive, got 0"),
    ("-5", "--machine-procs must be positive, got -5"),
    (str(2**53), "--machine-procs must be at most 9,007,199,254,740,991, got "
                 "9,007,199,254,740,992"),
])
def test_bad_machine_sizes_are_one_line_errors(capsys, command, value, message):
    status, out, err = outcome(capsys, [*command, "--machine-procs", value])
    assert status == 2 and out == ""
    assert err == f"predictkit {command[0]}: error: {message}\n"


@pytest.mark.parametrize("command", ["varq", "wait"])
def test_help_names_the_machine_size(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert ("--machine-procs P machine size in processors (default: the header's MaxProcs, "
            "else the widest job)") in help_text


def test_info_warns_of_a_log_busier_than_the_machine_and_of_requests_over_a_year(
        tmp_path, overlapping, capsys):
    status, _, err = outcome(capsys, ["info", str(overlapping)])
    assert status == 0
    assert err.splitlines()[-1] == (
        f"predictkit info: warning: {overlapping}: the log keeps up to 16 processors busy at "
        f"once, more than the 8 processors of its widest job, which stand for the machine "
        f"size: if the machine is larger, give its size (--machine-procs of the commands "
        f"that simulate)")
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 10.0], "wait_time": [0.0, 0.0],
                         "run_time": [100.0, 50.0], "n_procs": [8.0, 4.0],
                         "req_time": [200.0, 2147483647.0], "user_id": [1.0, 2.0]})
    write_swf(jobs, tmp_path / "sentinel.swf")
    status, out, err = outcome(capsys, ["info", str(tmp_path / "sentinel.swf")])
    assert status == 0 and err.splitlines()[-1] == (
        f"predictkit info: warning: {tmp_path / 'sentinel.swf'}: 1 job requests more than a "
        f"year (the longest 2,147,483,647 s, 68 years): placeholders for no limit? They are "
        f"kept as the log has them, and weigh on every mean over requests")
    status, _, err = outcome(capsys, ["info", str(tmp_path / "sentinel.swf"), "-q"])
    assert "warning" in err  # warnings are kept by --quiet, like every command's
    # a machine size from the header is the site's: info does not second-guess it
    text = overlapping.read_text()
    (tmp_path / "sized.swf").write_text("; MaxProcs: 8\n" + text)
    status, _, err = outcome(capsys, ["info", str(tmp_path / "sized.swf")])
    assert status == 0 and "warning" not in err


def test_info_warns_of_jobs_wider_than_the_header_machine(tmp_path, capsys):
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0],
                         "wait_time": [0.0, 0.0, 0.0], "run_time": [100.0, 50.0, 50.0],
                         "n_procs": [16.0, 4.0, 9.0], "req_time": [200.0, 100.0, 100.0],
                         "user_id": [1.0, 2.0, 2.0]})
    jobs.attrs["max_procs"] = 8
    path = tmp_path / "wide.swf"
    write_swf(jobs, path)
    status, _, err = outcome(capsys, ["info", str(path)])
    assert status == 0 and err.splitlines()[-1] == (
        f"predictkit info: warning: {path}: 2 jobs wider than the machine (8 processors) are "
        "left out by the commands that simulate (the machine size is the header's MaxProcs; "
        "give --machine-procs if the machine is larger)")
    status, _, err = outcome(capsys, ["simulate", str(path), "-q"])
    assert "2 jobs wider than the machine (8 processors) were not simulated" in err
    write_swf(jobs.iloc[1:2], path)  # 4 processors: nothing to say
    status, _, err = outcome(capsys, ["info", str(path)])
    assert status == 0 and "warning" not in err


def test_a_prefix_of_a_log_without_a_machine_size_runs_on_the_whole_logs_widest_job(
        tmp_path, capsys):
    from predictkit._summary import first_jobs, machine_size

    jobs = make_workload(400, random_state=0)
    jobs.attrs.pop("max_procs", None)
    jobs.loc[350, ["n_procs", "req_procs"]] = 200.0  # the widest job comes late
    assert machine_size(jobs.iloc[:100])[0] < 200
    prefix = first_jobs(jobs, 100)
    assert machine_size(prefix) == (200.0, False) and len(prefix) == 100
    middle = first_jobs(jobs, 100, start=200, reset_index=True)
    assert machine_size(middle) == (200.0, False)
    assert list(middle["job_id"]) == list(jobs["job_id"].iloc[200:300])
    path = tmp_path / "headerless.swf"
    write_swf(jobs, path, header=[";"])
    assert main(["simulate", str(path), "--max-jobs", "100", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["machine_procs"] == 200

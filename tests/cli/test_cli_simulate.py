import json

import pandas as pd
import pytest

from predictkit.cli import main
from tracedata import trace_file


def test_simulate_prints_metrics_next_to_the_request_baseline(capsys):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["simulate", path, "--max-jobs", "1500", "--policy", "easy", "--priority",
                 "wfp", "--predictor", "usage-max", "--selective"]) == 0
    captured = capsys.readouterr()
    assert "requested" in captured.out and "usage-max" in captured.out
    assert "mean_bounded_slowdown" in captured.out


def test_simulate_json_and_schedule_file(capsys, tmp_path):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    out = tmp_path / "schedule.csv"
    assert main(["simulate", path, "--max-jobs", "500", "--policy", "conservative",
                 "--predictor", "perfect", "--json", "-o", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["params"]["policy"] == "conservative"
    assert set(data["metrics"]["mean_wait"]) == {"requested", "perfect"}
    schedule = pd.read_csv(out)
    assert len(schedule) == 500 and schedule["promised_start"].notna().all()


def test_simulate_bad_argument_is_one_line(capsys):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["simulate", path, "--max-jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-jobs" in err


def test_simulate_cleans_the_log_and_says_what_it_left_out(capsys, tmp_path):
    from predictkit.io import read_swf, write_swf
    from predictkit.jobs import as_job_table, clean_jobs

    jobs = as_job_table({
        "job_id": [1, 2, 3, 4, 5], "submit_time": [0.0, 5.0, 9.0, 10.0, 20.0],
        "wait_time": [0.0] * 5, "run_time": [50.0, float("nan"), 30.0, 40.0, 10.0],
        "n_procs": [2.0, 1.0, 0.0, float("nan"), 1.0],
        "req_procs": [2.0, 1.0, 1.0, 3.0, 1.0], "req_time": [100.0, 60.0, 60.0, 60.0, -1.0]},
        attrs={"max_procs": 4})
    log = tmp_path / "log.swf"
    write_swf(jobs, log)
    out = tmp_path / "schedule.swf"
    assert main(["simulate", str(log), "--policy", "easy", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("left out 1 job with run_time unknown or negative, 1 job with size unknown or not "
            "positive, 1 job with req_time unknown or not positive") in err
    expected = clean_jobs(read_swf(log), for_simulation=True, require_request=True)
    simulated = read_swf(out)
    assert list(simulated["job_id"]) == list(expected["job_id"]) == [1, 4]
    assert simulated.loc[1, "n_procs"] == 3   # no allocation recorded: the request
    # the written log says so too, and --quiet keeps the warning
    assert ("; Note: left out of the log before simulating: 1 job with run_time unknown or "
            "negative, 1 job with size unknown or not positive, 1 job with req_time unknown "
            "or not positive") in out.read_text()
    assert main(["simulate", str(log), "--policy", "easy", "-q", "-o", str(out)]) == 0
    assert capsys.readouterr().err.startswith(
        "predictkit simulate: warning: left out 1 job with run_time unknown or negative, 1 job "
        "with size unknown or not positive, 1 job with req_time unknown or not positive\n")


def test_the_simulated_log_states_the_simulated_machine(tmp_path):
    from predictkit.cli import main
    from predictkit.io import read_swf, write_swf
    from predictkit.workload import make_workload

    log = tmp_path / "log.swf"
    write_swf(make_workload(400, machine_procs=100, random_state=4), log)
    out = tmp_path / "small.swf"
    assert main(["simulate", str(log), "--machine-procs", "64", "-o", str(out), "-q"]) == 0
    assert read_swf(out).attrs["max_procs"] == 64


def test_the_simulated_log_keeps_the_header_lines_of_the_log(tmp_path):
    header = ["; Version: 2.2", "; MaxProcs: 8", "; MaxJobs: 3", "; SiteKey: custom value",
              "; free comment about provenance", ";", "; Note: original note",
              ";   continued note"]
    jobs = ["1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1",
            "2 10 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1",
            "3 20 5 60 16 -1 -1 16 120 -1 1 3 1 -1 -1 -1 -1 -1"]
    log = tmp_path / "log.swf"
    log.write_text("\n".join(header + jobs) + "\n")
    out = tmp_path / "simulated.swf"
    assert main(["simulate", str(log), "-q", "-o", str(out)]) == 0
    written = [line for line in out.read_text().splitlines() if line.startswith(";")]
    assert written[:len(header)] == header
    assert written[len(header)].startswith("; Note: wait_time holds the waits simulated")
    # the job wider than the machine is left out: the header's count is the log's
    assert "; Note: 2 jobs simulated and written here" in written[-1]
    assert main(["simulate", str(log), "-q", "--machine-procs", "16", "-o", str(out)]) == 0
    written = [line for line in out.read_text().splitlines() if line.startswith(";")]
    assert "; MaxProcs: 16" in written and "; SiteKey: custom value" in written
    assert not any("simulated and written here" in line for line in written)


def test_a_job_killed_at_its_request_is_written_as_failed_and_counted(capsys, tmp_path):
    from predictkit.io import read_swf

    jobs = ["1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1",
            "2 10 5 300 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1",
            "3 20 5 90 4 -1 -1 4 120 -1 5 3 1 -1 -1 -1 -1 -1"]
    log = tmp_path / "log.swf"
    log.write_text("; MaxProcs: 8\n" + "\n".join(jobs) + "\n")
    out = tmp_path / "simulated.swf"
    assert main(["simulate", str(log), "-o", str(out)]) == 0
    assert "simulated 3 jobs with requested estimates (1 job killed at the requested time)" \
        in capsys.readouterr().err
    simulated = read_swf(out)
    assert list(simulated["run_time"]) == [60, 120, 90]
    assert list(simulated["status"]) == [1, 0, 5]
    assert ("; Note: 1 job killed at the requested time: run_time holds the time run, "
            "status 0 (failed)") in out.read_text().splitlines()


def test_simulate_cplant_starvation_queue_flags(capsys, tmp_path):
    path = str(trace_file("Sandia-Ross-2001-1.1-cln"))
    out = tmp_path / "schedule.csv"
    assert main(["simulate", path, "--max-jobs", "1500", "--policy", "no_guarantee",
                 "--priority", "fairshare", "--starvation-after", "6h",
                 "--starvation-bar-heavy", "--max-runtime", "72h", "--json", "-q",
                 "-o", str(out)]) == 0
    quiet = capsys.readouterr()  # only the warnings: a job left out, a header machine small
    left, busy = quiet.err.splitlines()
    assert left == "predictkit simulate: warning: left out 1 job with size unknown or not positive"
    assert busy.startswith("predictkit simulate: warning: in the log, the 1,499 jobs kept keep "
                           "up to 1,536 ")
    assert "metrics" in json.loads(quiet.out)
    schedule = pd.read_csv(out)
    assert "starving_since" in schedule and schedule["starving_since"].notna().any()
    assert main(["simulate", path, "--max-jobs", "500", "--policy", "no_guarantee",
                 "--priority", "fairshare", "--starvation-after", "24h", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["params"]["starvation_after"] == 86400.0
    assert data["params"]["starvation_bar_heavy"] is False


def test_simulate_learned_takes_its_budget(capsys):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    waits = {}
    for share in ("0.01", "0.3"):
        assert main(["simulate", path, "--max-jobs", "2500", "--predictor", "learned",
                     "--max-bad-share", share, "--json", "-q"]) == 0
        waits[share] = json.loads(capsys.readouterr().out)["metrics"]["mean_wait"]["learned"]
    assert waits["0.01"] != waits["0.3"]


def test_simulate_max_runtime_none_is_no_limit_as_in_the_api(capsys):
    path = str(trace_file("Sandia-Ross-2001-1.1-cln"))
    args = ["simulate", path, "--max-jobs", "300", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    for word in ("none", "all", "inf"):
        assert main([*args, "--max-runtime", word]) == 0
        said = json.loads(capsys.readouterr().out)
        assert said["params"]["max_runtime"] is None and said["metrics"] == plain["metrics"]


def test_simulate_fairness_adds_the_fair_start_metrics_to_both_runs(capsys):
    path = str(trace_file("Sandia-Ross-2001-1.1-cln"))
    args = ["simulate", path, "--max-jobs", "800", "--policy", "no_guarantee", "--priority",
            "fairshare", "--starvation-after", "24h", "--predictor", "usage-max", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)["metrics"]
    assert "fair_start_miss_percent" not in plain
    assert main([*args, "--fairness"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    assert set(metrics["fair_start_miss_percent"]) == {"requested", "usage-max"}
    assert set(metrics["mean_fair_start_miss"]) == {"requested", "usage-max"}
    assert main([*args[:-1], "--fairness"]) == 0
    out = capsys.readouterr().out
    assert "fair_start_miss_percent (%)" in out and "mean_fair_start_miss (h)" in out


@pytest.mark.parametrize("flags,named", [
    (["--policy", "easy", "--starvation-after", "24h"], "--starvation-after"),
    (["--policy", "no_guarantee", "--starvation-bar-heavy"], "--starvation-bar-heavy"),
    (["--policy", "no_guarantee", "--starvation-after", "soon"], "--starvation-after"),
    (["--policy", "no_guarantee", "--starvation-after=-3h"], "non-negative"),
    (["--policy", "conservative", "--reservation-depth", "3"], "--reservation-depth"),
    (["--policy", "easy", "--reservation-depth", "-1"], "--reservation-depth"),
    (["--max-runtime", "0"], "--max-runtime"),
    (["--predictor", "tang", "--max-bad-share", "0.1"], "--max-bad-share applies to "
                                                        "--predictor learned only"),
    (["--predictor", "learned", "--max-bad-share", "1"], "--max-bad-share must be in (0, 1)"),
    (["--max-runtime", "forever"], "--max-runtime"),
])
def test_simulate_policy_flags_are_checked_in_one_line(capsys, flags, named):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["simulate", path, "--max-jobs", "50", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err, err


def test_tang_leaves_out_a_key_the_log_gives_for_no_job(capsys):
    from predictkit.io import read_swf
    from predictkit.jobs import clean_jobs
    from predictkit.runtime import WalltimeAdjuster
    from predictkit.simulate import simulate

    path = str(trace_file("SDSC-BLUE-2000-4.2-cln"))  # its log gives no group
    assert main(["simulate", path, "--max-jobs", "1500", "--predictor", "tang", "--json"]) == 0
    captured = capsys.readouterr()
    assert f"Tang's keys leave out group_id: {path} gives it for no job" in captured.err
    jobs = clean_jobs(read_swf(path).iloc[:1500], for_simulation=True, require_request=True)
    expected = simulate(jobs, estimates=WalltimeAdjuster(keys=("user_id", "req_time")))
    wait = json.loads(captured.out)["metrics"]["mean_wait"]["tang"]
    assert wait == pytest.approx(expected.jobs["wait_time"].mean())
    assert wait != pytest.approx(simulate(jobs, estimates="requested").jobs["wait_time"].mean())


MACHINE_OF_10 = ("; MaxProcs: 10\n"
                 "1 0 0 250 10 -1 -1 10 300 -1 1 1 1 -1 -1 -1 -1 -1\n"
                 "2 50 0 10 10 -1 -1 10 10 -1 1 2 1 -1 -1 -1 -1 -1\n"
                 "3 60 0 10 20 -1 -1 20 10 -1 1 2 1 -1 -1 -1 -1 -1\n")


def test_pieces_of_max_runtime_are_not_written_as_one_swf_line_each(capsys, tmp_path):
    log = tmp_path / "log.swf"
    log.write_text(MACHINE_OF_10)
    out = tmp_path / "out.swf"
    assert main(["simulate", str(log), "--max-runtime", "100", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SWF log of one line per job cannot hold" in err
    assert not out.exists()
    assert main(["simulate", str(log), "--max-runtime", "100", "-o", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert "1 job wider than the machine (10 processors) was not simulated" in err
    pieces = pd.read_csv(tmp_path / "o.csv")
    assert pieces.set_index("job_id").loc[1, "n_pieces"] == 3


def test_perfect_estimates_on_jobs_without_requests_have_no_requested_baseline(capsys, tmp_path):
    log = tmp_path / "log.swf"
    log.write_text(MACHINE_OF_10.replace(" 10 300 -1 1 1 1", " 10 -1 -1 1 1 1"))
    assert main(["simulate", str(log), "--predictor", "perfect", "--json"]) == 0
    captured = capsys.readouterr()
    assert "no baseline with requested estimates: 1 job without a request" in captured.err
    assert set(json.loads(captured.out)["metrics"]["mean_wait"]) == {"perfect"}
    # the requests' own simulation leaves the job without one out, as cleaning says
    assert main(["simulate", str(log), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["n_jobs"] == {"requested": 1.0}


@pytest.mark.parametrize("predictor", ["perfect", "requested"])
def test_a_job_requesting_no_time_is_left_out_with_a_warning(tmp_path, capsys, predictor):
    from predictkit.io import read_swf, write_swf

    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0],
                         "wait_time": [0.0] * 3, "run_time": [100.0, 50.0, 70.0],
                         "n_procs": [4.0] * 3, "req_time": [200.0, 0.0, 100.0]})
    jobs.attrs["max_procs"] = 8
    write_swf(jobs, tmp_path / "log.swf")
    out = tmp_path / "schedule.swf"
    assert main(["simulate", str(tmp_path / "log.swf"), "--predictor", predictor, "-q",
                 "-o", str(out)]) == 0
    assert capsys.readouterr().err == (
        "predictkit simulate: warning: left out 1 job with req_time 0\n")
    assert list(read_swf(out)["job_id"]) == [1, 3]

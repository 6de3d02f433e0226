"""``predictkit wait`` and ``predictkit walltime`` on the committed sacct sample."""

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predictkit.cli import main
from predictkit.io import read_sacct
from predictkit.metrics import estimate_accuracy
from predictkit.model_selection import replay
from predictkit.queue import QBETS
from predictkit.runtime import RequestedTime

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "datasets" / "sacct_sample.txt")


@pytest.fixture(scope="module")
def jobs():
    return read_sacct(SAMPLE)


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


def run_json(capsys, argv):
    return json.loads(run(capsys, [*argv, "--json"]))


def fails(capsys, argv):
    """The one error line of a command that fails after reading its log.

    --quiet keeps the log's progress line out; a warning about the log (the
    sample keeps more processors busy than its widest job) stays before it.
    """
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    *warned, error = err.splitlines()
    assert all(": warning: " in line for line in warned) and "Traceback" not in err
    assert ": error: " in error
    return error + "\n"


# --- wait ----------------------------------------------------------------------

def test_wait_bound_is_qbets_on_the_partitions_history(capsys, jobs):
    answer = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                               "--partition", "cpu", "--within", "1h"])
    # reference: QBETS fitted by hand on the started jobs of partition cpu, in start order
    cpu = jobs[jobs["partition_id"] == jobs.attrs["partition_ids"]["cpu"]]
    start = cpu["submit_time"] + cpu["wait_time"]
    end = start + cpu["run_time"]
    now = float(np.nanmax(np.concatenate([cpu["submit_time"], start, end])))
    started = cpu[start.to_numpy() <= now]
    order = np.lexsort((np.arange(len(started)), started["submit_time"],
                        (started["submit_time"] + started["wait_time"]).to_numpy()))
    started = started.iloc[order]
    model = QBETS(random_state=0).fit(started, started["wait_time"])
    job = pd.DataFrame({"submit_time": [now], "req_procs": [64.0], "n_procs": [64.0],
                        "req_time": [14400.0]})
    assert answer["bound_history"] == model.predict(job)[0] > 0
    assert answer["proba_history"] == [model.start_probability(job, within=3600.0)[0]]
    assert answer["n_waits"] == len(started)
    job_class = model.job_classes(job).iloc[0]
    assert answer["n_class_waits"] == job_class["n_history"] < len(started)
    assert answer["job_class"] == {"nodes": job_class["nodes"],
                                   "requested_time": job_class["requested_time"]}
    # the log's own queue: the cpu jobs still PENDING at the end
    pending = cpu["slurm_state"].eq("PENDING").sum()
    assert answer["n_pending"] == pending > 0
    assert answer["queue_source"] == "the log's own pending jobs at its end"
    assert answer["bound_with_queue"] >= answer["bound_history"]


def test_wait_queue_counts_each_pending_array_task(capsys, tmp_path):
    argv = ["--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    # 12 pending jobs one a line, and 420121_[10-15] and 420183_[0-11]: 18 tasks
    assert run_json(capsys, ["wait", SAMPLE, *argv])["n_pending"] == 30
    text = Path(SAMPLE).read_text()
    pending = next(line for line in text.splitlines() if line.startswith("420121_["))
    more = tmp_path / "more.txt"
    more.write_text(text + pending.replace("420121_[10-15]|420121", "430000_[1-50]|430000")
                    + "\n")
    assert run_json(capsys, ["wait", str(more), *argv])["n_pending"] == 80


def test_wait_probabilities_grow_with_the_time_allowed(capsys):
    answer = run_json(capsys, ["wait", SAMPLE, "--procs", "32", "--time", "12:00:00",
                               "--within", "5min", "--within", "2h", "--within", "3-00:00:00"])
    assert answer["within"] == [300.0, 7200.0, 259200.0]
    for key in ("proba_history", "proba_with_queue"):
        assert answer[key] == sorted(answer[key]) and 0 <= answer[key][0] <= 1
    assert answer["population"] == "every partition, every user"


def test_wait_text_explains_the_numbers(capsys):
    out = run(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                       "--partition", "cpu"])
    assert out.startswith("A job of 64 processors asking for 04:00:00 in partition cpu, "
                          "submitted at 2024-04-02T")
    assert "with 95% confidence, at least 95% of jobs like this one start within" in out
    for horizon in ("00:10:00", "01:00:00", "06:00:00", "1-00:00:00"):
        assert f"P(start within {horizon})" in out


def test_wait_text_names_the_class_history_and_the_confidence_as_given(capsys, jobs):
    argv = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    answer = run_json(capsys, argv)
    out = " ".join(run(capsys, [*argv, "--confidence", "0.995"]).split())
    assert (f"learned from {answer['n_waits']:,} waits (partition cpu, every user), "
            f"{answer['n_class_waits']:,} of them in the class of jobs like this one") in out
    assert "with 99.5% confidence, at least 95% of jobs" in out
    # too little history in the class: the answer says how little
    out = " ".join(run(capsys, [*argv, "--quantile", "0.99", "--confidence", "0.9999999"])
                   .split())
    assert (f"No bound: the class of jobs like this one has {answer['n_class_waits']:,} "
            "waits, fewer than the 1,604 (QBETS needs that many for q=0.99, c=0.9999999)") in out


def test_wait_counts_the_cancelled_jobs_whose_wait_ended_in_no_start(capsys, jobs, tmp_path):
    from predictkit.io import write_swf

    swf = jobs[["job_id", "submit_time", "wait_time", "run_time", "n_procs", "req_procs",
                "req_time", "status", "user_id"]].copy()
    swf = swf[np.isfinite(swf["wait_time"]) & np.isfinite(swf["run_time"])]
    swf.loc[swf.index[:7], ["status", "run_time"]] = [5, 0]
    path = tmp_path / "cancelled.swf"
    write_swf(swf.reset_index(drop=True), path)
    out = " ".join(run(capsys, ["wait", str(path), "--procs", "8", "--time", "1:00:00"]).split())
    assert ("note: 7 jobs cancelled before running (status 5, no run time) count the time "
            "until the cancel as their wait") in out


def snapshot(path, rows, taken):
    path.write_text("JOBID|USER|ACCOUNT|PARTITION|CPUS|NODES|TIME_LIMIT|SUBMIT_TIME|STATE\n"
                    + "".join(f"{k}|zoe|cs|cpu|64|2|4:00:00|{t}|PENDING\n"
                              for k, t in enumerate(rows)))
    return ["--queue", str(path), "--now", taken]


def test_a_queue_of_long_waiting_jobs_raises_the_bound(capsys, tmp_path):
    base = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    taken = "2024-04-03T12:00:00"
    old = [(dt.datetime(2024, 3, 27) + dt.timedelta(minutes=k)).isoformat()
           for k in range(40)]
    crowded = run_json(capsys, base + snapshot(tmp_path / "q1.txt", old, taken))
    young = [(dt.datetime(2024, 4, 3, 11, 59)).isoformat()] * 40
    calm = run_json(capsys, base + snapshot(tmp_path / "q2.txt", young, taken))
    assert crowded["n_pending"] == calm["n_pending"] == 40
    assert crowded["queue_source"] == "the --queue snapshot"
    assert crowded["now"] == "2024-04-03T12:00:00"
    assert calm["bound_with_queue"] == calm["bound_history"]
    assert crowded["bound_with_queue"] > crowded["bound_history"]
    assert crowded["bound_with_queue"] >= 6 * 86400  # they have waited a week already


def test_an_empty_queue_snapshot_is_a_queue_without_pending_jobs(capsys, tmp_path):
    base = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    empty = run_json(capsys, base + snapshot(tmp_path / "q.txt", [], "2024-04-03T12:00:00"))
    assert empty["n_pending"] == 0 and empty["queue_source"] == "the --queue snapshot"
    assert empty["bound_with_queue"] == empty["bound_history"]


def test_wait_script_gives_the_same_answer_as_flags(capsys, tmp_path):
    job = tmp_path / "job.sh"
    job.write_text("#!/bin/bash\n#SBATCH --ntasks=32 --cpus-per-task=2\n#SBATCH -t 4:00:00\n"
                   "#SBATCH --partition=cpu\nsrun ./a.out\n")
    from_script = run_json(capsys, ["wait", SAMPLE, "--script", str(job)])
    from_flags = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "240",
                                   "--partition", "cpu"])
    assert from_script == from_flags


def test_wait_for_a_user_with_few_waits_says_so(capsys):
    answer = run_json(capsys, ["wait", SAMPLE, "--procs", "8", "--time", "1:00:00",
                               "--user", "zoe"])
    assert answer["notes"] == ["user zoe has 27 waits in the log (fewer than 100): every "
                               "user's waits are used"]
    heavy = run_json(capsys, ["wait", SAMPLE, "--procs", "8", "--time", "1:00:00",
                              "--user", "alice"])
    assert heavy["population"] == "every partition, user alice" and not heavy["notes"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--time", "1:00:00"], "give the number of processors with --procs or --script"),
    (["--procs", "4"], "give the requested time with --time"),
    (["--procs", "4", "--time", "soon"], "--time must be a positive Slurm time"),
    (["--script", "{unlimited}"], "unlimited.sh: #SBATCH --time asks for no time limit (the "
                                  "partition's MaxTime applies, which a log does not state): "
                                  "give that limit with --time\n"),
    (["--procs", "4", "--time", "99999-00:00:00"],
     "--time must be at most 49,710 days (4,294,967,296 s), got '99999-00:00:00'"),
    (["--procs", "0", "--time", "1:00:00"], "--procs must be at least 1"),
    (["--procs", "4", "--time", "1:00:00", "--partition", "huge"],
     "--partition huge: no job of the log has it (3 known: cpu, debug, gpu)"),
    (["--procs", "4", "--time", "1:00:00", "--partition", ""],
     "--partition '' names an empty partition"),
    (["--procs", "4", "--time", "1:00:00", "--partition", "cpu,,gpu"],
     "--partition 'cpu,,gpu' names an empty partition"),
    (["--procs", "4", "--time", "1:00:00", "--user", "mallory"],
     "--user mallory: no job of the log has it"),
    (["--procs", "4", "--time", "1:00:00", "--quantile", "1.5"], "--quantile must be in (0, 1)"),
    (["--procs", "4", "--time", "1:00:00", "--within", "0"],
     "--within must be a positive Slurm time such as 90 (minutes), 30:00, 2:00:00, 1-12:00:00 "
     "or 90min, got '0'\n"),  # not what a time limit of 0 means: --within is no limit
    (["--procs", "4", "--time", "1:00:00", "--queue", "{bad}"], "squeue header lacks"),
    (["--procs", "4", "--time", "1:00:00", "--queue", "{good}", "--now", "noon"],
     "--now must be a time such as 2024-03-04T10:00:00, in the years 1970-2099, got 'noon'\n"),
    (["--procs", "4", "--time", "1:00:00", "--queue", "{good}", "--now", "2024-04-01T00:00:00Z"],
     "got '2024-04-01T00:00:00Z' (without 'Z': it is read in the log's time zone, "),
    (["--procs", "4", "--time", "1:00:00", "--queue", "{good}", "--now",
      "2024-04-01T00:00:00+02:00"], "(without '+02:00': it is read in the log's time zone"),
    (["--procs", "4", "--time", "1:00:00", "--queue", "{good}", "--now",
      "2024-04-01T00:00:00-05"], "(without '-05': it is read in the log's time zone"),
    (["--procs", "4", "--time", "1:00:00", "--queue", "{missing}"], "No such file"),
])
def test_wait_errors_are_one_line(capsys, tmp_path, argv, message):
    (tmp_path / "bad.txt").write_text("JOBID|USER\n1|a\n")
    snapshot(tmp_path / "good.txt", ["2024-04-01T00:00:00"], "2024-04-01T00:00:00")
    (tmp_path / "unlimited.sh").write_text("#!/bin/sh\n#SBATCH --time=UNLIMITED -n 4\n")
    files = {"bad": tmp_path / "bad.txt", "good": tmp_path / "good.txt",
             "missing": tmp_path / "missing.txt", "unlimited": tmp_path / "unlimited.sh"}
    err = fails(capsys, ["wait", SAMPLE, *[a.format(**files) for a in argv]])
    assert message in err


# --- walltime ------------------------------------------------------------------

def test_walltime_chooses_the_most_accurate_predictor_within_the_risk(capsys):
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00"])
    table = pd.DataFrame(answer["table"])
    assert len(table) == 9 and table["predictor"].iloc[0] == "requested"
    assert "learned" in set(table["predictor"])
    eligible = table[table["underestimated"] <= answer["risk_limit"]]
    assert answer["chosen"] == eligible.sort_values("accuracy", ascending=False,
                                                    kind="stable")["predictor"].iloc[0]
    assert answer["risk"] <= answer["max_risk"] == 0.05
    assert answer["chosen"] == "tang-user-q95" and answer["advice"] == 87 * 60
    assert (table["advice"] % 60 == 0).all() and (table["advice"] <= 4 * 3600).all()
    assert answer["judged_on"] == "user eva's 142 past jobs"


def test_walltime_scores_equal_a_plain_replay(capsys, jobs):
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00"])
    jobs = jobs.sort_values("submit_time", kind="stable").reset_index(drop=True)
    run_time = jobs["run_time"].to_numpy()
    known = (jobs["submit_time"] + jobs["wait_time"].fillna(0) + jobs["run_time"]).to_numpy()
    predicted = replay(RequestedTime(), jobs, run_time, known_time=known, method="reference")
    eva = ((jobs["user_id"] == jobs.attrs["user_ids"]["eva"]) & jobs["run_time"].notna()
           & jobs["req_time"].notna()).to_numpy()
    row = answer["table"][0]
    assert row["accuracy"] == pytest.approx(estimate_accuracy(run_time[eva], predicted[eva]))
    assert row["n_underestimated"] == int((predicted[eva] < run_time[eva]).sum())
    assert row["n_judged"] == int(eva.sum()) == 142


def test_walltime_sentence_and_table(capsys):
    out = run(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00"])
    assert out.startswith("Request --time=01:27:00 instead of 04:00:00. Chosen: tang-user-q95")
    assert "it would have cut short 4.2% of them (6 of 142, about 1 job in 24)" in " ".join(
        out.split())
    assert "advice for this request" in out and "recent-average" in out


def test_walltime_keeps_the_request_when_nothing_safer_is_better(capsys):
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "alice", "--time", "4:00:00"])
    assert answer["chosen"] == "requested" and answer["advice"] == 4 * 3600
    assert answer["risk_limit"] == answer["risk"] > 0.05
    assert "the requests themselves ran out for 7.9%" in answer["notes"][0]
    out = run(capsys, ["walltime", SAMPLE, "--user", "alice", "--time", "4:00:00"])
    assert out.startswith("Keep --time=04:00:00. Chosen: requested")


def test_walltime_falls_back_to_the_site_with_little_history(capsys):
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "zoe", "--time", "2:00:00",
                               "--min-history", "50"])
    assert answer["judged_on"].startswith("the site's ")
    assert "fewer than --min-history 50" in answer["notes"][0]


def test_walltime_reads_the_script(capsys, tmp_path):
    job = tmp_path / "job.sh"
    job.write_text("#!/bin/bash\n#SBATCH --time=04:00:00\n#SBATCH -A bio\nsrun x\n")
    from_script = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--script", str(job)])
    from_flags = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "240",
                                   "--account", "bio"])
    assert from_script == from_flags


@pytest.mark.parametrize(("argv", "message"), [
    (["--user", "eva"], "give the requested time with --time"),
    (["--user", "nobody", "--time", "1:00:00"], "--user nobody: no job of the log has it"),
    (["--user", "eva", "--time", "1:00:00", "--max-risk", "1"], "--max-risk must be in [0, 1)"),
    (["--user", "eva", "--time", "1:00:00", "--min-history", "0"],
     "--min-history must be at least 1"),
    (["--user", "eva", "--time", "1:00:00", "--account", "nope"],
     "--account nope: no job of the log has it"),
    (["--user", "eva", "--time", "1:00:00", "--script", "{missing}"], "No such file"),
])
def test_walltime_errors_are_one_line(capsys, tmp_path, argv, message):
    argv = [a.format(missing=tmp_path / "missing.sh") for a in argv]
    assert message in fails(capsys, ["walltime", SAMPLE, *argv])


def test_both_questions_work_on_swf_logs_with_numeric_names(capsys, jobs, tmp_path):
    from predictkit.io import write_swf

    swf = tmp_path / "site.swf"
    write_swf(jobs.sort_values("submit_time", kind="stable"), swf)
    cpu = str(jobs.attrs["partition_ids"]["cpu"])
    from_swf = run_json(capsys, ["wait", str(swf), "--procs", "64", "--time", "4:00:00",
                                 "--partition", cpu])
    from_sacct = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                                   "--partition", "cpu"])
    assert from_swf["bound_history"] == from_sacct["bound_history"]
    assert from_swf["proba_history"] == from_sacct["proba_history"]
    eva = str(jobs.attrs["user_ids"]["eva"])
    walltime_swf = run_json(capsys, ["walltime", str(swf), "--user", eva, "--time", "4:00:00"])
    walltime_sacct = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00"])
    assert walltime_swf["table"] == walltime_sacct["table"]
    err = fails(capsys, ["walltime", str(swf), "--user", "eva", "--time", "1:00:00"])
    assert "--user eva: no job of the log has it (26 known: 1, 2, 3, 4, 5, 6, 7, 8, ...)" in err


def test_a_snapshot_needs_a_log_with_dates(capsys, jobs, tmp_path):
    from predictkit.io import write_swf

    undated = jobs.sort_values("submit_time", kind="stable").copy()
    undated.attrs = {k: v for k, v in jobs.attrs.items() if k != "unix_start_time"}
    swf = tmp_path / "undated.swf"
    write_swf(undated, swf)
    err = fails(capsys, ["wait", str(swf), "--procs", "4", "--time", "1:00:00",
                         "--queue", SAMPLE, "--now", "2024-04-03T12:00:00"])
    assert "--queue needs a log with dates" in err


def test_wait_refuses_a_job_wider_than_the_machine(capsys):
    err = fails(capsys, ["wait", SAMPLE, "--procs", "99999999", "--time", "1:00:00"])
    assert "--procs 99,999,999 is wider than the machine" in err


# --- progress on standard error ---------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--machine-procs", "1200"],
    ["walltime", SAMPLE, "--user", "alice", "--time", "4:00:00"],
])
def test_wait_and_walltime_echo_settings_and_progress_unless_quiet(capsys, argv, jobs):
    if argv[0] == "walltime":
        argv[3] = str(next(iter(jobs.attrs["user_ids"])))
    assert main(argv) == 0
    loud = capsys.readouterr()
    lines = loud.err.splitlines()
    assert lines[0].startswith(f"predictkit {argv[0]}: ") and "time=04:00:00" in lines[0]
    assert lines[1].startswith(f"predictkit {argv[0]}: read {len(jobs):,} jobs from ")
    assert len(lines) == 3 and lines[2].endswith(" s")
    assert main([*argv, "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and quiet.out == loud.out


def test_wait_error_before_reading_prints_no_progress(capsys):
    assert main(["wait", SAMPLE, "--procs", "0", "--time", "1:00:00"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--procs must be at least 1" in err


@pytest.fixture(scope="module")
def swf_with_waits(tmp_path_factory):
    """An SWF log with waits (an EASY schedule) and the job lines to put under a header."""
    from predictkit.io import write_swf
    from predictkit.simulate import simulate
    from predictkit.workload import make_workload

    jobs = simulate(make_workload(300, machine_procs=64, random_state=5)).jobs
    path = tmp_path_factory.mktemp("swf") / "body.swf"
    write_swf(jobs, path, header=[])
    return path.read_text()


def swf_log(folder, body, header):
    path = folder / "log.swf"
    path.write_text("".join(f"; {line}\n" for line in header) + body)
    return str(path)


@pytest.mark.parametrize("zone", ["Europe/Paris", "US/Pacific", None])
def test_now_is_read_and_shown_in_the_zone_of_an_swf_log(capsys, tmp_path, swf_with_waits, zone):
    header = ["UnixStartTime: 1704067200", "MaxProcs: 64"]
    header += [f"TimeZoneString: {zone}"] if zone else []
    log = swf_log(tmp_path, swf_with_waits, header)
    taken = "2024-01-20T09:30:00"
    answer = run_json(capsys, ["wait", log, "--procs", "4", "--time", "1:00:00",
                               *snapshot(tmp_path / "q.txt", ["2024-01-20T08:00:00"], taken)])
    assert answer["now"] == taken and answer["n_pending"] == 1


@pytest.mark.parametrize(("header", "message"), [
    (["UnixStartTime: 1704067200", "TimeZoneString: Mars/Olympus"],
     "the log's time zone 'Mars/Olympus' (SWF header TimeZoneString) is not a known zone"),
    (["UnixStartTime: 99999999999999"],
     "the log time UnixStartTime 99999999999999 + "),
])
def test_a_log_clock_that_cannot_be_shown_is_one_line(capsys, tmp_path, swf_with_waits, header,
                                                       message):
    log = swf_log(tmp_path, swf_with_waits, header)
    err = fails(capsys, ["wait", log, "--procs", "4", "--time", "1:00:00"])
    assert err.startswith(f"predictkit wait: error: {log}: {message}")


def test_snapshot_jobs_submitted_after_now_are_said_not_counted(capsys, tmp_path):
    base = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    taken = "2024-04-03T12:00:00"
    rows = ["2024-04-03T11:00:00", "2024-04-03T12:00:00", "2024-04-03T13:00:00"]
    answer = run_json(capsys, base + snapshot(tmp_path / "q.txt", rows, taken))
    assert answer["n_pending"] == 1
    assert ("2 jobs of the snapshot were submitted at or after 2024-04-03T12:00:00 (--now), "
            "so were not pending then: not counted") in answer["notes"]


def test_walltime_leaves_out_and_counts_jobs_without_a_submit_time(capsys, tmp_path,
                                                                     swf_with_waits):
    lines = swf_with_waits.splitlines(keepends=True)
    for k in (5, 17, 40):  # SWF -1: submit time unknown
        fields = lines[k].split()
        fields[1] = "-1"
        lines[k] = " ".join(fields) + "\n"
    answer = run_json(capsys, ["walltime", swf_log(tmp_path, "".join(lines), ["MaxProcs: 64"]),
                               "--user", "1", "--time", "1:00:00"])
    assert "3 jobs without a submit time: left out" in answer["notes"]
    assert answer["table"][0]["n_judged"] > 0


def test_wait_refuses_now_without_a_queue(capsys):
    assert main(["wait", SAMPLE, "--procs", "4", "--time", "1:00:00",
                 "--now", "2024-03-04T10:00:00"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--now is when the --queue snapshot was taken" in err[0]


def test_wait_takes_a_script_listing_several_partitions(capsys, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH --partition=gpu,cpu\n#SBATCH --ntasks=8\n"
                      "#SBATCH --time=1:00:00\nsrun x\n")
    both = run_json(capsys, ["wait", SAMPLE, "--script", str(script)])
    alone = {name: run_json(capsys, ["wait", SAMPLE, "--script", str(script),
                                     "--partition", name]) for name in ("gpu", "cpu")}
    assert both["population"] == "partitions gpu, cpu, every user"
    assert both["n_waits"] == alone["gpu"]["n_waits"] + alone["cpu"]["n_waits"]
    assert both["n_pending"] == alone["gpu"]["n_pending"] + alone["cpu"]["n_pending"]
    script.write_text(script.read_text().replace("gpu,cpu", "gpux"))
    assert main(["wait", SAMPLE, "--script", str(script)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(f"{script}: #SBATCH --partition gpux: no job of the log has it "
                            "(3 known: cpu, debug, gpu)")


def test_walltime_reports_the_account_and_width_it_took_from_the_user(capsys, jobs):
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00"])
    mine = jobs[jobs["user_id"] == float(jobs.attrs["user_ids"]["eva"])]
    accounts = {number: name for name, number in jobs.attrs["account_ids"].items()}
    assert answer["account"] == accounts[mine["group_id"].dropna().iloc[-1]]
    assert answer["procs"] == int(mine["req_procs"].dropna().iloc[-1])
    given = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "4:00:00",
                              "--procs", "3"])
    assert given["procs"] == 3


def test_a_snapshot_long_after_the_log_says_so(capsys, tmp_path):
    base = ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00", "--partition", "cpu"]
    recent = run_json(capsys, base + snapshot(tmp_path / "q1.txt", [], "2024-04-03T12:00:00"))
    assert not any("after the last event of the log" in n for n in recent["notes"])
    late = run_json(capsys, base + snapshot(tmp_path / "q2.txt", [], "2030-01-01T00:00:00"))
    assert any(n.startswith("the snapshot is ") and "after the last event of the log" in n
               for n in late["notes"])


def test_a_name_the_log_gives_for_no_job_and_counts_in_words(capsys, jobs, tmp_path):
    from predictkit.io import write_swf

    swf = tmp_path / "nousers.swf"
    anonymous = jobs.sort_values("submit_time", kind="stable").assign(user_id=np.nan)
    write_swf(anonymous, swf)
    err = fails(capsys, ["walltime", str(swf), "--user", "eva", "--time", "1:00:00"])
    assert "--user eva: the log gives no user for any job" in err
    one = run(capsys, ["wait", SAMPLE, "--procs", "1", "--time", "1:00:00",
                       "--machine-procs", "1200"])
    assert "A job of 1 processor asking for" in one


def test_a_within_time_given_twice_is_refused(capsys):
    err = fails(capsys, ["wait", SAMPLE, "--procs", "1", "--time", "1:00:00",
                         "--within", "1h", "--within", "60min"])
    assert "--within gives a value twice" in err


def test_walltime_says_when_the_request_lies_outside_the_history_judged(capsys, jobs):
    eva = jobs[(jobs["user_id"] == jobs.attrs["user_ids"]["eva"]) & jobs["run_time"].notna()]
    longest = eva["req_time"].max()
    assert longest < 100 * 86400
    answer = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "100-00:00:00"])
    outside = [note for note in answer["notes"] if "says little about it" in note]
    assert len(outside) == 1 and outside[0].startswith(
        "the request (100-00:00:00) is longer than any request of user eva's 142 past jobs")
    # eva asked for one hour every time
    assert eva["req_time"].min() == longest == 3600
    inside = run_json(capsys, ["walltime", SAMPLE, "--user", "eva", "--time", "1:00:00"])
    assert not any("says little about it" in note for note in inside["notes"])


def _small_log(tmp_path, *, width_field="NCPUS", pending_partitions=("cpu,gpu", "gpu,cpu", "cpu")):
    """40 finished jobs in partition cpu, then pending jobs of the partitions given."""
    lines = [f"JobID|User|Partition|Submit|Start|End|Elapsed|Timelimit|{width_field}|State"]
    start = dt.datetime(2024, 3, 4, 8)
    for k in range(40):
        submit = start + dt.timedelta(minutes=10 * k)
        begin = submit + dt.timedelta(minutes=k % 7)
        end = begin + dt.timedelta(minutes=20)
        lines.append(f"{1000 + k}|u{k % 3}|cpu|{submit:%Y-%m-%dT%H:%M:%S}|"
                     f"{begin:%Y-%m-%dT%H:%M:%S}|{end:%Y-%m-%dT%H:%M:%S}|00:20:00|01:00:00|2|"
                     f"COMPLETED")
    late = start + dt.timedelta(hours=6)
    for k, partition in enumerate(pending_partitions):
        lines.append(f"{2000 + k}|u0|{partition}|{late:%Y-%m-%dT%H:%M:%S}|Unknown|Unknown|"
                     f"00:00:00|01:00:00|2|PENDING")
    path = tmp_path / "small.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_pending_job_of_several_partitions_is_in_the_queue_of_each(capsys, tmp_path):
    log = _small_log(tmp_path)
    argv = ["wait", log, "--procs", "2", "--time", "1:00:00"]
    assert run_json(capsys, [*argv, "--partition", "cpu"])["n_pending"] == 3
    assert run_json(capsys, [*argv, "--partition", "cpu,gpu"])["n_pending"] == 3
    err = fails(capsys, [*argv, "--partition", "io"])
    assert "--partition io: no job of the log has it (2 known: cpu, gpu)" in err


def test_a_log_counting_nodes_takes_the_width_in_nodes(capsys, tmp_path):
    log = _small_log(tmp_path, width_field="NNodes", pending_partitions=())
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH -N 2 --ntasks-per-node=16\n#SBATCH -t 60\n")
    answer = run_json(capsys, ["wait", log, "--script", str(script)])
    assert answer["procs"] == 2 and answer["unit"] == "node"
    assert any("counts nodes" in note for note in answer["notes"])
    text = run(capsys, ["wait", log, "--procs", "1", "--time", "1:00:00"])
    assert "A job of 1 node asking for" in text
    script.write_text("#!/bin/bash\n#SBATCH --ntasks=32\n#SBATCH -t 60\n")
    err = fails(capsys, ["wait", log, "--script", str(script)])
    assert "the log counts nodes" in err and "give --procs as a node count" in err
    # a log counting processors takes the script's processors
    cpus = _small_log(tmp_path, pending_partitions=())
    assert "counts nodes" not in fails(capsys, ["wait", cpus, "--script", str(script)])


def test_pending_jobs_not_yet_eligible_are_not_counted_in_the_queue(capsys, tmp_path):
    log = Path(_small_log(tmp_path, pending_partitions=("cpu", "cpu", "cpu")))
    lines = log.read_text().splitlines()
    eligible = ["Eligible"] + [line.split("|")[3] for line in lines[1:]]
    eligible[-1] = "Unknown"  # held, or waiting for a dependency
    eligible[-2] = "2024-03-09T00:00:00"  # submitted with --begin, days later
    log.write_text("\n".join(f"{line}|{when}" for line, when in zip(lines, eligible)) + "\n")
    jobs = read_sacct(log)
    assert np.isnan(jobs["slurm_eligible_time"].iat[-1])
    assert jobs["slurm_eligible_time"].iat[0] == jobs["submit_time"].iat[0]
    answer = run_json(capsys, ["wait", str(log), "--procs", "2", "--time", "1:00:00"])
    assert answer["n_pending"] == 1
    assert any(note.startswith("2 pending jobs not eligible") for note in answer["notes"])


def test_walltime_counts_a_job_that_ran_until_its_limit_as_cut_short(capsys, tmp_path):
    # every third job of user tim was killed at its limit, with an Elapsed equal to it
    lines = ["JobID|User|Account|Partition|Submit|Start|End|Elapsed|Timelimit|NCPUS|State"]
    start = dt.datetime(2024, 3, 1, 8)
    for k in range(60):
        submit = start + dt.timedelta(minutes=90 * k)
        killed = k % 3 == 0
        run_for = dt.timedelta(hours=1) if killed else dt.timedelta(minutes=10 + k % 10)
        end = submit + dt.timedelta(minutes=1) + run_for
        lines.append(f"{5000 + k}|tim|phys|cpu|{submit:%Y-%m-%dT%H:%M:%S}|"
                     f"{submit + dt.timedelta(minutes=1):%Y-%m-%dT%H:%M:%S}|"
                     f"{end:%Y-%m-%dT%H:%M:%S}|{str(run_for).zfill(8)}|01:00:00|4|"
                     f"{'TIMEOUT' if killed else 'COMPLETED'}")
    log = tmp_path / "timeout.txt"
    log.write_text("\n".join(lines) + "\n")
    answer = run_json(capsys, ["walltime", str(log), "--user", "tim", "--time", "1:00:00"])
    requested = next(row for row in answer["table"] if row["predictor"] == "requested")
    assert requested["n_underestimated"] == 20 and requested["n_judged"] == 60
    assert any("the requests themselves ran out for 33.3%" in note for note in answer["notes"])
    # the sentence says why its risk limit is above --max-risk
    assert main(["walltime", str(log), "--user", "tim", "--time", "1:00:00", "-q"]) == 0
    sentence = " ".join(capsys.readouterr().out.split("\n\n")[0].split())
    assert ("cut short at most 33.3% of user tim's 60 past jobs (as often as the requests "
            "themselves, above --max-risk 0.05)") in sentence


@pytest.mark.parametrize("column", ["CPUS", "NODES"])
def test_a_snapshot_job_asking_for_no_processors_is_named_by_its_line(capsys, tmp_path,
                                                                     column):
    path = tmp_path / "q.txt"
    path.write_text(f"JOBID|USER|PARTITION|{column}|TIME_LIMIT|SUBMIT_TIME|STATE\n"
                    "600001|zoe|cpu|2|4:00:00|2024-04-02T08:00:00|PENDING\n"
                    "600002|zoe|cpu|0|4:00:00|2024-04-02T08:00:00|PENDING\n")
    err = fails(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                         "--queue", str(path), "--now", "2024-04-02T15:00:00"])
    assert f"q.txt, line 3: {column} is 0: a pending job asks for at least one" in err


def _ask_with_one_pending_job(path, log, counts, submitted, now):
    """``wait`` for a 2-wide one-hour job with a snapshot of one pending job whose
    width columns and values are ``counts`` (``{"CPUS": 64, ...}``)."""
    path.write_text(f"JOBID|USER|PARTITION|{'|'.join(counts)}|TIME_LIMIT|SUBMIT_TIME|STATE\n"
                    f"600001|zoe|cpu|{'|'.join(map(str, counts.values()))}|4:00:00|"
                    f"{submitted}|PENDING\n")
    return ["wait", log, "--procs", "2", "--time", "1:00:00", "--queue", str(path),
            "--now", now]


def test_a_snapshot_counting_nodes_is_refused_for_a_log_counting_processors(capsys, tmp_path):
    err = fails(capsys, _ask_with_one_pending_job(tmp_path / "q.txt", SAMPLE, {"NODES": 2},
                                                  "2024-04-02T08:00:00", "2024-04-02T15:00:00"))
    assert "the snapshot counts nodes (its NODES column) but the log counts processors" in err


def test_a_log_counting_nodes_reads_the_nodes_of_a_snapshot(capsys, tmp_path):
    log = _small_log(tmp_path, width_field="NNodes", pending_partitions=())
    times = ("2024-03-04T13:00:00", "2024-03-04T15:00:00")
    answer = run_json(capsys, _ask_with_one_pending_job(tmp_path / "q.txt", log,
                                                        {"CPUS": 64, "NODES": 2}, *times))
    assert answer["n_pending"] == 1 and answer["unit"] == "node"
    err = fails(capsys, _ask_with_one_pending_job(tmp_path / "q.txt", log, {"CPUS": 64},
                                                  *times))
    assert "the snapshot counts processors (its CPUS column) but the log counts nodes" in err


def test_a_partition_is_asked_about_at_the_end_of_the_whole_log(capsys, jobs):
    whole = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00"])
    cpu = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                            "--partition", "cpu"])
    assert cpu["now"] == whole["now"]
    gpu = jobs[jobs["partition_id"] == jobs.attrs["partition_ids"]["gpu"]]
    widest = int(np.nanmax(gpu["n_procs"]))
    wide = run_json(capsys, ["wait", SAMPLE, "--procs", str(2 * widest), "--time", "4:00:00",
                             "--partition", "gpu"])
    assert any(f"no job of partition gpu in the log was wider than {widest} processors" in note
               for note in wide["notes"])
    narrow = run_json(capsys, ["wait", SAMPLE, "--procs", str(widest), "--time", "4:00:00",
                               "--partition", "gpu"])
    assert not any("was wider than" in note for note in narrow["notes"])


def test_a_user_with_own_waits_is_told_the_queue_is_theirs_too(capsys):
    answer = run_json(capsys, ["wait", SAMPLE, "--procs", "64", "--time", "4:00:00",
                               "--user", "chen"])
    assert answer["queue_source"] == ("the log's own pending jobs at its end (user chen's, "
                                      "as the waits)")


def test_walltime_names_the_script_for_an_account_the_log_lacks(capsys, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH --account=nosuchacct\n"
                      "#SBATCH --ntasks=4 --time=1:00:00\n")
    err = fails(capsys, ["walltime", SAMPLE, "--user", "eva", "--script", str(script)])
    assert f"{script}: #SBATCH --account nosuchacct: no job of the log has it" in err


def test_a_log_without_waits_is_refused_as_bounds_refuses_it(capsys, tmp_path):
    from predictkit.io import write_swf
    from predictkit.workload import make_workload

    jobs = make_workload(200, machine_procs=64, random_state=5)
    jobs["wait_time"] = np.nan
    write_swf(jobs, tmp_path / "nowaits.swf")
    error = fails(capsys, ["wait", str(tmp_path / "nowaits.swf"), "--procs", "4",
                           "--time", "1:00:00"])
    assert error == (f"predictkit wait: error: {tmp_path / 'nowaits.swf'}: no job has a known "
                     f"wait time; QBETS needs waits (predictkit simulate TRACE -o waits.swf "
                     f"gives a log simulated ones)\n")
    assert main(["bounds", str(tmp_path / "nowaits.swf"), "-q"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == error.replace("wait:", "bounds:").rstrip()


def test_a_script_without_a_time_limit_takes_the_one_given_by_flag(capsys, tmp_path):
    script = tmp_path / "unlimited.sh"
    script.write_text("#!/bin/sh\n#SBATCH --time=0 --ntasks=4\nsrun a.out\n")
    assert main(["wait", SAMPLE, "--script", str(script), "--time", "2:00:00", "--json",
                 "-q"]) == 0
    from_script = json.loads(capsys.readouterr().out)
    assert main(["wait", SAMPLE, "--procs", "4", "--time", "2:00:00", "--json", "-q"]) == 0
    assert from_script == json.loads(capsys.readouterr().out)


def test_a_missing_time_names_the_script_lines_sbatch_ignores(capsys, tmp_path):
    script = tmp_path / "late.sh"
    script.write_text("#!/bin/sh\necho start\n#SBATCH --time=1:00:00 --ntasks=4\n")
    assert fails(capsys, ["wait", SAMPLE, "--script", str(script)]) == (
        f"predictkit wait: error: give the requested time with --time (e.g. --time 2:00:00) or "
        f"an #SBATCH --time line in {script}; its #SBATCH lines after line 2 are ignored, as "
        f"sbatch ignores them: they follow a command\n")
    error = fails(capsys, ["wait", SAMPLE, "--script", str(script), "--time", "1:00:00"])
    assert error.endswith(f"(no #SBATCH --ntasks/--nodes/--cpus-per-task in {script}; its "
                          "#SBATCH lines after line 2 are ignored, as sbatch ignores them: they "
                          "follow a command)\n")


def test_a_log_without_requests_says_the_time_asked_plays_no_part(capsys, tmp_path):
    from predictkit.io import write_swf

    jobs = read_sacct(SAMPLE)
    jobs["req_time"] = np.nan
    path = tmp_path / "norequests.swf"
    write_swf(jobs, path)
    assert main(["wait", str(path), "--procs", "4", "--time", "2:00:00"]) == 0
    assert (f"warning: {path} gives no job a requested time, so its classes of jobs differ by "
            "width only and the time asked (02:00:00) plays no part in the bound"
            in capsys.readouterr().err)


def test_a_share_is_printed_with_the_decimals_that_tell_it_from_the_risk_limit():
    from predictkit.cli._walltime import _share

    assert _share(7 / 139, 0.05) == "5.04%" and _share(0.0496, 0.05) == "4.96%"
    assert _share(0.05, 0.05) == "5.0%" and _share(3 / 139, 0.05) == "2.2%"
    assert _share(0.0500001, 0.05) == "5.0000%"  # as near as four decimals tell
    # a limit given with more decimals is shown with them, and the shares with at least as many
    from predictkit.cli._walltime import _limit_digits

    assert [_limit_digits({"risk_limit": r, "max_risk": r}) for r in (0.1222, 0.05, 0.5)] == \
        [2, 1, 1]
    assert _limit_digits({"risk_limit": 1 / 3, "max_risk": 0.05}) == 1  # the requests' share
    assert _share(48 / 393, 0.1222, 2) == "12.21%" and _share(0.3, 0.1222, 2) == "30.00%"


def test_a_partitions_widest_job_is_one_that_had_started_by_the_snapshot(capsys, tmp_path,
                                                                         jobs):
    gpu = jobs[jobs["partition_id"] == jobs.attrs["partition_ids"]["gpu"]]
    start = gpu["submit_time"] + gpu["wait_time"]
    widest = start[gpu["n_procs"] == gpu["n_procs"].max()].min()
    before = pd.Timestamp(jobs.attrs["unix_start_time"] + widest - 60, unit="s")
    earlier = gpu[start <= widest - 60]
    narrower = int(np.nanmax(earlier["n_procs"]))
    assert narrower < gpu["n_procs"].max()
    argv = _ask_with_one_pending_job(tmp_path / "q.txt", SAMPLE, {"CPUS": 2},
                                     before.strftime("%Y-%m-%dT%H:%M:%S"),
                                     before.strftime("%Y-%m-%dT%H:%M:%S"))
    argv[argv.index("--procs") + 1] = str(narrower + 1)
    answer = run_json(capsys, [*argv, "--partition", "gpu"])
    assert any(f"no job of partition gpu in the log was wider than {narrower} processors"
               in note for note in answer["notes"])


def _cancelled_while_pending_log(path):
    """15 jobs of zed that ran 40 to 55 minutes, then 6 cancelled while pending (sacct prints
    Start = End at the cancel and Elapsed 0), then 2 that ran 50 minutes."""
    header = ("JobID|JobIDRaw|JobName|User|Account|Partition|QOS|Submit|Start|End|Elapsed|"
              "Timelimit|NNodes|NCPUS|ReqCPUS|State|ExitCode|TotalCPU|MaxRSS")
    lines, base = [header], pd.Timestamp("2024-05-01T10:00:00")

    def line(k, wait_min, run_s, state):
        submit = base + pd.Timedelta(hours=2 * k)
        start = submit + pd.Timedelta(minutes=wait_min)
        end = start + pd.Timedelta(seconds=run_s)
        elapsed = f"{run_s // 3600:02d}:{run_s % 3600 // 60:02d}:{run_s % 60:02d}"
        stamp = "%Y-%m-%dT%H:%M:%S"
        return (f"{1000 + k}|{1000 + k}|z|zed|bio|cpu|normal|{submit.strftime(stamp)}|"
                f"{start.strftime(stamp)}|{end.strftime(stamp)}|{elapsed}|01:00:00|1|4|4|"
                f"{state}|0:0|{elapsed}|")

    for k in range(15):
        lines.append(line(k, 5, 2400 + 60 * k, "COMPLETED"))
    for k in range(15, 21):
        lines.append(line(k, 20, 0, "CANCELLED by 1234"))
    for k in range(21, 23):
        lines.append(line(k, 5, 3000, "COMPLETED"))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_jobs_cancelled_while_pending_are_neither_judged_nor_learned_from(capsys, tmp_path):
    log = str(_cancelled_while_pending_log(tmp_path / "cxl.txt"))
    answer = run_json(capsys, ["walltime", log, "--user", "zed", "--time", "1:00:00",
                               "--min-history", "10"])
    assert answer["judged_on"] == "user zed's 17 past jobs"
    assert any("6 jobs cancelled before they ran: not judged and not learned from" in note
               for note in answer["notes"])
    advice = {row["predictor"]: row["advice"] for row in answer["table"]}
    assert min(advice.values()) >= 40 * 60  # no 0 s runtime pulls an advice to a minute
    chosen = next(row for row in answer["table"] if row["predictor"] == answer["chosen"])
    assert chosen["underestimated"] <= 0.05
    info = run_json(capsys, ["info", log])
    scored = run_json(capsys, ["predict", log, "--method", "requested"])
    assert info["accuracy_mean"] == pytest.approx(scored["accuracy_requested"])

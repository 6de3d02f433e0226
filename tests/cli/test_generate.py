"""``predictkit generate``."""

import json

import numpy as np
import pytest
from tracedata import trace_file

from predictkit.cli import main
from predictkit.io import read_swf, write_swf


def test_generate_synthetic_workload(tmp_path, capsys):
    out = tmp_path / "synth.swf"
    assert main(["generate", "--jobs", "3000", "--machine-procs", "64", "--tmax", "12h", "--seed", "4",
                 "-o", str(out)]) == 0
    jobs = read_swf(out)
    assert len(jobs) == 3000 and jobs["n_procs"].max() <= 64
    assert jobs["req_time"].max() == 12 * 3600
    assert (jobs["req_time"] >= jobs["run_time"]).all()
    assert "3,000 jobs" in capsys.readouterr().err


@pytest.mark.parametrize(("jobs", "pmax"), [("2000", "0"), ("10", "2"), ("300", "100")])
def test_generate_accepts_every_pmax_in_range(tmp_path, jobs, pmax):
    out = tmp_path / "g.swf"
    assert main(["generate", "--jobs", jobs, "--model", "tsafrir", "--pmax", pmax, "--seed", "1",
                 "-q", "-o", str(out)]) == 0
    table = read_swf(out)
    assert len(table) == int(jobs)
    assert (table["req_time"] >= table["run_time"]).all()
    assert table["req_time"].max() <= 18 * 3600


@pytest.mark.parametrize("pmax", [50, 80])
def test_generate_pmax_sets_the_modal_share_at_tmax(tmp_path, capsys, pmax):
    out = tmp_path / "g.swf"
    assert main(["generate", "--jobs", "5000", "--model", "tsafrir", "--pmax", str(pmax),
                 "--seed", "3", "-o", str(out)]) == 0
    assert f"model=tsafrir pmax={pmax}" in capsys.readouterr().err
    share = 100 * float((read_swf(out)["req_time"] == 18 * 3600).mean())
    assert share == pytest.approx(pmax, abs=3)


@pytest.mark.parametrize("model", ["tsafrir", "joint", "fmodel", "phi", "x2", "shuffle", "sessions"])
def test_generate_estimates_for_a_trace(tmp_path, model):
    source = read_swf(trace_file("KTH-SP2-1996-2.1-cln"))
    small = tmp_path / "small.swf"
    write_swf(source.iloc[:3000], small)
    out = tmp_path / "out.swf"
    truncate = ["--truncate"] if model in ("tsafrir", "sessions", "joint", "shuffle") else []
    assert main(["generate", "--estimates-for", str(small), "--model", model, *truncate,
                 "--seed", "1", "-o", str(out)]) == 0
    jobs = read_swf(out)
    assert len(jobs) == 3000
    assert (jobs["req_time"] == np.ceil(jobs["req_time"])).all()
    if model != "x2":
        assert (jobs["req_time"] >= jobs["run_time"]).all()
    if model in ("tsafrir", "sessions", "shuffle"):
        assert not np.array_equal(jobs["req_time"], source["req_time"].iloc[:3000])


def test_generate_joint_padding_only_draws_from_the_paddings(tmp_path, capsys):
    from predictkit.workload import JointEstimates

    source = read_swf(trace_file("KTH-SP2-1996-2.1-cln")).iloc[:3000]
    small = tmp_path / "small.swf"
    write_swf(source, small)
    outputs = {}
    for flags in ([], ["--padding-only"]):
        out = tmp_path / f"out{len(flags)}.swf"
        assert main(["generate", "--estimates-for", str(small), "--model", "joint",
                     "--truncate", "--seed", "1", "-q", "-o", str(out), *flags]) == 0
        outputs[len(flags)] = read_swf(out)["req_time"].to_numpy()
    known = read_swf(small)
    known = known[known["req_time"] > 0]
    for padding_only, flag in ((False, 0), (True, 1)):
        model = JointEstimates(truncate=True, user_requests=not padding_only,
                               random_state=1).fit(known)
        np.testing.assert_array_equal(outputs[flag], model.transform(known)["req_time"])
    assert not np.array_equal(outputs[0], outputs[1])
    assert main(["generate", "--estimates-for", str(small), "--model", "tsafrir",
                 "--padding-only", "-o", str(tmp_path / "x.swf")]) == 2
    assert "--padding-only applies to --model joint only, not --model tsafrir" in (
        capsys.readouterr().err)


def test_generate_errors_are_one_line(tmp_path, capsys):
    assert main(["generate", "--jobs", "10", "--tmax", "10min", "-o", str(tmp_path / "x.swf")]) == 2
    assert "at least 1 h" in capsys.readouterr().err
    assert main(["generate", "--jobs", "10"]) == 2


def test_generate_estimates_for_a_log_without_requests(tmp_path, capsys):
    source = read_swf(trace_file("lublin_256")).iloc[:2000]
    small = tmp_path / "lublin.swf"
    write_swf(source, small)
    out = tmp_path / "out.swf"
    assert main(["generate", "--estimates-for", str(small), "-o", str(out)]) == 2
    assert "--tmax" in capsys.readouterr().err
    assert main(["generate", "--estimates-for", str(small), "--tmax", "48h", "--seed", "0",
                 "-o", str(out)]) == 0
    jobs = read_swf(out)
    assert jobs["req_time"].notna().all() and (jobs["req_time"] >= jobs["run_time"]).all()
    assert jobs["req_time"].max() == 48 * 3600


@pytest.mark.parametrize("name, reason", [
    ("KTH-SP2-1996-2.1-cln", "ran longer than the longest estimate"),
    ("SDSC-SP2-1998-4.2-cln", "with run_time unknown"),
    ("SDSC-DS-2004-2.1-cln", "with run_time unknown"),
])
def test_generate_estimates_for_a_log_cleans_it_and_says_what_it_left_out(
        tmp_path, capsys, name, reason):
    source = read_swf(trace_file(name))
    out = tmp_path / "out.swf"
    # --quiet keeps them: a job left out is a warning
    assert main(["generate", "-q", "--estimates-for", str(trace_file(name)), "--seed", "0",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert reason in err
    assert all(line.startswith("predictkit generate: warning: left out")
               for line in err.splitlines() if "left out" in line)
    jobs = read_swf(out)
    left_out = sum(int(n.replace(",", "")) for n in
                   __import__("re").findall(r"left out ([\d,]+)", err))
    assert left_out > 0 and len(jobs) == len(source) - left_out
    assert jobs["run_time"].notna().all() and (jobs["req_time"] >= jobs["run_time"]).all()
    kept = source.set_index("job_id").loc[jobs["job_id"]]
    np.testing.assert_array_equal(jobs["run_time"], kept["run_time"])


def test_generate_estimates_truncate_keeps_the_long_jobs(tmp_path, capsys):
    log = trace_file("KTH-SP2-1996-2.1-cln")
    out = tmp_path / "out.swf"
    assert main(["generate", "--estimates-for", str(log), "--truncate", "--seed", "0",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "ran longer" not in err
    cleaned = sum(int(n.replace(",", "")) for n in
                  __import__("re").findall(r"left out ([\d,]+) jobs? with", err))
    jobs = read_swf(out)
    assert len(jobs) == len(read_swf(log)) - cleaned
    assert (jobs["req_time"] >= jobs["run_time"]).all()


def test_generate_batsim_by_flag_or_by_name_reads_back(tmp_path):
    from predictkit.io import read_batsim

    by_flag = tmp_path / "w.out"
    assert main(["generate", "--jobs", "400", "--seed", "3", "--format", "batsim", "-q",
                 "-o", str(by_flag)]) == 0
    by_name = tmp_path / "w.json"
    assert main(["generate", "--jobs", "400", "--seed", "3", "-q", "-o", str(by_name)]) == 0
    assert by_flag.read_bytes() == by_name.read_bytes()
    jobs = read_batsim(by_name)
    assert len(jobs) == 400 and jobs.attrs["max_procs"] == 128
    assert (jobs["req_time"] >= jobs["run_time"]).all()


def test_generate_with_a_site_fitted_to_a_log(tmp_path, capsys):
    out = tmp_path / "like.swf"
    assert main(["generate", "--jobs", "3000", "--site", str(trace_file("KTH-SP2-1996-2.1-cln")),
                 "--machine-procs", "100", "--load", "0.8", "--seed", "2", "-o", str(out)]) == 0
    assert "fitted the site to 28,475 jobs" in capsys.readouterr().err
    jobs = read_swf(out)
    span = jobs["submit_time"].max() - jobs["submit_time"].min()
    assert (jobs["run_time"] * jobs["n_procs"]).sum() / (100 * span) == pytest.approx(0.8, rel=0.1)
    # without --machine-procs the workload is for the site's own machine (KTH: 100 processors)
    assert main(["generate", "--jobs", "500", "--site", str(trace_file("KTH-SP2-1996-2.1-cln")),
                 "--seed", "2", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "machine-procs=the site's" in err.splitlines()[0]
    assert "generated 500 jobs for its machine of 100 processors" in err
    assert read_swf(out).attrs["max_procs"] == 100


@pytest.mark.parametrize(("args", "message"), [
    (["--site", "missing.swf"], "missing.swf"),
    (["--site", "LOG", "--estimates-for", "LOG"], "--site fits a synthetic workload"),
    (["--load", "0"], "--load must be above 0 and at most 100 (the offered load per week"),
    (["--load", "1e308"], "--load must be above 0 and at most 100"),
    (["--load", "1e-300"], "The '--load' parameter of make_workload must be at least about "),
    (["--site", "NOREQ"], "--site NOREQ: no job has a known runtime, width and requested time"),
])
def test_generate_site_and_load_errors_are_one_line(tmp_path, capsys, args, message):
    _assert_refused(tmp_path, capsys, ["--jobs", "100", *args], message)


def _assert_refused(tmp_path, capsys, args, message):
    """``generate`` with ``args`` (LOG: a log with requests, NOREQ: one without) fails with
    ``message`` (names substituted alike) on its last line, writing nothing."""
    log = str(trace_file("KTH-SP2-1996-2.1-cln"))
    noreq = tmp_path / "noreq.swf"
    write_swf(read_swf(trace_file("lublin_256")).iloc[:100], noreq)
    names = {"LOG": log, "NOREQ": str(noreq)}
    args = [names.get(a, a) for a in args]
    for name, path in names.items():
        message = message.replace(name, path)
    out = tmp_path / "x.swf"
    assert main(["generate", *args, "-o", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert message in lines[-1] and "Traceback" not in "".join(lines)
    assert not out.exists()


def test_generate_batsim_refuses_a_log_wider_than_its_machine(tmp_path, capsys):
    log = tmp_path / "wide.swf"
    log.write_text("; MaxProcs: 4\n1 0 -1 100 8 -1 -1 8 600 -1 1 1 1 -1 1 1 -1 -1\n")
    out = tmp_path / "w.json"
    assert main(["generate", "--estimates-for", str(log), "--model", "fmodel", "--seed", "1",
                 "-o", str(out)]) == 2
    assert "exceeds the machine's 4 resources" in capsys.readouterr().err
    assert not out.exists()


def test_generate_batsim_refuses_zero_runtimes_unless_given_a_minimum_delay(tmp_path, capsys):
    import json

    log = tmp_path / "zero.swf"
    log.write_text("; MaxProcs: 8\n"
                   "1 0 -1 100 2 -1 -1 2 600 -1 1 1 1 -1 1 1 -1 -1\n"
                   "2 5 -1 0 2 -1 -1 2 600 -1 5 1 1 -1 1 1 -1 -1\n"
                   "3 9 -1 0 4 -1 -1 4 900 -1 5 1 1 -1 1 1 -1 -1\n")
    out = tmp_path / "w.json"
    args = ["generate", "--estimates-for", str(log), "--model", "fmodel", "--seed", "1",
            "-o", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "'run_time' is 0, and Batsim refuses a delay of 0: pass min_delay (--min-delay)" in err
    assert "(2 row(s); first at row 1, job_id 2: 0)" in err and not out.exists()
    assert main([*args, "--min-delay", "1"]) == 0
    assert "warning: 2 jobs that ran less than 1 s written with a delay of 1 s" in \
        capsys.readouterr().err
    data = json.loads(out.read_text())
    assert [job["profile"] for job in data["jobs"]] == ["delay_100", "delay_1", "delay_1"]


@pytest.mark.parametrize(("args", "message"), [
    (["--min-delay", "1", "--jobs", "10"], "--min-delay is for Batsim output; this output is swf"),
    (["--min-delay", "0", "--jobs", "10", "--format", "batsim"],
     "--min-delay must be a positive number of seconds, got 0"),
    (["--estimates-for", "LOG", "--jobs", "10"], "--jobs applies to synthetic workloads"),
    (["--estimates-for", "LOG", "--machine-procs", "0"], "--machine-procs applies to synthetic"),
    (["--estimates-for", "LOG", "--load", "0.5"], "--load applies to synthetic workloads"),
    (["--model", "x2"], "--model x2 applies to --estimates-for"),
    (["--truncate"], "--truncate applies to --estimates-for"),
    (["--fit-modes", "2"], "--fit-modes applies to --estimates-for"),
    (["--site", "LOG", "--pmax", "5"], "--pmax sets the share of jobs at tmax of --model "
                                       "tsafrir (the modal model); --site LOG takes the log's "
                                       "requests"),
    (["--jobs", "50", "--pmax", "50"], "--pmax sets the share of jobs at tmax of --model "
                                       "tsafrir (the modal model); the joint model (the "
                                       "default) draws each request"),
    (["--jobs", "50", "--model", "fmodel"], "--model fmodel applies to --estimates-for; a "
                                            "synthetic workload's requests come from --model "
                                            "joint (default) or tsafrir"),
    (["--site", "LOG", "--model", "tsafrir"], "--model sets the built-in site's requests"),
    (["--estimates-for", "LOG", "--model", "joint", "--f", "3"],
     "--f applies to --model fmodel only, not --model joint"),
    (["--estimates-for", "LOG", "--model", "joint", "--fit-modes", "1"],
     "--fit-modes applies to --model tsafrir or sessions only, not --model joint"),
    (["--estimates-for", "LOG", "--model", "fmodel", "--tmax", "20h"],
     "--tmax applies to --model tsafrir, sessions, joint or phi only, not --model fmodel"),
    (["--estimates-for", "LOG", "--model", "phi", "--truncate"],
     "not --model phi"),
    (["--estimates-for", "LOG", "--model", "x2", "--pmax", "10"],
     "not --model x2"),
    (["--estimates-for", "LOG", "--model", "joint", "--pmax", "10"],
     "--model joint fitted to LOG takes every request share from the log"),
    (["--estimates-for", "NOREQ", "--fit-modes", "2", "--tmax", "20h"],
     "--fit-modes takes popular requests of the log, and NOREQ has none"),
    (["--estimates-for", "LOG", "--time-zone", "Mars/Base"],
     "--time-zone: unknown time zone 'Mars/Base'"),
    (["--site", "LOG", "--time-zone", "Mars/Base"],  # the zone reaches the site's log
     "--time-zone: unknown time zone 'Mars/Base'"),
    (["--jobs", "50", "--time-zone", "Europe/Paris"],
     "--time-zone applies to --estimates-for or --site only (the log it reads)"),
    (["--jobs", "50", "--input-format", "sacct"],
     "--input-format applies to --estimates-for or --site only (the log it reads)"),
])
def test_generate_refuses_an_option_its_mode_would_ignore(tmp_path, capsys, args, message):
    _assert_refused(tmp_path, capsys, args, message)


def test_generate_joint_tmax_sets_the_largest_request(tmp_path, capsys):
    """--tmax with the fitted joint model: longer requests become it, longer jobs are kept."""
    log = trace_file("KTH-SP2-1996-2.1-cln")
    source = read_swf(log)
    learned = tmp_path / "learned.swf"
    assert main(["generate", "--estimates-for", str(log), "--model", "joint", "--seed", "0",
                 "-o", str(learned)]) == 0
    err = capsys.readouterr().err
    assert "ran longer than the longest estimate" in err and "of the processor-seconds" in err
    longest = read_swf(learned)["req_time"].max()
    assert longest == source["req_time"].max()
    assert source["run_time"].max() > longest

    raised = tmp_path / "raised.swf"
    assert main(["generate", "--estimates-for", str(log), "--model", "joint", "--tmax", "100h",
                 "--seed", "0", "-o", str(raised)]) == 0
    assert "ran longer" not in capsys.readouterr().err
    jobs = read_swf(raised)
    assert len(jobs) == len(read_swf(learned)) + int((source["run_time"] > longest).sum())
    assert (jobs["req_time"] >= jobs["run_time"]).all() and jobs["req_time"].max() <= 100 * 3600

    lowered = tmp_path / "lowered.swf"
    assert main(["generate", "--estimates-for", str(log), "--model", "joint", "--tmax", "4h",
                 "--truncate", "--seed", "0", "-o", str(lowered)]) == 0
    assert "capped the runtimes of" in capsys.readouterr().err
    jobs = read_swf(lowered)
    assert jobs["req_time"].max() == 4 * 3600 and jobs["run_time"].max() == 4 * 3600
    capped = source.set_index("job_id").loc[jobs["job_id"], "run_time"].to_numpy() > 4 * 3600
    assert capped.any() and (jobs["status"].to_numpy()[capped] == 0).all()
    assert any("capped the runtimes" in line for line in jobs.attrs["header"])


def test_generate_tsafrir_with_tmax_keeps_the_log_modes(tmp_path):
    log = trace_file("SDSC-SP2-1998-4.2-cln")
    out = tmp_path / "t.swf"
    assert main(["generate", "--estimates-for", str(log), "--tmax", "36h", "--seed", "1", "-q",
                 "-o", str(out)]) == 0
    requests = read_swf(out)["req_time"]
    popular = requests.value_counts()
    real = read_swf(log)["req_time"].value_counts()
    assert requests.max() == 36 * 3600 and real.index[0] in popular.index[:3]
    # the log's own maximum (18 h) moved to the given one
    assert popular.get(18 * 3600, 0) < popular[36 * 3600] / 5


def test_generate_site_tmax_caps_runtimes_and_requests(tmp_path, capsys):
    out = tmp_path / "s.swf"
    assert main(["generate", "--jobs", "3000", "--site", str(trace_file("KTH-SP2-1996-2.1-cln")),
                 "--tmax", "10h", "--seed", "1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "tmax=10h" in err and "pmax" not in err
    jobs = read_swf(out)
    assert jobs["req_time"].max() == 36000 and jobs["run_time"].max() <= 36000
    assert (jobs["req_time"] >= jobs["run_time"]).all()


def test_generate_joint_without_requests_uses_the_built_in_site(tmp_path, capsys):
    source = tmp_path / "lublin.swf"
    write_swf(read_swf(trace_file("lublin_256")).iloc[:2000], source)
    out = tmp_path / "j.swf"
    assert main(["generate", "--estimates-for", str(source), "--model", "joint", "-o", str(out)]) == 2
    assert "give --tmax" in capsys.readouterr().err.strip().splitlines()[-1]
    assert main(["generate", "--estimates-for", str(source), "--model", "joint", "--tmax", "36h",
                 "--seed", "1", "-o", str(out)]) == 0
    assert "has no requested times" in capsys.readouterr().err
    jobs = read_swf(out)
    assert len(jobs) == 2000 and jobs["req_time"].max() == 36 * 3600
    assert (jobs["req_time"] >= jobs["run_time"]).all()


def test_generate_progress_counts_and_help(tmp_path, capsys):
    one = tmp_path / "one.swf"
    one.write_text("1 0 -1 100 8 -1 -1 8 600 -1 1 1 1 -1 1 1 -1 -1\n")
    out = tmp_path / "o.swf"
    assert main(["generate", "--estimates-for", str(one), "--model", "fmodel", "--seed", "1",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "read 1 job from" in err and "wrote 1 job to" in err and "1 jobs" not in err
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 0.7) (default: 0.7)" not in text and "--json" not in text


def test_every_command_reads_the_batsim_workload_generate_wrote(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["generate", "--jobs", "300", "--seed", "1", "--format", "batsim", "-o",
                 str(out), "-q"]) == 0
    assert main(["info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_jobs"] == 300
    swf = tmp_path / "w.swf"
    assert main(["simulate", str(out), "-o", str(swf), "-q"]) == 0
    assert len(read_swf(swf)) == 300
    assert main(["info", str(out), "--time-zone", "Europe/Paris"]) == 0
    assert (f"predictkit info: warning: --time-zone applies to sacct input only; {out} is a "
            "Batsim workload\n") in capsys.readouterr().err


def test_generate_site_warns_of_jobs_left_out_and_a_log_busier_than_its_widest_job(
        tmp_path, capsys):
    from predictkit.datasets import make_workload
    from predictkit.io import write_swf

    log = make_workload(800, machine_procs=32, random_state=5).assign(wait_time=0.0)
    log.loc[:2, "req_time"] = np.nan
    log.attrs.pop("max_procs", None)
    log.attrs.pop("max_nodes", None)
    path = tmp_path / "log.swf"
    write_swf(log, path)
    assert main(["generate", "-q", "--site", str(path), "--jobs", "300", "--seed", "1",
                 "-o", str(tmp_path / "out.swf")]) == 0
    err = capsys.readouterr().err
    assert "predictkit generate: warning: left out 3 jobs with req_time unknown" in err
    assert "processors busy at once, more than the" in err and "--machine-procs" in err

"""``predictkit generate``."""

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
    assert main(["generate", "--jobs", jobs, "--pmax", pmax, "--seed", "1", "-q",
                 "-o", str(out)]) == 0
    table = read_swf(out)
    assert len(table) == int(jobs)
    assert (table["req_time"] >= table["run_time"]).all()
    assert table["req_time"].max() <= 18 * 3600


@pytest.mark.parametrize("model", ["tsafrir", "fmodel", "phi", "x2", "shuffle", "sessions"])
def test_generate_estimates_for_a_trace(tmp_path, model):
    source = read_swf(trace_file("KTH-SP2-1996-2.1-cln"))
    small = tmp_path / "small.swf"
    write_swf(source.iloc[:3000], small)
    out = tmp_path / "out.swf"
    assert main(["generate", "--estimates-for", str(small), "--model", model, "--truncate",
                 "--seed", "1", "-o", str(out)]) == 0
    jobs = read_swf(out)
    assert len(jobs) == 3000
    if model != "x2":
        assert (jobs["req_time"] >= jobs["run_time"]).all()
    if model in ("tsafrir", "sessions", "shuffle"):
        assert not np.array_equal(jobs["req_time"], source["req_time"].iloc[:3000])


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
    assert main(["generate", "--estimates-for", str(trace_file(name)), "--seed", "0",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert reason in err
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
                  __import__("re").findall(r"left out ([\d,]+) with", err))
    jobs = read_swf(out)
    assert len(jobs) == len(read_swf(log)) - cleaned
    assert (jobs["req_time"] >= jobs["run_time"]).all()

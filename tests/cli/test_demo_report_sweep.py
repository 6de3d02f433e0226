import re

import pandas as pd
import pytest

from predictkit.cli import main
from tracedata import trace_file


def test_demo_runs_on_the_synthetic_workload(tmp_path, capsys):
    assert main(["demo", "--jobs", "2000", "-o", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "Runtime predictions" in out and "QBETS" in out and "Schedules" in out
    assert (tmp_path / "demo" / "index.html").exists() and "Report:" in out


def test_demo_on_a_log_prefix_shows_the_whole_log_and_what_is_analysed(tmp_path, capsys):
    from predictkit.io import write_swf
    from predictkit.datasets import make_workload

    log = tmp_path / "log.swf"
    write_swf(make_workload(900, random_state=2), log)
    assert main(["demo", "--trace", str(log), "--max-jobs", "300", "-o",
                 str(tmp_path / "demo")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["whole", "log", "analysed"]
    assert lines[2].split() == ["jobs", "900", "300"]
    page = (tmp_path / "demo" / "index.html").read_text()
    from predictkit import __version__

    made = (f"900 jobs, the first 300 analysed; made by predictkit {__version__} "
            f"(predictkit demo --trace {log} --max-jobs 300 -o {tmp_path / 'demo'}).")
    assert made in page


def test_report_command_and_its_errors(tmp_path, capsys):
    trace = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["report", trace, "-o", str(tmp_path / "r"), "--max-jobs", "2000",
                 "--no-fairness"]) == 0
    assert (tmp_path / "r" / "index.html").exists()
    assert main(["report", trace, "--quantile", "1.5"]) == 2
    assert "--quantile must be in (0, 1)" in capsys.readouterr().err


def test_sweep_command_writes_a_tidy_resumable_table(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace_file("KTH-SP2-1996-2.1-cln")}"]\npolicies = ["easy"]\n'
                    '[[predictors]]\nname = "tang"\n[predictors.params]\nquantile = [0.7, 0.9]\n'
                    '[options]\nmax_jobs = 1500\nselective = true\n')
    out = tmp_path / "res.csv"
    assert main(["sweep", str(grid), "-o", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table["param_quantile"]) == [0.7, 0.9]
    assert {"accuracy", "schedule_mean_wait", "schedule_mean_bounded_slowdown"} <= set(table)
    assert table["accuracy"].iloc[0] > table["accuracy"].iloc[1]  # lower percentile, higher accuracy
    assert main(["sweep", str(grid), "-o", str(tmp_path / "x.txt")]) == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err


def small_trace(path, n_jobs=60):
    lines = [f"{j} {60 * j} 0 {100 + j} 2 -1 -1 2 600 -1 1 {j % 3 + 1} 1 -1 1 1 -1 -1"
             for j in range(1, n_jobs + 1)]
    path.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("grid", "message"), [
    ('traces = ["{trace}"]\n[[predictors]]\nname = "tang"\nparams = {{quantile = 7}}\n',
     "predictors.tang.params.quantile = 7: The 'quantile' parameter of WalltimeAdjuster"),
    ('traces = ["{trace}"]\n[[predictors]]\nname = "tang"\nparams = {{window = -3600}}\n',
     "predictors.tang.params.window = -3600: The 'window' parameter of WalltimeAdjuster must be a duration >= 0"),
    ('traces = ["synthetic:abc"]\n', "traces = 'synthetic:abc': a synthetic trace is"),
    ('traces = ["{trace}"]\n[options]\nmax_jobs = -5\n',
     "options.max_jobs = -5: must be a whole number >= 1"),
    ('traces = ["{trace}"]\n[options]\nmax_job = 5\n', "unknown option options.max_job"),
    ('traces = "{trace}"\npolicies = [2]\n', "policies[0] must be a non-empty string, got 2"),
    ('', "the grid is empty; it needs at least 'traces'"),
    ("traces = [\n", "line 2, column 1 (end of file): cannot parse TOML grid"),
    (b'\x1f\x8b\x08\x08grid.toml', "line 1: not UTF-8 text (byte 0x8b"),
    (b'traces = ["a"]\x00\x00\x00', "not a text file (a NUL byte at offset 14)"),
])
def test_sweep_bad_grids_are_one_line_errors(tmp_path, capsys, grid, message):
    trace = small_trace(tmp_path / "t.swf")
    path = tmp_path / "grid.toml"
    if isinstance(grid, bytes):
        path.write_bytes(grid)
    else:
        path.write_text(grid.format(trace=trace))
    out = tmp_path / "res.csv"
    assert main(["sweep", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"predictkit sweep: error: {path}{err.split(str(path), 1)[1]}"
    assert err.count("\n") == 1 and message in err
    assert not out.exists() and not (tmp_path / "res.csv.parts").exists()


def test_sweep_bad_flags(tmp_path, capsys):
    path = tmp_path / "grid.toml"
    path.write_text(f'traces = ["{small_trace(tmp_path / "t.swf")}"]\n')
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv"), "--workers", "0"]) == 2
    assert "--workers must be at least 1, got 0" in capsys.readouterr().err
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv"), "--n-jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert "--n-jobs is deprecated; use --workers" in err
    assert "--workers must be at least 1, got 0" in err
    assert main(["sweep", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "r.csv")]) == 2
    assert "missing.toml" in capsys.readouterr().err


def test_sweep_says_once_that_the_n_procs_option_is_deprecated(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf")
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested", "recent-average"]\n'
                    'policies = ["easy"]\n[options]\nn_procs = 64\n')
    assert main(["sweep", str(grid), "-o", str(tmp_path / "res.csv"), "-q"]) == 0
    err = capsys.readouterr().err
    assert err == ("predictkit sweep: warning: options.n_procs is deprecated and will be "
                   "removed in predictkit 0.3; use options.machine_procs\n")


def test_sweep_prints_progress_lines_unless_quiet(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf")
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested", "recent-average"]\n')
    out = tmp_path / "res.csv"
    assert main(["sweep", str(grid), "-o", str(out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "predictkit sweep: 2 cells to compute"
    assert re.fullmatch(r"predictkit sweep: cell 1/2 done, elapsed \d+ s: requested "
                        r"on t\.swf", lines[1])
    assert lines[2].startswith("predictkit sweep: cell 2/2 done, elapsed ")
    assert len(lines) == 3
    # Run again: everything is reused; a changed trace is computed again.
    assert main(["sweep", str(grid), "-o", str(out)]) == 0
    assert capsys.readouterr().err == ("predictkit sweep: 0 cells to compute, "
                                       "2 reused from earlier runs\n")
    small_trace(trace, n_jobs=50)
    assert main(["sweep", str(grid), "-o", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    assert list(pd.read_csv(out)["n_jobs"]) == [50, 50]


def test_sweep_names_a_corrupt_cell_file_in_one_warning_line(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf")
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested", "recent-average"]\n')
    out = tmp_path / "res.csv"
    assert main(["sweep", str(grid), "-o", str(out), "-q"]) == 0
    expected = pd.read_csv(out)
    victim = sorted((tmp_path / "res.csv.parts").glob("*.json"))[0]
    victim.write_text("")
    assert main(["sweep", str(grid), "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    # said when found, before the cells run: a sweep stopped early has said it
    assert err[0] == (f"predictkit sweep: warning: {victim}: unreadable cell result (Expecting "
                      f"value: line 1 column 1 (char 0)); the cell is computed again")
    assert err[1] == "predictkit sweep: 1 cell to compute, 1 reused from earlier runs"
    assert sum("warning" in line for line in err) == 1
    pd.testing.assert_frame_equal(pd.read_csv(out), expected)


def small_sacct(path, n_jobs=60):
    """The jobs of :func:`small_trace` as ``sacct --parsable2`` output, gzip-compressed."""
    import gzip

    lines = ["JobID|User|Submit|Start|End|NCPUS|Timelimit|State"]
    for j in range(1, n_jobs + 1):
        submit = pd.Timestamp("2024-01-01") + pd.Timedelta(seconds=60 * j)
        end = submit + pd.Timedelta(seconds=100 + j)
        lines.append(f"{j}|u{j % 3 + 1}|{submit:%Y-%m-%dT%H:%M:%S}|{submit:%Y-%m-%dT%H:%M:%S}|"
                     f"{end:%Y-%m-%dT%H:%M:%S}|2|00:10:00|COMPLETED")
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def test_sweep_reads_a_sacct_trace_as_the_same_jobs_in_swf(tmp_path, capsys):
    tables = {}
    for name, trace in (("swf", small_trace(tmp_path / "t.swf")),
                        ("sacct", small_sacct(tmp_path / "t.txt.gz"))):
        grid = tmp_path / f"{name}.toml"
        grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested", "recent-average"]\n'
                        'policies = ["easy"]\n[options]\nmachine_procs = 8\n')
        out = tmp_path / f"{name}.csv"
        assert main(["sweep", str(grid), "-o", str(out), "-q"]) == 0, capsys.readouterr().err
        tables[name] = pd.read_csv(out).drop(columns=["cell", "trace"])
    assert tables["sacct"]["n_jobs"].tolist() == [60, 60]
    pd.testing.assert_frame_equal(tables["sacct"], tables["swf"])


def test_sweep_reads_a_toml_grid_from_standard_input(tmp_path, capsys, monkeypatch):
    import io
    import sys

    trace = small_trace(tmp_path / "t.swf")
    text = f'traces = ["{trace}"]\npredictors = ["requested"]\n'
    grid = tmp_path / "grid.toml"
    grid.write_text(text)
    assert main(["sweep", str(grid), "-o", str(tmp_path / "file.csv"), "-q"]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["sweep", "-", "-o", str(tmp_path / "stdin.csv"), "-q"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "stdin.csv"),
                                  pd.read_csv(tmp_path / "file.csv"))


@pytest.mark.parametrize(("text", "message"), [
    ("traces:\n  - t.swf\n", "<stdin>, line 1, column 7: cannot parse TOML grid"),
    ('traces = ["synthetic:abc"]\n', "<stdin>: traces = 'synthetic:abc': a synthetic trace is"),
    ("", "<stdin>: the grid is empty"),
])
def test_sweep_grid_errors_on_standard_input_are_one_line(tmp_path, capsys, monkeypatch,
                                                           text, message):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["sweep", "-", "-o", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    if "cannot parse" in message:
        assert "a grid on standard input is read as TOML" in err


def test_sweep_writes_csv_to_a_device_or_a_fifo(tmp_path, capsys):
    import io
    import os
    import threading

    from predictkit.datasets import make_workload
    from predictkit.io import write_swf

    log = tmp_path / "log.swf"
    from predictkit.simulate import simulate

    # a log with waits (an EASY schedule of it): nothing to warn of
    write_swf(simulate(make_workload(200, machine_procs=32, random_state=1)).jobs, log)
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{log}"]\npolicies = ["easy"]\n'
                    '[[predictors]]\nname = "requested"\n')
    assert main(["sweep", str(grid), "-o", os.devnull, "-q"]) == 0
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert main(["sweep", str(grid), "-o", str(fifo), "-q"]) == 0
    reader.join(60)
    assert capsys.readouterr().err == ""
    table = pd.read_csv(io.StringIO(received[0]))
    assert len(table) == 1 and table["policy"].iloc[0] == "easy"
    assert not (tmp_path / "pipe.parts").exists()


def test_report_on_a_log_of_pending_jobs_names_the_log(tmp_path, capsys):
    log = tmp_path / "pending.txt"
    log.write_text("JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|State\n"
                   + "".join(f"{k}|2024-01-01T00:0{k}:00|Unknown|Unknown|00:00:00|01:00:00|4|"
                             f"PENDING\n" for k in range(1, 4)))
    assert main(["report", str(log), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (f"predictkit report: error: {log}: no job can be analysed: every job was "
                   f"left out (3 jobs with run_time unknown or negative); a job needs a submit time, "
                   f"a runtime and a width\n")


def test_sweep_refuses_an_output_that_is_one_of_the_grid_traces(tmp_path, capsys):
    trace = small_trace(tmp_path / "victim.swf")
    before = trace.read_bytes()
    (tmp_path / "res.csv").symlink_to(trace)
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested"]\n')
    assert main(["sweep", str(grid), "-o", str(tmp_path / "res.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"is the same file as the input {trace}" in err
    assert trace.read_bytes() == before


@pytest.mark.parametrize("command", ["report", "demo"])
def test_report_and_demo_refuse_a_page_that_is_their_input_log(tmp_path, capsys, command):
    trace = small_trace(tmp_path / "log.swf")
    before = trace.read_bytes()
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "index.html").symlink_to(trace)
    argv = [command, str(trace)] if command == "report" else [command, "--trace", str(trace)]
    assert main([*argv, "-o", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "index.html is the same file as the input" in err
    assert trace.read_bytes() == before



@pytest.mark.parametrize("command", ["report", "demo"])
def test_machine_procs_sets_the_machine_a_log_is_simulated_on(tmp_path, capsys, command):
    trace = small_trace(tmp_path / "log.swf", n_jobs=150)  # header: MaxProcs 8
    argv = [command, str(trace)] if command == "report" else [command, "--trace", str(trace)]
    for procs, page in ((None, "log"), ("64", "big")):
        extra = [] if procs is None else ["--machine-procs", procs]
        assert main([*argv, *extra, "-o", str(tmp_path / page), "--seed", "0"]
                    + (["--no-fairness"] if command == "report" else [])) == 0
    err = capsys.readouterr().err
    assert "machine-procs=64" in err and "machine-procs=the log's" in err
    log = (tmp_path / "log" / "index.html").read_text()
    big = (tmp_path / "big" / "index.html").read_text()
    assert re.search(r"machine size \(procs\)</t[dh]>\s*<td[^>]*>8<", log)
    assert re.search(r"machine size \(procs\)</t[dh]>\s*<td[^>]*>64<", big)


@pytest.mark.parametrize("argv, message", [
    (["--trace", "LOG", "--load", "0.9"], "--load applies to the synthetic workload only"),
    (["--time-zone", "Europe/Paris"], "--time-zone applies to --trace only"),
    (["--input-format", "sacct"], "--input-format applies to --trace only"),
])
def test_demo_refuses_options_its_source_would_ignore(tmp_path, capsys, argv, message):
    trace = small_trace(tmp_path / "log.swf")
    argv = [str(trace) if a == "LOG" else a for a in argv]
    assert main(["demo", *argv, "-o", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(("flags", "message"), [
    (["--workers", "3"], "--workers applies to --backend loky or threading only, not "
                         "--backend serial"),
    (["--n-jobs", "3"], "--workers applies to --backend loky or threading only, not "
                        "--backend serial"),
    (["--backend", "serial", "--workers", "3"], "not --backend serial"),
    (["--scheduler", "tcp://127.0.0.1:1", "--workers", "3"], "not --backend dask"),
    (["--backend", "loky", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler runs the cells on Dask; it cannot be combined with --backend loky"),
    (["--backend", "serial", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler runs the cells on Dask; it cannot be combined with --backend serial"),
])
def test_sweep_refuses_flags_it_would_ignore(tmp_path, capsys, flags, message):
    path = tmp_path / "grid.toml"
    path.write_text(f'traces = ["{small_trace(tmp_path / "t.swf")}"]\n')
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv"), *flags]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"predictkit sweep: error: {message}" or err[-1].endswith(message)
    assert len(err) == 1 + ("--n-jobs" in flags)
    assert ("--n-jobs is deprecated; use --workers" in err[0]) == ("--n-jobs" in flags)
    assert not (tmp_path / "r.csv.parts").exists()


def test_sweep_workers_and_its_old_name_set_the_local_workers(tmp_path, capsys):
    path = tmp_path / "grid.toml"
    path.write_text(f'traces = ["{small_trace(tmp_path / "t.swf")}"]\n'
                    'predictors = ["requested", "recent-average"]\n')
    tables = []
    for flag in ("--workers", "--n-jobs"):
        out = tmp_path / f"{flag[2:]}.csv"
        assert main(["sweep", str(path), "-o", str(out), "-q", "--backend", "threading",
                     flag, "2"]) == 0
        tables.append(pd.read_csv(out))
    assert capsys.readouterr().err == ("predictkit sweep: warning: --n-jobs is deprecated; use "
                                       "--workers\n")
    pd.testing.assert_frame_equal(*tables)


@pytest.mark.parametrize(("body", "message"), [
    ('policies = ["easy"]\n[options]\nstarvation_after = "24h"\n',
     "options.starvation_after = '24h': used only by cells with policy no_guarantee, and this "
     "grid has none"),
    ('policies = ["fcfs"]\n[options]\nbackfill_order = "sjf"\n',
     "options.backfill_order = 'sjf': used only by cells with policy easy or no_guarantee, and "
     "this grid has none"),
])
def test_sweep_refuses_an_option_no_cell_uses_before_any_cell(tmp_path, capsys, body, message):
    path = tmp_path / "grid.toml"
    path.write_text(f'traces = ["{small_trace(tmp_path / "t.swf")}"]\n' + body)
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv")]) == 2
    assert capsys.readouterr().err == f"predictkit sweep: error: {path}: {message}\n"
    assert not (tmp_path / "r.csv.parts").exists()


def test_sweep_refuses_a_trace_without_requests_before_any_cell(tmp_path, capsys):
    good = small_trace(tmp_path / "good.swf")
    bare = tmp_path / "bare.swf"
    bare.write_text(good.read_text().replace(" 2 600 -1 1 ", " 2 -1 -1 1 "))
    path = tmp_path / "grid.toml"
    path.write_text(f'traces = ["{good}", "{bare}"]\n')
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv")]) == 2
    assert capsys.readouterr().err == (
        f"predictkit sweep: error: {path}: traces: {bare}: no job left of 60 after removing "
        f"those without a usable size, runtime or requested time\n")
    assert not (tmp_path / "r.csv.parts").exists()


def test_sweep_takes_relative_traces_from_the_grid_folder(tmp_path, capsys, monkeypatch):
    import io
    import sys

    small_trace((tmp_path / "study").mkdir() or tmp_path / "study" / "t.swf")
    grid = tmp_path / "study" / "grid.toml"
    grid.write_text('traces = ["t.swf"]\npredictors = ["requested"]\n')
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(grid), "-o", "r.csv", "-q"]) == 0
    assert list(pd.read_csv("r.csv")["trace"]) == ["t.swf"]
    # a grid on standard input: from the working folder
    monkeypatch.chdir(tmp_path / "study")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(grid.read_bytes())))
    assert main(["sweep", "-", "-o", str(tmp_path / "stdin.csv"), "-q"]) == 0
    assert list(pd.read_csv(tmp_path / "stdin.csv")["cell"]) == list(
        pd.read_csv(tmp_path / "r.csv")["cell"])


def test_an_interrupted_sweep_says_the_table_is_not_this_grids_and_how_to_resume(
        tmp_path, capsys, monkeypatch):
    import predictkit.cli._sweep as sweep_command
    from predictkit.experiments import evaluate_cell

    trace = small_trace(tmp_path / "t.swf")
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{trace}"]\npredictors = ["requested", "recent-average", '
                    '"usage-max"]\n')
    out = tmp_path / "res.csv"
    out.write_text("cell,score\nearlier,1\n")
    calls = []

    def stopped_at_the_third(cell):
        calls.append(cell)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return evaluate_cell(cell)

    monkeypatch.setattr(sweep_command, "evaluate_cell", stopped_at_the_third)
    assert main(["sweep", str(grid), "-o", str(out), "--quiet"]) == 130
    err = capsys.readouterr().err
    assert err == (f"predictkit sweep: stopped: {out} is an earlier table, not this grid's; "
                   f"2 of 3 cells finished in {out}.parts: the same command computes the "
                   "rest\npredictkit: interrupted\n")
    assert out.read_text() == "cell,score\nearlier,1\n"
    out.unlink()
    calls[:] = [None, None]  # the next cell, the one left, stops again
    assert main(["sweep", str(grid), "-o", str(out), "--quiet"]) == 130
    assert f"stopped: {out} was not written; 2 of 3 cells" in capsys.readouterr().err


def test_report_warns_of_the_jobs_without_a_request_it_leaves_out(tmp_path, capsys):
    from predictkit.datasets import make_workload
    from predictkit.io import write_swf

    log = make_workload(600, random_state=3).assign(wait_time=0.0)
    log.loc[10:14, "req_time"] = float("nan")
    path = tmp_path / "log.swf"
    write_swf(log, path)
    assert main(["report", str(path), "-q", "-o", str(tmp_path / "rep")]) == 0
    err = capsys.readouterr().err
    assert "predictkit report: warning: left out 5 jobs with req_time unknown" in err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "req_time unknown or not positive" in page

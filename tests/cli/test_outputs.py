"""Every ``-o`` of the command line: never over an input, ``-`` is stdout, files kept safe."""

import importlib
import io
import os
import stat
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

from predictkit.cli import COMMANDS, main
from predictkit.io import read_swf, write_swf

# every command with an input and -o: its arguments, INPUT and OUTPUT to be filled in
WITH_INPUT_AND_OUTPUT = {
    "predict": ["predict", "INPUT", "-o", "OUTPUT"],
    "simulate": ["simulate", "INPUT", "-o", "OUTPUT"],
    "bounds": ["bounds", "INPUT", "-o", "OUTPUT"],
    "varq": ["varq", "INPUT", "-o", "OUTPUT"],
    "generate": ["generate", "--estimates-for", "INPUT", "-o", "OUTPUT"],
    "report": ["report", "INPUT", "-o", "OUTPUT"],
    "demo": ["demo", "--trace", "INPUT", "-o", "OUTPUT"],
    "sweep": ["sweep", "INPUT", "-o", "OUTPUT"],
    "select": ["select", "INPUT", "-o", "OUTPUT"],
}


def fill(args, source, output):
    return [str(source) if a == "INPUT" else str(output) if a == "OUTPUT" else a for a in args]


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """A small synthetic log with the waits of an EASY schedule (every command can use it)."""
    from predictkit.simulate import simulate
    from predictkit.workload import make_workload

    jobs = make_workload(600, machine_procs=32, random_state=3)
    schedule = simulate(jobs, estimates="requested")
    path = tmp_path_factory.mktemp("log") / "log.swf"
    write_swf(schedule.jobs, path)
    return path


def test_every_command_with_an_output_is_covered():
    # info, fetch, wait and walltime print their answer and take no -o.
    parser_commands = {name for name in COMMANDS
                       if name not in ("info", "fetch", "wait", "walltime")}
    assert parser_commands == set(WITH_INPUT_AND_OUTPUT)


@pytest.mark.parametrize("command", sorted(WITH_INPUT_AND_OUTPUT))
@pytest.mark.parametrize("alias", ["same path", "dot path", "absolute", "symlink to input",
                                   "hard link", "input via symlink", "archive name"])
def test_output_that_is_an_input_is_refused_before_the_command_runs(
        command, alias, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "log.swf"
    source.write_text("; the user's log\n1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n")
    before = source.read_bytes()
    if alias == "symlink to input":
        (tmp_path / "link.swf").symlink_to("log.swf")
    elif alias in ("hard link",):
        os.link(source, tmp_path / "hard.swf")
    elif alias == "input via symlink":
        (tmp_path / "via.swf").symlink_to("log.swf")
    elif alias == "archive name":  # the log named as sweeps name it, found in a folder
        (tmp_path / "traces").mkdir()
        source = source.rename(tmp_path / "traces" / "KTH-SP2-1996-2.1-cln.swf")
        monkeypatch.setenv("PREDICTKIT_TRACES", str(tmp_path / "traces"))
    given_input, given_output = {
        "same path": ("log.swf", "log.swf"),
        "dot path": ("log.swf", "./sub/../log.swf"),
        "absolute": ("log.swf", source),
        "symlink to input": ("log.swf", "link.swf"),
        "hard link": ("log.swf", "hard.swf"),
        "input via symlink": ("via.swf", "log.swf"),
        "archive name": ("KTH-SP2-1996-2.1-cln", "traces/KTH-SP2-1996-2.1-cln.swf"),
    }[alias]
    module = importlib.import_module(f"predictkit.cli._{command}")
    ran = []
    monkeypatch.setattr(module, "run", lambda args: ran.append(args) or 0)
    status = main(fill(WITH_INPUT_AND_OUTPUT[command], given_input, given_output))
    err = capsys.readouterr().err
    assert status == 2 and ran == []
    assert err.count("\n") == 1 and "same file as the input" in err and "-o" in err
    assert source.read_bytes() == before


def test_an_unrelated_existing_file_named_like_an_option_value_is_not_an_input(
        log, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "easy").write_text("not an input")
    assert main(["simulate", str(log), "--policy", "easy", "-o", "other.csv", "-q"]) == 0


def run_to_stdout(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out, captured.err


@pytest.mark.parametrize("command, extra", [
    ("predict", []), ("predict", ["--format", "csv"]), ("predict", ["--format", "json"]),
    ("simulate", []), ("simulate", ["--json"]), ("bounds", []),
    ("varq", ["--fractions", "0.5", "--probabilities", "0.5", "--start", "1D", "--days", "1D"]),
    ("generate", ["--model", "x2"]), ("generate", ["--model", "x2", "--format", "csv"]),
])
def test_dash_writes_the_result_alone_to_standard_output(log, capsys, command, extra):
    argv = fill(WITH_INPUT_AND_OUTPUT[command], log, "-") + extra
    out, err = run_to_stdout(capsys, argv)
    if command in ("predict", "generate", "simulate") and "--format" not in extra:
        jobs = read_swf(io.BytesIO(out.encode()))
        assert len(jobs) == len(read_swf(log))
    elif "json" in extra and command == "predict":
        assert len(pd.read_json(io.StringIO(out), orient="records")) == len(read_swf(log))
    else:
        table = pd.read_csv(io.StringIO(out))
        assert len(table) >= 1 and not table.columns.str.startswith("Unnamed").any()
    if command in ("simulate", "bounds", "varq") or (command == "predict" and not extra):
        assert err.strip(), "the summary goes to standard error"


def test_generate_synthetic_swf_to_standard_output(capsys):
    out, err = run_to_stdout(capsys, ["generate", "--jobs", "200", "--machine-procs", "16",
                                      "--seed", "2", "-o", "-"])
    assert len(read_swf(io.BytesIO(out.encode()))) == 200 and "standard output" in err


def test_report_and_demo_write_the_page_to_standard_output(log, capsys, tmp_path,
                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    out, _ = run_to_stdout(capsys, ["report", str(log), "-o", "-", "--no-fairness", "-q"])
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    out, err = run_to_stdout(capsys, ["demo", "--trace", str(log), "--jobs", "600", "-o", "-"])
    assert out.startswith("<!DOCTYPE html>") and "Report: standard output" in err
    assert list(tmp_path.iterdir()) == []


def test_sweep_writes_its_table_to_standard_output(log, capsys, tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{log}"]\npolicies = ["easy"]\n[[predictors]]\n'
                    'name = "requested"\n')
    out, err = run_to_stdout(capsys, ["sweep", str(grid), "-o", "-"])
    assert len(pd.read_csv(io.StringIO(out))) == 1 and "standard output" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.toml"]


@pytest.mark.parametrize("command", ["simulate", "generate"])
def test_output_kinds_on_the_command_line(log, tmp_path, capsys, command):
    argv = WITH_INPUT_AND_OUTPUT[command] + ["-q"] + (["--model", "x2"] if command == "generate"
                                                       else [])
    name = "out.swf"

    def run(output):
        return main(fill(argv, log, output))

    # a replaced file keeps its mode; a symlink stays and its target is replaced
    target = tmp_path / name
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / f"link-{name}"
    link.symlink_to(name)
    assert run(link) == 0
    assert link.is_symlink() and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text() != "old"
    # a dangling symlink creates its target
    dangling = tmp_path / f"dangling-{name}"
    dangling.symlink_to(f"created-{name}")
    assert run(dangling) == 0 and (tmp_path / f"created-{name}").stat().st_size > 0
    # a device and a FIFO are written to, not replaced
    assert run(os.devnull) == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert run(fifo) == 0
    reader.join(60)
    assert received and received[0] == target.read_bytes()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    capsys.readouterr()
    # a directory and a missing folder are one-line errors, found before any work
    for bad, message in [(tmp_path, "is a directory"),
                         (tmp_path / "missing" / name, "does not exist")]:
        assert run(bad) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and str(bad) in err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_report_output_that_is_a_file_is_a_one_line_error(log, tmp_path, capsys):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me")
    assert main(["report", str(log), "-o", str(existing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a folder" in err
    assert existing.read_text() == "keep me"


@pytest.mark.parametrize("command", [["report", "LOG", "--no-fairness"],
                                     ["demo", "--jobs", "300"]])
def test_a_report_folder_in_a_missing_folder_is_refused_before_reading(log, tmp_path, capsys,
                                                                        command):
    argv = [str(log) if a == "LOG" else a for a in command]
    assert main([*argv, "-o", str(tmp_path / "typo" / "report")]) == 2
    err = capsys.readouterr().err
    assert err == (f"predictkit {command[0]}: error: -o {tmp_path / 'typo' / 'report'}: the "
                   f"folder {tmp_path / 'typo'} does not exist (a report folder is created only "
                   "inside one that does)\n")
    assert not (tmp_path / "typo").exists()
    assert main([*argv, "-o", str(tmp_path / "report"), "-q"]) == 0
    assert (tmp_path / "report" / "index.html").is_file()


@pytest.mark.parametrize("command", ["report", "demo"])
@pytest.mark.parametrize("case", ["page is a folder", "link to nothing"])
def test_a_report_folder_its_page_cannot_be_written_in_is_refused_before_reading(
        log, tmp_path, capsys, monkeypatch, command, case):
    folder = tmp_path / "out"
    if case == "page is a folder":
        (folder / "index.html").mkdir(parents=True)
        message = f"-o {folder}: cannot write {folder / 'index.html'}: it is a directory"
    else:
        folder.symlink_to(tmp_path / "missing")
        message = f"-o {folder} is not a folder (a link to nothing)"
    module = importlib.import_module(f"predictkit.cli._{command}")
    ran = []
    monkeypatch.setattr(module, "run", lambda args: ran.append(args) or 0)
    argv = ["report", str(log)] if command == "report" else ["demo"]
    assert main([*argv, "-o", str(folder)]) == 2 and ran == []
    assert capsys.readouterr().err == f"predictkit {command}: error: {message}\n"


# every command writing a table or a log under a name it chose from the extension
COMPRESSIBLE = {
    "predict": (["predict", "INPUT", "-q", "-o", "OUTPUT"], ("csv", "json", "swf")),
    "simulate": (["simulate", "INPUT", "-q", "-o", "OUTPUT"], ("csv", "json", "swf")),
    "bounds": (["bounds", "INPUT", "-q", "-o", "OUTPUT"], ("csv", "json")),
    "generate": (["generate", "--estimates-for", "INPUT", "--model", "x2", "-q", "-o", "OUTPUT"],
                 ("csv", "swf")),
}


@pytest.mark.parametrize("command", sorted(COMPRESSIBLE))
def test_a_gz_output_holds_gzip_data_of_the_same_result(log, tmp_path, capsys, command):
    import gzip

    argv, kinds = COMPRESSIBLE[command]
    for kind in kinds:
        plain, packed = tmp_path / f"out.{kind}", tmp_path / f"out.{kind}.gz"
        assert main(fill(argv, log, plain)) == 0, capsys.readouterr().err
        assert main(fill(argv, log, packed)) == 0, capsys.readouterr().err
        assert packed.read_bytes()[:2] == b"\x1f\x8b", kind
        assert gzip.decompress(packed.read_bytes()) == plain.read_bytes(), kind


@pytest.mark.parametrize("command", sorted(COMPRESSIBLE))
@pytest.mark.parametrize("name", ["out.parquet", "out.parquet.gz"])
def test_an_output_named_for_a_format_the_command_does_not_write_is_refused(
        log, tmp_path, capsys, command, name):
    argv, _ = COMPRESSIBLE[command]
    assert main(fill(argv, log, tmp_path / name)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"-o {tmp_path / name}: " in err
    assert not (tmp_path / name).exists()


def _console(argv, unbuffered):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONUNBUFFERED": "1" if unbuffered else ""}
    return subprocess.Popen(
        [sys.executable, "-c", "from predictkit.cli import console_main; console_main()", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _large_log(tmp_path, n_jobs=20_000):
    log = tmp_path / "big.swf"
    log.write_text("".join(f"{j} {60 * j} 0 {100 + j % 50} 2 -1 -1 2 600 -1 1 {j % 7 + 1} 1 -1 "
                           f"1 1 -1 -1\n" for j in range(1, n_jobs + 1)))
    return log


@pytest.mark.parametrize("unbuffered", [False, True])
def test_standard_output_is_written_whole_and_a_reader_gone_stops_the_command(
        tmp_path, unbuffered):
    log = _large_log(tmp_path)
    argv = ["predict", str(log), "--method", "requested", "-q"]
    assert main([*argv, "-o", str(tmp_path / "file.swf")]) == 0
    whole = _console([*argv, "-o", "-"], unbuffered)
    out, err = whole.communicate(timeout=300)
    assert whole.returncode == 0 and err == b""
    assert out == (tmp_path / "file.swf").read_bytes() and len(out) > 1 << 20
    # the reader goes away after a few bytes: nothing more to say, and not a success
    cut = _console([*argv, "-o", "-"], unbuffered)
    cut.stdout.read(10)
    cut.stdout.close()
    assert cut.wait(timeout=300) == 141
    assert cut.stderr.read() == b""


def _run(argv, **streams):
    """The command line in a process of its own (``streams``: subprocess.run's)."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", "from predictkit.cli import console_main; console_main()",
         *argv], timeout=300, **streams)


def test_the_log_given_on_standard_input_is_never_the_output(tmp_path):
    import subprocess

    log = _large_log(tmp_path, 300)
    kept = log.read_bytes()
    with open(log, "rb") as given:
        done = _run(["predict", "-", "--method", "requested", "-o", str(log)], stdin=given,
                    capture_output=True)
    assert done.returncode == 2 and log.read_bytes() == kept
    assert done.stderr.decode().endswith("is the file given on standard input: writing it "
                                         "would destroy what the result is computed from\n")
    # nor is an input the file standard output goes to (> or >>)
    with open(log, "ab") as appended:
        done = _run(["predict", str(log), "--method", "requested", "-o", "-"],
                    stdout=appended, stderr=subprocess.PIPE)
    assert done.returncode == 2 and log.read_bytes() == kept
    assert b"-o -: standard output is " in done.stderr


def test_closed_standard_streams_lose_neither_the_result_nor_the_data(tmp_path):
    import subprocess

    log = _large_log(tmp_path, 300)
    # standard output closed: a result printed to it is an error, not a silent loss
    for argv in (["info", str(log)], ["info", str(log), "--json"],
                 ["predict", str(log), "--method", "requested", "-o", "-"]):
        done = _run(argv, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
        assert done.returncode == 2, argv
        assert done.stderr.decode().splitlines()[-1].endswith(
            "standard output is closed: the result has nowhere to go"), argv
    # standard error closed: messages are lost, the data on standard output stays clean
    done = _run(["predict", str(log), "--method", "requested", "-o", "-"],
                stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2))
    assert done.returncode == 0 and done.stdout.startswith(b";")
    assert b"predictkit predict:" not in done.stdout and len(read_swf(
        io.BytesIO(done.stdout))) == 300
    # standard error full: the work is done all the same
    out = tmp_path / "out.swf"
    with open("/dev/full", "w") as full:
        done = _run(["predict", str(log), "--method", "requested", "-o", str(out)],
                    stdout=subprocess.DEVNULL, stderr=full)
    assert done.returncode == 0 and len(read_swf(out)) == 300


def test_sigterm_leaves_no_partial_file(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    # the writer stops once its temporary file is whole, before the rename, and says so
    ready = tmp_path / "ready"
    held_writer = (
        "import pathlib, sys, time\n"
        "import predictkit._atomic as atomic\n"
        "finish = atomic._finish\n"
        "def held(stream, shown):\n"
        "    finish(stream, shown)\n"
        f"    pathlib.Path({str(ready)!r}).touch()\n"
        "    time.sleep(300)\n"
        "atomic._finish = held\n"
        "from predictkit.cli import console_main\n"
        "console_main()\n")
    target = tmp_path / "big.swf"
    target.write_text("; the earlier result\n")
    writer = subprocess.Popen(
        [sys.executable, "-c", held_writer, "generate", "--jobs", "2000", "--seed", "1",
         "-o", str(target)], stderr=subprocess.PIPE)
    began = time.monotonic()
    while not ready.exists() and writer.poll() is None and time.monotonic() - began < 240:
        time.sleep(0.05)
    assert writer.poll() is None, f"the writer ended first: {writer.stderr.read().decode()}"
    ready.unlink()
    assert len(list(tmp_path.glob(".big.swf.*.part"))) == 1
    writer.send_signal(signal.SIGTERM)
    assert writer.wait(timeout=120) == 128 + signal.SIGTERM
    assert writer.stderr.read().decode().endswith("predictkit: terminated by SIGTERM\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.swf"]
    assert target.read_text() == "; the earlier result\n"


def test_a_json_table_keeps_every_digit_as_csv_does(tmp_path):
    import json

    from predictkit.cli._output import write_table

    values = [6890.303002633889, 1e-12, 1 / 3, 1e-300, 2.0 ** 53 - 1, 1.2345678901234e-12,
              -0.0, 5e-324, 1.7976931348623157e308]
    users = ["é", None, "a\"b", "x", "y", "z", "w", "v", "u"]
    frame = pd.DataFrame({"x": values, "n": range(len(values)), "user": users})
    for name in ("t.json", "t.csv"):
        write_table(frame, str(tmp_path / name))
    rows = json.loads((tmp_path / "t.json").read_text())
    assert [row["x"] for row in rows] == values
    assert [row["n"] for row in rows] == list(range(len(values)))
    assert [row["user"] for row in rows] == users
    assert pd.read_csv(tmp_path / "t.csv")["x"].tolist() == values


def test_a_json_table_writes_what_json_has_no_number_for_as_null(tmp_path):
    import json

    from predictkit.cli._output import write_table

    frame = pd.DataFrame({"x": [1.5, np.nan, np.inf, -np.inf],
                          "k": pd.array([1, None, 3, 4], dtype="Int64"),
                          "f": pd.array([0.1, None, 2.0, 3.0], dtype="Float64"),
                          "b": [True, False, True, False],
                          "o": np.array([1.0, np.nan, "a", 2], dtype=object)})
    write_table(frame, str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text()) == [
        {"x": 1.5, "k": 1, "f": 0.1, "b": True, "o": 1.0},
        {"x": None, "k": None, "f": None, "b": False, "o": None},
        {"x": None, "k": 3, "f": 2.0, "b": True, "o": "a"},
        {"x": None, "k": 4, "f": 3.0, "b": False, "o": 2}]
    write_table(frame.iloc[:0], str(tmp_path / "empty.json"))
    assert json.loads((tmp_path / "empty.json").read_text()) == []


def test_a_report_folder_whose_name_is_no_utf8_is_written(log, tmp_path, capsys):
    folder = os.path.join(str(tmp_path), os.fsdecode(b"report\xff"))
    assert main(["report", str(log), "-o", folder, "--max-jobs", "200", "--no-fairness",
                 "-q"]) == 0
    page = open(os.path.join(folder, "index.html"), "rb").read()
    assert "report\ufffd".encode() in page
    page.decode("utf-8")  # the page is UTF-8 throughout


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_an_output_that_names_standard_output_holds_the_result_alone(log, tmp_path, name):
    target = tmp_path / "out.csv"
    with open(target, "wb") as out:
        done = _run(["simulate", str(log), "--policy", "easy", "--format", "csv", "-o", name],
                    stdout=out, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr.decode()
    table = pd.read_csv(target)  # the metrics table went to standard error
    assert len(table) == 600 and "mean_wait (h)" in done.stderr.decode()


def test_an_output_that_names_standard_error_is_refused(log, tmp_path):
    done = _run(["simulate", str(log), "-o", "/dev/stderr"], capture_output=True)
    assert done.returncode == 2
    assert done.stderr.decode().endswith(
        "-o /dev/stderr is standard error, which carries the command's progress lines and "
        "warnings: they would be mixed into the result (use -o - for standard output, or a "
        "file)\n")

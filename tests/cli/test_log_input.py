"""Every command that reads a log reads sacct --parsable2 output as it reads SWF.

The format is detected from the first line (or forced with --input-format);
files, gzip, standard input and pipes all work, and a log in one format gives
the same results as the same jobs written as SWF.
"""

import gzip
import io
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from predictkit.cli import build_parser, main
from predictkit.cli._logs import LogPath, read_trace_arg
from predictkit.io import read_sacct, write_swf

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sacct_sample.txt"
LOG_COMMANDS = {
    "info": ["info", "{log}"],
    "predict": ["predict", "{log}"],
    "simulate": ["simulate", "{log}"],
    "bounds": ["bounds", "{log}"],
    "varq": ["varq", "{log}"],
    "report": ["report", "{log}"],
    "generate": ["generate", "--estimates-for", "{log}"],
    "demo": ["demo", "--trace", "{log}"],
    "select": ["select", "{log}"],
}


def finished_only(path):
    """The sample without jobs that are unfinished or never started (and their steps)."""
    lines = SAMPLE.read_text().splitlines()
    keep, out = True, [lines[0]]
    for line in lines[1:]:
        fields = line.split("|")
        if "." not in fields[0]:
            keep = fields[15] not in ("RUNNING", "PENDING") and fields[8] != "None"
        if keep:
            out.append(line)
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """A sacct log of finished jobs and the same jobs written as SWF."""
    folder = tmp_path_factory.mktemp("logs")
    sacct = finished_only(folder / "site.txt")
    swf = folder / "site.swf"
    jobs = read_sacct(sacct)
    write_swf(jobs.sort_values("submit_time", kind="stable"), swf)
    return sacct, swf


def run_json(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(LOG_COMMANDS))
def test_every_log_command_declares_input_format(name):
    parser = build_parser()
    argv = [a.replace("{log}", "x") for a in LOG_COMMANDS[name]]
    args = parser.parse_args(argv + ["--input-format", "sacct", "--time-zone", "Europe/Paris"])
    log = args.estimates_for if name == "generate" else args.traces[0] if name == "info" \
        else args.trace
    assert isinstance(log, LogPath)
    assert log.option("input_format", None) == "sacct"
    assert log.option("time_zone", None) == "Europe/Paris"
    # the options may also come before the log
    args = parser.parse_args([argv[0], "--input-format", "swf", *argv[1:]])
    log = args.estimates_for if name == "generate" else args.traces[0] if name == "info" \
        else args.trace
    assert log.option("input_format", None) == "swf"


def test_info_on_sacct_equals_info_on_the_same_jobs_as_swf(capsys, pair):
    sacct, swf = pair
    from_sacct = run_json(capsys, ["info", "--json", str(sacct)])
    from_swf = run_json(capsys, ["info", "--json", str(swf)])
    assert from_sacct == from_swf
    assert from_sacct["n_jobs"] == 1915


@pytest.mark.parametrize("command", [["bounds", "--json"], ["predict", "--json"],
                                     ["varq", "--json", "--start", "7D"]])
def test_results_do_not_depend_on_the_input_format(capsys, pair, command):
    sacct, swf = pair
    from_sacct = run_json(capsys, [*command, str(sacct)])
    from_swf = run_json(capsys, [*command, str(swf)])
    assert from_sacct == from_swf


def test_simulate_report_generate_and_demo_read_sacct(capsys, pair, tmp_path):
    sacct, swf = pair
    argv = ["simulate", str(sacct), "--max-jobs", "300", "--json"]
    assert run_json(capsys, argv) == run_json(capsys, argv[:1] + [str(swf)] + argv[2:])
    assert main(["report", str(sacct), "-o", str(tmp_path / "r"), "--max-jobs", "200",
                 "--no-fairness", "-q"]) == 0
    assert (tmp_path / "r" / "index.html").exists()
    out = tmp_path / "estimates.swf"
    assert main(["generate", "--estimates-for", str(sacct), "--seed", "1", "--truncate",
                 "-o", str(out), "-q"]) == 0, capsys.readouterr().err
    assert out.exists()


def _stdin(monkeypatch, data):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("forced", [[], ["--input-format", "sacct"]])
def test_stdin_plain_or_gzip_detected_or_forced(capsys, monkeypatch, compress, forced):
    data = SAMPLE.read_bytes()
    _stdin(monkeypatch, gzip.compress(data) if compress else data)
    summary = run_json(capsys, ["info", "--json", *forced, "-"])
    assert summary["n_jobs"] == 2000


def test_stdin_swf_is_still_swf(capsys, monkeypatch, pair):
    _, swf = pair
    _stdin(monkeypatch, gzip.compress(swf.read_bytes()))
    assert run_json(capsys, ["info", "--json", "-"])["n_jobs"] == 1915


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_read_once(capsys, tmp_path):
    fifo = tmp_path / "sacct.fifo"
    os.mkfifo(fifo)
    data = SAMPLE.read_bytes()

    def feed():
        with open(fifo, "wb") as stream:
            stream.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        summary = run_json(capsys, ["info", "--json", str(fifo)])
    finally:
        writer.join(timeout=30)
    assert summary["n_jobs"] == 2000


def test_gzip_sacct_file_is_detected(capsys, tmp_path):
    path = tmp_path / "sacct.txt.gz"
    path.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    assert run_json(capsys, ["info", "--json", str(path)])["n_jobs"] == 2000


def test_plain_string_paths_are_detected(pair):
    sacct, swf = pair
    assert len(read_trace_arg(str(sacct))) == len(read_trace_arg(str(swf))) == 1915
    assert "slurm_state" in read_trace_arg(str(sacct)).columns


@pytest.mark.parametrize(("argv", "message"), [
    (["--input-format", "sacct", "{swf}"], "header lacks required sacct field"),
    (["--input-format", "swf", "{sacct}"], "line 1: expected 18 fields"),
    (["--input-format", "sacct", "--time-zone", "Mars/Olympus", "{sacct}"],
     "--time-zone: unknown time zone 'Mars/Olympus'"),
    (["--input-format", "sacct", "--time-zone", "", "{sacct}"],
     "--time-zone must be the name of a time zone, such as 'Europe/Paris' or 'UTC', got ''"),
    (["--input-format", "sacct", "{empty}"], "no header line"),
    (["{header_only}"], "line 1: no job lines after the header"),
    (["{bom_bad}"], "line 2: field Start (2024-03-04T07:00:00) is before Submit"),
    (["{missing}"], "header lacks required sacct field(s): Submit"),
    (["{folder}"], "Is a directory"),
    (["--input-format", "sacct", "{corrupt_gz}"], "corrupt or truncated gzip data"),
    (["{corrupt_gz}"], "corrupt or truncated gzip data"),
    (["--input-format", "sacct", "{loop}"], "cannot read the file: Too many levels"),
    (["{utf16}"], "is UTF-16 text; job logs are read as UTF-8"),
])
def test_bad_input_is_one_line_with_status_2(capsys, pair, tmp_path, argv, message):
    sacct, swf = pair
    header = SAMPLE.read_text().splitlines()[0]
    first = SAMPLE.read_text().splitlines()[1].split("|")
    first[8] = "2024-03-04T07:00:00"
    files = {"swf": swf, "sacct": sacct, "empty": tmp_path / "empty.txt",
             "header_only": tmp_path / "header.txt", "bom_bad": tmp_path / "bom.txt",
             "missing": tmp_path / "missing.txt", "folder": tmp_path,
             "corrupt_gz": tmp_path / "corrupt.txt.gz", "loop": tmp_path / "loop.txt",
             "utf16": tmp_path / "utf16.txt"}
    compressed = bytearray(gzip.compress(SAMPLE.read_bytes(), mtime=0))
    compressed[30:60] = bytes(b ^ 0x55 for b in compressed[30:60])  # a broken deflate stream
    files["corrupt_gz"].write_bytes(bytes(compressed))
    files["loop"].symlink_to(files["loop"])
    files["utf16"].write_bytes(SAMPLE.read_text().encode("utf-16"))
    files["empty"].write_text("")
    files["header_only"].write_text(header + "\n")
    files["bom_bad"].write_bytes(b"\xef\xbb\xbf" + (header + "\n" + "|".join(first)).encode())
    files["missing"].write_text("JobID|User|State|NCPUS|Elapsed|Start\n1|a|COMPLETED|1|00:01|"
                                "Unknown\n")
    argv = [a.format(**files) for a in argv]
    assert main(["info", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("predictkit info: error: ") and message in err


@pytest.mark.parametrize(("fmt", "zone", "warned"), [
    ("swf", ["--time-zone", "Europe/Paris"], True),
    ("swf", ["--time-zone", "UTC"], True),  # given explicitly, even as the default
    ("swf", [], False),
    ("sacct", ["--time-zone", "UTC"], False),
    ("sacct", [], False),
])
def test_time_zone_for_an_swf_log_is_warned_about(tmp_path, capsys, fmt, zone, warned):
    if fmt == "swf":
        log = tmp_path / "log.swf"
        write_swf(read_sacct(SAMPLE), log)
    else:
        log = SAMPLE
    assert main(["info", str(log), *zone]) == 0
    err = capsys.readouterr().err
    warning = (f"predictkit info: warning: --time-zone applies to sacct input only; "
               f"{log} is SWF\n")
    assert (warning in err) == warned
    assert err.count("--time-zone") == (1 if warned else 0)


def test_time_zone_defaults_to_utc():
    args = build_parser().parse_args(["info", str(SAMPLE)])
    assert args.time_zone is None
    utc = read_trace_arg(args.traces[0])
    given = build_parser().parse_args(["info", str(SAMPLE), "--time-zone", "UTC"])
    assert utc.equals(read_trace_arg(given.traces[0]))

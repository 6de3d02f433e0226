"""Every bad value on the command line is one line on stderr, exit status 2, naming the flag."""

import os
import re
import signal

import pytest

from predictkit.cli import main
from predictkit.cli._checks import cli_wording
from predictkit.datasets import make_workload
from predictkit.io import write_swf

PYTHON_WORDING = re.compile(r"\w\(|=True|=False|errors=|\bn_jobs\b|\bn_procs\b|\bt_max\b")
"""Python calls and parameter names that a command-line error must not show."""


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """A small synthetic log (no waits), the same with simulated waits, and odd files."""
    folder = tmp_path_factory.mktemp("logs")
    plain = folder / "small.swf"
    write_swf(make_workload(400, machine_procs=32, random_state=0), plain)
    waits = folder / "waits.swf"
    assert main(["simulate", str(plain), "-q", "-o", str(waits)]) == 0
    header_only = folder / "header.swf"
    header_only.write_text("; MaxProcs: 64\n")
    a_file = folder / "a-file"
    a_file.write_text("not a folder\n")
    return {"plain": str(plain), "waits": str(waits), "header": str(header_only),
            "file": str(a_file), "folder": folder}


def _one_line_error(capsys, argv, flag):
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"predictkit {argv[0]}: error: "), err
    assert flag in lines[0], err
    assert not PYTHON_WORDING.search(lines[0].split(": error: ", 1)[1]), err
    return lines[0]


# (argv, flag the message must name); "{x}" are filled from the logs fixture.
BAD_FLAGS = [
    # options the chosen mode would ignore
    (["simulate", "{plain}", "--predictor", "usage-max", "--quantile", "0.9"], "--quantile"),
    (["simulate", "{plain}", "--selective"], "--selective"),
    (["simulate", "{plain}", "--policy", "fcfs", "--backfill-order", "sjf"],
     "--backfill-order"),
    (["simulate", "{plain}", "--policy", "conservative", "--backfill-order", "priority"],
     "--backfill-order"),
    (["simulate", "{plain}", "--format", "csv"], "--format"),
    # estimates that cannot change the schedule
    (["simulate", "{plain}", "--policy", "fcfs", "--predictor", "tang"], "--predictor"),
    (["simulate", "{plain}", "--policy", "no_guarantee", "--priority", "fairshare",
      "--predictor", "usage-max", "--selective"], "--predictor"),
    (["select", "{waits}", "--policy", "fcfs"], "--policy"),
    (["simulate", "{plain}", "--reservation-depth", "0", "--predictor", "perfect"],
     "--predictor"),
    (["bounds", "{waits}", "--format", "json"], "--format"),
    (["predict", "{waits}", "--method", "requested", "--keys", "user"], "--keys"),
    (["predict", "{waits}", "--method", "usage-max", "--window", "5D"], "--window"),
    (["predict", "{waits}", "--method", "tang", "--n-recent", "3"], "--n-recent"),
    (["predict", "{waits}", "--max-bad-share", "0.5"], "--max-bad-share"),
    (["predict", "{waits}", "--window", "0"], "--window"),
    (["select", "{waits}", "--half-life", "5"], "--half-life"),
    (["varq", "{waits}", "-o", "{folder}/v.swf"], "-o"),
    # a value given twice would repeat a row of the result
    (["varq", "{waits}", "--fractions", "0.1,0.1"], "--fractions"),
    (["varq", "{waits}", "--probabilities", "0.5,0.75,0.5"], "--probabilities"),
    (["predict", "{waits}", "--method", "tang", "--keys", "user,,group"], "--keys"),
    (["select", "{waits}", "--keys", "user, ,request"], "--keys"),
    (["varq", "{waits}", "--fractions", "0.1,,0.5"], "--fractions"),
    (["simulate", "{plain}", "--predictor", "tang", "--quantile", "7"], "--quantile"),
    (["simulate", "{plain}", "--predictor", "tang", "--quantile", "0"], "--quantile"),
    (["simulate", "{plain}", "--predictor", "tang", "--quantile", "nan"], "--quantile"),
    (["simulate", "{plain}", "--max-jobs", "-3"], "--max-jobs"),
    (["simulate", "{plain}", "--machine-procs", "0"], "--machine-procs"),
    (["generate", "--jobs", "-5", "-o", "{folder}/g.swf"], "--jobs"),
    (["generate", "--jobs", "0", "-o", "{folder}/g.swf"], "--jobs"),
    (["generate", "--machine-procs", "0", "-o", "{folder}/g.swf"], "--machine-procs"),
    (["generate", "--jobs", "100", "--tmax", "18x", "-o", "{folder}/g.swf"], "--tmax"),
    (["generate", "--jobs", "100", "--tmax", "-5", "-o", "{folder}/g.swf"], "--tmax"),
    (["generate", "--jobs", "100", "--tmax", "10min", "-o", "{folder}/g.swf"], "--tmax"),
    (["generate", "--jobs", "100", "--tmax", "1e30h", "-o", "{folder}/g.swf"], "--tmax"),
    (["generate", "--jobs", "100", "--machine-procs", str(10**20), "-o", "{folder}/g.swf"],
     "--machine-procs"),
    (["simulate", "{plain}", "--machine-procs", str(10**20)], "--machine-procs"),
    (["predict", "{waits}", "--min-jobs", str(10**20)], "--min-jobs"),
    (["predict", "{waits}", "--method", "usage-max", "--n-recent", str(10**20)], "--n-recent"),
    (["bounds", "{waits}", "--seed", str(2**32)], "--seed"),
    (["generate", "--jobs", "100", "--pmax", "200", "-o", "{folder}/g.swf"], "--pmax"),
    (["generate", "--jobs", "100", "--load", "inf", "-o", "{folder}/g.swf"], "--load"),
    (["generate", "--jobs", "100", "--load", "0", "-o", "{folder}/g.swf"], "--load"),
    (["generate", "--jobs", "100", "--seed", "-1", "-o", "{folder}/g.swf"], "--seed"),
    (["generate", "--estimates-for", "{plain}", "--fit-modes", "40", "-o", "{folder}/g.swf"],
     "--fit-modes"),
    (["generate", "--estimates-for", "{plain}", "--model", "fmodel", "--f", "-1",
      "-o", "{folder}/g.swf"], "--f"),
    (["generate", "--jobs", "100"], "-o"),
    (["bounds", "{waits}", "--quantile", "7"], "--quantile"),
    (["bounds", "{waits}", "--confidence", "0"], "--confidence"),
    (["bounds", "{waits}", "--seed", "-1"], "--seed"),
    (["bounds", "{waits}", "--method", "wait", "--seed", "3"], "--seed"),
    (["bounds", "{waits}", "--method", "wait", "--confidence", "0.9"], "--confidence"),
    (["bounds", "{waits}", "--method", "wait", "--capacity", "0"], "--capacity"),
    (["bounds", "{waits}", "--capacity", "64"], "--capacity"),
    (["varq", "{waits}", "--period", "6x"], "--period"),
    (["varq", "{waits}", "--period", "0"], "--period"),
    (["varq", "{waits}", "--days", "0"], "--days"),
    (["varq", "{waits}", "--fractions", "2"], "--fractions"),
    (["varq", "{waits}", "--step", "0"], "--step"),
    (["varq", "{waits}", "--seed", "-1"], "--seed"),
    (["predict", "{waits}", "--quantile", "0"], "--quantile"),
    (["predict", "{waits}", "--window", "18x"], "--window"),
    (["predict", "{waits}", "--window", "-5"], "--window"),
    (["predict", "{waits}", "--keys", ""], "--keys"),
    (["predict", "{waits}", "--floor", "2"], "--floor"),
    (["predict", "{waits}", "--min-jobs", "0"], "--min-jobs"),
    (["predict", "{waits}", "--bad-threshold", "-5"], "--bad-threshold"),
    (["predict", "{waits}", "--method", "usage-max", "--n-recent", "0"], "--n-recent"),
    (["demo", "--jobs", "5"], "--jobs"),
    (["demo", "--machine-procs", "0"], "--machine-procs"),
    (["demo", "--seed", "-1"], "--seed"),
    (["report", "{waits}", "--quantile", "1.5"], "--quantile"),
    (["report", "{waits}", "--seed", "-1"], "--seed"),
    (["report", "{waits}", "--max-jobs", "5"], "--max-jobs"),
    (["fetch", "KTH-SP2", "--data-home", "{file}"], "--data-home"),
    (["fetch", "KTH-SP2", "--data-home", "{file}/below"], "--data-home"),
    (["fetch"], "predictkit fetch NAME"),
]


@pytest.mark.parametrize("argv, flag", BAD_FLAGS, ids=[" ".join(a) for a, _ in BAD_FLAGS])
def test_a_bad_flag_is_one_line_naming_it(logs, capsys, argv, flag):
    argv = [a.format(**logs) for a in argv]
    _one_line_error(capsys, argv, flag)


def test_generate_refuses_a_workload_larger_than_memory(tmp_path, capsys):
    line = _one_line_error(capsys, ["generate", "--jobs", "10000000000", "-o",
                                    str(tmp_path / "g.swf")], "--jobs")
    assert "memory" in line and "TiB" in line
    assert not (tmp_path / "g.swf").exists()


def test_generate_with_a_too_long_file_name_is_one_line(tmp_path, capsys):
    out = tmp_path / ("x" * 300 + ".swf")
    _one_line_error(capsys, ["generate", "--jobs", "100", "-q", "-o", str(out)], "-o")
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / ("x" * 300 + ".csv")
    _one_line_error(capsys, ["generate", "--jobs", "100", "-q", "-o", str(out)], "-o")


@pytest.mark.parametrize("argv", [
    ["simulate", "x.swf", "--policy", "backfill"],
    ["simulate", "x.swf", "--format", "parquet"],
    ["generate", "--jobs", "ten"],
    ["bounds", "x.swf", "--clustering", "kmeans"],
    ["generate", "--model", "gaussian"],
])
def test_argparse_refuses_unknown_choices_and_non_numbers(capsys, argv):
    # argparse's own convention: the usage, then one error line naming the flag
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"predictkit {argv[0]}: error: argument {argv[-2]}")


# Errors found only after the log is read: --quiet keeps the progress lines out.
def test_varq_on_a_log_without_jobs(logs, capsys):
    _one_line_error(capsys, ["varq", logs["header"], "-q"], logs["header"])


def test_predict_with_keys_the_log_does_not_have(logs, capsys):
    _one_line_error(capsys, ["predict", logs["waits"], "--keys", "user,colour", "-q"], "--keys")


def test_fetch_an_unknown_name_points_at_the_command_line(logs, capsys):
    line = _one_line_error(capsys, ["fetch", "no-such-log", "--data-home",
                                    str(logs["folder"] / "cache")], "predictkit fetch --list")
    assert "list_traces" not in line


def test_library_wording_becomes_command_line_wording():
    assert cli_wording("3 runtime(s) exceed the largest estimate (5 s); pass truncate=True to "
                       "cap them") == ("3 runtime(s) exceed the largest estimate (5 s); give "
                                       "--truncate to cap them")
    assert (cli_wording("trace KTH not found in /x; set PREDICTKIT_TRACES to a directory "
                        "holding k.swf.gz, or use fetch_pwa('KTH') or download_if_missing=True")
            .endswith("or use predictkit fetch KTH"))
    assert cli_wording("n_jobs must be positive; n_jobs_max stays", {"n_jobs": "--jobs"}) == (
        "--jobs must be positive; n_jobs_max stays")


def test_varq_on_a_log_without_usable_jobs_names_the_log(tmp_path, capsys):
    log = tmp_path / "no-runtime.swf"
    log.write_text("; MaxProcs: 64\n1 0 10 -1 4 -1 -1 4 100 -1 0 1 1 -1 1 -1 -1 -1\n")
    line = _one_line_error(capsys, ["varq", str(log), "--start", "0", "-q"], str(log))
    assert "no job can be simulated: every job was left out (1 job with run_time unknown or " \
           "negative)" in line


def test_generate_says_a_learned_t_max_is_set_by_tmax(tmp_path, capsys):
    log = tmp_path / "short.swf"
    log.write_text("; MaxProcs: 64\n1 0 10 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    line = _one_line_error(capsys, ["generate", "--estimates-for", str(log), "-q", "-o",
                                    str(tmp_path / "out.swf")], "--tmax")
    assert "learned from the log" in line


def test_an_unknown_option_is_reported_with_its_subcommand(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["info", "--bogus", "x.swf"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err == ("predictkit info: error: unrecognized arguments: --bogus; "
                   "see predictkit info --help\n")


@pytest.mark.parametrize("argv, message", [
    (["simulate", "x.swf", "--policy", "foo"],
     "predictkit simulate: error: argument --policy: invalid choice: 'foo' (choose from "
     "'fcfs', 'easy', 'conservative', 'no_guarantee'); see predictkit simulate --help"),
    (["simulate"], "predictkit simulate: error: the following arguments are required: TRACE; "
                   "see predictkit simulate --help"),
    (["nosuch"], "predictkit: error: argument COMMAND: invalid choice: 'nosuch' (choose from "),
    (["predict", "x.swf", "--window"], "predictkit predict: error: argument --window: expected "
                                       "one argument; see predictkit predict --help"),
])
def test_usage_errors_are_one_line_with_a_pointer_to_help(capsys, argv, message):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(message)


@pytest.mark.parametrize("argv, argument", [
    (["info", ""], "TRACE"), (["simulate", "x.swf", "-o", ""], "-o/--output"),
    (["wait", "x", "--procs", "4", "--time", "1:00:00", "--queue", ""], "--queue"),
    (["wait", "x", "--script", ""], "--script"), (["sweep", "", "-o", "x.csv"], "GRID"),
    (["sweep", "g.toml", "-o", ""], "-o/--output"), (["report", "x", "-o", ""], "-o/--output"),
    (["demo", "-o", ""], "-o/--output"), (["fetch", "--data-home", "", "KTH"], "--data-home"),
    (["generate", "--site", ""], "--site"), (["predict", "x", "-o", ""], "-o/--output"),
])
def test_an_empty_file_name_is_refused_by_the_argument_that_got_it(capsys, argv, argument):
    # an empty name was read as the working folder, or as an option not given
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        f"predictkit {argv[0]}: error: argument {argument}: an empty name is no file; give a "
        f"path; see predictkit {argv[0]} --help\n")


def test_standard_input_named_twice_is_refused(capsys):
    assert main(["info", "-", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "standard input ('-') is given 2 times" in err


def test_one_pipe_named_twice_is_refused_before_either_is_read(tmp_path, capsys, monkeypatch):
    import os

    from predictkit.cli import _logs

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # opening it would block: the check only looks at what the names are
    assert main(["info", str(pipe), str(pipe)]) == 2
    assert capsys.readouterr().err == (
        f"predictkit info: error: '{pipe}' is given 2 times (traces); it can be read only "
        "once: save all but one input to a file\n")
    import argparse  # a device can be opened again: /dev/null twice is two inputs

    _logs.check_stdin_once(argparse.Namespace(traces=["/dev/null", "/dev/null"]))
    monkeypatch.setattr(_logs.os, "fstat", lambda fd: os.stat(pipe))  # stdin is that pipe
    assert main(["wait", str(pipe), "--procs", "4", "--time", "1:00:00", "--queue", "-"]) == 2
    assert capsys.readouterr().err == (
        f"predictkit wait: error: '{pipe}' and '-' name one stream (queue, trace); it can be "
        "read only once: save all but one input to a file\n")


def test_warnings_are_one_line(capsys, monkeypatch):
    import warnings

    from predictkit.cli import _info

    def warn_then_fail(args):
        warnings.warn("something odd\nwith a second line", UserWarning)
        return 0

    monkeypatch.setattr(_info, "run", warn_then_fail)
    assert main(["info", "x.swf"]) == 0
    assert capsys.readouterr().err == "predictkit info: warning: something odd\n"


def test_an_environment_failure_is_one_line(capsys, monkeypatch):
    from predictkit.cli import _info

    def unreachable(args):
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 30 s")

    monkeypatch.setattr(_info, "run", unreachable)
    assert main(["info", "x.swf"]) == 2
    assert capsys.readouterr().err == ("predictkit info: error: Timed out trying to connect to "
                                       "tcp://127.0.0.1:1 after 30 s\n")


@pytest.mark.parametrize("signum, status, said", [
    (signal.SIGTERM, 143, "predictkit: terminated by SIGTERM\n"),
    (signal.SIGINT, 130, "predictkit: interrupted\n")])
def test_a_signal_while_the_commands_are_loaded_is_one_line(monkeypatch, capsys, signum,
                                                              status, said):
    import predictkit.cli as cli

    real = cli.build_parser

    def interrupted_build():
        os.kill(os.getpid(), signum)
        return real()

    monkeypatch.setattr(cli, "build_parser", interrupted_build)
    assert cli.main(["info", "missing.swf"]) == status
    assert capsys.readouterr().err == said

"""What every command does alike: settings echo, progress lines, units, --help, flag names."""

import argparse
import io
import re

import numpy as np
import pandas as pd
import pytest

from predictkit.cli import build_parser, main
from predictkit.datasets import make_workload
from predictkit.io import read_swf, write_swf

# a first run on a fresh cache also says how long compiling kernels took
TIMED = r"in \d+\.\d (s|min)( \(\d+\.\d (s|min) of it compiling[^)]*\))?$"
PROGRESS = re.compile(r"^predictkit (\w+): .* " + TIMED)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    plain = folder / "small.swf"
    write_swf(make_workload(600, machine_procs=32, random_state=1), plain)
    waits = folder / "waits.swf"
    assert main(["simulate", str(plain), "-q", "-o", str(waits)]) == 0
    return {"plain": str(plain), "waits": str(waits), "folder": folder}


COMMANDS = [
    (["info", "{waits}"], "skip-bad-lines=False"),
    (["simulate", "{plain}", "--predictor", "tang"],
     "policy=easy priority=fcfs predictor=tang quantile=0.85"),
    (["bounds", "{waits}"], "quantile=0.95 confidence=0.95"),
    (["predict", "{waits}"], "method=tang keys=user,group,request window=30D quantile=0.85"),
    (["varq", "{waits}", "--start", "0", "--days", "1D"], "fractions=0.1,0.5"),
    (["generate", "--jobs", "300", "--seed", "1", "-o", "{folder}/g.swf"],
     "jobs=300 machine-procs=128 tmax=18h"),
    (["generate", "--estimates-for", "{plain}", "--seed", "1", "-o", "{folder}/e.swf"],
     "model=tsafrir"),
]


@pytest.mark.parametrize("argv, settings", COMMANDS, ids=[a[0] for a, _ in COMMANDS])
def test_each_command_echoes_its_settings_and_times_its_steps(logs, capsys, argv, settings):
    argv = [a.format(**logs) for a in argv]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"predictkit {argv[0]}: ") and settings in lines[0]
    timed = [line for line in lines[1:] if PROGRESS.match(line)]
    assert timed and all(PROGRESS.match(line).group(1) == argv[0] for line in timed)
    assert main(argv + ["--quiet"]) == 0
    assert capsys.readouterr().err == ""


QUIET = [["simulate", "{plain}"], ["predict", "{waits}"], ["bounds", "{waits}"],
         ["bounds", "{waits}", "--method", "wait"],
         ["varq", "{waits}", "--start", "0", "--days", "1D"]]


@pytest.mark.parametrize("argv", QUIET, ids=[" ".join(a[::2]) for a in QUIET])
def test_quiet_keeps_the_result_table_unless_it_goes_to_a_file(logs, capsys, tmp_path, argv):
    argv = [a.format(**logs) for a in argv] + ["-q"]
    assert main(argv) == 0
    alone = capsys.readouterr()
    assert alone.err == "" and len(alone.out.splitlines()) >= 2
    assert main(argv + ["-o", str(tmp_path / "result.csv")]) == 0
    assert capsys.readouterr() == ("", "")
    assert (tmp_path / "result.csv").stat().st_size > 0


def test_debug_is_taken_after_the_command_too(logs, capsys):
    missing = str(logs["folder"] / "missing.swf")
    assert main(["info", missing]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    for argv in (["--debug", "info", missing], ["info", missing, "--debug"]):
        with pytest.raises(FileNotFoundError):
            main(argv)
    assert build_parser().parse_args(["info", missing]).debug is False


def test_simulate_and_generate_progress_says_what_was_done(logs, capsys):
    assert main(["generate", "--jobs", "500", "--seed", "2", "-o",
                 str(logs["folder"] / "p.swf")]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^predictkit generate: generated 500 jobs " + TIMED, err, re.M)
    assert main(["simulate", str(logs["folder"] / "p.swf")]) == 0
    err = capsys.readouterr().err
    assert re.search(r"^predictkit simulate: simulated 500 jobs with requested estimates "
                     + TIMED, err, re.M)


def test_tables_state_units_and_use_one_number_format(logs, capsys):
    assert main(["simulate", logs["plain"], "--predictor", "perfect"]) == 0
    out = capsys.readouterr().out
    assert "mean_wait (h)" in out and "utilization (fraction)" in out
    for command in (["bounds", logs["waits"]], ["predict", logs["waits"]],
                    ["varq", logs["waits"], "--start", "0", "--days", "1D"]):
        assert main(command) == 0
        out += capsys.readouterr().out
    assert "bound (h)" in out and "mean absolute error (h)" in out and "(processor-hours)" in out
    assert not re.search(r"\de[+-]\d", out)  # no scientific notation
    numbers = re.findall(r"(?<![\w.=])\d[\d,]*\.\d+(?![\w.])", out)
    assert numbers and all(len(n.split(".")[1]) == 3 for n in numbers)


def test_simulate_writes_the_log_with_simulated_waits(logs, capsys, tmp_path):
    out_swf, out_csv = tmp_path / "sim.swf", tmp_path / "sim.csv"
    assert main(["simulate", logs["plain"], "--policy", "conservative", "-q",
                 "-o", str(out_swf)]) == 0
    assert main(["simulate", logs["plain"], "--policy", "conservative", "-q",
                 "-o", str(out_csv)]) == 0
    simulated, schedule = read_swf(out_swf), pd.read_csv(out_csv)
    source = read_swf(logs["plain"])
    assert source["wait_time"].isna().all()
    np.testing.assert_array_equal(simulated["job_id"], schedule["job_id"])
    np.testing.assert_allclose(simulated["wait_time"], schedule["wait_time"])
    np.testing.assert_allclose(simulated["run_time"], schedule["sim_run_time"])
    kept = source.set_index("job_id").loc[simulated["job_id"]]
    for column in ("submit_time", "n_procs", "req_time", "user_id"):
        np.testing.assert_array_equal(simulated[column], kept[column])
    assert simulated.attrs["max_procs"] == source.attrs["max_procs"]
    header = [line for line in out_swf.read_text().splitlines() if line.startswith(";")]
    assert any("wait_time holds the waits simulated by predictkit: policy=conservative" in line
               for line in header)


def test_generate_simulate_bounds_chain_through_files(tmp_path, capsys):
    synth, waits = tmp_path / "synth.swf", tmp_path / "waits.swf"
    assert main(["generate", "--jobs", "800", "--machine-procs", "64", "--seed", "3", "-q",
                 "-o", str(synth)]) == 0
    assert main(["simulate", str(synth), "-q", "-o", str(waits)]) == 0
    assert main(["bounds", str(waits), "--json"]) == 0
    summary = __import__("json").loads(capsys.readouterr().out)["summary"]
    assert summary["n_jobs"] == 800 and summary["n_bounded"] > 0


def test_generate_simulate_bounds_chain_through_standard_streams(monkeypatch, capsys):
    def run(argv, data=None):
        if data is not None:
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert main(argv) == 0
        return capsys.readouterr().out.encode()

    synth = run(["generate", "--jobs", "500", "--seed", "4", "-q", "-o", "-"])
    simulated = run(["simulate", "-", "-q", "-o", "-"], synth)
    assert simulated.startswith(b";") and len(read_swf(io.BytesIO(simulated))) == 500
    out = run(["bounds", "-", "--json"], simulated)
    assert b'"n_jobs": 500' in out


def _option_blocks(parser):
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or not action.option_strings:
            continue
        yield action, " ".join(formatter._format_action(action).split())


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices.items())


@pytest.mark.parametrize("name, parser", _subparsers(), ids=[n for n, _ in _subparsers()])
def test_help_shows_every_choice_and_default(name, parser):
    for action, text in _option_blocks(parser):
        for choice in action.choices or ():
            assert str(choice) in text, (name, action.option_strings, choice)
        flag = isinstance(action, (argparse._StoreTrueAction, argparse._HelpAction,
                                   argparse._VersionAction))
        if not flag and action.default is not None:
            assert re.search(rf"\(default:? {re.escape(str(action.default))}[),]", text), (
                name, action.option_strings, text)


def test_old_flag_names_still_work_and_warn(tmp_path, capsys):
    out = tmp_path / "g.swf"
    assert main(["generate", "--jobs", "200", "--procs", "16", "--seed", "0", "-q",
                 "-o", str(out)]) == 0
    assert "--procs is deprecated; use --machine-procs" in capsys.readouterr().err
    assert read_swf(out)["n_procs"].max() <= 16
    assert main(["generate", "--jobs", "200", "--n-procs", "16", "--seed", "0", "-q",
                 "-o", str(out)]) == 0
    assert "--n-procs is deprecated; use --machine-procs" in capsys.readouterr().err
    assert read_swf(out)["n_procs"].max() <= 16
    assert read_swf(out).attrs["max_procs"] == 16



def test_simulate_old_n_procs_flag_warns_and_gives_the_same_schedule(logs, capsys):
    new = main(["simulate", logs["plain"], "--machine-procs", "64", "--json"])
    assert new == 0
    new_out = capsys.readouterr().out
    assert main(["simulate", logs["plain"], "--n-procs", "64", "--json"]) == 0
    captured = capsys.readouterr()
    assert "--n-procs is deprecated; use --machine-procs" in captured.err
    assert captured.out == new_out
    assert '"machine_procs": 64' in new_out
    names = [a.option_strings for _, p in _subparsers() for a in p._actions]
    assert not any(o in ("--limit", "--first", "--truncate-jobs") for opts in names for o in opts)


def test_a_step_says_how_long_it_spent_compiling_and_only_the_first_says_why(
        monkeypatch, capsys):
    from predictkit.cli import _progress

    # at: the start, then each step's beginning and end, then the last one's end
    clock = iter([0.0, 0.0, 0.0, 0.0, 12.5, 12.5, 12.8, 20.0])
    monkeypatch.setattr(_progress, "compile_seconds", lambda: next(clock))
    progress = _progress.Progress("simulate")
    for text in ("read", "cleaned", "simulated"):
        with progress.step(text):
            pass
    progress.finished("replayed", 30.0)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("predictkit simulate: read in ") and "compiling" not in lines[0]
    assert lines[1].endswith("(12.5 s of it compiling kernels on first use; later runs load "
                             "them from the cache)")
    assert "compiling" not in lines[2]  # 0.3 s: under a second says nothing
    assert lines[3] == "predictkit simulate: replayed in 30.0 s (7.2 s of it compiling)"
    assert all(PROGRESS.match(line) for line in lines)

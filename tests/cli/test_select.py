"""``predictkit select``: the predictor chosen on past periods, scored on the following ones."""

import io
import json

import pandas as pd
import pytest

from predictkit.cli import main
from predictkit.datasets import make_workload
from predictkit.io import read_swf, write_swf
from predictkit.model_selection import ScheduleCandidate, select_by_schedule

PERIODS = ["--period", "3D", "--test-periods", "1"]
FEW = ["--predictors", "requested", "tang", "--keys", "user", "--quantiles", "0.85", *PERIODS]


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("select") / "log.swf"
    write_swf(make_workload(1200, machine_procs=32, random_state=4), path)
    return path


def test_select_prints_the_choice_and_its_score_next_to_easy_pp(log, capsys, tmp_path):
    out = tmp_path / "scores.csv"
    assert main(["select", str(log), *FEW, "-o", str(out)]) == 0
    captured = capsys.readouterr()
    table = pd.read_csv(out)
    jobs = read_swf(log)
    expected = select_by_schedule(
        jobs, [ScheduleCandidate("requested"),
               ScheduleCandidate("requested", on_underestimate="increments",
                                 backfill_order="sjf"),
               *[ScheduleCandidate("tang", (("keys", "user"), ("quantile", 0.85)), s, u, b)
                 for s in (False, True) for u, b in (("double", "priority"),
                                                     ("increments", "sjf"))]],
        period="3D", test_periods=1)
    assert len(table) == 7 and table["is_baseline"].sum() == 1
    assert sorted(table["candidate"]) == sorted(expected.table["candidate"])
    merged = table.merge(expected.table, on=["candidate", "is_baseline"])
    assert merged["cv_score_x"].tolist() == pytest.approx(merged["cv_score_y"].tolist(), rel=1e-9)
    assert f"chosen on the past periods: {expected.chosen.name}" in captured.out
    assert f"chosen {expected.chosen_test_score:,.2f}, EASY++ " \
           f"{expected.baseline_test_score:,.2f}" in captured.out
    lines = captured.err.splitlines()
    assert lines[0].startswith("predictkit select: policy=easy") and "candidates=6" in lines[0]
    assert sum(line.startswith("predictkit select: simulated ") and "/7) in" in line
               for line in lines) == 7
    assert "simulated 1,200 jobs with each candidate" in captured.err


def test_select_takes_learned_candidates_by_name(log, capsys):
    assert main(["select", str(log), "--predictors", "requested", "learned", "--budgets",
                 "0.05", "0.2", "--no-easy-pp-style", *PERIODS, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = {row["candidate"] for row in data["candidates"]}
    assert {"learned max_bad_share=0.05", "learned max_bad_share=0.2 selective"} <= names
    assert len(names) == 1 + 4 + 1  # requested, 2 budgets x (regular, selective), EASY++


def test_select_json(log, capsys):
    assert main(["select", str(log), *PERIODS, "--predictors", "usage-max", "--no-easy-pp-style",
                 "--json", "-q"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main(["select", str(log), *PERIODS, "--predictors", "usage-max", "--no-easy-pp-style",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert json.loads(quiet.out)["chosen"] == data["chosen"]
    assert data["chosen"] in {"usage-max", "usage-max selective"}
    assert len(data["candidates"]) == 3


def test_select_criterion_and_recent_counts(log, capsys):
    argv = ["select", str(log), "--predictors", "recent-average", "--recent", "1", "3",
            "--period", "3D", "--test-periods", "1", "--criterion", "recent", "--half-life",
            "0.5", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    candidates = [ScheduleCandidate("recent-average", (("n_recent", n),), s, u, b)
                  for n in (1, 3) for s in (False, True)
                  for u, b in (("double", "priority"), ("increments", "sjf"))]
    expected = select_by_schedule(read_swf(log), candidates, period="3D", test_periods=1,
                                  criterion="recent", half_life=0.5)
    assert data["criterion"] == "recent" and data["chosen"] == expected.chosen.name
    got = {c["candidate"]: c["cv_score"] for c in data["candidates"] if not c["is_baseline"]}
    assert got == pytest.approx(dict(zip(expected.table["candidate"][:-1],
                                         expected.table["cv_score"][:-1])), rel=1e-9)


def test_select_table_to_standard_output(log, capsys):
    assert main(["select", str(log), *PERIODS, "--predictors", "requested", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert len(pd.read_csv(io.StringIO(captured.out))) == 3
    assert "chosen on the past periods" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["--test-periods", "0"], "--test-periods must be a whole number from 1"),
    (["--warmup-periods", "-1"], "--warmup-periods must be a whole number from 0"),
    (["--predictors", "tang", "--quantiles", "0.3"], "--quantiles must be in [0.5, 1] for Tang's adjuster, got 0.3"),
    (["--predictors", "tang", "--quantiles", "nan"], "--quantiles must be in [0.5, 1] for Tang's adjuster, got nan"),
    (["--predictors", "tang", "--quantiles", "0.9", "0.9"], "--quantiles gives a value twice"),
    (["--predictors", "tang", "tang"], "--predictors gives a predictor twice"),
    (["--predictors", "tang", "--keys", "user,shoe"], "--keys user,shoe: "),
    (["--keys", "user"], "--keys applies to --predictors tang only, and --predictors requested "
                         "has none"),
    (["--quantiles", "0.9"], "--quantiles applies to --predictors tang only"),
    (["--predictors", "tang", "usage-max", "--recent", "7"],
     "--recent applies to --predictors recent-average only, and --predictors tang usage-max "
     "has none"),
    (["--max-jobs", "0"], "--max-jobs must be positive"),
    (["--machine-procs", "0"], "--machine-procs must be positive"),
    (["--top", "0"], "--top must be a whole number from 1"),
    (["--period=-3D"], "--period must be a non-negative finite duration"),
    (["--period", "0"], "--period must be positive"),
    (["--period", "soon"], "--period"),
    (["--test-periods", "50"], "lower --test-periods or --warmup-periods, or shorten "
                               "the period"),
    (["-o", "scores.txt"], "-o scores.txt: use a .csv or .json file name"),
    (["--predictors", "recent-average", "--recent", "0"], "--recent must be whole numbers from 1, got 0"),
    (["--predictors", "recent-average", "--recent", "2", "2"], "--recent gives a value twice"),
    (["--criterion", "recent", "--half-life", "0"],
     "--half-life must be a positive number of periods, got 0"),
    (["--criterion", "recent", "--half-life", "nan"],
     "--half-life must be a positive number of periods, got nan"),
    (["--half-life", "5"], "--half-life applies to --criterion recent only, not --criterion mean"),
    (["--period", "1min"], "period 1min splits the jobs into"),
    (["--budgets", "0.1"], "--budgets applies to --predictors learned only"),
    (["--policy", "fcfs"], "to backfill without reservations, --policy no_guarantee with the "
                           "EASY++-style candidates (they backfill shortest first)"),
    (["--predictors", "learned", "--budgets", "1.5"], "--budgets must be shares in (0, 1), "
                                                      "got 1.5"),
    (["--predictors", "learned", "--budgets", "0.1", "0.1"], "--budgets gives a value twice"),
])
def test_bad_values_are_one_line_naming_the_flag(log, capsys, argv, message):
    args = ["select", str(log), "--predictors", "requested", "--period", "3D",
            "--test-periods", "1", *argv]
    assert main(args) == 2
    lines = capsys.readouterr().err.splitlines()
    # progress lines may precede an error found in the log; the error is one line, the last
    assert [line for line in lines if "error" in line] == lines[-1:] and message in lines[-1]


def test_a_log_with_nothing_to_simulate_is_one_line(tmp_path, capsys):
    path = tmp_path / "empty.swf"
    path.write_text("; MaxProcs: 4\n1 0 0 -1 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n")
    assert main(["select", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line for line in lines if "error" in line] == lines[-1:]
    assert "no job can be simulated" in lines[-1]


def test_select_says_which_jobs_no_run_simulated(log, capsys):
    """Jobs wider than the machine are counted out of the runs, not silently dropped."""
    jobs = read_swf(log)
    procs = 8
    wide = int((jobs["n_procs"] > procs).sum())
    assert 0 < wide < len(jobs)
    warning = (f"predictkit select: warning: {wide:,} jobs wider than the machine (8 "
               "processors) were not simulated and are not scored\n")
    assert main(["select", str(log), *FEW, "--machine-procs", str(procs), "-q", "--json"]) == 0
    assert capsys.readouterr().err == warning  # --quiet keeps it
    assert main(["select", str(log), *FEW, "--machine-procs", str(procs)]) == 0
    err = capsys.readouterr().err
    assert f"simulated {len(jobs) - wide:,} jobs with each candidate\n" in err and warning in err
    found = select_by_schedule(jobs, [ScheduleCandidate("requested")], period="3D",
                               test_periods=1, machine_procs=procs)
    assert len(found.rejected) == wide and found.machine_procs == procs


@pytest.fixture(scope="module")
def log_without_groups(tmp_path_factory):
    path = tmp_path_factory.mktemp("select") / "nogroups.swf"
    jobs = make_workload(1200, machine_procs=32, random_state=4)
    jobs["group_id"] = float("nan")
    write_swf(jobs, path)
    return path


def test_default_key_sets_a_log_cannot_group_by_are_left_out(log_without_groups, capsys):
    assert main(["select", str(log_without_groups), "--predictors", "requested", "tang",
                 "--quantiles", "0.85", "--period", "3D", "--test-periods", "1", "--top", "99",
                 "--json"]) == 0
    captured = capsys.readouterr()
    assert (f"left out the Tang candidates with keys group and user,group and user,group,request: "
            f"{log_without_groups} gives group_id for no job") in captured.err
    shown = [row["candidate"] for row in json.loads(captured.out)["candidates"]]
    tang = [name for name in shown if name.startswith("tang")]
    assert tang and all(name.startswith("tang keys=user quantile") for name in tang)


def test_given_key_sets_a_log_cannot_group_by_are_refused(log_without_groups, capsys):
    assert main(["select", str(log_without_groups), "--predictors", "tang", "--keys", "user",
                 "user,group", "--period", "3D", "--test-periods", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"predictkit select: error: --keys user,group: {log_without_groups} "
                          "gives group_id for no job, so Tang would adjust no job")
    assert err.count("\n") == 1


def test_the_guide_shows_what_its_select_command_prints(capsys, tmp_path):
    from pathlib import Path

    from tracedata import trace_file

    guide = (Path(__file__).resolve().parents[2] / "docs" / "model_selection.md").read_text()
    command = guide.split("```sh\npredictkit select ", 1)[1].split("\n```", 1)[0]
    argv = ["select", *command.replace("\\\n", " ").split()]
    shown = guide.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines()
    argv[1] = str(trace_file(argv[1]))
    argv[argv.index("-o") + 1] = str(tmp_path / "scores.csv")
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    cut = shown.index("...")  # the guide shows the first rows and the last two lines

    def words(lines):
        return [" ".join(line.split()) for line in lines]

    assert words(shown[:cut] + shown[cut + 1:]) == words(printed[:cut] + printed[-2:])

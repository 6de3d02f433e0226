"""``predictkit demo`` and ``report``: equal seeds give equal numbers; flag names."""

from predictkit.cli import main
from predictkit.datasets import make_workload
from predictkit.io import write_swf


def _tables(out):
    return [line for line in out.splitlines() if not line.startswith("Report:")]


def test_demo_gives_identical_tables_for_the_same_seed(tmp_path, capsys):
    runs = []
    for k in range(2):
        assert main(["demo", "--jobs", "1500", "--seed", "3", "-o", str(tmp_path / f"d{k}")]) == 0
        captured = capsys.readouterr()
        runs.append(_tables(captured.out))
    assert runs[0] == runs[1]
    assert any("QBETS" in line for line in runs[0])
    # one progress line per analysis step, with its time
    for step in ("generated 1,500 jobs", "replayed the wait bounds (QBETS, WaitPredictor)",
                 "simulated the schedules",
                 "wrote the report"):
        assert f"predictkit demo: {step} in " in captured.err


def test_demo_on_a_log_takes_max_jobs_and_the_old_jobs_flag_warns(tmp_path, capsys):
    log = tmp_path / "log.swf"
    write_swf(make_workload(900, machine_procs=64, random_state=2), log)
    assert main(["demo", "--trace", str(log), "--max-jobs", "300", "-o",
                 str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "Only the first 300 jobs" in out
    assert main(["demo", "--trace", str(log), "--jobs", "300", "-q", "-o",
                 str(tmp_path / "b")]) == 0
    assert "--jobs with --trace is deprecated; use --max-jobs" in capsys.readouterr().err


def test_a_too_small_count_is_named_by_the_flag_that_gave_it(tmp_path, capsys):
    log = tmp_path / "log.swf"
    write_swf(make_workload(200, machine_procs=64, random_state=2), log)
    for argv, flag in ((["--trace", str(log), "--jobs", "10"], "--jobs"),
                       (["--trace", str(log), "--max-jobs", "10"], "--max-jobs"),
                       (["--jobs", "10"], "--jobs"), (["--jobs", "200", "--max-jobs", "10"],
                                                      "--max-jobs")):
        assert main(["demo", *argv, "-o", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err[-1] == f"predictkit demo: error: {flag} must be at least 100, got 10"
    assert not (tmp_path / "out").exists()

import pandas as pd

from predictkit.cli import main
from tracedata import trace_file


def test_demo_runs_on_the_synthetic_workload(tmp_path, capsys):
    assert main(["demo", "--jobs", "2000", "-o", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "Runtime predictions" in out and "QBETS" in out and "Schedules" in out
    assert (tmp_path / "demo" / "index.html").exists() and "Report:" in out


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

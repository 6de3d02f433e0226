"""The sweep's table and per-cell files are written through ``open_output``."""

import os
import re
import stat

import pandas as pd
import pytest

from predictkit.exceptions import ConfigError, OutputError
from predictkit.experiments import expand_grid, run_grid


def metrics(cell):
    return {"score": len(cell["trace"])}


def test_table_through_a_symlink_keeps_the_link_and_the_mode(tmp_path):
    cells = expand_grid({"traces": ["a", "bb"], "predictors": ["requested"]})
    real = tmp_path / "real.csv"
    real.write_text("old")
    real.chmod(0o664)
    link = tmp_path / "results.csv"
    link.symlink_to("real.csv")
    old = os.umask(0o022)
    try:
        run_grid(cells, metrics, results=link)
    finally:
        os.umask(old)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o664
    assert list(pd.read_csv(real)["score"]) == [1, 2]
    parts = list((tmp_path / "results.csv.parts").iterdir())
    assert len(parts) == 2 and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in parts)


def test_a_results_name_it_cannot_write_is_refused_before_any_cell_runs(tmp_path):
    ran = []

    def evaluate(cell):
        ran.append(cell)
        return {"score": 1}

    cells = expand_grid({"traces": ["a"], "predictors": ["requested"]})
    for name in ("results.txt", "results.csv.gz"):
        with pytest.raises(ConfigError, match=rf"results must be a \.csv or \.parquet file, "
                                              rf"got '{re.escape(name)}'"):
            run_grid(cells, evaluate, results=tmp_path / name)
    with pytest.raises(OutputError, match="cannot write"):
        run_grid(cells, evaluate, results=tmp_path / "missing-folder" / "results.csv")
    assert ran == []


def test_an_invalid_cell_is_refused_before_the_valid_ones_run(tmp_path, monkeypatch):
    import predictkit.experiments._runner as runner

    trace = tmp_path / "t.swf"
    trace.write_text("1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    cells = expand_grid({"traces": [str(trace)],
                         "predictors": [{"name": "tang", "params": {"quantile": [0.5, 7.0]}}]})
    ran = []
    monkeypatch.setattr(runner, "_run_one", lambda *args: ran.append(args))
    with pytest.raises(ConfigError, match="quantile"):
        run_grid(cells, runner.evaluate_cell)
    assert ran == []


def test_a_parts_name_that_is_a_file_is_refused_before_any_cell_runs(tmp_path):
    out = tmp_path / "r.csv"
    (tmp_path / "r.csv.parts").write_text("not a folder")
    ran = []
    with pytest.raises(OutputError, match=r"r\.csv\.parts: it is not a folder"):
        run_grid(expand_grid({"traces": ["a"]}), lambda cell: ran.append(cell) or {"x": 1.0},
                 results=out)
    assert ran == []


def test_results_names_are_read_in_any_case(tmp_path):
    cells = expand_grid({"traces": ["a"]})
    table = run_grid(cells, metrics, results=tmp_path / "R.CSV")[["cell", "score"]]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "R.CSV")[["cell", "score"]], table)
    run_grid(cells, metrics, results=tmp_path / "R.Parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "R.Parquet")[["cell", "score"]],
                                  table)

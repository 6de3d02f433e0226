"""The sweep's table and per-cell files are written through ``open_output``."""

import os
import stat

import pandas as pd

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

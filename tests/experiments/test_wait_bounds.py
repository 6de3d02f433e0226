"""Sweep cells with ``options.wait_bounds``: per-job wait bounds replayed as ``predictkit bounds`` does."""

import json

import numpy as np
import pytest

from predictkit.cli import main
from predictkit.exceptions import ConfigError
from predictkit.experiments import (check_cells, evaluate_cell, expand_grid, load_cell_trace,
                                    load_grid, run_grid)
from predictkit.io import write_swf
from predictkit.model_selection import replay
from predictkit.queue import QBETS, WaitPredictor

TRACE = "synthetic:1200"


def cell(**options):
    return expand_grid({"traces": [TRACE], "predictors": ["requested"],
                        "options": {"seed": 3, **options}})[0]


def reference_metrics(waits, bounds):
    """Correctness and median bound/wait (jobs waiting > 60 s), written out plainly."""
    has = [i for i in range(len(waits)) if np.isfinite(bounds[i])]
    correct = sum(waits[i] <= bounds[i] for i in has) / len(has)
    ratios = sorted(bounds[i] / waits[i] for i in has if waits[i] > 60.0)
    mid = len(ratios) // 2
    median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    return correct, median


@pytest.mark.parametrize(("method", "quantile"), [("qbets", 0.9), ("wait", 0.8)])
def test_wait_metrics_equal_a_direct_replay(method, quantile):
    the_cell = cell(wait_bounds=method, wait_quantile=quantile)
    out = evaluate_cell(the_cell)
    jobs = load_cell_trace(the_cell)
    waits = jobs["wait_time"].to_numpy(dtype=float)
    assert np.isfinite(waits).all()
    model = (QBETS(quantile=quantile, confidence=0.95, random_state=0) if method == "qbets"
             else WaitPredictor(quantile=quantile, capacity=jobs.attrs.get("max_procs")))
    bounds = replay(model, jobs, waits)
    correct, median = reference_metrics(waits, bounds)
    assert out["wait_n_jobs"] == len(jobs)
    assert out["wait_n_bounded"] == int(np.isfinite(bounds).sum()) > 0.9 * len(jobs)
    assert out["wait_correctness"] == pytest.approx(correct, abs=1e-12)
    assert out["wait_median_ratio"] == pytest.approx(median, rel=1e-12)
    assert out["wait_meets_quantile"] == (correct >= quantile)


def test_default_quantile_is_095_and_no_option_adds_no_wait_metric():
    with_default = evaluate_cell(cell(wait_bounds="qbets"))
    explicit = evaluate_cell(cell(wait_bounds="qbets", wait_quantile=0.95))
    assert with_default == explicit
    looser = evaluate_cell(cell(wait_bounds="qbets", wait_quantile=0.5))
    assert looser["wait_median_ratio"] < explicit["wait_median_ratio"]
    assert not any(key.startswith("wait_") for key in evaluate_cell(cell()))


@pytest.mark.parametrize("method", ["qbets", "wait"])
def test_sweep_cell_agrees_with_the_bounds_command(method, tmp_path, capsys):
    path = tmp_path / "t.swf"
    write_swf(load_cell_trace(cell()), path)
    the_cell = expand_grid({"traces": [str(path)], "predictors": ["requested"],
                            "options": {"wait_bounds": method, "wait_quantile": 0.9}})[0]
    out = evaluate_cell(the_cell)
    assert main(["bounds", str(path), "--method", method, "--quantile", "0.9", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    for key in ("n_jobs", "n_bounded", "correctness", "median_ratio", "mean_ratio"):
        assert out[f"wait_{key}"] == pytest.approx(summary[key], rel=1e-12), key


def test_wait_metrics_reach_the_sweep_table(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{TRACE}"]\npredictors = ["requested"]\n'
                    '[options]\nwait_bounds = "wait"\n')
    table = run_grid(expand_grid(load_grid(grid), source=grid), evaluate_cell,
                     results=tmp_path / "out.csv")
    assert table["option_wait_bounds"].tolist() == ["wait"]
    assert 0.0 < table["wait_correctness"].iloc[0] <= 1.0
    assert table["wait_median_ratio"].iloc[0] > 0.0


@pytest.mark.parametrize(("options", "message"), [
    ('wait_bounds = "varq"', r"(^|/)grid\.toml: options\.wait_bounds = 'varq': must be one of qbets, wait$"),
    ('wait_bounds = 1', r"(^|/)grid\.toml: options\.wait_bounds = 1: must be one of qbets, wait$"),
    ('wait_bounds = "qbets"\nwait_quantile = 1.5',
     r"(^|/)grid\.toml: options\.wait_quantile = 1\.5: must be a number in \(0, 1\)$"),
    ('wait_bounds = "wait"\nwait_quantile = 0',
     r"(^|/)grid\.toml: options\.wait_quantile = 0: must be a number in \(0, 1\)$"),
    ('wait_bounds = "wait"\nwait_quantile = true',
     r"(^|/)grid\.toml: options\.wait_quantile = True: must be a number in \(0, 1\)$"),
    ('wait_bounds = "wait"\nwait_quantile = "high"',
     r"(^|/)grid\.toml: options\.wait_quantile = 'high': must be a number in \(0, 1\)$"),
    ('wait_bounds = "wait"\nwait_quantile = nan',
     r"(^|/)grid\.toml: options\.wait_quantile = nan: must be a number in \(0, 1\)$"),
    ('wait_quantile = 0.9', r"(^|/)grid\.toml: options\.wait_quantile = 0\.9: needs options\.wait_bounds"),
])
def test_bad_wait_option_is_one_config_error_line(tmp_path, options, message):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{TRACE}"]\n[options]\n{options}\n')
    with pytest.raises(ConfigError, match=message) as caught:
        check_cells(expand_grid(load_grid(grid), source=grid), source=grid)
    assert "\n" not in str(caught.value)


def test_bad_wait_option_fails_the_sweep_command_before_any_cell(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{TRACE}"]\n[options]\nwait_bounds = "QBETS"\n')
    assert main(["sweep", str(grid), "-o", str(tmp_path / "out.csv"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "options.wait_bounds = 'QBETS': must be one of qbets, wait" in err
    assert "\n" not in err
    assert not (tmp_path / "out.csv").exists()

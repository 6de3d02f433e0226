import pandas as pd
import pytest

from predictkit.exceptions import ConfigError, InvalidParameterError
from predictkit.experiments import cell_key, evaluate_cell, expand_grid, load_grid, run_grid
from tracedata import trace_file

SPEC = {
    "traces": ["a", "b"],
    "predictors": ["requested", {"name": "tang", "params": {"quantile": [0.7, 0.9], "window": "30D"}}],
    "policies": ["easy", "fcfs"],
    "options": {"max_jobs": 100},
}


def toy_metrics(cell):
    """A deterministic stand-in for a real evaluation."""
    q = cell["params"].get("quantile", 1.0)
    return {"score": len(cell["trace"]) * q + (cell["policy"] == "easy"), "n": 3}


def test_expand_grid_is_the_full_product_in_stable_order():
    cells = expand_grid(SPEC)
    assert len(cells) == 2 * 3 * 2
    assert cells[0] == {"trace": "a", "predictor": "requested", "params": {}, "policy": "easy",
                        "priority": None, "options": {"max_jobs": 100}}
    assert {c["params"].get("quantile") for c in cells} == {None, 0.7, 0.9}
    assert len({cell_key(c) for c in cells}) == len(cells)


@pytest.mark.parametrize("spec, message", [
    ({"predictors": ["x"]}, "needs 'traces'"),
    ({"traces": ["a"], "policy": ["easy"]}, "unknown grid key"),
    ({"traces": []}, "is empty"),
    ({"traces": ["a"], "predictors": [{"params": {}}]}, "with 'name'"),
])
def test_bad_grids_are_named(spec, message):
    with pytest.raises(ConfigError, match=message):
        expand_grid(spec)


def test_grid_files_toml_and_yaml(tmp_path):
    toml = tmp_path / "g.toml"
    toml.write_text('traces = ["a"]\npolicies = ["easy"]\n[[predictors]]\nname = "tang"\n'
                    '[predictors.params]\nquantile = [0.5, 0.9]\n')
    yaml = tmp_path / "g.yaml"
    yaml.write_text("traces: [a]\npolicies: [easy]\npredictors:\n  - name: tang\n"
                    "    params: {quantile: [0.5, 0.9]}\n")
    assert expand_grid(load_grid(toml)) == expand_grid(load_grid(yaml))
    bad = tmp_path / "g.toml"
    bad.write_text("traces = [")
    with pytest.raises(ConfigError, match="cannot parse"):
        load_grid(bad)


class Interrupted(Exception):
    """Stands for a sweep killed half-way (Ctrl-C, a lost node)."""


def test_results_table_and_resume_after_interruption(tmp_path):
    cells = expand_grid(SPEC)
    out = tmp_path / "results.csv"
    calls = []
    interrupt = [True]

    def flaky(cell):
        calls.append(cell_key(cell))
        if interrupt[0] and len(calls) == 5:
            raise Interrupted
        return toy_metrics(cell)

    with pytest.raises(Interrupted):
        run_grid(cells, flaky, results=out)
    assert not out.exists() and len(list((tmp_path / "results.csv.parts").glob("*.json"))) == 4
    calls.clear()
    interrupt[0] = False
    table = run_grid(cells, flaky, results=out)
    assert len(calls) == len(cells) - 4  # finished cells were not recomputed
    assert len(table) == len(cells) and list(table["cell"]) == [cell_key(c) for c in cells]
    again = pd.read_csv(out)
    assert list(again["score"]) == pytest.approx(list(table["score"]))
    assert {"param_quantile", "param_window", "option_max_jobs"} <= set(table.columns)


def test_local_processes_give_the_in_process_result():
    cells = expand_grid(SPEC)
    serial = run_grid(cells, toy_metrics)
    parallel = run_grid(cells, toy_metrics, backend="threading", n_workers=2)
    pd.testing.assert_frame_equal(serial, parallel)


def test_deprecated_n_jobs_still_sets_the_workers():
    cells = expand_grid(SPEC)
    with pytest.warns(DeprecationWarning, match=r"run_grid\(n_jobs=\.\.\.\) is deprecated.*n_workers="):
        old = run_grid(cells, toy_metrics, backend="threading", n_jobs=2)
    pd.testing.assert_frame_equal(old, run_grid(cells, toy_metrics))
    with pytest.raises(ConfigError, match="give n_workers= only"):
        run_grid(cells, toy_metrics, n_workers=3, n_jobs=2)


def test_dask_local_cluster_gives_the_in_process_result(tmp_path):
    distributed = pytest.importorskip("distributed")

    spec = {"traces": [str(trace_file("KTH-SP2-1996-2.1-cln"))],
            "predictors": ["requested", {"name": "tang", "params": {"quantile": [0.7, 0.9]}},
                           "usage-max"],
            "policies": ["easy"], "options": {"max_jobs": 1500, "selective": True}}
    cells = expand_grid(spec)
    serial = run_grid(cells, evaluate_cell)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = run_grid(cells, evaluate_cell, scheduler=cluster.scheduler_address,
                          results=tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(serial, remote)
    assert len(list((tmp_path / "r.parquet.parts").glob("*.json"))) == len(cells)
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(cells)
    assert serial["schedule_mean_wait"].notna().all()


def test_starvation_options_apply_to_the_no_guarantee_cells():
    from predictkit.experiments import evaluate_cell

    spec = {"traces": ["synthetic:600"], "predictors": ["requested"],
            "policies": ["easy", "no_guarantee"], "priorities": ["fairshare"],
            "options": {"starvation_after": "1h", "starvation_bar_heavy": True,
                        "max_runtime": "6h"}}
    table = run_grid(expand_grid(spec), evaluate_cell).set_index("policy")
    plain = run_grid(expand_grid({**spec, "options": {"max_runtime": "6h"}}),
                     evaluate_cell).set_index("policy")
    assert table.loc["easy", "schedule_mean_wait"] == plain.loc["easy", "schedule_mean_wait"]
    assert (table.loc["no_guarantee", "schedule_mean_wait"]
            != plain.loc["no_guarantee", "schedule_mean_wait"])


def test_a_scheduler_with_another_backend_is_refused():
    with pytest.raises(ConfigError, match=r"^scheduler runs the cells on Dask; it cannot be "
                                          r"combined with backend='loky'$"):
        run_grid(expand_grid(SPEC), toy_metrics, backend="loky", scheduler="tcp://host:8786")


@pytest.mark.parametrize(("address", "message"), [
    ("notanaddress", "missing port number"), ("http://localhost:8786", "unknown address scheme")])
def test_a_scheduler_address_dask_cannot_use_is_one_config_error(address, message):
    pytest.importorskip("dask.distributed")
    with pytest.raises(ConfigError, match=f"cannot connect to the Dask scheduler '{address}': "
                                          f".*{message}") as info:
        run_grid(expand_grid(SPEC), toy_metrics, scheduler=address)
    assert "\n" not in str(info.value)


def test_a_wrong_scheduler_fails_before_the_traces_are_read_or_anything_is_written(
        tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    from predictkit.experiments import _runner

    read = []
    monkeypatch.setattr(_runner, "check_trace_jobs", lambda *a, **k: read.append(a))
    with pytest.raises(ConfigError, match="cannot connect to the Dask scheduler"):
        run_grid(expand_grid({"traces": ["synthetic:50"]}), evaluate_cell,
                 results=tmp_path / "r.csv", scheduler="nonsense")
    assert read == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("results", [5, b"r.csv", ["r.csv"]])
def test_results_that_are_no_path_are_named(results):
    with pytest.raises(InvalidParameterError, match=r"^The 'results' parameter of run_grid "
                       r"must be a path \(str or os.PathLike\) of a .csv or .parquet file, "
                       r"or None\. Got .* instead\.$"):
        run_grid(expand_grid(SPEC), toy_metrics, results=results)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"backend": "bogus"}, r"^backend must be one of None, 'loky', 'threading', 'dask', "
                           r"got 'bogus'$"),
    ({"backend": "loky", "n_workers": 0}, r"^n_workers must be a whole number >= 1 \(or -1"),
    ({"backend": "loky", "n_workers": 1.5}, r"^n_workers must be a whole number"),
])
def test_a_backend_or_worker_count_joblib_cannot_use_is_refused_first(kwargs, message):
    ran = []
    with pytest.raises(ConfigError, match=message):
        run_grid(expand_grid(SPEC), lambda cell: ran.append(cell) or {"x": 1.0}, **kwargs)
    assert ran == []


def test_cells_are_reused_only_by_the_evaluate_function_that_made_them(tmp_path):
    cells = expand_grid(SPEC)
    out = tmp_path / "results.csv"
    run_grid(cells, toy_metrics, results=out)
    calls = []

    def mine(cell):
        calls.append(cell_key(cell))
        return {"my_metric": 42.0}

    with pytest.warns(UserWarning, match=r"12 finished cells of this grid made by another "
                      r"evaluate function or predictkit version than .*mine predictkit"):
        table = run_grid(cells, mine, results=out)
    assert len(calls) == len(cells) and (table["my_metric"] == 42.0).all()
    calls.clear()
    run_grid(cells, mine, results=out)
    assert calls == []  # the same function reuses its own cells


def test_a_worker_gets_the_trace_found_here_and_writes_where_the_sweep_runs(
        tmp_path, monkeypatch):
    import os

    from predictkit.io import read_swf, write_swf

    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    write_swf(read_swf(trace_file("KTH-SP2-1996-2.1-cln")).iloc[:50], here / "t.swf")
    write_swf(read_swf(trace_file("KTH-SP2-1996-2.1-cln")).iloc[50:90], elsewhere / "t.swf")
    monkeypatch.chdir(here)
    seen = []

    def in_another_folder(cell):
        # a worker runs in a folder of its own, with a file of the same name there
        os.chdir(elsewhere)
        seen.append(cell["trace"])
        return {"n": len(read_swf(cell["trace"]))}

    cells = expand_grid({"traces": ["t.swf"], "predictors": ["requested"]})
    table = run_grid(cells, in_another_folder, results="r.csv")
    assert seen == [str(here / "t.swf")] and table["n"].tolist() == [50]
    assert table["trace"].tolist() == ["t.swf"]  # the grid's own text in the table
    assert len(list((here / "r.csv.parts").glob("*.json"))) == 1
    assert not (elsewhere / "r.csv.parts").exists()


def test_a_cell_is_not_computed_on_another_file_than_it_is_keyed_on(tmp_path):
    from predictkit.experiments._runner import _run_one, _sent_cell
    from predictkit.io import read_swf, write_swf

    path = tmp_path / "t.swf"
    write_swf(read_swf(trace_file("KTH-SP2-1996-2.1-cln")).iloc[:50], path)
    cell = expand_grid({"traces": [str(path)], "predictors": ["requested"]})[0]
    sent = _sent_cell(cell)
    write_swf(read_swf(trace_file("KTH-SP2-1996-2.1-cln")).iloc[:60], path)
    with pytest.raises(ConfigError, match=r"differs \(size, time or content\) where this cell "
                       r"is computed: the workers must read the same files"):
        _run_one(toy_metrics, cell, None, cell_key(cell), *sent, "toy")
    path.unlink()
    with pytest.raises(ConfigError, match=r"t\.swf is missing where this cell is computed"):
        _run_one(toy_metrics, cell, None, cell_key(cell), *sent, "toy")


PARTS_SCRIPT = """
import sys
from predictkit.exceptions import OutputError
from predictkit.experiments import expand_grid, run_grid

def never(cell):
    raise AssertionError("a cell ran")

try:
    run_grid(expand_grid({"traces": ["a"], "predictors": ["requested"]}), never,
             results=sys.argv[1])
except OutputError as exc:
    print(exc)
"""


def test_a_parts_folder_that_refuses_files_fails_before_the_first_cell(tmp_path):
    import os
    import subprocess
    import sys

    from test_atomic import REPO, can_mount_read_only, read_only_mount_command

    if not can_mount_read_only(tmp_path):
        pytest.skip("no private read-only mount here (needs root and unshare)")
    parts = tmp_path / "r.csv.parts"
    parts.mkdir()
    command = read_only_mount_command(parts, [sys.executable, "-c", PARTS_SCRIPT,
                                              str(tmp_path / "r.csv")])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0 and "a cell ran" not in done.stderr, done.stderr
    assert done.stdout.startswith(f"cannot write {parts}/") and "not writable" in done.stdout


def _metrics(cell):
    return {"mean_wait": 1.0}


@pytest.mark.parametrize(("cells", "evaluate", "progress", "name"), [
    ("abc", _metrics, False, "cells"),
    (None, 5, False, "evaluate"),
    (None, _metrics, 5, "progress"),
])
def test_run_grid_names_an_argument_it_cannot_use(tmp_path, cells, evaluate, progress, name):
    cells = expand_grid({"traces": [str(tmp_path / "t.swf")], "predictors": ["requested"]}) \
        if cells is None else cells
    with pytest.raises(InvalidParameterError, match=rf"^The '{name}' parameter of run_grid"):
        run_grid(cells, evaluate, progress=progress)


@pytest.mark.parametrize(("returned", "message"), [
    ({"trace": "other", "predictor": 1, "mean_wait": 2.0},
     r"^evaluate returned the metric\(s\) 'trace', 'predictor', which would overwrite"),
    (5, r"^evaluate must return a dict of metrics, got int$"),
])
def test_what_evaluate_returns_cannot_overwrite_the_cell(tmp_path, returned, message):
    cells = expand_grid({"traces": [str(tmp_path / "t.swf")], "predictors": ["requested"]})
    with pytest.raises(ConfigError, match=message):
        run_grid(cells, lambda cell: returned, results=tmp_path / "r.csv")
    assert not (tmp_path / "r.csv").exists()

"""Resumed sweeps never reuse cells of a changed trace, and survive corrupt cell files."""

import json
import os
import warnings

import pandas as pd
import pytest

from predictkit.experiments import cell_key, evaluate_cell, expand_grid, run_grid, trace_identity
from predictkit.experiments._identity import _MIB


def write_trace(path, n_jobs, *, run_time=100):
    lines = [f"{j} {60 * j} 0 {run_time + j} 2 -1 -1 2 600 -1 1 {j % 3 + 1} 1 -1 1 1 -1 -1"
             for j in range(1, n_jobs + 1)]
    path.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")


class Counting:
    """``evaluate_cell`` that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, cell):
        self.calls += 1
        return evaluate_cell(cell)


def test_a_changed_trace_file_is_computed_again(tmp_path):
    trace = tmp_path / "site.swf"
    write_trace(trace, 40)
    cells = expand_grid({"traces": [str(trace)], "predictors": ["requested", "recent-average"]})
    out = tmp_path / "r.csv"
    evaluate = Counting()
    first = run_grid(cells, evaluate, results=out)
    assert evaluate.calls == 2 and list(first["n_jobs"]) == [40, 40]
    run_grid(cells, evaluate, results=out)
    assert evaluate.calls == 2  # unchanged trace: both cells reused
    write_trace(trace, 30)  # same path, new content
    second = run_grid(cells, evaluate, results=out)
    assert evaluate.calls == 4
    assert list(second["n_jobs"]) == [30, 30]
    assert list(pd.read_csv(out)["n_jobs"]) == [30, 30]
    assert set(first["cell"]).isdisjoint(second["cell"])


def test_the_identity_sees_an_edit_that_keeps_size_and_modification_time(tmp_path):
    trace = tmp_path / "site.swf"
    write_trace(trace, 40, run_time=100)
    before = trace.stat()
    identity = trace_identity(str(trace))
    key = cell_key({"trace": str(trace), "predictor": "requested", "params": {}})
    write_trace(trace, 40, run_time=200)  # same length: every run time has three digits
    os.utime(trace, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert trace.stat().st_size == before.st_size
    assert trace_identity(str(trace)) != identity
    assert cell_key({"trace": str(trace), "predictor": "requested", "params": {}}) != key


def test_the_identity_reads_both_ends_of_a_large_file(tmp_path):
    trace = tmp_path / "big.swf"
    body = b"x" * (3 * _MIB)
    trace.write_bytes(body)
    stat = trace.stat()
    identity = trace_identity(str(trace))
    for offset in (10, len(body) - 10):  # a change in the first or in the last MiB
        changed = bytearray(body)
        changed[offset] = ord("y")
        trace.write_bytes(bytes(changed))
        os.utime(trace, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert trace_identity(str(trace)) != identity
    assert trace_identity("synthetic:100") is None
    assert trace_identity(str(tmp_path / "missing.swf")) is None


def toy(cell):
    return {"score": float(len(cell["trace"]))}


@pytest.mark.parametrize("damage", ["", "{\"cell\": ", "[1, 2]", "\xff\xfe", "wrong-cell",
                                    "edited-trace"])
def test_a_corrupt_or_empty_cell_file_is_named_and_recomputed(tmp_path, damage):
    cells = expand_grid({"traces": ["a", "bb", "ccc"]})
    out = tmp_path / "r.csv"
    calls = []

    def evaluate(cell):
        calls.append(cell["trace"])
        return toy(cell)

    expected = run_grid(cells, evaluate, results=out)
    victim = tmp_path / "r.csv.parts" / f"{cell_key(cells[1])}.json"
    if damage == "wrong-cell":
        victim.write_text(json.dumps({**expected.iloc[0].to_dict()}))
    elif damage == "edited-trace":  # its key kept, its configuration another cell's
        row = json.loads(victim.read_text())
        victim.write_text(json.dumps({**row, "trace": "other", "score": 123.0}))
    else:
        victim.write_bytes(damage.encode("latin-1"))
    calls.clear()
    with pytest.warns(UserWarning, match=f"{victim}: unreadable cell result .*computed again"):
        again = run_grid(cells, evaluate, results=out)
    assert calls == ["bb"]
    pd.testing.assert_frame_equal(again, expected)
    assert json.loads(victim.read_text())["cell"] == cell_key(cells[1])


def test_progress_callback_gets_one_call_per_cell(tmp_path):
    cells = expand_grid({"traces": ["a", "bb", "ccc"]})
    out = tmp_path / "r.csv"
    run_grid(cells[:1], toy, results=out)
    seen = []
    run_grid(cells, toy, results=out, progress=seen.append)
    assert [(s.done, s.total, s.reused) for s in seen] == [(0, 2, 1), (1, 2, 1), (2, 2, 1)]
    assert seen[0].row is None and [s.row["trace"] for s in seen[1:]] == ["bb", "ccc"]
    assert all(later.elapsed >= earlier.elapsed for earlier, later in zip(seen, seen[1:]))


def test_reused_rows_keep_the_types_evaluate_returned(tmp_path):
    import numpy as np

    def typed(cell):
        return {"count": np.int64(len(cell["trace"])), "flag": np.bool_(True),
                "share": np.float64(0.5), "plain": 3}

    cells = expand_grid({"traces": ["a", "bb"]})
    out = tmp_path / "r.csv"
    first = run_grid(cells, typed, results=out)
    again = run_grid(cells, typed, results=out)
    pd.testing.assert_frame_equal(again, first)
    assert again["count"].dtype == np.int64 and again["flag"].dtype == bool


def test_a_parquet_table_holds_a_column_of_mixed_parameter_values(tmp_path):
    cells = expand_grid({"traces": ["a"], "predictors": [
        {"name": "tang", "params": {"quantile": [0.9, "mean"]}}]})
    out = tmp_path / "r.parquet"
    table = run_grid(cells, toy, results=out)
    assert table["param_quantile"].tolist() == [0.9, "mean"]
    assert pd.read_parquet(out)["param_quantile"].tolist() == ["0.9", "mean"]


def test_a_corrupt_file_of_a_cell_not_in_the_grid_is_left_alone(tmp_path):
    cells = expand_grid({"traces": ["a", "bb"]})
    out = tmp_path / "r.csv"
    run_grid(cells, toy, results=out)
    stale = tmp_path / "r.csv.parts" / "0123456789abcdef.json"
    stale.write_text("{")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing of this grid is computed again
        assert list(run_grid(cells, toy, results=out)["score"]) == [1.0, 2.0]
    assert stale.read_text() == "{"

"""A grid's traces: relative paths start from the grid file's folder, and a trace no cell
could use is refused before the first cell runs."""

import shutil
import warnings

import pytest

from predictkit.exceptions import ConfigError
from predictkit.experiments import (cell_key, check_cells, evaluate_cell, expand_grid, load_grid,
                                    run_grid)


def write_trace(path, n_jobs=40, *, request=600):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{j} {60 * j} 0 {100 + j} 2 -1 -1 2 {request} -1 1 {j % 3 + 1} 1 -1 1 1 -1 -1"
             for j in range(1, n_jobs + 1)]
    path.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")
    return path


def grid_beside_its_traces(folder):
    write_trace(folder / "traces" / "t.swf")
    grid = folder / "grid.toml"
    grid.write_text('traces = ["traces/t.swf"]\npredictors = ["requested"]\n')
    return grid


def test_relative_trace_paths_start_from_the_grid_folder(tmp_path, monkeypatch):
    grid = grid_beside_its_traces(tmp_path / "study")
    monkeypatch.chdir(tmp_path)  # not the grid's folder
    cells = expand_grid(load_grid(grid), source=grid)
    check_cells(cells, source=grid)
    table = run_grid(cells, evaluate_cell)
    assert list(table["trace"]) == ["traces/t.swf"] and list(table["n_jobs"]) == [40]


def test_a_relative_trace_missing_beside_the_grid_names_its_folder(tmp_path, monkeypatch):
    grid = grid_beside_its_traces(tmp_path / "study")
    write_trace(tmp_path / "traces" / "t.swf")  # beside the working folder only
    (tmp_path / "study" / "traces" / "t.swf").unlink()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREDICTKIT_TRACES", str(tmp_path / "none"))
    monkeypatch.setenv("PREDICTKIT_DATA", str(tmp_path / "cache"))
    with pytest.raises(ConfigError, match=r"traces = 'traces/t\.swf': no such file, .*a relative "
                                          r"path starts from the grid's folder, .*study\)$"):
        check_cells(expand_grid(load_grid(grid), source=grid), source=grid)


def test_cell_keys_do_not_depend_on_where_the_grid_lies(tmp_path, monkeypatch):
    grid = grid_beside_its_traces(tmp_path / "study")
    monkeypatch.chdir(tmp_path / "study")
    as_before = cell_key(expand_grid(load_grid(grid))[0])  # relative to the working folder
    keys = {cell_key(expand_grid(load_grid(grid), source=grid)[0])}
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "study", moved)  # copy2: same content and times
    monkeypatch.chdir(tmp_path)
    keys.add(cell_key(expand_grid(load_grid(moved / "grid.toml"),
                                  source=moved / "grid.toml")[0]))
    assert keys == {as_before}


def test_a_trace_without_requests_is_refused_before_any_cell_runs(tmp_path):
    good = write_trace(tmp_path / "good.swf")
    bare = write_trace(tmp_path / "bare.swf", request=-1)
    cells = expand_grid({"traces": [str(good), str(bare)], "predictors": ["requested"]})
    calls = []
    with pytest.raises(ConfigError, match=rf"^grid\.toml: traces: {bare}: no job left of 40 "
                                          r"after removing those without a usable size, "
                                          r"runtime or requested time$"):
        run_grid(cells, evaluate_cell, results=tmp_path / "r.csv", progress=calls.append,
                 source="grid.toml")
    assert calls == [] and not (tmp_path / "r.csv.parts").exists()


def test_each_trace_is_read_once_and_finished_ones_not_at_all(tmp_path, monkeypatch):
    import predictkit.io
    from predictkit.experiments import _evaluate

    trace = write_trace(tmp_path / "t.swf")
    reads = []
    real = predictkit.io.read_log
    monkeypatch.setattr(predictkit.io, "read_log", lambda path: reads.append(path) or real(path))
    cells = expand_grid({"traces": [str(trace)], "predictors": ["requested", "recent-average"],
                         "options": {"max_jobs": 30}})
    for _ in range(2):  # the second run reuses both cells
        _evaluate._logged_jobs.cache_clear()
        _evaluate._read.cache_clear()
        table = run_grid(cells, evaluate_cell, results=tmp_path / "r.csv")
        assert list(table["n_jobs"]) == [30, 30] and len(reads) == 1


def test_a_max_runtime_too_short_for_a_trace_is_refused_before_any_cell_runs(
        tmp_path, monkeypatch):
    from predictkit.simulate import _simulate

    monkeypatch.setattr(_simulate, "MAX_PIECES", 499)
    trace = write_trace(tmp_path / "t.swf")  # 40 jobs of 101 to 140 s: 500 pieces of 10 s
    cells = expand_grid({"traces": [str(trace)], "predictors": ["requested"],
                         "policies": ["easy"], "options": {"max_runtime": 10}})
    calls = []
    with pytest.raises(ConfigError, match=rf"^grid\.toml: options\.max_runtime = 10: on "
                                          rf"{trace}, max_runtime=10 s cuts the jobs into 500 "
                                          r"pieces \(more than 499; the longest job, at row 30, "
                                          r"into 14\): give a longer max_runtime$"):
        run_grid(cells, evaluate_cell, results=tmp_path / "r.csv", progress=calls.append,
                 source="grid.toml")
    assert calls == [] and not (tmp_path / "r.csv.parts").exists()
    # cells that simulate fewer jobs are cut into fewer pieces: 110 for the first 10
    cells = expand_grid({"traces": [str(trace)], "predictors": ["requested"],
                         "policies": ["easy"], "options": {"max_runtime": 10, "max_jobs": 10}})
    table = run_grid(cells, evaluate_cell, results=tmp_path / "r.csv")
    assert list(table["n_jobs"]) == [10]


def grid_on_a_trace_without_groups(folder, keys=None):
    trace = write_trace(folder / "nogroups.swf")
    fields = [line.split() for line in trace.read_text().splitlines()[1:]]
    for line in fields:
        line[12] = "-1"  # no group for any job, as in SDSC-BLUE and the LLNL logs
    trace.write_text("; MaxProcs: 8\n" + "\n".join(" ".join(f) for f in fields) + "\n")
    grid = folder / "grid.toml"
    params = "" if keys is None else f'\n[predictors.params]\nkeys = ["{keys}"]\n'
    grid.write_text('traces = ["nogroups.swf"]\n[[predictors]]\nname = "tang"\n' + params)
    return grid


def test_tang_cells_without_keys_leave_out_a_key_the_trace_gives_for_no_job(tmp_path):
    grid = grid_on_a_trace_without_groups(tmp_path)
    cells = expand_grid(load_grid(grid), source=grid)
    with pytest.warns(UserWarning, match=r"nogroups\.swf gives group_id for no job: its tang "
                                         r"cells without keys leave it out"):
        table = run_grid(cells, evaluate_cell)
    assert list(table["tang_keys"]) == ["user_id,req_time"]


def test_tang_keys_a_trace_gives_for_no_job_are_refused_before_the_first_cell(tmp_path):
    grid = grid_on_a_trace_without_groups(tmp_path, keys="user,group")
    cells = expand_grid(load_grid(grid), source=grid)
    with pytest.raises(ConfigError, match=r"grid\.toml: tang keys 'user,group': .*nogroups\.swf "
                                          r"gives group_id for no job, so Tang would adjust no "
                                          r"job"):
        run_grid(cells, evaluate_cell, results=tmp_path / "out.csv", source=grid)
    assert not (tmp_path / "out.csv.parts").exists()


@pytest.mark.parametrize("name", ["synthetic_logs/t.swf", "synthetic-t.swf"])
def test_a_trace_file_whose_name_starts_like_synthetic_is_a_file(tmp_path, monkeypatch, name):
    write_trace(tmp_path / name)
    grid = tmp_path / "grid.toml"
    grid.write_text(f'traces = ["{name}"]\npredictors = ["requested"]\n')
    monkeypatch.chdir(tmp_path)
    cells = expand_grid(load_grid(grid), source=grid)
    check_cells(cells, source=grid)
    assert list(run_grid(cells, evaluate_cell)["n_jobs"]) == [40]


def test_a_machine_narrower_than_the_traces_jobs_is_warned_about_before_the_first_cell(
        tmp_path):
    from predictkit.experiments._evaluate import check_trace_jobs

    trace = write_trace(tmp_path / "t.swf")  # 40 jobs of 2 processors, MaxProcs 8
    spec = {"traces": [str(trace)], "predictors": ["requested"], "policies": ["easy"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_trace_jobs(expand_grid(spec))  # the header's 8 processors hold every job
    narrow = expand_grid({**spec, "options": {"machine_procs": 1}})
    with pytest.warns(UserWarning) as said:
        check_trace_jobs(narrow)
    said = [str(warning.message) for warning in said]
    assert said[0].endswith("t.swf: 40 jobs wider than the machine (1 processor) are left "
                            "out of its cells' schedules (options.machine_procs 1; see "
                            "schedule_n_jobs)")
    assert "keeps up to 6 processors busy at once, more than the machine size of 1" in said[1]
    # cells that simulate nothing say nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_trace_jobs(expand_grid({"traces": [str(trace)], "predictors": ["requested"]}))


@pytest.mark.parametrize("bounds", [False, True])
def test_a_trace_without_waits_is_warned_to_get_simulated_ones(tmp_path, bounds):
    from predictkit.experiments._evaluate import check_trace_jobs

    trace = write_trace(tmp_path / "t.swf")
    trace.write_text(trace.read_text().replace(" 0 1", " -1 1", 1))  # job 1's wait
    spec = {"traces": [str(trace)], "predictors": ["requested"],
            "options": {"wait_bounds": "qbets"} if bounds else {}}
    with pytest.warns(UserWarning) as said:
        check_trace_jobs(expand_grid(spec))
    assert [str(w.message) for w in said] == [
        f"{trace}: 1 job has no wait time in the log: every cell takes its wait from an EASY "
        f"simulation of the log with requested estimates (for when runtimes become known"
        f"{', and as the waits wait_bounds bound' if bounds else ''})"]
    trace.write_text(trace.read_text().replace(" -1 1", " 0 1", 1)
                     .replace("\n40 2400 0", "\n40 2400 -1"))  # the last job's wait instead
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cells use the first 39 jobs, which have waits
        check_trace_jobs(expand_grid({**spec, "options": {**spec["options"], "max_jobs": 39}}))
    with pytest.warns(UserWarning, match="1 job has no wait time"):
        check_trace_jobs(expand_grid({**spec, "options": {**spec["options"], "max_jobs": 40}}))


def test_a_synthetic_trace_wider_than_the_cells_machine_is_warned_about_when_simulated():
    from predictkit.workload import make_workload

    spec = {"traces": ["synthetic:300"], "predictors": ["requested"], "policies": ["easy"],
            "options": {"machine_procs": 16}}
    wider = int((make_workload(300, random_state=0)["n_procs"] > 16).sum())
    assert wider > 0
    with pytest.warns(UserWarning) as said:
        result = evaluate_cell(expand_grid(spec)[0])
    assert [str(w.message) for w in said] == [
        f"synthetic:300: {wider} jobs wider than the machine (16 processors) are left out of "
        "its cells' schedules (options.machine_procs 16; see schedule_n_jobs): a synthetic "
        "workload is generated for 128 processors"]
    assert result["schedule_n_jobs"] == 300 - wider
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # on its own 128 processors every job runs
        assert evaluate_cell(expand_grid({**spec, "options": {}})[0])["schedule_n_jobs"] == 300


def test_a_per_user_predictor_on_a_trace_without_users_is_warned_about(tmp_path):
    from predictkit.experiments import check_trace_jobs

    path = write_trace(tmp_path / "nousers.swf")
    lines = [line.split() for line in path.read_text().splitlines()[1:]]
    for line in lines:
        line[11] = "-1"  # no user for any job, as in ANL-Theta
    path.write_text("; MaxProcs: 8\n" + "\n".join(" ".join(f) for f in lines) + "\n")
    cells = expand_grid({"traces": [str(path)],
                         "predictors": ["requested", "usage-max", "learned"]})
    with pytest.warns(UserWarning) as caught:
        check_trace_jobs(cells)
    assert [str(w.message) for w in caught if "for no job" in str(w.message)] == [
        f"{path}: usage-max (in its usage-max cells) learns from the past jobs of each "
        "user_id, which the log gives for no job: it keeps every request"]


def test_jobs_left_out_of_every_cell_are_counted_in_a_warning(tmp_path):
    from predictkit.experiments import check_trace_jobs

    path = write_trace(tmp_path / "some_without_request.swf")
    lines = [line.split() for line in path.read_text().splitlines()[1:]]
    for line in lines[:3]:
        line[8] = "-1"  # no requested time
    path.write_text("; MaxProcs: 8\n" + "\n".join(" ".join(f) for f in lines) + "\n")
    with pytest.warns(UserWarning, match=rf"{path}: left out 3 jobs with req_time unknown or not "
                      r"positive, in every cell \(options\.max_jobs counts the jobs kept\)"):
        check_trace_jobs(expand_grid({"traces": [str(path)], "predictors": ["requested"]}))


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_trace_named_by_bytes_that_are_no_utf8_gets_a_row(tmp_path, suffix):
    name = b"k\xffth.swf".decode("utf-8", "surrogateescape")
    write_trace(tmp_path / name)
    other = write_trace(tmp_path / b"k\xfeth.swf".decode("utf-8", "surrogateescape"))
    cells = [dict(expand_grid({"traces": [str(tmp_path / name)],
                               "predictors": ["requested"]})[0]),
             dict(expand_grid({"traces": [str(other)], "predictors": ["requested"]})[0])]
    results = tmp_path / f"out{suffix}"
    table = run_grid(cells, evaluate_cell, results=results)
    assert list(table["trace"]) == [str(tmp_path / "k\ufffdth.swf")] * 2
    assert table["cell"].nunique() == 2 and list(table["n_jobs"]) == [40, 40]
    assert results.exists()

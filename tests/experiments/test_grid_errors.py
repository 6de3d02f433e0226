"""Every bad grid is one ConfigError line naming the file and the key, before any cell runs."""

from contextlib import nullcontext
from pathlib import Path

import pytest

from predictkit.exceptions import ConfigError
from predictkit.experiments import (check_cells, evaluate_cell, expand_grid, load_cell_trace,
                                    load_grid)


def grid_file(tmp_path, text, name="grid.toml"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return path


def check(path):
    check_cells(expand_grid(load_grid(path), source=path), source=path)


@pytest.fixture
def swf(tmp_path):
    """A small SWF trace file (a path any grid may name)."""
    path = tmp_path / "t.swf"
    lines = [f"{j} {60 * j} 0 {100 + j} 2 -1 -1 2 600 -1 1 {j % 3 + 1} 1 -1 1 1 -1 -1"
             for j in range(1, 41)]
    path.write_text("; MaxProcs: 8\n" + "\n".join(lines) + "\n")
    return path


GOOD = 'traces = ["{trace}"]\n'


@pytest.mark.parametrize(("body", "message"), [
    # out-of-range and wrong-typed predictor parameters
    ('[[predictors]]\nname = "tang"\nparams = {quantile = 7}\n',
     r"predictors\.tang\.params\.quantile = 7: The 'quantile' parameter"),
    ('[[predictors]]\nname = "tang"\nparams = {quantile = [0.9, 7]}\n',
     r"predictors\.tang\.params\.quantile = 7:"),
    ('[[predictors]]\nname = "tang"\nparams = {window = -5}\n',
     r"predictors\.tang\.params\.window = -5: The .window. parameter of WalltimeAdjuster must be a duration >= 0"),
    ('[[predictors]]\nname = "tang"\nparams = {window = "soon"}\n',
     r"predictors\.tang\.params\.window = 'soon'"),
    ('[[predictors]]\nname = "tang"\nparams = {min_jobs = 2.5}\n',
     r"predictors\.tang\.params\.min_jobs = 2\.5"),
    ('[[predictors]]\nname = "tang"\nparams = {keys = "user,nonsense"}\n',
     r"predictors\.tang\.params\.keys = 'user,nonsense': .*nonsense"),
    ('[[predictors]]\nname = "usage-max"\nparams = {n_recent = 0}\n',
     r"predictors\.usage-max\.params\.n_recent = 0"),
    ('[[predictors]]\nname = "tang"\nparams = {quantil = 0.9}\n',
     r"has no parameter\(s\) quantil"),
    ('[[predictors]]\nname = "tang"\nparams = {quantile = []}\n',
     r"predictors\[0\]\.params\.quantile is empty"),
    ('[[predictors]]\nname = "tang"\nparams = {quantile = {a = 1}}\n',
     r"predictors\[0\]\.params\.quantile must be a value or a list"),
    ('[[predictors]]\nname = "tang"\nparam = {quantile = 0.9}\n',
     r"predictors\[0\] has unknown key\(s\) param"),
    ('predictors = ["oracle"]\n', r"predictors = 'oracle': unknown predictor"),
    ('predictors = [3]\n', r"predictors\[0\] must be a name or a table"),
    # options
    ('[options]\nmax_jobs = -5\n', r"options\.max_jobs = -5: must be a whole number >= 1"),
    ('[options]\nmax_jobs = 0\n', r"options\.max_jobs = 0:"),
    ('[options]\nmax_jobs = 1.5\n', r"options\.max_jobs = 1\.5:"),
    ('[options]\nmax_jobs = "all"\n', r"options\.max_jobs = 'all':"),
    ('[options]\nmax_jobs = true\n', r"options\.max_jobs = True:"),
    ('[options]\nseed = -1\n', r"options\.seed = -1: must be a whole number from 0 to "),
    ('[options]\nseed = 100000000000000000000\n',
     r"options\.seed = 100000000000000000000: must be a whole number from 0 to 4,294,967,295"),
    ('[options]\nselective = "yes"\n', r"options\.selective = 'yes': must be true or false"),
    ('[options]\non_underestimate = "kill"\n', r"options\.on_underestimate = 'kill': must be one"),
    ('[options]\nbackfill_order = "lifo"\n', r"options\.backfill_order = 'lifo'"),
    ('[options]\nbad_threshold = -1\n', r"options\.bad_threshold = -1"),
    ('[options]\nmachine_procs = 0\n', r"options\.machine_procs = 0"),
    ('[options]\nn_procs = 0\n', r"options\.n_procs = 0"),
    ('[options]\nmax_runtime = 0\n', r"options\.max_runtime = 0: must be a positive duration"),
    ('[options]\nstarvation_after = "soon"\n', r"options\.starvation_after = 'soon'"),
    ('[options]\nstarvation_bar_heavy = "yes"\n',
     r"options\.starvation_bar_heavy = 'yes': must be true or false"),
    ('[options]\nstarvation_bar_heavy = true\n',
     r"options\.starvation_bar_heavy = True: needs options\.starvation_after"),
    ('[options]\nmaxjobs = 10\n', r"unknown option options\.maxjobs; known: "),
    ('[options]\nmax_jobs = [1, 2]\n', r"options\.max_jobs must be a single value"),
    ('options = 5\n', r"options must be a table"),
    # policies and priorities
    ('policies = ["easy", "lifo"]\n', r"policies = 'lifo': must be one of"),
    ('policies = "easy"\npriorities = ["random"]\n', r"priorities = 'random': must be one of"),
    ('policies = [1]\n', r"policies\[0\] must be a non-empty string"),
    ('policies = []\n', r"policies is empty"),
    ('priorities = ["sjf"]\n', r"priorities = 'sjf': a priority needs a policy"),
    ('policies = ["easy", "easy"]\n', r"policies gives 'easy' twice"),
    ('predictors = ["tang", "requested", "tang"]\n', r"predictors gives .*tang.* twice"),
    ('[[predictors]]\nname = "tang"\nparams = {quantile = [1, 1.0]}\n',
     r"predictors gives .*quantile.*: 1\}.* twice"),
    # keys
    ('policy = ["easy"]\n', r"unknown grid key\(s\) policy"),
])
def test_bad_values_name_the_file_and_the_key(tmp_path, swf, body, message):
    path = grid_file(tmp_path, GOOD.format(trace=swf) + body)
    with pytest.raises(ConfigError, match=message) as caught:
        check(path)
    text = str(caught.value)
    assert text.startswith(f"{path}") and "\n" not in text


@pytest.mark.parametrize(("traces", "message"), [
    ('["synthetic:abc"]', r"traces = 'synthetic:abc': a synthetic trace is 'synthetic' or"),
    ('["synthetic:0"]', r"traces = 'synthetic:0'"),
    ('["synthetic:010"]', r"traces = 'synthetic:010': .* written without leading zeros"),
    ('["synthetic:-5"]', r"traces = 'synthetic:-5'"),
    ('["no/such/file.swf"]', r"traces = 'no/such/file.swf': no such file, and no trace"),
    ('["a\\u0000b"]', r"traces = 'a\\x00b': no such file, and no trace"),
    ('[5]', r"traces\[0\] must be a non-empty string, got 5"),
    ('[""]', r"traces\[0\] must be a non-empty string"),
    ('[]', r"traces is empty"),
    ('["synthetic:10000000000"]', r"10,000,000,000 jobs would need about [\d,]+ GiB of memory"),
    ('["{tmp}"]', r"traces = '.*': is a directory, not a trace file"),
    ('["synthetic:5", "synthetic:5"]', r"traces gives 'synthetic:5' twice"),
])
def test_bad_traces_are_named(tmp_path, monkeypatch, traces, message):
    traces = traces.replace("{tmp}", str(tmp_path))
    monkeypatch.setenv("PREDICTKIT_TRACES", str(tmp_path / "none"))
    monkeypatch.setenv("PREDICTKIT_DATA", str(tmp_path / "cache"))
    path = grid_file(tmp_path, f"traces = {traces}\n")
    with pytest.raises(ConfigError, match=message):
        check(path)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("g.toml", "", r"g\.toml: the grid is empty; it needs at least 'traces'"),
    ("g.yaml", "", r"g\.yaml: the grid is empty"),
    ("g.yaml", "# nothing but a comment\n", r"g\.yaml: the grid is empty"),
    ("g.yaml", "- a\n- b\n", r"g\.yaml: a grid must be a table \(dict\), got list"),
    ("g.toml", 'predictors = ["tang"]\n', r"g\.toml: a grid needs 'traces'"),
    ("g.toml", 'traces = ["a",\n  oops\n]\n',
     r"g\.toml, line 2, column 3: cannot parse TOML grid: Invalid value"),
    ("g.toml", 'traces = ["a"]\ntraces = ["b"]\n', r"g\.toml, line 2, column \d+: cannot parse"),
    ("g.yaml", "traces:\n  - a\n  - [b\n", r"g\.yaml, line 4, column 1: cannot parse YAML grid"),
    ("g.yaml", "traces: [a]\n  policies: x\n", r"g\.yaml, line 2, column \d+: cannot parse YAML"),
    ("g.yaml", "traces: [a]\npolicies: [easy]\ntraces: [b]\n",
     r"g\.yaml, line 3, column 1: cannot parse YAML grid: key 'traces' given twice "
     r"\(first on line 1\)"),
    ("g.yaml", "traces: [a]\n[1, 2]: [easy]\n",
     r"g\.yaml, line 2, column 1: cannot parse YAML grid: a key must be a name, got a list"),
    ("g.toml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"g\.toml: not a text file \(a NUL byte"),
    ("g.toml", b"traces = [\"caf\xe9\"]\n", r"g\.toml, line 1: not UTF-8 text \(byte 0xe9"),
    ("g.json", '{"traces": ["a"]}', r"g\.json: a grid file must end in \.toml, \.yaml or \.yml"),
])
def test_unreadable_grid_files_give_the_line(tmp_path, name, text, message):
    path = grid_file(tmp_path, text, name)
    with pytest.raises(ConfigError, match=message) as caught:
        expand_grid(load_grid(path), source=path)
    assert "\n" not in str(caught.value)


def test_a_utf8_bom_is_accepted(tmp_path, swf):
    path = grid_file(tmp_path, "\ufeff" + GOOD.format(trace=swf), "g.toml")
    check(path)
    assert expand_grid(load_grid(path))[0]["trace"] == str(swf)


def test_evaluate_cell_refuses_bad_values_from_the_api(swf):
    cell = expand_grid({"traces": [str(swf)], "options": {"max_jobs": -5}})[0]
    with pytest.raises(ConfigError, match=r"options\.max_jobs = -5"):
        evaluate_cell(cell)
    with pytest.raises(ConfigError, match=r"traces = 'synthetic:abc'"):
        evaluate_cell({**cell, "trace": "synthetic:abc", "options": {}})
    with pytest.raises(ConfigError, match="a cell needs the keys .* lacks predictor, params"):
        evaluate_cell({"trace": str(swf), "policy": None, "priority": None})
    # ConfigError is also a ValueError, for callers that catch that.
    with pytest.raises(ValueError):
        evaluate_cell({**cell, "predictor": "tang", "params": {"quantile": 7}, "options": {}})


def test_good_grids_pass_and_max_jobs_keeps_the_first_jobs(tmp_path, swf):
    path = grid_file(tmp_path, GOOD.format(trace=swf) + 'policies = ["easy"]\n'
                     '[[predictors]]\nname = "tang"\nparams = {quantile = [0.5, "mean"], '
                     'window = ["30D", "all"], keys = "user"}\n[options]\nmax_jobs = 25\n'
                     'selective = true\nbad_threshold = "30min"\n')
    check(path)
    cells = expand_grid(load_grid(path), source=path)
    assert len(cells) == 4
    assert evaluate_cell(cells[0])["n_jobs"] == 25


def test_the_old_n_procs_option_warns_once_and_sets_the_machine(tmp_path, swf):
    body = GOOD.format(trace=swf) + 'policies = ["easy", "fcfs"]\n[options]\nmax_jobs = 25\n'
    old = grid_file(tmp_path, body + "n_procs = 64\n")
    with pytest.warns(DeprecationWarning, match=r"options\.n_procs is deprecated.*"
                                                r"options\.machine_procs") as caught:
        check(old)
    assert len([w for w in caught if issubclass(w.category, DeprecationWarning)]) == 1
    new = grid_file(tmp_path, body + "machine_procs = 64\n", name="new.toml")
    check(new)
    old_cell, new_cell = expand_grid(load_grid(old))[0], expand_grid(load_grid(new))[0]
    with pytest.warns(DeprecationWarning, match=r"options\.n_procs"):
        old_metrics = evaluate_cell(old_cell)
    assert old_metrics == evaluate_cell(new_cell)
    assert evaluate_cell(new_cell) != evaluate_cell({**new_cell, "options": {"max_jobs": 25}})


@pytest.mark.parametrize("text", ["", "; MaxProcs: 8\n",
                                  "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"])
def test_a_trace_without_usable_jobs_is_named(tmp_path, text):
    from predictkit.exceptions import PredictkitError

    trace = tmp_path / "bare.swf"
    trace.write_text(text)
    cell = expand_grid({"traces": [str(trace)]})[0]
    with pytest.raises(PredictkitError, match=f"{trace}"):
        evaluate_cell(cell)


@pytest.mark.parametrize(("body", "message"), [
    ('policies = ["easy"]\n[options]\nstarvation_after = "24h"\n',
     r"options\.starvation_after = '24h': used only by cells with policy no_guarantee, and "
     r"this grid has none$"),
    ('policies = ["fcfs", "conservative"]\n[options]\nbackfill_order = "sjf"\n',
     r"options\.backfill_order = 'sjf': used only by cells with policy easy or no_guarantee"),
    ('[options]\nselective = true\n', r"options\.selective = True: used only by cells with a "
                                      r"policy, and this grid has none$"),
    ('[options]\non_underestimate = "request"\n', r"options\.on_underestimate = 'request': "
                                                  r"used only by cells with a policy"),
    ('[options]\nmax_runtime = "6h"\n', r"options\.max_runtime = '6h': used only by cells with"),
    ('[options]\nmachine_procs = 8\n',
     r"options\.machine_procs = 8: used only by cells with a policy or options\.wait_bounds"),
    ('[options]\nn_procs = 8\n', r"options\.n_procs = 8: used only by cells with a policy or"),
    ('[options]\nseed = 3\n', r"options\.seed = 3: used only by cells with a synthetic trace"),
])
def test_an_option_no_cell_uses_is_refused(tmp_path, swf, body, message):
    path = grid_file(tmp_path, GOOD.format(trace=swf) + body)
    with pytest.raises(ConfigError, match=message) as caught, \
            pytest.warns() if "n_procs" in body else nullcontext():
        check(path)
    assert str(caught.value).startswith(f"{path}: ") and "\n" not in str(caught.value)


@pytest.mark.parametrize("body", [
    'policies = ["fcfs", "easy"]\n[options]\nbackfill_order = "sjf"\n',
    'policies = ["easy", "no_guarantee"]\n[options]\nstarvation_after = "24h"\n'
    'starvation_bar_heavy = true\n',
    '[options]\nwait_bounds = "qbets"\nmachine_procs = 8\n',
])
def test_an_option_some_cells_use_is_accepted(tmp_path, swf, body):
    check(grid_file(tmp_path, GOOD.format(trace=swf) + body))
    mixed = f'traces = ["{swf}", "synthetic:50"]\n[options]\nseed = 3\n'
    check(grid_file(tmp_path, mixed, name="mixed.toml"))


def test_a_cell_passes_simulate_the_options_of_its_policy_only():
    from predictkit.experiments._validate import simulate_options
    from predictkit.simulate import POLICIES, simulate
    from predictkit.simulate._policies import policies_taking

    options = {"selective": True, "backfill_order": "sjf", "starvation_after": "1h",
               "starvation_bar_heavy": True, "max_runtime": "6h", "n_procs": 8,
               "max_jobs": 50}
    jobs = load_cell_trace(expand_grid({"traces": ["synthetic:50"]})[0])
    for policy in POLICIES:
        cell = expand_grid({"traces": ["synthetic:50"], "policies": [policy],
                            "options": options})[0]
        passed = simulate_options(cell)
        assert ("backfill_order" in passed) == (policy in policies_taking("backfill_order"))
        assert ({"starvation_after", "starvation_bar_heavy"} <= set(passed)) == (
            policy in policies_taking("starvation_after"))
        assert passed["machine_procs"] == 8 and "n_procs" not in passed
        simulate(jobs, policy=policy, **passed)  # nothing simulate refuses
    assert simulate_options({**cell, "options": {**options, "machine_procs": 16}})[
        "machine_procs"] == 16
    assert simulate_options({**cell, "policy": None}) == {}


def test_two_names_of_one_trace_file_are_refused(tmp_path, swf):
    path = grid_file(tmp_path, GOOD.format(trace=swf).replace(
        f'traces = ["{swf}"]', f'traces = ["{swf}", "{Path(swf).parent}/./{Path(swf).name}"]'))
    with pytest.raises(ConfigError, match=r"names the same file as .*which would repeat cells"):
        check(path)


def test_a_scheduler_no_estimate_changes_is_warned_about_when_predictors_are_compared(swf):
    import warnings

    def said(spec):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_cells(expand_grid({"traces": [str(swf)], **spec}))
        return [str(w.message) for w in caught if "no runtime estimate" in str(w.message)]

    two = {"predictors": ["requested", "tang"]}
    assert said({**two, "policies": ["fcfs", "easy"]}) == [
        "no runtime estimate changes the schedules of policy fcfs with priority fcfs (no "
        "backfilling, or backfilling in queue order without reservations): their schedule "
        "metrics are the same for every predictor"]
    assert said({**two, "policies": ["fcfs"], "priorities": ["sjf"]}) == []
    assert said({**two, "policies": ["no_guarantee"],
                 "options": {"backfill_order": "sjf"}}) == []
    assert len(said({**two, "policies": ["no_guarantee"]})) == 1
    assert said({"predictors": ["tang"], "policies": ["fcfs"]}) == []


def test_a_grid_file_that_cannot_be_opened_is_an_input_file_error(tmp_path):
    from predictkit.exceptions import InputFileError

    with pytest.raises(InputFileError, match=r"No such file or directory") as missing:
        load_grid(tmp_path / "missing.toml")
    assert isinstance(missing.value, FileNotFoundError)
    (tmp_path / "folder.toml").mkdir()
    with pytest.raises(InputFileError, match=r"Is a directory"):
        load_grid(tmp_path / "folder.toml")


def test_numpy_scalars_are_single_values_of_options():
    import numpy as np

    cells = expand_grid({"traces": ["a"], "options": {"max_jobs": np.int64(5),
                                                      "kill_at_request": np.bool_(False)}})
    assert cells[0]["options"] == {"max_jobs": 5, "kill_at_request": False}
    assert type(cells[0]["options"]["max_jobs"]) is int

"""The public names of DESIGN.md (marked API) exist where users import them from."""

import importlib

import pytest

import predictkit as pk

API = {
    "predictkit": ["read_swf", "write_swf", "read_sacct", "datasets", "metrics", "clean_jobs",
                   "summarize", "validate_jobs", "PredictkitError"],
    "predictkit.datasets": ["fetch_pwa", "make_workload", "load_trace", "list_traces"],
    "predictkit.runtime": ["RequestedTime", "WalltimeAdjuster", "RecentUsageMax", "RecentAverage",
                           "HistoryFeatures", "make_predictor", "OnlinePredictor"],
    "predictkit.model_selection": ["replay", "TraceSplit", "make_schedule_scorer",
                                   "select_by_schedule"],
    "predictkit.queue": ["QBETS", "VARQ", "WaitPredictor"],
    "predictkit.workload": ["TsafrirEstimates", "FModel", "PhiModel", "DoubledEstimates",
                            "ShuffledEstimates"],
    "predictkit.simulate": ["simulate", "Schedule"],
    "predictkit.metrics": ["estimate_accuracy", "adjustment_outcomes", "bound_summary",
                           "fair_start_times"],
    "predictkit.experiments": ["expand_grid", "run_grid", "evaluate_cell", "varq_experiment"],
    "predictkit.report": ["analyze", "build_report"],
}


@pytest.mark.parametrize("module", sorted(API))
def test_api_names_exist_and_are_exported(module):
    mod = importlib.import_module(module)
    for name in API[module]:
        assert hasattr(mod, name), f"{module}.{name} is missing"
        if module != "predictkit" or name not in {"datasets", "metrics"}:
            assert name in getattr(mod, "__all__", []), f"{name} not in {module}.__all__"


@pytest.mark.parametrize("module", sorted(API))
def test_all_lists_only_existing_names(module):
    mod = importlib.import_module(module)
    assert [n for n in mod.__all__ if not hasattr(mod, n)] == []


def test_every_command_of_the_design_exists():
    from predictkit.cli import COMMANDS

    assert set(COMMANDS) == {"info", "predict", "simulate", "bounds", "varq", "generate",
                             "report", "sweep", "fetch", "demo", "wait", "walltime", "select"}
    assert pk.__version__


@pytest.mark.parametrize("module, name, home", [
    ("predictkit.metrics", "make_schedule_scorer", "predictkit.model_selection"),
    ("predictkit.queue", "varq_experiment", "predictkit.experiments"),
    ("predictkit.exceptions", "NotEnoughHistoryError", None),
])
def test_moved_and_retired_names_still_import_with_a_deprecation_warning(module, name, home):
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=name):
        old = getattr(mod, name)
    if home is not None:
        assert old is getattr(importlib.import_module(home), name)
        assert name not in mod.__all__
    with pytest.warns(DeprecationWarning, match=name):
        exec(f"from {module} import {name}", {})
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(mod, "no_such_name")

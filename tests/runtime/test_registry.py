"""The registry of runtime predictors: one list, found in the modules, read everywhere."""

import sys

import pytest

import predictkit.runtime as runtime
from predictkit.cli import build_parser
from predictkit.exceptions import ConfigError
from predictkit.runtime import PREDICTORS, make_predictor
from predictkit.runtime._registered import RegisteredPredictor
from predictkit.runtime._registry import ESTIMATE_NAMES, PERFECT, REGISTRY, _discover


def _choices(command, flag):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and command in a.choices)
    return tuple(next(a for a in sub.choices[command]._actions if flag in a.option_strings).choices)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_entry_builds_its_estimator(name):
    entry = REGISTRY[name]
    assert isinstance(make_predictor(name), entry.estimator)
    assert PREDICTORS[name] == entry.summary
    assert entry.estimator.__name__ in runtime.__all__


def test_names_and_order():
    assert list(PREDICTORS) == ["requested", "tang", "usage-max", "recent-average", "learned"]
    assert ESTIMATE_NAMES == (*PREDICTORS, PERFECT)
    assert PERFECT not in REGISTRY
    with pytest.raises(ConfigError, match="make_predictor"):
        make_predictor(PERFECT)


def test_command_line_choices_come_from_the_registry():
    assert _choices("simulate", "--predictor") == ESTIMATE_NAMES
    assert _choices("predict", "--method") == tuple(PREDICTORS)


def test_walltime_compares_every_registered_predictor():
    from predictkit.cli._walltime import CANDIDATES

    assert {predictor for _, predictor, _, _ in CANDIDATES} == set(REGISTRY)


def test_a_new_module_with_registered_adds_a_predictor(tmp_path, monkeypatch):
    # adding a predictor is one module: the registry finds it there
    (tmp_path / "_brand_new.py").write_text(
        "from predictkit.runtime import RecentAverage\n"
        "from predictkit.runtime._registered import RegisteredPredictor\n"
        "REGISTERED = (RegisteredPredictor(name='brand-new', rank=9, estimator=RecentAverage,\n"
        "                                  summary='a test predictor'),)\n")
    monkeypatch.setattr(runtime, "__path__", [*runtime.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "predictkit.runtime._brand_new", raising=False)
    found = _discover()
    assert list(found)[-1] == "brand-new"
    assert list(found)[:-1] == list(REGISTRY)
    assert isinstance(found["brand-new"], RegisteredPredictor)
    sys.modules.pop("predictkit.runtime._brand_new", None)


def test_tang_parameters_in_text_form():
    tang = make_predictor("tang", keys="user,group", window="all")
    assert tang.keys == ("user_id", "group_id") and tang.window is None


@pytest.mark.parametrize("keys", ["user,,group", "user,", " ,request"])
def test_an_empty_key_name_is_refused_not_dropped(keys):
    with pytest.raises(ConfigError, match="empty key name"):
        make_predictor("tang", keys=keys)

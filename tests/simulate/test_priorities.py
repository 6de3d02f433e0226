"""The registry of queue priorities: one list read by simulate and the command line."""

import pytest

from predictkit.cli import build_parser
from predictkit.exceptions import ConfigError
from predictkit.simulate import PRIORITIES, simulate
from predictkit.simulate import _engine
from predictkit.simulate._priorities import REGISTRY, resolve_priority


def test_priorities_are_the_registry():
    assert PRIORITIES == tuple(REGISTRY) == ("fcfs", "sjf", "wfp", "fairshare")
    assert {p.code for p in REGISTRY.values()} == {_engine.PRIO_STATIC, _engine.PRIO_WFP,
                                                    _engine.PRIO_FAIRSHARE}
    assert [p.name for p in REGISTRY.values() if p.key_is_estimate] == ["sjf"]


@pytest.mark.parametrize("name", PRIORITIES)
def test_each_priority_resolves_to_its_engine_code(name):
    code, period, factor, kind = resolve_priority(name, "1h", 0.5)
    assert (code, period, factor, kind) == (REGISTRY[name].code, 3600.0, 0.5, name)


def test_unknown_priority_names_the_choices():
    with pytest.raises(ConfigError, match="fcfs, sjf, wfp, fairshare"):
        resolve_priority("lifo", "1h", 0.5)
    with pytest.raises(ConfigError, match="priority"):
        simulate(None, priority="lifo")


def test_command_line_priority_choices_come_from_the_registry():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "simulate" in a.choices)
    flag = next(a for a in sub.choices["simulate"]._actions if "--priority" in a.option_strings)
    assert tuple(flag.choices) == PRIORITIES

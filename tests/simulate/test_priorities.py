"""The registry of queue priorities: one list read by simulate and the command line."""

import numpy as np
import pandas as pd
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


@pytest.mark.parametrize("kwargs", [dict(priority="fairshare"),
                                    dict(policy="no_guarantee", starvation_after=60,
                                         starvation_bar_heavy=True)])
def test_jobs_without_a_user_each_have_an_account_of_their_own(kwargs):
    rng = np.random.default_rng(3)
    n = 300
    jobs = pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(0, 3000, n)) * 1.0,
        run_time=rng.integers(1, 400, n) * 1.0, n_procs=rng.integers(1, 9, n) * 1.0,
        req_time=400.0, user_id=rng.integers(0, 4, n) * 1.0))
    missing = rng.random(n) < 0.3
    unknown = jobs.assign(user_id=jobs["user_id"].mask(missing))
    own = jobs.assign(user_id=np.where(missing, 1000.0 + np.arange(n), jobs["user_id"]))
    with pytest.warns(UserWarning, match=rf"^simulate: {missing.sum()} jobs without a user_id "
                                         r"are each charged to an account of their own") \
            as caught:
        result = simulate(unknown, machine_procs=8, **kwargs)
    assert caught[0].filename == __file__
    np.testing.assert_array_equal(result.jobs["start_time"],
                                  simulate(own, machine_procs=8, **kwargs).jobs["start_time"])
    pooled = simulate(jobs.assign(user_id=np.where(missing, 1000.0, jobs["user_id"])),
                      machine_procs=8, **kwargs)
    assert not np.array_equal(result.jobs["start_time"], pooled.jobs["start_time"])

"""An estimator class passed where an instance is meant: one line saying to call it."""

import pytest

from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError, InvalidParameterError
from predictkit.model_selection import (ScheduleCandidate, TraceSplit, make_schedule_scorer,
                                        replay, replay_cross_validate, select_by_schedule)
from predictkit.queue import QBETS, WaitPredictor
from predictkit.runtime import RecentAverage
from predictkit.simulate import simulate


@pytest.fixture(scope="module")
def jobs():
    jobs = make_workload(60, machine_procs=32, random_state=1)
    return jobs.assign(wait_time=0.0)


def _says_call_it(info, parameter, owner, kind="RecentAverage"):
    assert str(info.value) == (
        f"The {parameter!r} parameter of {owner} must be an estimator instance, not the class "
        f"{kind}: pass {kind}() (with its parameters) instead.")
    assert info.value.parameter == parameter


def test_replay_and_replay_cross_validate(jobs):
    with pytest.raises(InvalidParameterError) as info:
        replay(RecentAverage, jobs, jobs["run_time"])
    _says_call_it(info, "estimator", "replay")
    with pytest.raises(InvalidParameterError) as info:
        replay(QBETS, jobs, jobs["wait_time"])
    _says_call_it(info, "estimator", "replay", "QBETS")
    with pytest.raises(InvalidParameterError) as info:
        replay_cross_validate(RecentAverage, jobs, jobs["run_time"], cv=TraceSplit(n_splits=2))
    _says_call_it(info, "estimator", "replay_cross_validate")


def test_simulate_and_estimators_taking_an_estimator(jobs):
    # one check (check_parameters) for every parameter that takes an object with methods
    with pytest.raises(InvalidParameterError) as info:
        simulate(jobs, estimates=RecentAverage)
    _says_call_it(info, "estimates", "simulate")
    with pytest.raises(InvalidParameterError) as info:
        WaitPredictor(runtime=RecentAverage).fit(jobs)
    _says_call_it(info, "runtime", "WaitPredictor")


def test_the_schedule_scorer(jobs):
    scorer = make_schedule_scorer(machine_procs=32)
    with pytest.raises(InvalidParameterError) as info:
        scorer(RecentAverage, jobs)
    _says_call_it(info, "estimator", "the scorer of make_schedule_scorer")


def test_schedule_search_candidates_name_their_predictor(jobs):
    for wrong in (RecentAverage, RecentAverage()):
        with pytest.raises(ConfigError, match=r"^candidates\[0\]\.predictor must be a predictor "
                                              "name such as 'recent-average'"):
            select_by_schedule(jobs, [ScheduleCandidate(wrong)])

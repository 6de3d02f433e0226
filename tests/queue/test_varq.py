"""VARQ trajectories and plans on hand-made examples."""

import math

import numpy as np
import pandas as pd
import pytest

from predictkit.exceptions import ConfigError
from predictkit.queue import QBETS, VARQ, Reservation, joint_success_probability
from predictkit.queue import order_statistic_index


class StepBounds:
    """A bounds model with a hand-made inverted function.

    A request of at most 6000 s is backfilled: probability within / 4000
    (at most 1). A longer one is not: 0.3 * within / 3600.
    """

    def start_probability(self, X, within):
        req = np.asarray(X["req_time"], dtype=float)
        within = np.asarray(within, dtype=float)
        return np.where(req <= 6000, np.minimum(1.0, within / 4000), 0.3 * within / 3600)


def test_trajectory_matches_hand_computation():
    traj = VARQ(StepBounds(), step=600).trajectory(4, 3600, deadline=3600, now=0)
    assert traj["submit_time"].tolist() == [0, 600, 1200, 1800, 2400, 3000]
    assert traj["within"].tolist() == [3600, 3000, 2400, 1800, 1200, 600]
    assert traj["requested_time"].tolist() == [7200, 6600, 6000, 5400, 4800, 4200]
    assert traj["probability"].tolist() == pytest.approx([0.3, 0.25, 0.6, 0.45, 0.3, 0.15])


def test_trajectories_are_each_requests_trajectory_asked_at_once():
    waits = np.linspace(0.0, 1990.0, 200)
    jobs = pd.DataFrame({"req_procs": np.where(np.arange(200) % 2, 4.0, 64.0),
                         "req_time": 3600.0, "submit_time": np.arange(200.0)})
    varq = VARQ(QBETS(clustering="bic", changepoint=None).fit(jobs, waits), step=60)
    shapes = [(4, 3600.0, 7200.0), (64, 600.0, 4000.0), (4, 100.0, 250.0)]
    together = varq.trajectories(*zip(*shapes), now=100.0)
    assert together["request"].tolist() == sorted(together["request"].tolist())
    for k, shape in enumerate(shapes):
        alone = varq.trajectory(*shape, now=100.0)
        mine = together[together["request"] == k].drop(columns="request")
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)
    assert len(varq.trajectories([], [], [], now=0.0)) == 0


@pytest.mark.parametrize("probability, submit, padded, prob", [
    (0.4, 1800, 5400, 0.45), (0.5, 1200, 6000, 0.6), (0.3, 2400, 4800, 0.3),
    (0.1, 3000, 4200, 0.15)])
def test_plan_latest_matches_hand_computation(probability, submit, padded, prob):
    plan = VARQ(StepBounds(), step=600).plan(4, 3600, 3600, probability, now=0)
    assert plan.possible
    assert (plan.submit_time, plan.wait, plan.requested_time) == (submit, submit, padded)
    assert plan.probability == pytest.approx(prob)
    assert plan.extra_allocation == 4 * (3600 - submit)
    assert plan.required_allocation == 4 * 3600


def test_plan_max_and_impossible():
    varq = VARQ(StepBounds(), step=600)
    best = varq.plan(4, 3600, 3600, None, now=0, mode="max")
    assert (best.submit_time, best.probability) == (1200, pytest.approx(0.6))
    refused = varq.plan(4, 3600, 3600, 0.7, now=0)
    assert not refused.possible and "0.7" in refused.reason
    assert refused.probability == pytest.approx(0.6) and math.isnan(refused.submit_time)
    assert not varq.plan(4, 3600, 3600, 0.7, now=0, mode="max").possible


def test_paper_example_overhead():
    """Section 3.1: submit at T + 40470 for a deadline T + 43200, 4 nodes, 1 hour."""

    class Paper:
        def start_probability(self, X, within):
            return np.where(np.asarray(within) >= 43200 - 40470, 0.5, 0.2)

    plan = VARQ(Paper(), step=30).plan(4, 3600, 43200, 0.5, now=0)
    assert plan.submit_time == 40470
    assert plan.requested_time == 6330
    # the paper prints 9480 node-seconds; 4 * (43200 - 40470) is 10920
    assert plan.extra_allocation == 4 * (43200 - 40470) == 10920


def test_plan_on_qbets_matches_order_statistics():
    jobs = pd.DataFrame({"req_procs": 4.0, "req_time": 3600.0,
                         "submit_time": np.arange(200.0)})
    waits = np.linspace(0, 1990, 200)
    qbets = QBETS(clustering=None, changepoint=None).fit(jobs, waits)
    plan = VARQ(qbets, step=60).plan(4, 3600, deadline=7200, probability=0.9, now=0)
    bound = np.sort(waits)[order_statistic_index(200, 0.9, 0.95) - 1]  # 1870
    expected = 60 * math.floor((7200 - bound) / 60)
    assert plan.submit_time == expected == 5280
    assert plan.probability >= 0.9
    # one step later the bound no longer fits
    assert VARQ(qbets, step=60).trajectory(4, 3600, 7200, expected + 60)["probability"][0] < 0.9


def test_joint_probability():
    assert joint_success_probability([0.9, 0.9]) == pytest.approx(0.99)
    impossible = Reservation(False, *[math.nan] * 3, 0.4, math.nan, 1.0, "no")
    assert joint_success_probability([0.5, impossible]) == 0.5
    with pytest.raises(ConfigError):
        joint_success_probability([1.5])
    with pytest.raises(ConfigError):
        joint_success_probability([])
    for bad, message in (("0.5", "must be an iterable of numbers or Reservations, got '0.5'"),
                         (0.5, "must be an iterable"), (["0.5"], "must be numbers in"),
                         ([None], "must be numbers in"), ([True], "must be numbers in")):
        with pytest.raises(ConfigError, match=message):
            joint_success_probability(bad)
    assert joint_success_probability(np.array([0.5, 0.5])) == pytest.approx(0.75)


@pytest.mark.parametrize("kwargs, match", [
    (dict(deadline=-5, now=-10), "deadline"),
    (dict(deadline=100, now=200), "past"),
    (dict(deadline=100, now=100), "past"),
    (dict(nodes=0), "nodes"),
    (dict(nodes=2.5), "'nodes' parameter of VARQ must be a whole number"),
    (dict(walltime=-1), "walltime"),
    (dict(probability=1.5), "probability"),
    (dict(probability=0.0), "probability"),
    (dict(mode="earliest"), "mode"),
    (dict(step=0), "step"),
    (dict(step=1e-9), r"at least 0.0036 s for a deadline 3600 s after now \(at most 1,000,000"),
    (dict(deadline=1e12, step=30), "candidate submit times"),
])
def test_bad_arguments(kwargs, match):
    args = dict(nodes=4, walltime=3600, deadline=3600, probability=0.5, now=0)
    step = kwargs.pop("step", 600)
    args.update(kwargs)
    with pytest.raises(ConfigError, match=match):
        VARQ(StepBounds(), step=step).plan(**args)


def test_bounds_without_start_probability_or_predict_proba():
    with pytest.raises(ConfigError, match="start_probability"):
        VARQ(object()).trajectory(1, 60, 100, 0)


def test_bounds_with_only_the_deprecated_predict_proba_still_plan():
    class OldBounds:
        def predict_proba(self, X, within):
            return StepBounds().start_probability(X, within)

    with pytest.warns(DeprecationWarning, match="start_probability"):
        old = VARQ(OldBounds(), step=600).trajectory(4, 3600, deadline=3600, now=0)
    new = VARQ(StepBounds(), step=600).trajectory(4, 3600, deadline=3600, now=0)
    pd.testing.assert_frame_equal(old, new)


def test_a_job_wider_than_the_bounds_machine_has_no_reservation():
    jobs = pd.DataFrame({"req_procs": 4.0, "req_time": 3600.0,
                         "submit_time": np.arange(200.0)})
    jobs.attrs["max_procs"] = 64
    qbets = QBETS(random_state=0).fit(jobs, np.linspace(0, 1990, 200))
    plan = VARQ(qbets, step=60).plan(100, 3600, deadline=7200, probability=0.5, now=0)
    assert not plan.possible
    assert plan.reason == "100 nodes is more than the machine holds (64, the bounds' " \
                          "history's attrs['max_procs'])"
    assert plan.required_allocation == 100 * 3600
    assert VARQ(qbets, step=60).plan(64, 3600, deadline=7200, probability=0.5, now=0).possible


@pytest.mark.parametrize("labelled_by_id", [True, False])
def test_plans_on_a_wait_predictor_leave_it_as_it_was(labelled_by_id):
    import pickle

    from predictkit.queue import WaitPredictor

    n = 100
    jobs = pd.DataFrame({"job_id": np.arange(n) + 1, "submit_time": np.arange(n) * 10.0,
                         "wait_time": np.arange(n) * 1.0, "run_time": 100.0, "req_time": 3600.0,
                         "n_procs": 4.0, "req_procs": 4.0, "user_id": np.arange(n) % 3 * 1.0})
    if labelled_by_id:
        jobs = jobs.set_index("job_id", drop=False)
    model = WaitPredictor().fit(jobs)
    state = pickle.dumps(model)
    varq = VARQ(model)
    first = varq.plan(nodes=4, walltime=3600, deadline=5000, probability=0.5, now=2000)
    assert first.possible and 2000 <= first.submit_time < 5000
    # the same question again gets the same answer: the candidates changed nothing
    assert varq.plan(nodes=4, walltime=3600, deadline=5000, probability=0.5, now=2000) == first
    trajectory = varq.trajectory(nodes=4, walltime=3600, deadline=2200, now=2000)
    assert trajectory["probability"].between(0, 1).all()
    assert pickle.dumps(model) == state
    later = jobs.iloc[-1:].assign(job_id=n + 1, submit_time=1000.0 * n)
    model.partial_fit(later.set_axis([n + 1] if labelled_by_id else [n]))


def test_trajectories_refuse_requests_given_unevenly_or_one_at_a_time():
    from predictkit.exceptions import InvalidParameterError

    jobs = pd.DataFrame({"submit_time": np.arange(200) * 10.0, "req_procs": 4.0,
                         "req_time": 3600.0})
    model = QBETS(clustering=None, changepoint=None).fit(jobs, np.linspace(0, 1990, 200))
    varq = VARQ(model, step=60)
    with pytest.raises(InvalidParameterError, match=r"one value per request in nodes, walltime "
                                                    r"and deadline; got 3 nodes, 1 walltime, "
                                                    r"2 deadline"):
        varq.trajectories([4, 8, 16], [3600], [7200, 7200], 0)
    with pytest.raises(InvalidParameterError, match=r"'nodes' parameter of VARQ.trajectories "
                                                    r"must be a sequence"):
        varq.trajectories(4, 3600, 7200, 0)
    rows = varq.trajectories(np.array([4, 8]), (3600, 3600), pd.Series([7200, 7200]), 0)
    assert rows.groupby("request").size().tolist() == [120, 120]

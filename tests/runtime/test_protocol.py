"""The simulator <-> predictor protocol: OnlinePredictor, its adapter, built-ins."""

import numpy as np
import pandas as pd
import pytest

from predictkit.runtime import OnlinePredictor, RecentAverage, make_predictor
from predictkit.runtime._protocol import PartialFitAdapter, as_online_predictor
from predictkit.runtime._registry import REGISTRY
from predictkit.exceptions import JobTableError, SimulationError
from predictkit.simulate import simulate


class UserMean:
    """A third-party predictor (no predictkit base class): mean runtime of the
    user's completed jobs, the request while the user has none."""

    def start(self, jobs):
        self.user = jobs["user_id"].to_numpy()
        self.request = jobs["req_time"].to_numpy(dtype=float)
        self.total, self.count = {}, {}
        return self

    def observe(self, index, start_time, end_time, run_time):
        assert (np.asarray(end_time) >= np.asarray(start_time)).all()
        for user, run in zip(self.user[index], run_time):
            self.total[user] = self.total.get(user, 0.0) + float(run)
            self.count[user] = self.count.get(user, 0) + 1

    def predict_for(self, index):
        return np.array([self.total[u] / self.count[u] if u in self.count else r
                         for u, r in zip(self.user[index], self.request[index])])


def _workload(n=300, seed=3):
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 4000, n).astype(float)
    return pd.DataFrame(dict(
        job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(0, 40000, n)).astype(float),
        run_time=run, req_time=run * rng.integers(1, 5, n), n_procs=rng.integers(1, 9, n) * 1.0,
        user_id=rng.integers(1, 12, n).astype(float)))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_builtin_predictors_satisfy_the_protocol(name):
    predictor = make_predictor(name)
    assert isinstance(predictor, OnlinePredictor)
    assert as_online_predictor(predictor) is predictor


@pytest.mark.parametrize("name", list(REGISTRY))
def test_builtin_protocol_equals_partial_fit_and_predict_on_tables(name):
    # start/observe/predict_for give what partial_fit/predict on job tables give
    predictor = make_predictor(name)

    class Tabled(type(predictor)):
        def predict(self, X):
            return super().predict(X)

    assert isinstance(as_online_predictor(Tabled()), PartialFitAdapter)
    jobs = _workload(400, seed=5).assign(group_id=1.0)
    for refresh in (None, 3600):
        ours = simulate(jobs, machine_procs=16, estimates=predictor, predictor_refresh=refresh).jobs
        tabled = simulate(jobs, machine_procs=16, estimates=Tabled(**predictor.get_params()),
                          predictor_refresh=refresh).jobs
        pd.testing.assert_frame_equal(ours, tabled)


def test_third_party_protocol_predictor_gives_the_builtin_schedule():
    jobs = _workload()
    assert isinstance(UserMean(), OnlinePredictor)
    for policy in ("easy", "conservative"):
        theirs = simulate(jobs, machine_procs=16, policy=policy, estimates=UserMean()).jobs
        ours = simulate(jobs, machine_procs=16, policy=policy,
                        estimates=RecentAverage(n_recent=len(jobs))).jobs
        pd.testing.assert_frame_equal(theirs, ours)
        assert (ours["estimate"] < ours["req_time"]).any()


def test_third_party_predictor_is_copied():
    predictor = UserMean()
    simulate(_workload(50), machine_procs=16, estimates=predictor)
    assert not hasattr(predictor, "total")


def test_partial_fit_estimators_are_adapted_and_subclasses_keep_their_methods():
    class Plain:
        def partial_fit(self, X, y):
            return self

        def predict(self, X):
            return np.asarray(X["req_time"], dtype=float)

    class Tabled(RecentAverage):
        def predict(self, X):
            return super().predict(X)

    assert isinstance(as_online_predictor(Plain()), PartialFitAdapter)
    assert isinstance(as_online_predictor(Tabled()), PartialFitAdapter)
    assert as_online_predictor(np.ones(3)) is None
    jobs = _workload(80)
    pd.testing.assert_frame_equal(simulate(jobs, machine_procs=16, estimates=Plain()).jobs,
                                  simulate(jobs, machine_procs=16, estimates="requested").jobs,
                                  check_dtype=False)


def test_protocol_predictor_with_a_bad_shape_is_named():
    class Short(UserMean):
        def predict_for(self, index):
            return np.ones(len(index) + 1)

    with pytest.raises(SimulationError, match=r"Short\.predict_for returned shape"):
        simulate(_workload(20), machine_procs=16, estimates=Short())


@pytest.mark.parametrize(("returned", "error", "message"), [
    (lambda n: np.full(n, "long"), JobTableError,
     r"^what Wordy\.predict_for returned must hold numbers; position 0 holds 'long'$"),
    (lambda n: np.full(n, -5.0), None, None),
])
def test_protocol_predictor_values_are_numbers_and_floored_at_a_second(returned, error,
                                                                      message):
    class Wordy(UserMean):
        def predict_for(self, index):
            return returned(len(index))

    jobs = _workload(20)
    if error is not None:
        with pytest.raises(error, match=message):
            simulate(jobs, machine_procs=16, estimates=Wordy())
        return
    # a negative prediction plans the floor of every estimate, one second
    floor = simulate(jobs, machine_procs=16, estimates=np.ones(len(jobs)))
    assert simulate(jobs, machine_procs=16, estimates=Wordy()).jobs.equals(floor.jobs)


def test_a_plain_object_with_fit_partial_fit_and_predict_is_a_predictor():
    class Plain:  # no scikit-learn base class, hence no tags
        def fit(self, X, y):
            return self

        def partial_fit(self, X, y):
            self.seen_ = True
            return self

        def predict(self, X):
            return np.full(len(X), 100.0)

    jobs = _workload(40)
    expected = simulate(jobs, machine_procs=16, estimates=np.full(len(jobs), 100.0))
    assert simulate(jobs, machine_procs=16, estimates=Plain()).jobs.equals(expected.jobs)
    fitted = Plain().partial_fit(jobs, jobs["run_time"])
    assert simulate(jobs, machine_procs=16, estimates=fitted).jobs.equals(expected.jobs)

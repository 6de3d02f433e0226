"""The competing estimate models of section 11.3."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.jobs import as_job_table
from predictkit.workload import (DoubledEstimates, FModel, JointEstimates, PhiModel,
                                 ShuffledEstimates, TsafrirEstimates)

runtimes = st.lists(st.floats(0, 1e5), min_size=1, max_size=200)


@given(runtimes, st.sampled_from([0, 1, 3, 10, 100, 300]), st.integers(0, 2**32 - 1))
def test_f_model_stays_in_its_range(run, f, seed):
    run = np.array(run)
    est = FModel(f=f, random_state=seed).sample(run)
    assert (est >= run).all() and (est >= 1.0).all()
    assert (est <= np.maximum((f + 1) * run * (1 + 1e-12), 1.0)).all()


@pytest.mark.parametrize("model", [FModel(random_state=0), FModel(f=0),
                                   PhiModel(random_state=0)])
def test_a_zero_runtime_gets_a_request_of_one_second(model):
    assert model.sample([0.0, 0.0, 5.0]).tolist()[:2] == [1.0, 1.0]


@pytest.mark.parametrize("model", [FModel(), PhiModel(), JointEstimates(t_max="18h"),
                                   TsafrirEstimates(t_max="18h")])
def test_every_model_refuses_text_runtimes_and_misaligned_users(model):
    with pytest.raises(JobTableError, match=r"runtimes must hold numbers; position 1 holds 'b'"):
        model.sample(np.array(["100", "b"]))
    with pytest.raises(ConfigError, match=r"users must have one value per runtime \(3\)"):
        model.sample([100.0, 200.0, 3000.0], users=[1, 2])
    with pytest.raises(ConfigError, match=r"submit_times must have one value per runtime"):
        model.sample([100.0, 200.0], users=[1, 2], submit_times=[0.0])


@pytest.mark.parametrize("model", [FModel(random_state=0),
                                   JointEstimates(t_max="18h", random_state=0),
                                   TsafrirEstimates(t_max="18h", random_state=0),
                                   DoubledEstimates()])
@pytest.mark.parametrize("name", ["users", "submit_times", "estimates"])
def test_a_series_labelled_for_other_jobs_than_the_runtimes_is_refused(model, name):
    runtimes = pd.Series([100.0, 200.0, 3000.0], index=[10, 11, 12])
    given = dict(users=[1.0, 2.0, 1.0], submit_times=[0.0, 5.0, 9.0],
                 estimates=[200.0, 400.0, 6000.0])
    shuffled = pd.Series(given[name], index=[10, 11, 12]).iloc[[2, 0, 1]]
    with pytest.raises(JobTableError, match=(
            rf"^{name} is a Series whose index differs from the index of runtimes \(first at "
            rf"position 0: label 12 against 10\); align it \({name}.loc\[runtimes.index\]\)")):
        model.sample(runtimes, **{**given, name: shuffled})
    aligned = shuffled.loc[runtimes.index]
    np.testing.assert_array_equal(clone(model).sample(runtimes, **{**given, name: aligned}),
                                  clone(model).sample(runtimes, **given))


@pytest.mark.parametrize("f", [1e308, 1e20])
def test_an_f_giving_requests_beyond_exact_seconds_is_refused(f):
    with pytest.raises(ConfigError, match=r"'f' parameter of FModel must be small enough that "
                                          r"R \* \(1 \+ f\) stays below 2\*\*53 s"):
        FModel(f=f, random_state=0).sample([60.0, 1e6])
    assert np.isfinite(FModel(f=1e6, random_state=0).sample([60.0, 1e6])).all()


def test_f_model_mean():
    run = np.full(100_000, 100.0)
    assert FModel(f=4, random_state=0).sample(run).mean() == pytest.approx(300, rel=0.01)
    np.testing.assert_array_equal(FModel(f=0).sample(run), run)


@given(runtimes, st.integers(0, 2**32 - 1))
def test_phi_model_covers_runtime_and_truncates(run, seed):
    run = np.array(run)
    est = PhiModel(random_state=seed).sample(run)
    assert (est >= run).all()
    assert (est[run <= 86400] <= 86400).all()


def test_phi_model_accuracy_histogram():
    run = np.full(50_000, 60.0)
    est = PhiModel(phi=0.2, random_state=0).sample(run)
    accuracy = run / est
    assert np.mean(accuracy == 1) == pytest.approx(0.2 + 0.8 * 60 / 86400, abs=0.01)
    inner = accuracy[(accuracy < 1) & (accuracy > 0.01)]
    counts, _ = np.histogram(inner, bins=5, range=(0.01, 1))
    assert counts.min() > 0.8 * counts.max()  # flat, as in Fig. 1


def test_doubled_and_shuffled_need_estimates():
    with pytest.raises(JobTableError, match="own estimates"):
        DoubledEstimates().sample(np.array([1.0]))
    with pytest.raises(JobTableError, match="missing"):
        ShuffledEstimates().sample(np.array([1.0, 2.0]), estimates=np.array([5.0, np.nan]))
    jobs = as_job_table({"run_time": [1.0, 2.0], "req_time": [5.0, np.nan]})
    with pytest.raises(JobTableError, match="req_time"):
        ShuffledEstimates().fit(jobs)


def test_doubled_estimates():
    jobs = as_job_table({"run_time": [1.0, 2.0], "req_time": [5.0, 7.0]})
    out = DoubledEstimates().transform(jobs)
    assert out["req_time"].tolist() == [10.0, 14.0]
    assert out["orig_req_time"].tolist() == [5.0, 7.0]


@given(st.lists(st.tuples(st.floats(0, 1e4), st.floats(0, 1e4)), min_size=1, max_size=200),
       st.integers(0, 2**32 - 1))
def test_shuffle_covers_runtimes(pairs, seed):
    run, est = map(np.array, zip(*pairs))
    est = np.maximum(est, run.max())  # any multiset whose max covers every runtime
    out = ShuffledEstimates(random_state=seed).sample(run, estimates=est)
    assert (out >= run).all()


def test_shuffle_of_a_real_log_keeps_its_distribution():
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 5_000)
    jobs = jobs[jobs["req_time"].notna() & jobs["run_time"].notna()].reset_index(drop=True)
    model = ShuffledEstimates(truncate=True, random_state=0).fit(jobs)
    out = model.transform(jobs)
    assert (out["req_time"] >= out["run_time"]).all()
    same = np.sort(out["req_time"].to_numpy()) == np.sort(jobs["req_time"].to_numpy())
    assert same.mean() > 0.95  # only jobs that ran past their request change value
    assert not np.array_equal(out["req_time"], jobs["req_time"])


def test_shuffle_runtime_above_every_estimate():
    with pytest.raises(ConfigError, match="truncate=True"):
        ShuffledEstimates().sample(np.array([10.0, 1.0]), estimates=np.array([5.0, 5.0]))


@pytest.mark.parametrize("model", [FModel(f=-1), PhiModel(phi=2),
                                   ShuffledEstimates(assignment="x")])
def test_bad_parameters(model):
    with pytest.raises(ConfigError):
        model.sample(np.array([1.0]), estimates=np.array([2.0]))


@pytest.mark.parametrize("model", [FModel(f=3, random_state=1), PhiModel(phi=0.3),
                                   DoubledEstimates(), ShuffledEstimates(truncate=True)])
def test_sklearn_clone_and_transform_keep_the_table(model):
    twin = clone(model)
    assert twin.get_params() == model.get_params()
    jobs = as_job_table({"run_time": [1.0, 50.0, 7.0], "req_time": [60.0, 60.0, 600.0],
                         "user_id": [1.0, 2.0, 1.0]})
    out = twin.fit(jobs).transform(jobs)
    assert out["orig_req_time"].tolist() == [60.0, 60.0, 600.0]
    assert out["user_id"].tolist() == [1.0, 2.0, 1.0]
    assert (out["req_time"] >= out["run_time"]).all()

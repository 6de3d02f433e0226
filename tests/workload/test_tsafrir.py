"""TsafrirEstimates: sampling invariants, fitting a real log, transformer form, bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from sklearn.base import clone
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.jobs import as_job_table
from predictkit.workload import TsafrirEstimates

HOUR = 3600.0


@given(st.lists(st.floats(0, 18 * HOUR), min_size=1, max_size=300),
       st.integers(0, 2**32 - 1), st.sampled_from([None, 0.0, 0.5, 5.0, 40.0, 100.0]))
def test_sample_never_below_runtime(run, seed, p_max):
    run = np.array(run)
    est = TsafrirEstimates(t_max="18h", p_max=p_max, random_state=seed).sample(run)
    assert est.shape == run.shape
    assert (est >= run).all()
    assert est.max() <= 18 * HOUR


@pytest.mark.parametrize("p_max", [0.0, 2.0])
def test_small_p_max_still_covers_runtimes_up_to_t_max(p_max):
    # runtimes at t_max need the t_max estimate even when p_max rounds to no job
    run = np.array([18 * HOUR, 17.5 * HOUR, 60.0, 600.0, 3600.0, 7200.0, 120.0, 30.0, 9.0, 1.0])
    est = TsafrirEstimates(t_max="18h", p_max=p_max, random_state=0).sample(run)
    assert (est >= run).all()
    assert est[0] == est[1] == 18 * HOUR
    assert (est[2:] < 18 * HOUR).all()


@given(st.lists(st.tuples(st.integers(0, 5), st.floats(0, 1e6), st.floats(0, 4 * HOUR)),
                min_size=1, max_size=200), st.integers(0, 2**32 - 1))
def test_sessions_sample_never_below_runtime(rows, seed):
    users, submit, run = map(np.array, zip(*rows))
    model = TsafrirEstimates(t_max="4h", assignment="sessions", random_state=seed)
    est = model.sample(run, users=users, submit_times=submit)
    assert (est >= run).all()


def test_vanilla_sample_distribution():
    rng = np.random.default_rng(0)
    run = np.exp(rng.uniform(0, np.log(17 * HOUR), 70_000))
    est = TsafrirEstimates(t_max="18h", random_state=1).sample(run)
    values, counts = np.unique(est, return_counts=True)
    share = np.sort(counts)[::-1] / est.size
    assert 0.85 <= share[:20].sum() <= 0.93
    assert values[np.argmax(counts)] == 18 * HOUR
    assert 0.20 <= share[0] <= 0.23
    assert abs(values.size - 340) <= 34


def test_sample_is_reproducible_and_seed_dependent():
    run = np.linspace(0, 10 * HOUR, 2000)
    a = TsafrirEstimates(t_max="18h", random_state=3).sample(run)
    b = TsafrirEstimates(t_max="18h", random_state=3).sample(run)
    c = TsafrirEstimates(t_max="18h", random_state=4).sample(run)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sessions_repeat_estimates_within_a_burst():
    # two users, each submitting bursts of 5 jobs one minute apart, bursts a day apart
    submit = np.concatenate([d * 86400 + np.arange(5) * 60.0 for d in range(40)])
    users = np.tile(np.repeat([1.0, 2.0], 5), 20)
    order = np.argsort(submit, kind="stable")
    submit, users = submit[order], users[order]
    run = np.full(submit.size, 30.0)
    model = TsafrirEstimates(t_max="18h", assignment="sessions", random_state=0)
    est = model.sample(run, users=users, submit_times=submit)
    for d in range(40):
        burst = (submit >= d * 86400) & (submit < d * 86400 + 3600)
        for u in (1.0, 2.0):
            assert np.unique(est[burst & (users == u)]).size <= 1


@pytest.mark.parametrize("kwargs, match", [
    ({"t_max": "30min"}, "at least 1 h"),
    ({"t_max": "18h", "p_max": 120}, "p_max"),
    ({"t_max": "18h", "p_max": -1}, "p_max"),
    ({"t_max": "18h", "modes": [(300, 60), (600, 50)]}, "above 100%"),
    ({"t_max": "18h", "p_max": 50, "modes": [(300, 60)]}, "above 100%"),
    ({"t_max": "18h", "modes": [(30 * HOUR, 5)]}, "must be in"),
    ({"t_max": "18h", "modes": [(300, 5)] * 2}, "repeat"),
    ({"t_max": "18h", "k_model": "cubic"}, "k_model"),
    ({"t_max": "18h", "assignment": "random"}, "assignment"),
    ({}, "'t_max' parameter of TsafrirEstimates must be given"),
])
def test_bad_parameters_are_clear_errors(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        TsafrirEstimates(**kwargs).sample(np.array([10.0, 20.0]))


def test_t_max_below_longest_runtime_is_an_error_unless_truncating():
    run = np.array([100.0, 20 * HOUR])
    with pytest.raises(ConfigError, match="below the longest runtime"):
        TsafrirEstimates(t_max="18h").sample(run)
    est = TsafrirEstimates(t_max="18h", truncate=True, random_state=0).sample(run)
    assert est[1] == 18 * HOUR and est[0] >= 100


def test_bad_runtimes_are_errors():
    with pytest.raises(JobTableError, match="finite"):
        TsafrirEstimates(t_max="18h").sample(np.array([1.0, np.nan]))
    with pytest.raises(JobTableError, match="finite"):
        TsafrirEstimates(t_max="18h").sample(np.array([-1.0]))


def test_sessions_without_users_is_an_error():
    with pytest.raises(ConfigError, match="needs users"):
        TsafrirEstimates(t_max="18h", assignment="sessions").sample(np.array([1.0]))


def test_fit_without_estimates_is_an_error():
    jobs = as_job_table({"run_time": [10.0, 20.0], "req_time": [60.0, np.nan]})
    with pytest.raises(JobTableError, match="req_time"):
        TsafrirEstimates().fit(jobs)


def test_mode_table_api():
    model = TsafrirEstimates(t_max=4 * HOUR, modes=[("5min", 25)], random_state=0)
    modes = model.mode_table(23_070)
    assert list(modes.columns[:2]) == ["estimate", "percent"]
    assert modes["percent"].sum() == pytest.approx(100)
    assert modes.loc[modes["estimate"] == 300, "percent"].iloc[0] == pytest.approx(25)


def test_sklearn_clone_and_params():
    model = TsafrirEstimates(t_max="18h", p_max=10, random_state=0)
    twin = clone(model)
    assert twin.get_params() == model.get_params()
    twin.set_params(p_max=30)
    assert model.p_max == 10


def test_fit_reproduces_a_real_site():
    jobs = load_trace("SDSC-SP2-1998-4.2-cln", 20_000)
    jobs = jobs[jobs["req_time"].notna() & jobs["run_time"].notna()].reset_index(drop=True)
    model = TsafrirEstimates(n_fit_modes=3, truncate=True, random_state=0).fit(jobs)
    assert model.t_max_ == 18 * HOUR
    real = jobs["req_time"].to_numpy()
    assert model.p_max_ == pytest.approx(100 * np.mean(real == 18 * HOUR))
    assert len(model.modes_) == 3
    out = model.transform(jobs)
    assert (out["req_time"] >= out["run_time"]).all()
    np.testing.assert_array_equal(out["orig_req_time"], real)
    np.testing.assert_array_equal(out["orig_run_time"], jobs["run_time"])
    # the generated CDF is close to the real one (Kolmogorov-Smirnov distance)
    assert ks_2samp(out["req_time"], real, method="asymp").statistic < 0.15
    top_real = pd.Series(real).value_counts(normalize=True).iloc[:3]
    top_gen = out["req_time"].value_counts(normalize=True)
    for value, share in top_real.items():
        assert top_gen.get(value, 0) == pytest.approx(share, abs=0.02)


def test_transform_unfitted_keeps_other_columns():
    jobs = as_job_table({"run_time": [10.0, 500.0], "req_time": [np.nan, 900.0],
                         "user_id": [1.0, 2.0]})
    out = TsafrirEstimates(t_max="2h", random_state=0).transform(jobs)
    assert (out["req_time"] >= out["run_time"]).all()
    assert np.isnan(out["orig_req_time"].iloc[0])
    pd.testing.assert_series_equal(out["user_id"], jobs["user_id"])
    assert "orig_run_time" not in out.columns


def test_sessions_transform_accepts_unknown_users_but_needs_the_columns():
    jobs = as_job_table({"run_time": [10.0, 20.0, 30.0], "submit_time": [0.0, 60.0, 120.0],
                         "user_id": [1.0, np.nan, 1.0]})
    model = TsafrirEstimates(t_max="2h", assignment="sessions", random_state=0)
    out = model.transform(jobs)
    assert out["req_time"].iloc[0] == out["req_time"].iloc[2]
    with pytest.raises(JobTableError, match="user_id"):
        model.transform(jobs.drop(columns="user_id"))


def test_twenty_user_modes_fill_the_head():
    modes = [("18h", 10)] + [((i + 1) * 600, 4) for i in range(19)]
    table = TsafrirEstimates(t_max="18h", modes=modes, random_state=0).mode_table(50_000)
    head = table[table["head"]]
    assert len(head) == 20 and head["percent"].sum() == pytest.approx(86)
    with pytest.raises(ConfigError, match="at most 20"):
        TsafrirEstimates(t_max="18h", modes=modes[1:] + [(7 * 3600, 1)]).mode_table(100)


def test_fit_with_a_given_t_max_moves_the_log_limit_to_it():
    """A given maximum above the log's takes the jobs at the log's own; modes stay below."""
    requests = np.r_[np.full(500, 64800.0), np.full(300, 3600.0), np.full(200, 600.0)]
    log = pd.DataFrame({"req_time": requests})
    own = TsafrirEstimates().fit(log)
    assert own.t_max_ == 64800.0 and own.p_max_ == pytest.approx(50.0)
    raised = TsafrirEstimates(t_max="36h").fit(log)
    assert raised.t_max_ == 129600.0 and raised.p_max_ == pytest.approx(50.0)
    assert [t for t, _ in raised.modes_] == [3600.0, 600.0]
    lowered = TsafrirEstimates(t_max="2h").fit(log)
    assert lowered.p_max_ == pytest.approx(50.0)
    assert [t for t, _ in lowered.modes_] == [3600.0, 600.0]


def test_fit_with_the_log_own_t_max_equals_the_fit_without():
    log = load_trace("SDSC-SP2-1998-4.2-cln")
    log = log[log["req_time"] > 0]
    own = TsafrirEstimates().fit(log)
    assert (log["req_time"] > own.t_max_).any()  # requests beyond the 20 most popular's maximum
    given = TsafrirEstimates(t_max=own.t_max_).fit(log)
    assert (given.t_max_, given.p_max_, given.modes_) == (own.t_max_, own.p_max_, own.modes_)

"""JointEstimates: requests from the runtime, the user and the session, on modal values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr
from scipy.stats import ks_2samp
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.jobs import clean_jobs
from predictkit.workload import JointEstimates, make_workload
from predictkit.workload._joint import (AT_REQUEST, RUNTIME_BIN_EDGES, _normal_scores,
                                        _round_to_mode, consistency_shares, runtime_bin,
                                        stratified_user_scores)
from predictkit.workload._locality import runtime_locality


def _accuracy(run, req):
    return np.minimum(np.asarray(run, float) / np.maximum(np.asarray(req, float), 1.0), 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 64800), min_size=1, max_size=200), st.integers(0, 2**31))
def test_requests_cover_runtimes_and_are_modes_or_precise(runtimes, seed):
    run = np.array(runtimes, dtype=float)
    model = JointEstimates(t_max="18h", random_state=seed)
    req = model.sample(run)
    assert (req >= run).all()
    modes, *_ = model._settings(run.size, np.random.default_rng(seed))
    precise = ~np.isin(req, modes)
    # a request that is not a mode is a job at its request asking for its own runtime
    assert (req[precise] == run[precise]).all()


def _round_reference(values, weights, run, target, u):
    """One job at a time, as the docstring of _round_to_mode says."""
    logs = np.log10(np.maximum(values, 1.0))
    above = [k for k in range(values.size) if logs[k] >= target]
    below = [k for k in range(values.size) if logs[k] < target and values[k] >= run]
    if not above:
        return values[-1]
    hi = above[0]
    if not below or hi == 0 or below[-1] != hi - 1:
        return values[hi]
    lo = hi - 1
    d = min(max((target - logs[lo]) / max(logs[hi] - logs[lo], 1e-12), 0.0), 1.0)
    w_lo, w_hi = weights[lo] * (1 - d), weights[hi] * d
    p_lo = w_lo / (w_lo + w_hi) if w_lo + w_hi > 0 else 1 - d
    return values[lo] if u < p_lo else values[hi]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 10**5), min_size=1, max_size=12, unique=True),
       st.lists(st.tuples(st.integers(1, 10**5), st.floats(0, 3), st.floats(0, 1)),
                min_size=1, max_size=20), st.integers(0, 1000))
def test_rounding_to_modes_matches_the_one_job_reference(values, jobs, seed):
    values = np.sort(np.array(values, dtype=float))
    weights = np.random.default_rng(seed).random(values.size)
    run = np.array([min(r, values[-1]) for r, _, _ in jobs], dtype=float)
    target = np.log10(run) + np.array([p for _, p, _ in jobs])
    u = np.array([x for _, _, x in jobs])
    fast = _round_to_mode(values, weights, run, target, u)
    slow = [_round_reference(values, weights, r, t, x) for r, t, x in zip(run, target, u)]
    np.testing.assert_array_equal(fast, slow)
    assert (fast >= run).all()


def test_runtime_bins_are_half_decades():
    assert runtime_bin([1, 9, 10, 31, 32, 10**6]).tolist() == [0, 0, 1, 1, 2,
                                                               RUNTIME_BIN_EDGES.size]


def test_normal_scores_are_ranks_within_groups_with_ties_sharing_one():
    scores = _normal_scores(np.array([3.0, 1.0, 1.0, 5.0, 2.0]), np.array([0, 0, 0, 0, 1]))
    assert scores[1] == scores[2] < scores[0] < scores[3]
    assert scores[4] == pytest.approx(0.0)


@pytest.mark.parametrize(("user", "session"), [(0.0, 0.0), (0.5, 0.2), (0.2, 0.6)])
def test_fit_recovers_planted_user_and_session_shares(user, session):
    rng = np.random.default_rng(7)
    n, n_users, per_session = 60_000, 300, 6
    users = rng.integers(0, n_users, n)
    sessions = np.arange(n) // per_session
    users = users[sessions * per_session]  # a session belongs to one user
    z = (np.sqrt(user) * rng.standard_normal(n_users)[users]
         + np.sqrt(session) * rng.standard_normal(sessions.max() + 1)[sessions]
         + np.sqrt(1 - user - session) * rng.standard_normal(n))
    bins = rng.integers(0, 3, n)
    padding = np.exp(z) + bins  # any increasing function of z within a bin
    got_user, got_session = consistency_shares(padding, bins, users, sessions)
    assert got_user == pytest.approx(user, abs=0.05)
    assert got_session == pytest.approx(session, abs=0.05)


def test_fitted_model_reproduces_the_accuracy_of_its_log():
    log = make_workload(20_000, random_state=11)
    model = JointEstimates(user_requests=False, random_state=0).fit(log)
    out = model.transform(log)
    real, fake = _accuracy(log.run_time, log.req_time), _accuracy(out.run_time, out.req_time)
    assert ks_2samp(real, fake).statistic < 0.1
    assert np.mean(fake >= AT_REQUEST) == pytest.approx(np.mean(real >= AT_REQUEST), abs=0.05)
    assert set(np.unique(out.req_time)) - set(model.mode_values_) <= set(out.run_time)


def test_users_repeat_their_padding():
    run = np.full(40_000, 600.0)
    users = np.repeat(np.arange(400), 100).astype(float)
    consistent = JointEstimates(t_max="18h", user_share=0.95, session_share=0.0,
                                random_state=1).sample(run, users=users)
    independent = JointEstimates(t_max="18h", user_share=0.0, session_share=0.0,
                                 random_state=1).sample(run, users=users)

    def distinct_per_user(req):
        return np.mean([np.unique(req[users == u]).size for u in range(400)])

    assert distinct_per_user(consistent) < 0.75 * distinct_per_user(independent)
    assert ks_2samp(consistent, independent).statistic < 0.1  # same marginal


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=300), st.integers(0, 2**31))
def test_user_scores_are_job_weighted_normal_within_each_stratum(codes, seed):
    # codes may skip values: those users have no jobs
    user_codes = np.array(codes)
    z = stratified_user_scores(user_codes, np.random.default_rng(seed))
    counts = np.bincount(user_codes)
    assert z.shape == (user_codes.max() + 1,) and np.isfinite(z).all()
    # in score order, each user's Phi(score) lies in its own share of the jobs
    active = np.flatnonzero(counts)
    order = active[np.argsort(z[active], kind="stable")]
    share = counts[order] / counts.sum()
    upper = np.cumsum(share)
    p = ndtr(z[order])
    assert (p >= upper - share - 1e-9).all() and (p <= upper + 1e-9).all()
    # so the job-weighted distribution of the scores is the normal law within the
    # largest user's share
    jobs_z = np.sort(z[user_codes])
    empirical = np.arange(1, jobs_z.size + 1) / jobs_z.size
    assert np.max(np.abs(empirical - ndtr(jobs_z))) <= share.max() + 1e-9
    # the same random state gives the same scores
    assert np.array_equal(z, stratified_user_scores(user_codes, np.random.default_rng(seed)))


def test_a_dominant_user_does_not_move_the_padding_between_seeds():
    # one user submits a sixth of the jobs, as the heaviest user under the Zipf law
    rng = np.random.default_rng(0)
    users = np.where(rng.random(30_000) < 1 / 6, 0.0, rng.integers(1, 300, 30_000))
    run = np.full(users.size, 600.0)

    def spread(kind):
        model = JointEstimates(t_max="18h", user_share=0.9, session_share=0.0, user_scores=kind)
        return np.ptp([np.mean(np.log10(model.set_params(random_state=seed).sample(
            run, users=users))) for seed in range(6)])

    # stratified, the job-weighted user scores are normal whatever the heaviest user draws;
    # independent scores per user (the default) let that user move the whole distribution
    assert spread("stratified") < 0.1
    assert spread("independent") > 0.1


@pytest.mark.parametrize("value", ["Stratified", "", None, 1])
def test_a_bad_user_scores_value_is_one_config_error(value):
    model = JointEstimates(t_max="18h", user_scores=value)
    with pytest.raises(ConfigError, match="user_scores"):
        model.sample(np.full(10, 60.0), users=np.arange(10.0))
    with pytest.raises(ConfigError, match="user_scores"):
        model.draw(np.full(10, 60.0), np.arange(10), None, np.random.default_rng(0))


def test_default_user_scores_are_independent_normal_draws_per_user():
    run = np.full(40, 600.0)
    users = np.arange(40.0)
    default = JointEstimates(t_max="18h", random_state=1).sample(run, users=users)
    independent = JointEstimates(t_max="18h", user_scores="independent",
                                 random_state=1).sample(run, users=users)
    stratified = JointEstimates(t_max="18h", user_scores="stratified",
                                random_state=1).sample(run, users=users)
    assert np.array_equal(default, independent)
    assert not np.array_equal(default, stratified)


def test_a_user_keeps_one_padding_score_and_draws_repeat():
    run = np.full(3000, 600.0)
    users = np.repeat([3.0, 70.0, 71.0, 500.0], 750)  # labels far apart
    model = JointEstimates(t_max="18h", user_share=0.95, session_share=0.0, tail_share=0.0,
                           user_scores="stratified", random_state=4)
    first = model.sample(run, users=users)
    assert np.array_equal(first, model.sample(run, users=users))
    # nearly all the variation lies with the user: a user's jobs of one length ask for
    # few requests, the log's jobs for many
    few = np.mean([np.unique(first[users == u]).size for u in np.unique(users)])
    assert few < 0.5 * np.unique(model.set_params(user_share=0.0).sample(run, users=users)).size


def test_accuracy_rises_with_runtime_as_in_real_logs():
    run = np.exp(np.random.default_rng(3).uniform(np.log(5), np.log(60_000), 50_000))
    req = JointEstimates(t_max="18h", random_state=0).sample(np.floor(run))
    acc = _accuracy(np.floor(run), req)
    short, long = acc[run < 120], acc[run > 20_000]
    assert np.median(short) < 0.1 < np.median(long)
    assert np.mean(long >= AT_REQUEST) > 2 * np.mean(short >= AT_REQUEST)


def test_errors_are_clear():
    with pytest.raises(ConfigError, match="t_max"):
        JointEstimates().sample([10.0])
    with pytest.raises(ConfigError, match="session_share"):
        JointEstimates(t_max="18h", user_share=0.6, session_share=0.6).sample([10.0])
    with pytest.raises(ConfigError, match="longest runtime"):
        JointEstimates(t_max="1h").sample([7200.0])
    assert JointEstimates(t_max="1h", truncate=True).sample([7200.0])[0] == 3600.0
    log = make_workload(100, random_state=0).drop(columns=["req_time"])
    with pytest.raises(JobTableError, match="req_time"):
        JointEstimates().fit(log)
    empty = make_workload(100, random_state=0)
    empty["req_time"] = 0.0
    with pytest.raises(ConfigError, match="no job has a positive"):
        JointEstimates().fit(empty)
    empty["req_time"] = np.nan
    with pytest.raises(ConfigError, match="no job has a positive"):
        JointEstimates().fit(empty)


def test_jobs_with_unknown_runtimes_or_requests_are_left_out_as_zero_ones_are():
    from predictkit.workload import RuntimeDistribution, SiteModel

    log = make_workload(2000, random_state=1)
    for column in ("run_time", "req_time"):
        log[column] = log[column].astype(float)
    unknown, zero = log.copy(), log.copy()
    unknown.loc[:99, "req_time"] = np.nan
    unknown.loc[200:299, "run_time"] = np.nan
    zero.loc[:99, "req_time"] = 0.0
    zero.loc[200:299, "run_time"] = 0.0
    # the session fit (SiteModel's default) reads the jobs only through runtime_locality
    assert runtime_locality(unknown) == runtime_locality(zero)
    for model in (JointEstimates(random_state=0), RuntimeDistribution(random_state=0),
                  SiteModel(random_state=0, fit_sessions=False)):
        a = model.fit(unknown)
        fitted_unknown = {k: v for k, v in vars(a).items() if k.endswith("_")}
        fitted_zero = {k: v for k, v in vars(model.fit(zero)).items() if k.endswith("_")}
        assert fitted_unknown.keys() == fitted_zero.keys()
        for key, value in fitted_unknown.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(value, fitted_zero[key], err_msg=key)


def test_fitted_to_a_real_log_its_requests_look_like_the_log():
    log = clean_jobs(load_trace("SDSC-SP2-1998-4.2-cln"), for_simulation=True,
                     require_request=True)
    log = log.iloc[:10_000].reset_index(drop=True)
    log["run_time"] = np.minimum(log["run_time"], log["req_time"])
    out = JointEstimates(random_state=0).fit(log).transform(log)
    real, fake = _accuracy(log.run_time, log.req_time), _accuracy(out.run_time, out.req_time)
    assert ks_2samp(real, fake).statistic < 0.1
    assert ks_2samp(np.log(log.req_time), np.log(out.req_time)).statistic < 0.15


def _log_with_users(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    run = np.floor(np.exp(rng.uniform(1, 10, n)))
    req = np.choose(rng.integers(0, 4, n), [np.full(n, 3600.0), np.full(n, 7200.0),
                                           np.full(n, 14400.0), np.full(n, 36000.0)])
    req = np.maximum(req, run)
    return make_table(run, req, users=rng.integers(1, 30, n).astype(float),
                      submit=np.sort(rng.uniform(0, 1e7, n)))


def make_table(run, req, users, submit):
    import pandas as pd

    return pd.DataFrame({"run_time": run, "req_time": req, "user_id": users,
                         "submit_time": submit})


@given(st.integers(0, 2**31), st.sampled_from([5000.0, 7200.0, 20000.0, 50000.0, 400000.0]))
@settings(max_examples=15, deadline=None)
def test_given_t_max_is_the_largest_request_of_the_fitted_model(seed, t_max):
    """Requests above t_max (modes and users' own) become it; a larger one covers more."""
    log = _log_with_users(seed)
    fitted = JointEstimates(t_max=t_max, truncate=True, random_state=seed).fit(log)
    assert fitted.largest_request() == t_max == fitted.t_max_
    assert fitted.mode_values_.max() == t_max and fitted.mode_head_[-1]
    unlimited = JointEstimates(random_state=seed).fit(log)
    folded = unlimited.mode_weights_[unlimited.mode_values_ >= t_max].sum()
    assert fitted.mode_weights_[-1] == pytest.approx(folded)
    run = np.r_[log["run_time"].to_numpy(), t_max]
    users = np.r_[log["user_id"].to_numpy(), 1.0]
    submit = np.r_[log["submit_time"].to_numpy(), 1e7]
    req = fitted.sample(run, users=users, submit_times=submit)
    assert (req <= t_max).all() and (req >= np.minimum(run, t_max)).all()
    assert req[-1] == t_max
    limited = unlimited.limited(t_max)
    np.testing.assert_array_equal(limited.mode_values_, fitted.mode_values_)
    assert unlimited.largest_request() == 36000.0  # the copy leaves the model alone


def test_limited_needs_a_fitted_model_and_a_valid_t_max():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        JointEstimates(t_max="18h").limited("20h")
    with pytest.raises(ConfigError, match="t_max"):
        JointEstimates().fit(_log_with_users()).limited("10min")


def test_truncated_transform_marks_capped_jobs_killed():
    log = _log_with_users().assign(status=1.0)
    out = JointEstimates(t_max="4h", truncate=True, random_state=0).fit(log).transform(log)
    capped = log["run_time"].to_numpy() > 4 * 3600
    assert capped.any()
    np.testing.assert_array_equal(out["status"].to_numpy(), np.where(capped, 0.0, 1.0))
    np.testing.assert_array_equal(out["orig_run_time"], log["run_time"])

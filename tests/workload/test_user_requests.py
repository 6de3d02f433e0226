"""UserRequestTable and JointEstimates(user_requests=True): requests from the user's own jobs."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from tracedata import load_trace

from predictkit.exceptions import ConfigError
from predictkit.jobs import clean_jobs
from predictkit.datasets import make_workload
from predictkit.workload import JointEstimates, SiteModel
from predictkit.workload._user_requests import UserRequestTable, positions_in_time


def _window_reference(log_runs, requests, x, neighbors):
    """Requests of the window of one template, as the draw's docstring says (one job)."""
    order = np.lexsort((log_runs,))
    keys, values = log_runs[order], requests[order]
    at = (np.searchsorted(keys, x, side="left") + np.searchsorted(keys, x, side="right")) // 2
    size = min(neighbors, keys.size)
    low = min(max(at - size // 2, 0), keys.size - size)
    return set(values[low:low + size].tolist())


jobs_strategy = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 10**5),
                                   st.integers(0, 10**5)), min_size=1, max_size=300)


@settings(max_examples=80, deadline=None)
@given(jobs_strategy, st.lists(st.tuples(st.integers(0, 4), st.integers(1, 10**5)), min_size=1,
                               max_size=30), st.integers(1, 6), st.integers(0, 2**31))
def test_draws_come_from_the_users_window_of_nearest_runtimes(fitted, asked, neighbors, seed):
    users = np.array([u for u, _, _ in fitted], dtype=float)
    run = np.array([r for _, r, _ in fitted], dtype=float)
    req = run + np.array([p for _, _, p in fitted], dtype=float)
    table = UserRequestTable(neighbors=neighbors).fit(run, req, users)
    new_users = np.array([u for u, _ in asked], dtype=float)
    new_run = np.array([r for _, r in asked], dtype=float)
    rng = np.random.default_rng(seed)
    templates = table.templates(new_users, rng)
    drawn = table.draw(new_run, templates, rng)
    for k in range(new_run.size):
        template_user = table.users_[templates[k]]
        mine = users == template_user
        window = _window_reference(np.log10(run[mine]), req[mine], np.log10(new_run[k]),
                                   neighbors)
        if np.isnan(drawn[k]):
            # only a neighbor's request below the runtime is left to the fallback
            assert any(value < new_run[k] for value in window)
        else:
            assert drawn[k] in window
            assert drawn[k] >= new_run[k]
        if new_users[k] in users:
            assert template_user == new_users[k]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 10**5), st.integers(0, 10**5),
                          st.integers(0, 10**6)), min_size=1, max_size=200),
       st.integers(1, 5), st.integers(1, 8), st.integers(0, 2**31))
def test_recent_draws_come_from_the_nearest_runtimes_of_the_users_jobs_of_the_time(
        fitted, neighbors, window, seed):
    users = np.array([u for u, _, _, _ in fitted], dtype=float)
    run = np.array([r for _, r, _, _ in fitted], dtype=float)
    req = run + np.array([p for _, _, p, _ in fitted], dtype=float)
    submit = np.array([t for _, _, _, t in fitted], dtype=float)
    table = UserRequestTable(neighbors=neighbors).fit(run, req, users, submit)
    rng = np.random.default_rng(seed)
    place = positions_in_time(users, submit)
    drawn = table.draw_recent(run, table.templates(users, rng), place, rng, window=window)
    for k in range(run.size):
        mine = np.flatnonzero(users == users[k])
        mine = mine[np.lexsort((submit[mine],))]
        m = mine.size
        width = min(2 * window + 1, m)
        centre = int(np.rint(place[k] * (m - 1)))
        low = min(max(centre - window, 0), m - width)
        near = mine[low:low + width]
        distance = np.abs(np.log10(run[near]) - np.log10(run[k]))
        kth = np.sort(distance)[min(neighbors, width) - 1]
        allowed = set(req[near][distance <= kth + 1e-6].tolist())
        if np.isnan(drawn[k]):
            assert any(value < run[k] for value in allowed)
        else:
            assert drawn[k] in allowed and drawn[k] >= run[k]


def test_positions_run_from_a_users_first_job_to_its_last():
    users = np.array([1.0, 2.0, 1.0, np.nan, 1.0, np.nan])
    submit = np.array([50.0, 0.0, 10.0, 5.0, 30.0, 1.0])
    np.testing.assert_allclose(positions_in_time(users, submit), [1.0, 0.0, 0.0, 1.0, 0.5, 0.0])
    np.testing.assert_allclose(positions_in_time(users), [0.0, 0.0, 0.5, 0.0, 1.0, 1.0])


def test_a_job_may_be_kept_from_drawing_its_own_request():
    run = np.arange(1.0, 201.0) * 60
    req = run * 2 + np.arange(200)  # every request distinct
    users = np.zeros(200)
    table = UserRequestTable(neighbors=4).fit(run, req, users)
    rng = np.random.default_rng(0)
    for _ in range(20):
        drawn = table.draw(run, table.templates(users, rng), rng, exclude=table.job_order_)
        assert not np.any(drawn == req)
    with_own = table.draw(run, table.templates(users, rng), rng)
    assert np.any(with_own == req)


def test_unseen_users_take_one_fitted_user_each_by_job_count():
    run = np.full(1000, 100.0)
    users = np.r_[np.zeros(900), np.ones(100)]
    req = np.where(users == 0, 3600.0, 7200.0)
    table = UserRequestTable().fit(run, req, users)
    rng = np.random.default_rng(1)
    new_users = np.repeat(np.arange(10.0, 2010.0), 3)
    templates = table.templates(new_users, rng)
    per_user = templates.reshape(-1, 3)
    assert (per_user == per_user[:, :1]).all()  # a user keeps one template
    assert 0.85 < np.mean(per_user[:, 0] == 0) < 0.95
    drawn = table.draw(np.full(new_users.size, 100.0), templates, rng).reshape(-1, 3)
    assert (drawn == drawn[:, :1]).all()  # each user asks for its template's value


def test_without_user_ids_the_table_is_the_runtime_conditional_requests():
    rng = np.random.default_rng(2)
    run = np.exp(rng.uniform(np.log(10), np.log(50_000), 5000))
    req = np.where(run < 1000, 3600.0, 86400.0)
    table = UserRequestTable().fit(run, req)
    drawn = table.draw(run, table.templates(np.full(run.size, np.nan), rng), rng)
    far = np.abs(np.log10(run) - 3) > 0.05
    np.testing.assert_array_equal(drawn[far], req[far])


def test_repeat_share_counts_only_repeats_beyond_the_users_own_coincidences():
    rng = np.random.default_rng(3)
    n = 4000
    users = rng.integers(0, 20, n).astype(float)
    submit = np.sort(rng.uniform(0, 1e6, n))
    run = rng.uniform(10, 600, n)
    constant = UserRequestTable().fit(run, np.full(n, 3600.0), users, submit)
    assert constant.observed_repeat_share_ == 1.0
    assert constant.repeat_share_ == 0.0  # every draw already repeats
    fresh = UserRequestTable().fit(run, run * rng.uniform(1, 10, n), users, submit)
    assert fresh.repeat_share_ < 0.05
    chained = fresh.chain(run, np.full(n, 7200.0), users, submit, rng)
    assert (chained >= run).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 50_000)), min_size=2, max_size=150),
       st.integers(0, 2**31))
def test_joint_requests_with_user_requests_cover_runtimes_and_reproduce(jobs, seed):
    users = np.array([u for u, _ in jobs], dtype=float)
    run = np.array([r for _, r in jobs], dtype=float)
    req = run * np.random.default_rng(seed).uniform(1, 20, run.size)
    submit = np.arange(run.size) * 600.0
    log = pd.DataFrame({"run_time": run, "req_time": req, "user_id": users,
                        "submit_time": submit})
    for columns in (["run_time", "req_time", "user_id"], list(log.columns)):
        model = JointEstimates(user_requests=True, random_state=seed).fit(log[columns])
        assert model.user_table_ is not None
        assert (model.user_table_.time_order_ is None) == ("submit_time" not in columns)
        new_run = np.minimum(run[::-1], model.largest_request())
        for new_users in (users, users + 3):  # the log's users, and users it has not seen
            first = model.sample(new_run, users=new_users, submit_times=submit)
            assert (first >= new_run).all()
            np.testing.assert_array_equal(
                first, model.sample(new_run, users=new_users, submit_times=submit))
        assert (model.sample(new_run) >= new_run).all()
    assert JointEstimates(user_requests=False, random_state=seed).fit(log).user_table_ is None


def test_fitted_to_a_real_log_with_user_requests_its_requests_look_like_the_log():
    log = clean_jobs(load_trace("SDSC-SP2-1998-4.2-cln"), for_simulation=True,
                     require_request=True)
    log = log.iloc[:10_000].reset_index(drop=True)
    log["run_time"] = np.minimum(log["run_time"], log["req_time"])
    model = JointEstimates(user_requests=True, random_state=0).fit(log)
    out = model.transform(log)

    def accuracy(frame):
        return np.minimum(frame.run_time / np.maximum(frame.req_time, 1.0), 1.0)

    assert (out.req_time >= out.run_time).all()
    assert ks_2samp(accuracy(log), accuracy(out)).statistic < 0.05
    padded = JointEstimates(user_requests=False, random_state=0).fit(log).transform(log)

    def distinct_per_user(frame):
        return frame.groupby("user_id")["req_time"].nunique().mean()

    # a user asks for fewer distinct values than the padding model gives it
    assert distinct_per_user(out) < distinct_per_user(padded)


def test_generated_workload_draws_use_fitted_users_as_templates():
    rng = np.random.default_rng(5)
    n = 3000
    users = rng.integers(0, 30, n).astype(float)
    users[:100] = np.nan  # jobs without a user join the pooled template
    run = np.exp(rng.uniform(np.log(10), np.log(40_000), n))
    log = pd.DataFrame({"run_time": run, "req_time": run * rng.uniform(1, 5, n),
                        "user_id": users, "submit_time": np.sort(rng.uniform(0, 1e7, n))})
    model = JointEstimates(user_requests=True).fit(log)
    codes = rng.integers(0, 50, 500)
    sessions = np.arange(500) // 4
    new_run = np.minimum(np.exp(rng.uniform(np.log(10), np.log(40_000), 500)),
                         model.largest_request())
    for precise in (True, False):
        requests, at_request = model.draw(new_run, codes, sessions, np.random.default_rng(1),
                                          precise=precise)
        assert (requests >= new_run).all()
        assert at_request.dtype == bool
    fitted = set(log["req_time"]) | set(model.mode_values_)
    assert set(requests) <= fitted | set(new_run)


def test_user_requests_must_be_a_boolean():
    log = pd.DataFrame({"run_time": [10.0, 20.0], "req_time": [60.0, 60.0]})
    with pytest.raises(ConfigError, match="user_requests"):
        JointEstimates(user_requests="yes").fit(log)
    with pytest.raises(ConfigError, match="neighbors"):
        UserRequestTable(neighbors=0)


def test_a_fitted_model_uses_the_users_requests_by_default_and_a_site_does_not():
    log = make_workload(2000, random_state=4)
    assert JointEstimates(random_state=0).fit(log).user_table_ is not None
    assert SiteModel(random_state=0).fit(log).estimates_.user_table_ is None

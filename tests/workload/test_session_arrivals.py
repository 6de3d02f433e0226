"""Users' sessions laid over the arrivals: the compiled pass against a plain reference,
and the repetition it gives the synthetic users."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr

from predictkit.exceptions import InvalidParameterError
from predictkit.workload import make_workload
from predictkit.workload._runtimes import PROBABILITIES
from predictkit.workload._session_arrivals import (SessionDraws, draw_sessions, lay_sessions,
                                                    mean_runtimes)
from predictkit.workload._synthetic import default_runtimes

from predictkit.workload._locality import runtime_locality


def reference_lay_sessions(times, position_class, draws, log_quantiles, spread):
    """The pass written plainly: scan every open session for the one due longest."""
    due = {}  # session -> time its next job is due
    jobs_left, last_noise, start = {}, {}, []
    session, run, score = [], [], []
    for i, now in enumerate(times):
        ready = [(when, s) for s, when in due.items() if when <= now]
        if ready:
            s = min(ready)[1]
            del due[s]
            noise = draws.noise[i] if draws.fresh[i] else last_noise[s]
        else:
            s = len(start)
            start.append(i)
            jobs_left[s] = draws.length[s]
            noise = draws.noise[i]
        last_noise[s] = noise
        z = np.sqrt(1.0 - spread ** 2) * draws.score[s] + spread * noise
        position = min(max(float(ndtr(z)), 0.0), 1.0) * (PROBABILITIES.size - 1)
        low = min(int(np.floor(position)), PROBABILITIES.size - 2)
        row = log_quantiles[position_class[start[s]]]
        r = max(float(np.round(10.0 ** (row[low] + (position - low) * (row[low + 1] - row[low])))),
                1.0)
        session.append(s)
        run.append(r)
        score.append(z)
        jobs_left[s] -= 1
        if jobs_left[s] > 0:
            due[s] = now if draws.burst[i] else now + r + draws.think[i]
    return np.array(session), np.array(start), np.array(run), np.array(score)


def random_case(seed, n, *, session_jobs=3.0, repeat=0.5, burst=0.3, think_time=200.0):
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.exponential(300.0, n))
    times[rng.random(n) < 0.1] = 0.0  # ties
    times = np.maximum.accumulate(times)
    position_class = rng.integers(0, 5, n)
    users = rng.integers(0, 3, n)
    apps = 2 * users + rng.integers(0, 2, n)
    draws = draw_sessions(rng, n, users, apps, session_jobs=session_jobs, persistence=0.8,
                          user_affinity=0.5, repeat=repeat, burst=burst,
                          think_time=think_time)
    return times, position_class, draws


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 120),
       spread=st.floats(0.0, 1.0), burst=st.floats(0.0, 1.0), repeat=st.floats(0.0, 1.0))
def test_the_compiled_pass_equals_the_plain_reference_job_by_job(seed, n, spread, burst, repeat):
    times, position_class, draws = random_case(seed, n, burst=burst, repeat=repeat)
    table = default_runtimes().log_quantiles_
    got = lay_sessions(times, position_class, draws, table, spread)
    want = reference_lay_sessions(times, position_class, draws, table, spread)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_runtimes_are_what_the_site_distribution_gives_for_the_scores():
    times, position_class, draws = random_case(3, 5000)
    model = default_runtimes()
    session, start, run, score = lay_sessions(times, position_class, draws,
                                              model.log_quantiles_, 0.3)
    sizes = np.array([1, 2, 8, 32, 64])[position_class[start[session]]]
    np.testing.assert_array_equal(run, model.sample(sizes, machine_procs=128, scores=score))


def test_sessions_open_in_order_keep_their_length_and_wait_for_their_jobs():
    times, position_class, draws = random_case(5, 4000)
    session, start, run, _ = lay_sessions(times, position_class, draws,
                                          default_runtimes().log_quantiles_, 0.3)
    assert start[0] == 0 and np.all(np.diff(start) > 0)
    assert np.all(session[start] == np.arange(start.size))
    counts = np.bincount(session)
    assert np.all(counts <= draws.length[:start.size])
    # a session's next job never arrives before it is due
    for s in range(start.size):
        mine = np.flatnonzero(session == s)
        for earlier, later in zip(mine[:-1], mine[1:]):
            due = times[earlier] + (0.0 if draws.burst[earlier]
                                    else run[earlier] + draws.think[earlier])
            assert times[later] >= due


def test_repeated_jobs_repeat_the_runtime_of_the_previous_job_of_their_session():
    times, position_class, draws = random_case(7, 3000, repeat=1.0, burst=1.0)
    session, _, run, score = lay_sessions(times, position_class, draws,
                                          default_runtimes().log_quantiles_, 0.5)
    for s in np.unique(session):
        assert np.ptp(score[session == s]) == 0 and np.ptp(run[session == s]) == 0


def test_no_arrivals_give_no_sessions():
    draws = SessionDraws(*(np.zeros(0),) * 6)
    session, start, run, score = lay_sessions(np.zeros(0), np.zeros(0, dtype=np.int64), draws,
                                              default_runtimes().log_quantiles_, 0.3)
    assert session.size == start.size == run.size == score.size == 0


def test_mean_runtimes_are_the_means_of_the_sampled_runtimes():
    model = default_runtimes()
    rng = np.random.default_rng(0)
    u = rng.standard_normal(400_000)
    for c in range(5):
        sampled = 10.0 ** np.interp(ndtr(u), PROBABILITIES, model.log_quantiles_[c])
        assert mean_runtimes(model.log_quantiles_)[c] == pytest.approx(sampled.mean(), rel=0.03)


def test_the_application_scores_keep_the_runtimes_of_the_site():
    # the heaviest user's applications are stratified: seed after seed the runtimes keep
    # the site's distribution instead of following the few scores of the heaviest users
    medians = [np.median(np.log10(make_workload(20_000, random_state=seed, load=None)
                                  ["run_time"])) for seed in range(4)]
    assert np.ptp(medians) < 0.25


def test_synthetic_users_repeat_their_runtimes_as_real_users_do():
    # thirteen archive logs: median |log10 ratio| of a user's consecutive runtimes 0.013-0.30,
    # correlation 0.60-0.95 (benchmarks/workload_locality.py); independent sessions gave 0.59
    jobs = make_workload(20_000, random_state=1)
    found = runtime_locality(jobs)
    assert found["median_abs_log10_ratio"] < 0.3 and found["correlation"] > 0.6
    independent = runtime_locality(make_workload(20_000, random_state=1, persistence=0.0, repeat=0.0,
                                           runtime_spread=1.0))
    assert independent["median_abs_log10_ratio"] > 0.5


def test_a_users_next_job_usually_comes_after_the_last_one_ended():
    # the share of a user's jobs submitted after the previous one ended (no wait) is
    # 0.04-0.79 on the archive logs, 0.62 on KTH-SP2; consecutive-arrival sessions gave 0.19
    after = runtime_locality(make_workload(20_000, random_state=2))["share_after_run"]
    assert after > 0.35
    bursts = runtime_locality(make_workload(20_000, random_state=2, burst=1.0))
    assert bursts["share_after_run"] < after - 0.1


@pytest.mark.parametrize("name, value", [("persistence", 1.5), ("repeat", -0.1),
                                         ("user_affinity", 1.01),
                                         ("burst", 2.0), ("think_time", -1.0)])
def test_session_parameters_out_of_range_are_refused_by_name(name, value):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of make_workload"):
        make_workload(100, random_state=0, **{name: value})

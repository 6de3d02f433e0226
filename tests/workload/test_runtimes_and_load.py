"""RuntimeDistribution, the paced arrivals and SiteModel."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from tracedata import load_trace

from predictkit.exceptions import ConfigError, InvalidParameterError, JobTableError, NotFittedError
from predictkit.jobs import clean_jobs
from predictkit.workload import RuntimeDistribution, SiteModel, make_workload
from predictkit.workload._load import paced_arrivals, to_calendar, to_rate_time
from predictkit.workload._lublin import bucket_weights
from predictkit.workload._runtimes import SIZE_CLASSES, size_class


def test_size_classes_are_shares_of_the_machine():
    assert size_class([1, 2, 16, 17, 64, 65, 128], 1024).tolist() == [0, 1, 1, 2, 2, 3, 3]
    assert size_class([300], 1024).tolist() == [4]
    assert len(SIZE_CLASSES) == 5


def test_runtimes_fitted_to_a_log_match_it_per_class():
    # independent jobs: a user's repeated runtimes would leave fewer independent samples
    # than the tolerance below assumes
    log = make_workload(30_000, random_state=2, persistence=0.0, repeat=0.0, runtime_spread=1.0)
    model = RuntimeDistribution(random_state=0).fit(log)
    sizes = log["n_procs"].to_numpy()
    fake = model.sample(sizes, machine_procs=128)
    classes = size_class(sizes, 128)
    for c in np.unique(classes):
        mask = classes == c
        if mask.sum() >= 500:
            stat = ks_2samp(np.log(log["run_time"][mask]), np.log(fake[mask])).statistic
            assert stat < 0.05


def test_scores_give_the_same_distribution_and_rank_order():
    model = RuntimeDistribution(random_state=0).fit(make_workload(5000, random_state=1))
    scores = np.random.default_rng(0).standard_normal(20_000)
    sizes = np.ones(20_000)
    a = model.sample(sizes, scores=scores)
    b = model.sample(sizes)
    assert ks_2samp(a, b).statistic < 0.03
    order = np.argsort(scores)
    assert (np.diff(a[order]) >= 0).all()


def test_runtime_errors_are_clear():
    with pytest.raises(NotFittedError, match="fitted"):
        RuntimeDistribution().sample([1.0])
    with pytest.raises(ConfigError, match="shape"):
        RuntimeDistribution.from_quantiles(np.zeros((2, 3)))
    with pytest.raises(ConfigError, match="non-decreasing"):
        RuntimeDistribution.from_quantiles(-np.ones((6, 101)) * np.arange(101))
    log = make_workload(50, random_state=0)
    log["run_time"] = 0.0
    with pytest.raises(JobTableError, match="positive run_time"):
        RuntimeDistribution().fit(log)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 10**8, allow_nan=False), min_size=1, max_size=50),
       st.floats(0.1, 3))
def test_rate_time_and_calendar_are_inverse(times, weekend):
    weights = bucket_weights("batch", weekend)
    t = np.array(times)
    assert np.allclose(to_calendar(to_rate_time(t, weights, 1800.0), weights, 1800.0), t,
                       rtol=1e-9, atol=1e-3)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(1, 1e6), min_size=2, max_size=300),
       st.lists(st.floats(0, 1e5), min_size=2, max_size=300), st.floats(0.1, 2))
def test_paced_arrivals_are_increasing_and_stay_within_the_band(work, gaps, load):
    n = min(len(work), len(gaps))
    work, random_times = np.array(work[:n]), np.cumsum(gaps[:n])
    weights = np.ones(336)
    band = 3600.0
    out = paced_arrivals(random_times, work, capacity=10.0, load=load, weights=weights,
                         bucket_seconds=1800.0, band=band)
    assert out[0] == 0 and (np.diff(out) >= -1e-6).all()
    work_clock = np.concatenate(([0.0], np.cumsum(work[:-1]))) / (load * 10.0)
    assert (np.abs(out - work_clock) <= 2 * band + 1e-6).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1, 1e7), min_size=3, max_size=200),
       st.lists(st.floats(0, 1e5), min_size=3, max_size=200), st.floats(0.05, 2),
       st.floats(0.5, 20))
def test_every_window_offers_the_load_within_the_band_and_one_job_at_each_edge(
        work, gaps, load, window_bands):
    """Over a window of T seconds of rate time the jobs arriving in it offer between
    ``load * capacity * (T - 2 D)`` less the work of the job just before it and
    ``load * capacity * (T + 2 D)`` plus the work of the last job in it (a window
    after a job bigger than its whole budget may hold no job at all)."""
    n = min(len(work), len(gaps))
    work, random_times = np.array(work[:n]), np.cumsum(gaps[:n])
    band, capacity = 3600.0, 10.0
    out = paced_arrivals(random_times, work, capacity=capacity, load=load,
                         weights=np.ones(336), bucket_seconds=1800.0, band=band)
    length = window_bands * band
    budget = load * capacity
    slack = 1e-6 * (work.sum() + budget * length)
    for start in np.linspace(0.0, max(out[-1] - length, 0.0), 40):
        if start + length > out[-1]:
            break
        inside = (out >= start) & (out < start + length)
        before = np.flatnonzero(out < start)
        offered = work[inside].sum()
        previous = work[before[-1]] if before.size else 0.0
        last = work[np.flatnonzero(inside)[-1]] if inside.any() else 0.0
        assert offered >= budget * (length - 2 * band) - previous - slack
        assert offered <= budget * (length + 2 * band) + last + slack


def test_a_site_fitted_to_a_real_log_generates_that_log_s_runtimes_and_requests():
    log = clean_jobs(load_trace("KTH-SP2-1996-2.1-cln"), for_simulation=True,
                     require_request=True)
    site = SiteModel().fit(log)
    fake = make_workload(len(log), machine_procs=100, site=site, random_state=0)
    for column in ("run_time", "req_time"):
        stat = ks_2samp(np.log(np.maximum(log[column], 1)),
                        np.log(np.maximum(fake[column], 1))).statistic
        assert stat < 0.12, column
    acc = np.minimum(log.run_time / log.req_time, 1)
    fake_acc = np.minimum(fake.run_time / fake.req_time, 1)
    assert ks_2samp(acc, fake_acc).statistic < 0.15
    params = site.to_dict()
    assert params["machine_procs"] == 100 and len(params["padding_quantiles"]) == 10


def test_make_workload_refuses_an_unfitted_site():
    with pytest.raises(ConfigError, match="fitted SiteModel"):
        make_workload(10, site=SiteModel())


def test_default_workload_looks_like_the_archive_logs():
    """The issue's targets on two of the nine logs (all nine: the benchmark)."""
    jobs = make_workload(50_000, random_state=0)
    acc = np.minimum(jobs.run_time / jobs.req_time, 1)
    assert 0.27 <= acc.mean() <= 0.58
    for name in ("KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln"):
        log = clean_jobs(load_trace(name), for_simulation=True, require_request=True)
        real = np.minimum(log.run_time / log.req_time, 1)
        assert ks_2samp(real, acc).statistic <= 0.35


@pytest.mark.parametrize("sizes, options, error, message", [
    ([1, 2], {"scores": [0.1, 0.2, 0.3]}, ConfigError, "one value per size (2)"),
    ([1, 2], {"scores": [np.nan, 0.2]}, JobTableError, "scores must be finite"),
    (["a", 2], {}, JobTableError, "sizes must hold numbers"),
    ([np.nan, 3], {}, JobTableError, "sizes must be finite"),
    ([0, 3], {}, JobTableError, "sizes must be positive"),
    ([1], {"machine_procs": 0}, InvalidParameterError, "'machine_procs'"),
    ([1], {"machine_procs": True}, InvalidParameterError, "'machine_procs'"),
])
def test_sample_refuses_what_it_cannot_draw_for(sizes, options, error, message):
    model = RuntimeDistribution(random_state=0).fit(make_workload(500, random_state=0))
    with pytest.raises(error, match=re.escape(message)):
        model.sample(sizes, **options)

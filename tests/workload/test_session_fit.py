"""Session parameters fitted to a log by the simulated method of moments."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.workload import SiteModel, make_workload
from predictkit.workload._session_fit import (DEFAULT_SESSIONS, FIT_JOBS, FIT_STEPS, GOLDEN,
                                              SessionParameters, _golden_section)


@settings(max_examples=50, deadline=None)
@given(st.floats(-0.5, 1.5), st.floats(0.1, 10.0))
def test_golden_section_finds_the_least_point_or_the_nearest_bound(least, scale):
    found = _golden_section(lambda value: scale * (value - least) ** 2)
    assert found == pytest.approx(min(max(least, 0.0), 1.0), abs=GOLDEN ** FIT_STEPS)


def test_the_fit_recovers_the_parameters_a_workload_was_generated_with():
    truth = SessionParameters(runtime_spread=0.2, persistence=DEFAULT_SESSIONS.persistence,
                              user_affinity=0.8, repeat=0.7, burst=0.2)
    log = make_workload(4 * FIT_JOBS, random_state=7, **truth._asdict())
    site = SiteModel(random_state=0).fit(log)
    for name, want in truth._asdict().items():
        # the share after run moves least with its parameter (0.66 to 0.20 over burst 0-1)
        # and a little with the number of jobs, as a user's jobs interleave with more others'
        tolerance = 0.15 if name == "burst" else 0.1
        assert getattr(site.sessions_, name) == pytest.approx(want, abs=tolerance), name
    # and the defaults are not what it found
    assert abs(site.sessions_.repeat - DEFAULT_SESSIONS.repeat) > 0.1


@pytest.fixture(scope="module")
def small_log():
    return make_workload(3000, random_state=3)


def test_a_log_without_users_keeps_the_built_in_sessions(small_log):
    site = SiteModel(random_state=0).fit(small_log.drop(columns=["user_id"]))
    assert site.locality_ is None and site.sessions_ == DEFAULT_SESSIONS
    unknown = SiteModel(random_state=0).fit(small_log.assign(user_id=np.nan))
    assert unknown.locality_ is None and unknown.sessions_ == DEFAULT_SESSIONS
    assert SiteModel(fit_sessions=False, random_state=0).fit(small_log).sessions_ \
        == DEFAULT_SESSIONS
    one_user = SiteModel(random_state=0).fit(small_log.assign(user_id=1.0))
    assert one_user.locality_ is not None and one_user.sessions_ == DEFAULT_SESSIONS


@pytest.mark.parametrize("n_jobs", [1, 10, 49])
def test_a_log_too_small_for_a_site_is_refused_in_one_line(small_log, n_jobs):
    from predictkit.exceptions import JobTableError

    with pytest.raises(JobTableError, match=rf"at least min_jobs=50 jobs .* the log has "
                                            rf"{n_jobs}: "):
        SiteModel(random_state=0).fit(small_log.iloc[:n_jobs])
    assert SiteModel(min_jobs=n_jobs, fit_sessions=False).fit(small_log.iloc[:n_jobs])


def test_make_workload_takes_the_sites_sessions_unless_given(small_log):
    site = SiteModel(random_state=0).fit(small_log)
    fitted = site.sessions_
    assert fitted != DEFAULT_SESSIONS
    plain = SiteModel(fit_sessions=False, random_state=0).fit(small_log)
    by_site = make_workload(2000, site=site, random_state=1)
    spelled = make_workload(2000, site=plain, random_state=1, **fitted._asdict())
    pd.testing.assert_frame_equal(by_site, spelled)
    given_one = make_workload(2000, site=site, random_state=1, repeat=1.0)
    spelled_one = make_workload(2000, site=plain, random_state=1,
                                **fitted._replace(repeat=1.0)._asdict())
    pd.testing.assert_frame_equal(given_one, spelled_one)
    assert site.to_dict()["sessions"]["repeat"] == pytest.approx(fitted.repeat, abs=1e-4)

"""The policy seam: one registry lists the policies, each plugs into the
generic event loop through three hooks, and a policy defined outside the
package runs through ``simulate`` like a built-in one."""

import importlib
import inspect
import pkgutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from _workloads import workloads
from test_properties import check_basic
from predictkit.exceptions import ConfigError
from predictkit.simulate import POLICIES, PRIORITIES, simulate
from predictkit.simulate import _engine, _policies
from predictkit.simulate._engine import event_loop, ignore_completion, ignore_extension, start_job
from predictkit.simulate._policies import REGISTRY, Policy


def test_registry_lists_every_policy_module():
    modules = {info.name for info in pkgutil.iter_modules(_policies.__path__)
               if not info.name.startswith("_")}
    defining = {name for name in modules
                if hasattr(importlib.import_module(f"{_policies.__name__}.{name}"), "POLICY")}
    assert set(POLICIES) == {REGISTRY[name].name for name in POLICIES}
    assert {importlib.import_module(f"{_policies.__name__}.{m}").POLICY.name
            for m in defining} == set(POLICIES)
    assert POLICIES == ("fcfs", "easy", "conservative", "no_guarantee")


def test_unknown_policy_error_lists_the_registry():
    with pytest.raises(ConfigError, match="'policy' parameter of simulate") as caught:
        simulate(pd.DataFrame(dict(submit_time=[0.0], run_time=[1.0], n_procs=[1.0],
                                   req_time=[1.0])), policy="lottery")
    assert all(f"'{name}'" in str(caught.value) for name in POLICIES)


@pytest.mark.parametrize("name", [n for n in POLICIES if not REGISTRY[n].takes_reservation_depth])
def test_reservation_depth_only_where_the_policy_takes_it(name):
    jobs = pd.DataFrame(dict(submit_time=[0.0], run_time=[1.0], n_procs=[1.0], req_time=[1.0]))
    with pytest.raises(ConfigError, match="reservation_depth.*applies to policy='easy' only"):
        simulate(jobs, policy=name, reservation_depth=2)


def test_generic_loop_knows_no_policy():
    """The event loop and the job events touch no profile and no reservation."""
    for function in (event_loop, _engine._complete, _engine._extend, _engine._arrive,
                     start_job, _engine.finish_pass):
        source = inspect.getsource(function.py_func)
        body = source.split('"""')[-1] if '"""' in source else source
        for word in ("profile", "reservation", "conservative", "CONSERVATIVE"):
            assert word not in body, f"{function.py_func.__name__} mentions {word!r}"


# ------------------------------------------------------------------------------
# A policy from outside the package: first fit (start, in priority order, every
# waiting job that fits now; no reservation). It needs one module - the hooks,
# the compiled loop, a Policy - and, to be listed, to live in _policies/.


@njit(_nrt=False)
def _first_fit(s, order, now, settings):
    c = s.counters[0]
    for j in order:
        if s.jobs.width[j] <= c.free:
            start_job(s, j, now)
    return np.inf


@njit(_nrt=False)
def _first_fit_run(s, settings):
    return event_loop(s, settings, ignore_completion, ignore_extension, _first_fit)


FIRST_FIT = Policy(name="first_fit", summary="every waiting job that fits starts",
                   run=_first_fit_run, rank=99)


def first_fit_reference(submit, run, width, machine):
    """Plain first fit: at each instant, ends, then arrivals, then one scan in submit order."""
    n = len(submit)
    start = [None] * n
    end = [None] * n
    waiting = []
    arrived = 0
    free = machine
    running = []
    now = 0.0
    while arrived < n or waiting or running:
        times = [t for t, _ in running] + ([submit[arrived]] if arrived < n else [])
        now = min(times)
        for t, j in sorted(r for r in running if r[0] == now):
            free += width[j]
            end[j] = t
        running = [r for r in running if r[0] != now]
        while arrived < n and submit[arrived] == now:
            waiting.append(arrived)
            arrived += 1
        for j in list(waiting):
            if width[j] <= free:
                start[j] = now
                free -= width[j]
                running.append((now + run[j], j))
                waiting.remove(j)
    return np.array(start, dtype=float), np.array(end, dtype=float)


@settings(max_examples=40, deadline=None)
@given(case=workloads(), kill=st.booleans())
def test_a_new_policy_runs_through_the_seam(case, kill):
    jobs, machine, _, _ = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(REGISTRY, FIRST_FIT.name, FIRST_FIT)
        schedule = simulate(jobs, machine_procs=machine, policy="first_fit", kill_at_request=kill)
    run = jobs["run_time"].to_numpy()
    if kill:
        run = np.minimum(run, jobs["req_time"].to_numpy())
    start, end = first_fit_reference(jobs["submit_time"].to_numpy(), run,
                                     jobs["n_procs"].to_numpy().astype(int), machine)
    np.testing.assert_array_equal(schedule.jobs["start_time"].to_numpy(), start)
    np.testing.assert_array_equal(schedule.jobs["end_time"].to_numpy(), end)
    assert schedule.params["policy"] == "first_fit"
    assert schedule.params["reservation_depth"] is None


@pytest.mark.parametrize("name", POLICIES)
@settings(max_examples=20, deadline=None)
@given(case=workloads(), priority=st.sampled_from(PRIORITIES),
       max_runtime=st.sampled_from([None, 7.0]))
def test_every_registered_policy_keeps_the_basic_invariants(name, case, priority, max_runtime):
    """Whatever the registry lists: every job starts, after its submission, and
    the machine is never overcommitted (also with jobs split into pieces)."""
    jobs, machine, est, _ = case
    schedule = simulate(jobs, machine_procs=machine, policy=name, estimates=est, priority=priority,
                        max_runtime=max_runtime)
    if max_runtime is None:
        check_basic(schedule, jobs, machine)
    else:
        out = schedule.jobs
        assert np.isfinite(out["start_time"]).all()
        assert (out["start_time"] >= out["submit_time"]).all()
        assert (out["end_time"] >= out["start_time"] + out["sim_run_time"]).all()


@settings(max_examples=60, deadline=None)
@given(case=workloads(), policy=st.sampled_from(POLICIES), priority=st.sampled_from(PRIORITIES),
       backfill=st.sampled_from(["priority", "sjf"]), starve=st.sampled_from([None, 40.0]),
       depth=st.sampled_from([None, 0, 2]),
       under=st.sampled_from(["double", "increments", "request"]))
def test_where_estimates_do_not_matter_no_estimate_changes_the_schedule(
        case, policy, priority, backfill, starve, depth, under):
    jobs, machine, est, _ = case
    if not REGISTRY[policy].takes_backfill_order:
        backfill = "priority"
    if not REGISTRY[policy].takes_starvation_after:
        starve = None
    if not REGISTRY[policy].takes_reservation_depth:
        depth = None
    if _policies.estimates_matter(policy, priority, backfill, starve, depth):
        return
    common = dict(machine_procs=machine, policy=policy, priority=priority,
                  backfill_order=backfill, starvation_after=starve, on_underestimate=under,
                  reservation_depth=depth)
    given = simulate(jobs, estimates=est, **common).jobs
    asked = simulate(jobs, estimates="requested", **common).jobs
    np.testing.assert_array_equal(given["start_time"], asked["start_time"])
    np.testing.assert_array_equal(given["end_time"], asked["end_time"])


def test_estimates_matter_names_the_schedulers_that_read_them():
    matter = _policies.estimates_matter
    assert not matter("fcfs") and not matter("fcfs", "fairshare")
    assert not matter("no_guarantee") and not matter("no_guarantee", "fairshare")
    assert matter("fcfs", "sjf") and matter("fcfs", "wfp") and matter("fcfs", lambda X: 0)
    assert matter("no_guarantee", backfill_order="sjf")
    assert matter("no_guarantee", starvation_after=3600.0)
    assert matter("easy") and matter("conservative") and matter("easy", reservation_depth=2)
    assert not matter("easy", reservation_depth=0)
    assert matter("easy", backfill_order="sjf", reservation_depth=0)
    # a log where they do: SJF by estimate reorders the queue
    jobs = pd.DataFrame(dict(submit_time=[0.0, 1.0, 1.0], run_time=[10.0, 50.0, 5.0],
                             n_procs=[1.0, 1.0, 1.0], req_time=[10.0, 60.0, 60.0]))
    starts = [simulate(jobs, machine_procs=1, policy="fcfs", priority="sjf", estimates=e)
              .jobs["start_time"].tolist() for e in ("requested", "perfect")]
    assert starts[0] != starts[1]

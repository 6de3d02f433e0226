"""simulate(): parameters, bad input, predictors in simulated time, job splitting."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from _workloads import compare, workloads
from tracedata import load_trace
from predictkit.exceptions import ConfigError, JobTableError, PredictkitError, SimulationError
from predictkit.runtime import make_predictor
from predictkit.simulate import Schedule, simulate
from predictkit.jobs import clean_jobs


def small_jobs():
    return pd.DataFrame(dict(job_id=[1, 2, 3, 4], submit_time=[0.0, 1, 2, 3],
                             run_time=[10.0, 5, 3, 2], n_procs=[2.0, 4, 1, 1],
                             req_time=[20.0, 10, 5, 5], user_id=[1.0, 2, 1, 3],
                             wait_time=[0.0, 9, 0, 0]))


class LastRuntimes:
    """A tiny online runtime predictor: mean of the user's last two runtimes."""

    target_known_at = "end"

    def __init__(self):
        self.history = []
        self.seen_rows = []

    def partial_fit(self, X, y):
        assert "end_time" in X and "start_time" in X
        for user, run in zip(X["user_id"], y):
            self.history.append((user, float(run)))
        self.seen_rows.append(len(X))
        return self

    def predict(self, X):
        assert X["run_time"].isna().all(), "outcomes of waiting jobs are hidden"
        out = []
        for user, req in zip(X["user_id"], X["req_time"]):
            runs = [r for u, r in self.history if u == user][-2:]
            out.append(np.mean(runs) if runs else req)
        return np.array(out)


def test_schedule_columns_and_metrics():
    jobs = small_jobs()
    schedule = simulate(jobs, machine_procs=4, policy="easy")
    assert isinstance(schedule, Schedule)
    out = schedule.jobs
    for column in ["start_time", "end_time", "wait_time", "backfilled", "estimate",
                   "promised_start", "log_wait_time", "sim_run_time", "killed"]:
        assert column in out.columns
    assert list(out["start_time"]) == [0.0, 10.0, 2.0, 3.0]
    assert list(out["backfilled"]) == [False, False, True, True]
    table = schedule.metrics()
    assert list(table.columns) == ["metric", "value"]
    assert table.set_index("metric").loc["n_jobs", "value"] == 4
    assert "4 jobs" in repr(schedule)


def test_machine_size_from_header_and_widest_job():
    jobs = small_jobs()
    assert simulate(jobs).machine_procs == 4
    jobs.attrs["max_procs"] = 8
    assert simulate(jobs).machine_procs == 8



def test_the_schedule_does_not_share_mutable_attrs_with_the_input():
    jobs = small_jobs()
    jobs.attrs["header"] = ["; MaxProcs: 8"]
    simulate(jobs).jobs.attrs["header"].append("; Note: added")
    assert jobs.attrs["header"] == ["; MaxProcs: 8"]

def test_deprecated_n_procs_names_still_work_and_warn():
    new = simulate(small_jobs(), machine_procs=8)
    with pytest.warns(DeprecationWarning, match=r"simulate\(n_procs=\.\.\.\).*machine_procs="):
        old = simulate(small_jobs(), n_procs=8)
    pd.testing.assert_frame_equal(old.jobs, new.jobs)
    assert old.params == new.params and new.params["machine_procs"] == 8
    with pytest.warns(DeprecationWarning, match="Schedule.machine_procs"):
        assert new.n_procs == 8
    with pytest.warns(DeprecationWarning, match=r"params\['machine_procs'\]"):
        assert new.params["n_procs"] == 8
    with pytest.raises(KeyError):
        new.params["no_such_parameter"]
    with pytest.raises(PredictkitError, match="give machine_procs= only"):
        simulate(small_jobs(), machine_procs=8, n_procs=8)
    with pytest.raises(PredictkitError, match="'n_procs' parameter of simulate"):
        simulate(small_jobs(), n_procs=0)


def test_wider_jobs_are_rejected_not_dropped():
    schedule = simulate(small_jobs(), machine_procs=2)
    assert list(schedule.rejected["job_id"]) == [2]
    assert "wider than the machine" in schedule.rejected["reason"].iloc[0]
    assert list(schedule.jobs["job_id"]) == [1, 3, 4]


def test_req_procs_used_when_n_procs_missing():
    jobs = small_jobs().assign(req_procs=[2.0, 2, 2, 2])
    jobs.loc[1, "n_procs"] = np.nan
    out = simulate(jobs, machine_procs=4).jobs
    assert out["start_time"].iloc[1] == 1.0


@pytest.mark.parametrize("change,error,text", [
    (lambda j: j.assign(run_time=[10.0, np.nan, 3, 2]), JobTableError, "run_time"),
    (lambda j: j.drop(columns="run_time"), JobTableError, "run_time"),
    (lambda j: j.assign(submit_time=[0.0, np.nan, 2, 3]), JobTableError, "submit_time"),
    (lambda j: j.assign(submit_time=[-5.0, 1, 2, 3]), JobTableError, "negative"),
    (lambda j: j.assign(run_time=[10.0, -1, 3, 2]), JobTableError, "negative"),
    (lambda j: j.assign(submit_time=[0.0, 3, 2, 4]), JobTableError, "not sorted"),
    (lambda j: j.assign(n_procs=[2.0, 0, 1, 1]), JobTableError, "<= 0"),
    (lambda j: j.assign(n_procs=[2.0, np.nan, 1, 1]), JobTableError, "neither n_procs"),
    (lambda j: j.iloc[:0], JobTableError, "empty"),
])
def test_bad_jobs(change, error, text):
    with pytest.raises(error, match=text):
        simulate(change(small_jobs()), machine_procs=4)


@pytest.mark.parametrize("kwargs,text", [
    (dict(policy="backfill"), "policy"),
    (dict(priority="lifo"), "priority"),
    (dict(on_underestimate="triple"), "on_underestimate"),
    (dict(backfill_order="random"), "backfill_order"),
    (dict(policy="conservative", reservation_depth=2), "reservation_depth"),
    (dict(reservation_depth=-1), "reservation_depth"),
    (dict(machine_procs=0), "machine_procs"),
    (dict(estimates="guess"), "estimates"),
    (dict(estimates=[1.0, 2.0]), "shape"),
    (dict(estimates=[1.0, np.nan, 1, 1]), "missing"),
    (dict(max_runtime=0), "max_runtime"),
    (dict(fairshare_decay="soon"), "fairshare_decay"),
])
def test_bad_parameters(kwargs, text):
    kwargs.setdefault("machine_procs", 4)
    with pytest.raises(PredictkitError, match=text):
        simulate(small_jobs(), **kwargs)


def test_requested_estimates_need_requests():
    jobs = small_jobs().assign(req_time=[20.0, np.nan, 5, 5])
    with pytest.raises(SimulationError, match="req_time"):
        simulate(jobs, machine_procs=4)
    out = simulate(jobs, machine_procs=4, estimates="perfect").jobs
    assert out["estimate"].iloc[1] == 5.0
    with pytest.raises(SimulationError, match="selective"):
        simulate(jobs, machine_procs=4, estimates="perfect", selective=True)


def test_kill_at_request():
    jobs = small_jobs().assign(run_time=[30.0, 5, 3, 2])
    killed = simulate(jobs, machine_procs=4).jobs
    assert killed["end_time"].iloc[0] == 20.0 and killed["killed"].iloc[0]
    kept = simulate(jobs, machine_procs=4, kill_at_request=False).jobs
    assert kept["end_time"].iloc[0] == 30.0 and not kept["killed"].iloc[0]


def test_callable_priority_serves_high_scores_first():
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 1, 1], run_time=[10.0, 5, 5],
                             n_procs=[1.0, 1, 1], req_time=[10.0, 5, 5]))
    out = simulate(jobs, machine_procs=1, priority=lambda X: np.array([0.0, 1.0, 2.0])).jobs
    assert list(out["start_time"]) == [0.0, 15.0, 10.0]
    with pytest.raises(SimulationError, match="shape"):
        simulate(jobs, machine_procs=1, priority=lambda X: np.ones(2))
    with pytest.raises(SimulationError, match="not numbers"):
        simulate(jobs, machine_procs=1, priority=lambda X: ["high", "low", "low"])


def test_a_callable_priority_series_is_taken_by_its_labels():
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 1, 1], run_time=[10.0, 5, 5],
                             n_procs=[1.0, 1, 1], req_time=[10.0, 5, 5]),
                        index=["a", "b", "c"])
    by_position = simulate(jobs, machine_procs=1, priority=lambda X: -X["job_id"].to_numpy())
    # the scores come back sorted (job 3 first): each still belongs to its own row
    for returned in (lambda X: -X["job_id"], lambda X: (-X["job_id"]).sort_values()):
        out = simulate(jobs, machine_procs=1, priority=returned)
        assert_frame_equal(out.jobs, by_position.jobs)
    assert list(by_position.jobs["start_time"]) == [0.0, 10.0, 15.0]
    with pytest.raises(SimulationError, match=r"^the priority function returned a Series labelled "
                                              r"for other rows than the table it was given "
                                              r"\(label 'a' is not a row of it\)"):
        simulate(jobs, machine_procs=1, priority=lambda X: -jobs["job_id"])
    with pytest.raises(SimulationError, match=r"\(its labels are not the table's, each once\)"):
        simulate(jobs, machine_procs=1, priority=lambda X: -X["job_id"].set_axis([0, 0, 1]))


def test_a_priority_function_that_raises_is_named():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 1], run_time=[10.0, 5],
                             n_procs=[1.0, 1], req_time=[10.0, 5]))
    with pytest.raises(SimulationError, match=r"^the priority function raised KeyError: "
                                              r"'nope'$") as caught:
        simulate(jobs, machine_procs=1, priority=lambda X: X["nope"])
    assert isinstance(caught.value.__cause__, KeyError)


def test_max_runtime_splits_into_chained_pieces():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 5.0], run_time=[25.0, 4.0],
                             n_procs=[1.0, 1.0], req_time=[30.0, 4.0]))
    whole = simulate(jobs, machine_procs=1).jobs
    assert list(whole["start_time"]) == [0.0, 25.0]
    split = simulate(jobs, machine_procs=1, max_runtime=10).jobs
    # the second job runs between the first and second pieces of the first
    assert list(split["start_time"]) == [0.0, 10.0]
    assert split["end_time"].iloc[0] == 29.0
    assert split["sim_run_time"].iloc[0] == 25.0
    assert split["n_pieces"].iloc[0] == 3


@pytest.mark.parametrize("limit", [0.1, 0.3, 1e-3])
def test_pieces_of_a_limit_of_no_whole_seconds_run_the_job_and_kill_nothing(limit):
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 0.0, 1.0],
                             run_time=[1.0, 5.0, 10.0], n_procs=[1.0, 1.0, 1.0],
                             req_time=[2.0, 3.0, 10.0]))
    split = simulate(jobs, machine_procs=2, max_runtime=limit).jobs
    assert list(split["sim_run_time"]) == [1.0, 3.0, 10.0]
    assert list(split["killed"]) == [False, True, False]
    # the chained pieces end where the job's simulated runtime says, up to rounding
    assert (split["end_time"] - split["start_time"] >= split["sim_run_time"] - 1e-9).all()


def test_max_runtime_gives_n_pieces_even_when_no_job_is_split():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 5.0], run_time=[25.0, 4.0],
                             n_procs=[1.0, 1.0], req_time=[30.0, 4.0]))
    schedule = simulate(jobs, machine_procs=1, max_runtime=100)
    assert list(schedule.jobs["n_pieces"]) == [1, 1]
    assert schedule.pieces is None
    assert "n_pieces" not in simulate(jobs, machine_procs=1).jobs.columns


@settings(max_examples=40)
@given(case=workloads(max_jobs=20), limit=st.integers(5, 40))
def test_pieces_never_overlap_and_respect_capacity(case, limit):
    jobs, machine, est, _ = case
    out = simulate(jobs, machine_procs=machine, estimates=est, max_runtime=limit).jobs
    run = np.minimum(jobs["run_time"], jobs["req_time"]).to_numpy()
    np.testing.assert_array_equal(out["sim_run_time"].to_numpy(), run)
    assert (out["end_time"] - out["start_time"] >= out["sim_run_time"]).all()


def estimator_pair():
    """A predictor for simulate() and the same rule for the reference."""
    predictor = LastRuntimes()

    def rule(frame):
        def estimate(now, arriving, done):
            history = [(frame["user_id"].iloc[j], min(frame["run_time"].iloc[j],
                                                      frame["req_time"].iloc[j]))
                       for j in done]
            out = []
            for j in arriving:
                runs = [r for u, r in history if u == frame["user_id"].iloc[j]][-2:]
                out.append(np.mean(runs) if runs else frame["req_time"].iloc[j])
            return out
        return estimate
    return predictor, rule


@pytest.mark.parametrize("policy,depth", [("easy", None), ("conservative", None),
                                          ("fcfs", None), ("no_guarantee", None)])
@settings(max_examples=40)
@given(case=workloads(), priority=st.sampled_from(["fcfs", "sjf", "wfp"]),
       selective=st.booleans())
def test_predictor_in_simulated_time_matches_reference(policy, depth, case, priority, selective):
    jobs, machine, est, score = case
    predictor, rule = estimator_pair()
    compare(jobs, machine, est, score, policy=policy, depth=depth, priority=priority,
            selective=selective, estimator_pair=(predictor, rule(jobs)))


def test_predictor_is_copied_and_fed():
    predictor = LastRuntimes()
    schedule = simulate(small_jobs(), machine_procs=4, estimates=predictor)
    assert predictor.history == []
    assert schedule.params["estimates"] == "LastRuntimes"
    assert (schedule.jobs["estimate"] <= schedule.jobs["req_time"]).all()


def test_predictions_are_capped_at_the_request():
    class Huge(LastRuntimes):
        def predict(self, X):
            return np.full(len(X), 1e9)

    out = simulate(small_jobs(), machine_procs=4, estimates=Huge()).jobs
    np.testing.assert_array_equal(out["estimate"], out["req_time"])


def test_underestimate_rules():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 0.0], run_time=[100.0, 10.0],
                             n_procs=[1.0, 2.0], req_time=[1000.0, 10.0]))
    # job 2 waits for job 1, whose estimate (10 s) is extended when it runs out
    for rule, expected in [("double", 100.0), ("increments", 100.0), ("request", 100.0)]:
        out = simulate(jobs, machine_procs=2, estimates=[10.0, 10.0], on_underestimate=rule).jobs
        assert out["start_time"].iloc[1] == expected


def test_predictor_refresh_uses_older_history_only():
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 5, 20], run_time=[4.0, 4, 4],
                             n_procs=[1.0, 1, 1], req_time=[100.0, 100, 100],
                             user_id=[1.0, 1, 1]))
    exact = simulate(jobs, machine_procs=1, estimates=LastRuntimes()).jobs
    assert list(exact["estimate"]) == [100.0, 4.0, 4.0]
    stale = simulate(jobs, machine_procs=1, estimates=LastRuntimes(), predictor_refresh=10).jobs
    # job 2 is predicted at time 0, before job 1 completed
    assert list(stale["estimate"]) == [100.0, 100.0, 4.0]


@pytest.mark.parametrize("name", ["tang", "usage-max", "recent-average"])
@pytest.mark.parametrize("refresh", [None, "2h"])
def test_runtime_predictors_through_arrays_equal_through_tables(name, refresh):
    # predictkit's predictors are fed arrays; a subclass with its own predict goes
    # through job tables (the path of any scikit-learn estimator): same schedule
    jobs = clean_jobs(load_trace("SDSC-SP2-1998-4.2-cln", 2000), for_simulation=True,
                      require_request=True)
    predictor = make_predictor(name)

    class Tabled(type(predictor)):
        def predict(self, X):
            return super().predict(X)

    tabled = Tabled(**predictor.get_params())
    kwargs = dict(policy="easy", selective=True, predictor_refresh=refresh)
    fast = simulate(jobs, estimates=predictor, **kwargs).jobs
    slow = simulate(jobs, estimates=tabled, **kwargs).jobs
    pd.testing.assert_frame_equal(fast, slow)
    assert (fast["estimate"] < fast["req_time"]).mean() > 0.3


def test_estimate_ending_at_the_completion_instant_is_not_extended():
    # at a clock of 3.3e7 s, 3.3e7 + 1.000000001 rounds to 3.3e7 + 1: job A's
    # estimate (1 s) runs out at the instant it completes, although its run is
    # longer; extending an ended job once dropped another job from the running
    # list and EASY then computed a wrong shadow time
    t0 = 33159518.0
    jobs = pd.DataFrame(dict(
        job_id=[1, 2, 3, 4], submit_time=[t0, t0, t0 + 0.5, t0 + 1.5],
        run_time=[1.000000001, 50.0, 10.0, 20.0], n_procs=[4.0, 4.0, 8.0, 6.0],
        req_time=[100.0, 100.0, 100.0, 100.0]))
    assert t0 + 1.000000001 == t0 + 1.0
    out = simulate(jobs, machine_procs=10, estimates=[1.0, 50.0, 10.0, 20.0]).jobs
    # D backfills at once: it ends (t0 + 21.5) before C's reservation at B's end
    assert list(out["start_time"] - t0) == [0.0, 0.0, 50.0, 1.5]
    assert out["backfilled"].tolist() == [False, False, False, True]


def test_schedule_keeps_the_input_index_labels():
    jobs = small_jobs().set_axis([10, 20, 30, 40])
    schedule = simulate(jobs, machine_procs=2)
    assert list(schedule.jobs.index) == [10, 30, 40] and list(schedule.rejected.index) == [20]
    # pandas alignment pairs each job with its own simulated wait
    waits = jobs.assign(sim_wait=schedule.jobs["wait_time"])["sim_wait"]
    assert np.isnan(waits[20])
    for label in (10, 30, 40):
        assert waits[label] == schedule.jobs.loc[label, "wait_time"]


def test_estimates_as_a_series_must_carry_the_jobs_index():
    jobs = small_jobs()
    estimates = jobs["req_time"] / 2
    simulate(jobs, estimates=estimates, machine_procs=4)
    with pytest.raises(JobTableError, match=r"estimates is a Series whose index differs from "
                                            r"the index of jobs \(first at position 0: label 3 "
                                            r"against 0\); align it \(estimates\.loc\[jobs\."):
        simulate(jobs, estimates=estimates[::-1], machine_procs=4)
    # by position, an array is taken as given
    simulate(jobs, estimates=estimates[::-1].to_numpy(), machine_procs=4)


def test_a_repeated_column_is_refused_before_anything_reads_it():
    jobs = small_jobs()
    with pytest.raises(JobTableError, match="jobs has column 'run_time' 2 times"):
        simulate(pd.concat([jobs, jobs[["run_time"]]], axis=1), machine_procs=4)
    for levelled in (pd.concat({"log": jobs}, axis=1),
                     pd.concat({"log": jobs}, axis=1).swaplevel(axis=1)):  # run_time a level
        with pytest.raises(JobTableError, match=r"^jobs has 2 levels of column names; job "
                                                r"tables name each column once"):
            simulate(levelled, machine_procs=4)


@settings(max_examples=40)
@given(case=workloads(max_jobs=20), limit=st.integers(5, 40))
def test_the_pieces_of_a_split_job_chain_from_its_submission_to_its_end(case, limit):
    jobs, machine, est, _ = case
    schedule = simulate(jobs, machine_procs=machine, estimates=est, max_runtime=limit)
    out, pieces = schedule.jobs, schedule.pieces
    if pieces is None:
        assert (out["n_pieces"] == 1).all()
        return
    assert list(pieces.groupby("job").size()) == list(out["n_pieces"])
    for j, own in pieces.groupby("job"):
        assert list(own["piece"]) == list(range(len(own)))
        assert own["submit_time"].iloc[0] == out["submit_time"].iloc[j]
        assert own["start_time"].iloc[0] == out["start_time"].iloc[j]
        assert own["end_time"].iloc[-1] == out["end_time"].iloc[j]
        np.testing.assert_array_equal(own["submit_time"].to_numpy()[1:],
                                      own["end_time"].to_numpy()[:-1])
        held = own["end_time"] - own["start_time"]
        assert held.sum() == pytest.approx(out["sim_run_time"].iloc[j])
        assert (held <= limit).all()


def test_a_max_runtime_that_would_cut_too_many_pieces_is_refused():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 5.0], run_time=[25.0, 4.0],
                             n_procs=[1.0, 1.0], req_time=[30.0, 4.0]))
    with pytest.raises(ConfigError, match=r"max_runtime=1e-09 s cuts the jobs into "
                                          r"29,000,000,000 pieces .*row 0"):
        simulate(jobs, machine_procs=1, max_runtime=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way
        for limit, text in ((1e-300, r"about 2\.9e\+301 pieces .* into about 2\.5e\+301\)"),
                            (1e-320, r"more than 1e308 pieces .* into more than 1e308\)")):
            with pytest.raises(ConfigError, match=text):
                simulate(jobs, machine_procs=1, max_runtime=limit)


def test_numpy_integers_are_durations_and_bools_are_no_widths():
    jobs = pd.DataFrame(dict(job_id=[1, 2], submit_time=[0.0, 5.0], run_time=[25.0, 4.0],
                             n_procs=[1.0, 1.0], req_time=[30.0, 4.0], user_id=[1, 2]))
    simulate(jobs, machine_procs=1, priority="fairshare", fairshare_decay=np.int64(3600))
    with pytest.raises(JobTableError, match="'n_procs' holds True/False values, not numbers"):
        simulate(jobs.assign(n_procs=[True, True]), machine_procs=1)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_a_schedule_that_could_pass_2_to_the_53_seconds_is_refused(policy):
    # one more second and float times lose whole seconds without a word
    near = 2.0 ** 53 - 2
    jobs = pd.DataFrame({"job_id": [1.0, 2.0], "submit_time": [near, near + 1],
                         "run_time": [3.0, 3.0], "n_procs": [4.0, 4.0],
                         "req_time": [10.0, 10.0]})
    with pytest.raises(JobTableError, match=r"could run until 9,007,199,254,740,996 s, past "
                                            r"2\*\*53 s"):
        simulate(jobs, machine_procs=4, policy=policy)
    # half as far, every second is kept
    jobs["submit_time"] = [2.0 ** 52, 2.0 ** 52 + 1]
    result = simulate(jobs, machine_procs=4, policy=policy).jobs
    assert result["start_time"].tolist() == [2.0 ** 52, 2.0 ** 52 + 3]
    assert result["end_time"].tolist() == [2.0 ** 52 + 3, 2.0 ** 52 + 6]


@pytest.mark.parametrize("header", [10.5, True, "128", "abc", 0, 1e30, 2.0 ** 53])
def test_a_header_machine_size_that_is_no_whole_number_is_refused_not_truncated(header):
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 5.0], "run_time": [10.0, 10.0],
                         "n_procs": [4, 8], "req_time": [20.0, 20.0]})
    jobs.attrs["max_procs"] = header
    with pytest.raises(ConfigError, match=r"attrs\['max_procs'\] is .*, no whole number of "
                                          r"processors below 2\*\*53; pass machine_procs"):
        simulate(jobs)
    jobs.attrs["max_procs"] = float("nan")  # no header size: the widest job's
    assert simulate(jobs).machine_procs == 8


def test_an_object_column_with_pd_na_is_a_column_with_a_missing_value():
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0.0, 10.0, 20.0],
                         "run_time": [100.0, 50.0, 20.0], "n_procs": [4, 2, 1],
                         "req_time": pd.Series([200.0, pd.NA, 30.0], dtype=object)})
    floats = jobs.assign(req_time=[200.0, np.nan, 30.0])
    assert_frame_equal(simulate(jobs, estimates="perfect").jobs,
                       simulate(floats, estimates="perfect").jobs)
    with pytest.raises(SimulationError, match="needs req_time, missing for 1 job"):
        simulate(jobs)


def test_bad_widths_and_estimates_are_named_by_their_first_job():
    jobs = pd.DataFrame({"job_id": [7, 8, 9], "submit_time": [0.0, 5.0, 9.0],
                         "run_time": [10.0, 10.0, 10.0], "n_procs": [4.0, 2.5, 1.0],
                         "req_time": [20.0, 20.0, 20.0]})
    with pytest.raises(JobTableError, match=r"^jobs: processor counts must be whole numbers "
                                            r"\(1 row\(s\); first at row 1, job_id 8\)$"):
        simulate(jobs)
    whole = jobs.assign(n_procs=[4.0, 2.0, 1.0])
    for estimates in ("requested", "perfect"):  # a job killed at its start
        with pytest.raises(JobTableError, match=r"^jobs: req_time is 0 .*\.clean_jobs\(jobs, "
                                                r"for_simulation=True\), or give NaN for no "
                                                r"request \(1 row\(s\); first at row 2, "
                                                r"job_id 9\)$"):
            simulate(whole.assign(req_time=[20.0, 20.0, 0.0]), estimates=estimates)
    unkilled = simulate(whole.assign(req_time=[20.0, 20.0, 0.0]), estimates="perfect",
                        kill_at_request=False)  # the request is no limit then
    assert list(unkilled.jobs["end_time"] - unkilled.jobs["start_time"]) == [10.0, 10.0, 10.0]
    with pytest.raises(SimulationError, match=r"2 missing, infinite or negative value\(s\), "
                                              r"first at position 1 \(nan\)$"):
        simulate(whole, estimates=[5.0, np.nan, -1.0])

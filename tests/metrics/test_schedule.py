"""Schedule metrics against hand-computed values."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_validate

from predictkit.exceptions import ConfigError, InvalidParameterError, JobTableError
from predictkit.model_selection import make_schedule_scorer
from predictkit.metrics import (
    backfill_ratio,
    bounded_slowdown,
    fair_start_times,
    fairness_metrics,
    length_category,
    loss_of_capacity,
    makespan,
    schedule_metrics,
    slowdown,
    utilization,
    wait_prediction_error,
    weighted_wait,
    width_category,
)
from predictkit.runtime import RecentAverage
from predictkit.simulate import simulate


def schedule_frame():
    # machine of 4; job 2 (width 4) waits 9 s for job 1
    return pd.DataFrame(dict(
        job_id=[1, 2, 3], submit_time=[0.0, 1.0, 2.0], start_time=[0.0, 10.0, 2.0],
        end_time=[10.0, 15.0, 5.0], n_procs=[2.0, 4.0, 1.0], estimate=[20.0, 10.0, 5.0],
        backfilled=[False, False, True], promised_start=[0.0, 20.0, 2.0]))


def test_slowdown_is_at_least_one_also_for_jobs_shorter_than_a_second():
    # runs of 0 s and 0.5 s that did not wait, one of 0 s that waited 3 s
    frame = pd.DataFrame(dict(
        job_id=[1, 2, 3], submit_time=[0.0, 0.0, 0.0], start_time=[0.0, 0.0, 3.0],
        end_time=[0.0, 0.5, 3.0], n_procs=[1.0, 1.0, 1.0]))
    np.testing.assert_allclose(slowdown(frame), [1.0, 1.0, 3.0])
    metrics = schedule_metrics(frame, machine_procs=4).set_index("metric")["value"]
    assert metrics["mean_slowdown"] == pytest.approx(5 / 3)
    assert metrics["mean_bounded_slowdown"] == 1.0


def test_per_job_metrics():
    frame = schedule_frame()
    np.testing.assert_allclose(slowdown(frame), [1.0, 14 / 5, 1.0])
    np.testing.assert_allclose(bounded_slowdown(frame), [1.0, 14 / 10, 1.0])
    np.testing.assert_allclose(wait_prediction_error(frame), [0.0, 10.0, 0.0])


def test_system_metrics():
    frame = schedule_frame()
    frame.attrs["max_procs"] = 4
    assert makespan(frame) == 15.0
    assert utilization(frame) == pytest.approx((20 + 20 + 3) / (15 * 4))
    # job 2 queued from 1 to 10 while 2 (then 1 from 2 to 5) processors idled
    lost = 1 * 2 + 3 * 1 + 5 * 2
    assert loss_of_capacity(frame) == pytest.approx(lost / 60)
    assert backfill_ratio(frame) == pytest.approx(1 / 3)



@pytest.mark.parametrize("metric", [utilization, loss_of_capacity])
def test_machine_procs_overrides_the_header_and_n_procs_is_its_deprecated_name(metric):
    frame = schedule_frame()
    frame.attrs["max_procs"] = 4
    wider = metric(frame, machine_procs=8)
    assert wider != metric(frame)
    with pytest.warns(DeprecationWarning, match=rf"{metric.__name__}\(n_procs=\.\.\.\)"):
        assert metric(frame, n_procs=8) == wider
    table = schedule_metrics(frame, machine_procs=8).set_index("metric")["value"]
    with pytest.warns(DeprecationWarning, match=r"schedule_metrics\(n_procs=\.\.\.\)"):
        old = schedule_metrics(frame, n_procs=8).set_index("metric")["value"]
    pd.testing.assert_series_equal(old, table)
    assert table[metric.__name__] == wider


def test_weighted_wait_tang_eq4():
    frame = schedule_frame()
    # only job 2 waited; WFP score (9/10)^3 * 4
    assert weighted_wait(frame, score="wfp") == pytest.approx(9.0)
    assert weighted_wait(frame, score="wait") == pytest.approx(9.0)
    frame.loc[2, "start_time"] = 4.0
    frame.loc[2, "end_time"] = 7.0
    w2, w3 = (9 / 10) ** 3 * 4, (2 / 5) ** 3 * 1
    assert weighted_wait(frame, score="wfp") == pytest.approx((9 * w2 + 2 * w3) / (w2 + w3))
    assert weighted_wait(frame, score="wait") == pytest.approx((81 + 4) / 11)
    with pytest.raises(ConfigError):
        weighted_wait(frame, score="magic")


def test_leung_categories():
    assert list(width_category([1, 2, 3, 4, 5, 512, 513])) == [
        "1", "2", "3-4", "3-4", "5-8", "257-512", "513+"]
    assert list(length_category([0, 3600, 3601, 2 * 86400 + 1])) == [
        "0-60 min", "0-60 min", "1-8 h", "2+ days"]


def test_schedule_metrics_table_and_breakdown():
    frame = schedule_frame()
    frame.attrs["max_procs"] = 4
    table = schedule_metrics(frame).set_index("metric")["value"]
    assert table["mean_wait"] == pytest.approx(3.0)
    assert table["p50_wait"] == 0.0
    assert table["mean_wait_prediction_error"] == pytest.approx(10 / 3)
    by = schedule_metrics(frame, by="width")
    assert set(by["category"]) == {"all", "1", "2", "3-4"}
    assert by.query("category == '3-4' and metric == 'mean_wait'")["value"].item() == 9.0
    with pytest.raises(ConfigError):
        schedule_metrics(frame, by="colour")


def test_bad_schedules():
    with pytest.raises(JobTableError, match="start_time"):
        schedule_metrics(pd.DataFrame({"submit_time": [0.0]}))
    with pytest.raises(JobTableError):
        schedule_metrics(schedule_frame().iloc[:0])


def test_metrics_of_a_simulation_are_consistent():
    jobs = pd.DataFrame(dict(job_id=np.arange(1, 7), submit_time=[0.0, 0, 1, 2, 3, 4],
                             run_time=[10.0, 5, 3, 8, 1, 2], n_procs=[2.0, 2, 4, 1, 1, 3],
                             req_time=[12.0, 5, 3, 9, 1, 2], user_id=[1.0, 2, 1, 2, 3, 1]))
    schedule = simulate(jobs, machine_procs=4, policy="conservative", priority="wfp")
    table = schedule.metrics().set_index("metric")["value"]
    out = schedule.jobs
    assert table["mean_wait"] == pytest.approx(out["wait_time"].mean())
    assert table["backfill_ratio"] == pytest.approx(out["backfilled"].mean())
    assert 0 < table["utilization"] <= 1
    assert 0 <= table["loss_of_capacity"] <= 1
    fair = schedule.metrics(fairness=True).set_index("metric")["value"]
    assert 0 <= fair["fair_start_miss_percent"] <= 100


def test_schedule_scorer_in_cross_validate():
    rng = np.random.default_rng(0)
    n = 200
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1),
                             submit_time=np.sort(rng.integers(0, 20000, n)).astype(float),
                             run_time=rng.integers(1, 600, n).astype(float),
                             n_procs=rng.integers(1, 9, n).astype(float),
                             user_id=rng.integers(0, 5, n).astype(float), wait_time=0.0))
    jobs["req_time"] = jobs["run_time"] * 3
    scorer = make_schedule_scorer(policy="easy", metric="bounded_slowdown", machine_procs=8)
    folds = [(np.arange(0, 100), np.arange(100, 200))]
    result = cross_validate(RecentAverage(), jobs, jobs["run_time"], cv=folds, scoring=scorer)
    score = result["test_score"][0]
    assert score < 0
    test = jobs.iloc[100:]
    expected = simulate(test, machine_procs=8, selective=True,
                        estimates=RecentAverage().fit(jobs.iloc[:100], jobs["run_time"].iloc[:100]))
    assert score == pytest.approx(-expected.metrics().set_index("metric").loc[
        "mean_bounded_slowdown", "value"])
    assert make_schedule_scorer(metric="utilization", machine_procs=8)(RecentAverage().fit(jobs, jobs["run_time"]), jobs) > 0
    with pytest.warns(DeprecationWarning, match=r"make_schedule_scorer\(n_procs=\.\.\.\)"):
        old_name = make_schedule_scorer(metric="utilization", n_procs=8)
    assert repr(old_name) == repr(make_schedule_scorer(metric="utilization", machine_procs=8))
    with pytest.raises(ConfigError):
        make_schedule_scorer(estimates="perfect")


def test_metrics_of_a_schedule_whose_every_job_was_too_wide_say_so():
    from predictkit.simulate import simulate

    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 5.0], "run_time": [10.0, 20.0],
                         "n_procs": [4.0, 8.0], "req_procs": [4.0, 8.0],
                         "req_time": [60.0, 60.0]})
    schedule = simulate(jobs, machine_procs=2)
    with pytest.raises(JobTableError, match=r"^the schedule has no jobs: all 2 jobs are "
                                            r"wider than the machine \(2 processors\)$"):
        schedule.metrics()


def test_a_job_without_n_procs_counts_with_its_requested_width_as_the_simulator_ran_it():
    frame = schedule_frame().assign(req_procs=[2.0, 4.0, 1.0])
    frame.attrs["max_procs"] = 4
    frame.loc[1, "n_procs"] = np.nan
    assert utilization(frame) == pytest.approx((20 + 20 + 3) / (15 * 4))
    assert loss_of_capacity(frame) == pytest.approx((1 * 2 + 3 * 1 + 5 * 2) / 60)
    with pytest.raises(JobTableError, match=r"schedule: 1 job\(s\) have neither n_procs nor "
                                            r"req_procs \(first at row 1\)"):
        utilization(frame.assign(req_procs=[2.0, np.nan, 1.0]))


def test_schedule_metrics_gives_its_machine_size_to_the_fairness_metrics():
    from predictkit.metrics import fairness_metrics
    from predictkit.simulate import simulate

    jobs = pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": [0.0, 0.0, 10.0, 20.0],
                         "run_time": [100.0, 50.0, 30.0, 5.0],
                         "req_time": [200.0, 60.0, 40.0, 10.0], "n_procs": [2, 3, 4, 1],
                         "user_id": [1, 2, 1, 3]})
    schedule = simulate(jobs, machine_procs=4, priority="fairshare")
    for machine in (4, 8):
        table = schedule_metrics(schedule, machine_procs=machine, fairness=True)
        got = table.set_index("metric")["value"]
        want = fairness_metrics(schedule, machine_procs=machine)
        assert got["fair_start_miss_percent"] == want["fair_start_miss_percent"]
        assert got["mean_fair_start_miss"] == want["mean_fair_start_miss"]
    # a plain table of simulated jobs, with the size given
    plain = schedule_metrics(schedule.jobs, machine_procs=4, fairness=True)
    assert plain.set_index("metric")["value"]["fair_start_miss_percent"] == (
        fairness_metrics(schedule, machine_procs=4)["fair_start_miss_percent"])


@pytest.mark.parametrize("value", [0, 2.7, "4", True, -4, np.nan])
@pytest.mark.parametrize("metric", [utilization, loss_of_capacity, schedule_metrics])
def test_a_machine_size_that_is_no_whole_number_of_processors_is_refused(metric, value):
    frame = schedule_frame()
    with pytest.raises(InvalidParameterError, match="machine_procs"):
        metric(frame, machine_procs=value)


@pytest.mark.parametrize("metric", [utilization, loss_of_capacity, schedule_metrics])
def test_a_machine_narrower_than_a_job_of_the_schedule_is_refused(metric):
    with pytest.raises(JobTableError, match=r"2 jobs wider than the machine \(1 processor\) are "
                                            r"in the schedule; machine_procs must be at least "
                                            r"its widest job \(4 processors\)"):
        metric(schedule_frame(), machine_procs=1)


@pytest.mark.parametrize("percentiles", [(150,), (-1,), (np.nan,), ("a",), 50, (50, 50),
                                         (True,)])
def test_percentiles_are_distinct_numbers_from_0_to_100(percentiles):
    with pytest.raises(InvalidParameterError, match="percentiles"):
        schedule_metrics(schedule_frame(), machine_procs=4, percentiles=percentiles)
    with pytest.raises(InvalidParameterError, match="fairness"):
        schedule_metrics(schedule_frame(), machine_procs=4, fairness="yes")


def _loss_by_the_second(submit, start, end, width, machine, span):
    """Leung eq. 1 summed second by second (integer times)."""
    lost = 0
    for t in range(int(submit.min()), int(end.max())):
        queued = width[(submit <= t) & (start > t)].sum()
        busy = width[(start <= t) & (end > t)].sum()
        lost += min(queued, machine - busy)
    return lost / (span * machine)


def test_loss_of_capacity_counts_the_pieces_of_split_jobs_as_they_ran():
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3], submit_time=[0.0, 50.0, 210.0],
                             run_time=[200.0, 50.0, 10.0], req_time=[200.0, 50.0, 10.0],
                             n_procs=[1, 2, 2]))
    schedule = simulate(jobs, machine_procs=2, max_runtime=100)
    # job 1 runs [0, 100) and [150, 250), job 2 [100, 150), job 3 [250, 260)
    assert loss_of_capacity(schedule) == pytest.approx((50 + 40) / (260 * 2))
    p = schedule.pieces
    width = jobs["n_procs"].to_numpy()[p["job"]]
    assert loss_of_capacity(schedule) == pytest.approx(_loss_by_the_second(
        p["submit_time"].to_numpy(), p["start_time"].to_numpy(), p["end_time"].to_numpy(),
        width, 2, 260))


def test_fairness_by_width_is_each_class_of_jobs_own():
    from predictkit.metrics import fair_start_times, width_category
    from predictkit.simulate import simulate
    from predictkit.workload import make_workload

    jobs = make_workload(600, random_state=3)
    schedule = simulate(jobs, priority="fairshare", policy="no_guarantee",
                        starvation_after="2h")
    miss = schedule.jobs["start_time"].to_numpy() - fair_start_times(schedule)
    classes = np.asarray(width_category(schedule.jobs["n_procs"].to_numpy()))
    table = schedule.metrics(by="width", fairness=True)
    got = table.set_index(["category", "metric"])["value"]
    assert (miss > 0).any()
    for name in ["all", *sorted(set(classes))]:
        chosen = np.ones(len(miss), bool) if name == "all" else classes == name
        assert got[(name, "fair_start_miss_percent")] == pytest.approx(
            100.0 * (miss[chosen] > 0).mean())
        assert got[(name, "mean_fair_start_miss")] == pytest.approx(
            np.maximum(miss[chosen], 0.0).mean())
    assert "fair_start_miss_percent" not in set(
        schedule.metrics(by="width").set_index("metric").index)


@pytest.mark.parametrize("change, message", [
    (lambda f: f.assign(**{c: pd.to_datetime(f[c], unit="s") for c in
                           ("submit_time", "start_time", "end_time")}),
     r"^schedule: column 'submit_time' holds datetime64\[.*\] values, not numbers of seconds"),
    (lambda f: f.assign(submit_time=[np.nan, 1.0, 2.0]),
     r"^schedule: jobs without submit_time \(1 row\(s\); first at row 0, job_id 1\)$"),
    (lambda f: f.assign(start_time=[0.0, 0.5, 2.0]),
     r"^schedule: jobs that start before their submit_time \(1 row\(s\); first at row 1"),
    (lambda f: f.assign(end_time=[10.0, 9.0, 5.0]),
     r"^schedule: jobs that end before their start_time \(1 row\(s\); first at row 1"),
    (lambda f: f.assign(start_time=["0", "oops", "2"]), r"column 'start_time' is not numeric"),
])
def test_a_table_that_is_no_schedule_is_refused_by_every_metric(change, message):
    frame = change(schedule_frame())
    for metric in (lambda f: schedule_metrics(f, machine_procs=4), makespan,
                   lambda f: utilization(f, machine_procs=4),
                   lambda f: loss_of_capacity(f, machine_procs=4)):
        with pytest.raises(JobTableError, match=message):
            metric(frame)


@pytest.mark.parametrize("flags", [["False", "False", "True"], [np.nan, False, True],
                                   pd.array([True, None, False], dtype="boolean")])
def test_backfilled_flags_that_are_no_flags_are_refused(flags):
    # any text is True to numpy, and so is NaN
    frame = schedule_frame().assign(backfilled=flags)
    for metric in (backfill_ratio, lambda f: schedule_metrics(f, machine_procs=4)):
        with pytest.raises(JobTableError, match=r"^schedule: column 'backfilled' holds something "
                                                r"other than True/False \(or 0/1\)"):
            metric(frame)
    for same in ([False, False, True], [0, 0, 1], pd.array([False, False, True], dtype="boolean"),
                 np.array([False, 0, True], dtype=object)):
        assert backfill_ratio(schedule_frame().assign(backfilled=same)) == pytest.approx(1 / 3)


def test_an_unknown_width_or_length_has_no_class():
    assert pd.isna(width_category([np.nan, 0, -3])).all()
    assert list(width_category([np.nan, 1])[1:]) == ["1"]
    assert pd.isna(length_category([np.nan, -5, np.inf])).all()


def test_metrics_of_a_split_schedule_follow_its_jobs_when_sorted_or_filtered():
    rng = np.random.default_rng(0)
    n = 120
    run = rng.integers(60, 20000, n).astype(float)
    jobs = pd.DataFrame(dict(job_id=np.arange(1, n + 1), submit_time=np.sort(rng.integers(
        0, 40000, n)).astype(float), run_time=run, req_time=run * 1.5,
        n_procs=rng.integers(1, 9, n).astype(float), user_id=rng.integers(0, 5, n) * 1.0))
    schedule = simulate(jobs, machine_procs=16, max_runtime="1h")
    assert schedule.pieces is not None
    expected = {"loss": loss_of_capacity(schedule),
                "fair": fairness_metrics(schedule)["fair_start_miss_percent"]}
    fair = fair_start_times(schedule)
    schedule.jobs = schedule.jobs.sort_values("user_id", kind="stable")
    assert loss_of_capacity(schedule) == pytest.approx(expected["loss"])
    assert fairness_metrics(schedule)["fair_start_miss_percent"] == expected["fair"]
    # each job's miss stays on its own row
    np.testing.assert_array_equal(fair_start_times(schedule),
                                  pd.Series(fair, index=schedule.simulated_index)
                                  .loc[schedule.jobs.index].to_numpy())
    schedule.jobs = schedule.jobs.iloc[30:]
    assert np.isfinite(loss_of_capacity(schedule))
    assert len(fair_start_times(schedule)) == n - 30
    schedule.jobs = schedule.jobs.set_axis([0] * (n - 30))
    with pytest.raises(JobTableError, match=r"^schedule: its jobs table is no longer the one "
                                            r"simulate\(\) gave"):
        loss_of_capacity(schedule)


@pytest.mark.parametrize("threshold", [60, "1min", pd.Timedelta("1min"), np.timedelta64(1, "m")])
def test_the_bounded_slowdown_threshold_is_a_duration(threshold):
    frame = schedule_frame()
    np.testing.assert_array_equal(bounded_slowdown(frame, threshold=threshold),
                                  bounded_slowdown(frame, threshold=60.0))


@pytest.mark.parametrize("threshold", [np.nan, -5, 0, "soon"])
def test_a_bounded_slowdown_threshold_that_is_no_duration_is_refused(threshold):
    with pytest.raises(ConfigError, match=r"^The 'threshold' parameter of bounded_slowdown must "
                                          r"be a duration > 0"):
        bounded_slowdown(schedule_frame(), threshold=threshold)


@pytest.mark.parametrize("size", [4.5, "4", True])
def test_a_header_machine_size_that_is_no_whole_number_is_refused(size):
    frame = schedule_frame()
    frame.attrs["max_procs"] = size
    with pytest.raises(ConfigError, match=rf"^utilization: the table's attrs\['max_procs'\] is "
                                          rf"{re.escape(repr(size))}, no whole number"):
        utilization(frame)
    frame.attrs["max_procs"] = 4.0
    assert utilization(frame) == utilization(frame, machine_procs=4)


@pytest.mark.parametrize("values", [4, [[1, 2], [3, 4]], pd.DataFrame({"n_procs": [1, 2]})])
def test_categories_take_one_value_per_job(values):
    for categorize, what in ((width_category, "widths"), (length_category, "runtimes")):
        with pytest.raises(JobTableError, match=rf"{what} must hold one value per job \(1-D\)"):
            categorize(values)


_THREE = pd.DataFrame(dict(submit_time=[0.0, 10, 20], start_time=[5.0, 10, 100],
                           end_time=[15.0, 10, 200], n_procs=[2, 4, 1],
                           req_time=[100.0, 50, 200]))


@pytest.mark.parametrize(("change", "call", "message"), [
    (dict(req_time=[100, 50, np.nan]), lambda s: weighted_wait(s, score="wfp"),
     r"weighs each job by its req_time: jobs without a finite one >= 0 \(1 row\(s\); first at "
     r"row 2\)"),
    (dict(req_time=[100, -5, 200]), lambda s: weighted_wait(s, score="wfp"), r"row 1\)"),
    (dict(estimate=["1h", "2h", "3h"]), lambda s: weighted_wait(s, score="wfp"),
     r"column 'estimate' is not numeric"),
    (dict(end_time=[15, 10, np.inf]), lambda s: schedule_metrics(s, machine_procs=8),
     r"jobs whose end_time is infinite \(1 row\(s\); first at row 2\)"),
    (dict(submit_time=[-np.inf, 10, 20]), lambda s: schedule_metrics(s, machine_procs=8),
     r"jobs whose submit_time is infinite"),
    (dict(n_procs=[2, np.inf, 1]), lambda s: utilization(s, machine_procs=8),
     r"width \(n_procs, else req_procs\) is not a whole number of processors >= 1 \(1 "
     r"row\(s\); first at row 1\)"),
    (dict(n_procs=[0, 4, 1]), lambda s: loss_of_capacity(s, machine_procs=8), r"row 0\)"),
    (dict(n_procs=[-2, 4, 1]), lambda s: utilization(s, machine_procs=8), r"row 0\)"),
    (dict(n_procs=[2, 2.5, 1]), lambda s: schedule_metrics(s, machine_procs=8), r"row 1\)"),
    (dict(promised_start=pd.to_datetime([5, 10, 100], unit="s")), wait_prediction_error,
     r"column 'promised_start' holds datetime64"),
    (dict(promised_start=["5", "10", "x"]), wait_prediction_error,
     r"'promised_start' is not numeric .*row 2: 'x'"),
    (dict(promised_start=[np.inf, 10, 100]), wait_prediction_error,
     r"promised_start is infinite"),
])
def test_a_value_no_schedule_can_hold_is_refused_naming_its_row(change, call, message):
    with pytest.raises(JobTableError, match=message):
        call(_THREE.assign(**change))


def test_loss_of_capacity_is_a_fraction_of_the_time_it_integrates_over():
    # a log's own schedule may begin with a job waiting: idle from its submission
    log = pd.DataFrame(dict(submit_time=[0.0], start_time=[100.0], end_time=[110.0],
                            n_procs=[1]))
    assert loss_of_capacity(log, machine_procs=1) == pytest.approx(100 / 110)
    assert wait_prediction_error(_THREE.assign(promised_start=[7, np.nan, 100])).tolist()[::2] \
        == [2.0, 0.0]

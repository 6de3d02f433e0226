"""Scheduling-level model selection: select_by_schedule and the GridSearchCV scorer."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError, JobTableError
from predictkit.metrics import bounded_slowdown
from predictkit.model_selection import (EASY_PLUS_PLUS, ScheduleCandidate, TraceSplit,
                                        cross_validation_scores, make_schedule_scorer, replay,
                                        schedule_candidates, select_by_schedule)
from predictkit.runtime import RecentAverage, RecentUsageMax, WalltimeAdjuster
from predictkit.simulate import simulate

DAY = 86400.0


@pytest.fixture(scope="module")
def jobs():
    """A workload with the waits of an EASY schedule (the "log" the training folds read)."""
    from predictkit.simulate._observed_waits import with_observed_waits

    return with_observed_waits(make_workload(n_jobs=1500, random_state=3))[0]


SMALL = [ScheduleCandidate("requested"),
         ScheduleCandidate("tang", (("keys", "user"), ("quantile", 0.7)), selective=True),
         ScheduleCandidate("usage-max", (), on_underestimate="increments", backfill_order="sjf")]


def _cut(jobs, period):
    submit = jobs["submit_time"].to_numpy(dtype=float)
    return np.floor((submit - submit.min()) / period)


def test_scores_are_the_metric_means_of_the_past_and_of_the_whole_log(jobs):
    found = select_by_schedule(jobs, SMALL, period="3D", test_periods=1, warmup_periods=1)
    period = _cut(jobs, 3 * DAY)
    split = period.max()
    assert found.split_time == pytest.approx(jobs["submit_time"].min() + split * 3 * DAY)
    folds = [c for c in found.table.columns if c.startswith("fold_")]
    assert folds == [f"fold_{k}" for k in range(1, int(split))]
    past = jobs[jobs["submit_time"].to_numpy() < found.split_time]
    past.attrs = dict(jobs.attrs)
    for candidate, row in zip(SMALL + [EASY_PLUS_PLUS], found.table.itertuples()):
        schedule = simulate(jobs, **candidate.simulate_kwargs())
        values = bounded_slowdown(schedule)
        sim_period = _cut(schedule.jobs, 3 * DAY)
        before = simulate(past, **candidate.simulate_kwargs())
        past_values = bounded_slowdown(before)
        past_period = np.floor((before.jobs["submit_time"].to_numpy()
                                - jobs["submit_time"].min()) / (3 * DAY))
        for fold in folds:
            k = int(fold[5:])
            assert getattr(row, fold) == pytest.approx(past_values[past_period == k].mean(),
                                                       rel=1e-12)
        assert row.cv_score == pytest.approx(np.mean([getattr(row, f) for f in folds]))
        assert row.test_score == pytest.approx(values[sim_period >= split].mean(), rel=1e-12)
    scored = found.table[~found.table["is_baseline"]]
    assert found.table["chosen"].sum() == 1
    assert scored.loc[scored["chosen"], "cv_score"].iloc[0] == scored["cv_score"].min()
    assert found.chosen == SMALL[int(scored["cv_score"].to_numpy().argmin())]
    assert found.table["is_baseline"].tolist() == [False] * 3 + [True]
    assert found.baseline_test_score == found.table["test_score"].iloc[-1]


@pytest.mark.parametrize("criterion, half_life", [("jobs", 3.0), ("recent", 0.5), ("rank", 3.0)])
def test_the_criterion_combines_the_fold_scores(jobs, criterion, half_life):
    """cv_score is the criterion over the fold columns; the baseline never shifts a rank."""
    candidates = SMALL + [ScheduleCandidate("recent-average", (("n_recent", 1),), True)]
    found = select_by_schedule(jobs, candidates, period="3D", test_periods=1,
                               criterion=criterion, half_life=half_life)
    plain = select_by_schedule(jobs, candidates, period="3D", test_periods=1)
    folds = [c for c in found.table.columns if c.startswith("fold_")]
    pd.testing.assert_frame_equal(found.table[folds], plain.table[folds])
    period = _cut(jobs, 3 * DAY)
    assert found.fold_jobs == {f: int((period == int(f[5:])).sum()) for f in folds}
    assert found.criterion == criterion and plain.criterion == "mean"
    scored = ~found.table["is_baseline"].to_numpy()
    scores = found.table[folds].to_numpy()
    counts = list(found.fold_jobs.values())
    expected = cross_validation_scores(scores[scored], criterion=criterion, job_counts=counts,
                                       half_life=half_life)
    np.testing.assert_allclose(found.table["cv_score"].to_numpy()[scored], expected)
    assert found.chosen == candidates[int(expected.argmin())]
    with_baseline = cross_validation_scores(scores, criterion=criterion, job_counts=counts,
                                            half_life=half_life)
    assert found.table["cv_score"].iloc[-1] == pytest.approx(with_baseline[-1])
    alone = select_by_schedule(jobs, candidates, period="3D", test_periods=1, baseline=None,
                               criterion=criterion, half_life=half_life)
    np.testing.assert_allclose(alone.table["cv_score"], expected)


def test_the_choice_never_sees_the_following_months(jobs):
    """Jobs after the split (changed, or left out) change no past score and not the choice."""
    found = select_by_schedule(jobs, SMALL, period="3D", test_periods=1)
    future = jobs["submit_time"].to_numpy() >= found.split_time
    assert future.any()
    changed = jobs.copy()
    changed.loc[future, "run_time"] = changed.loc[future, "req_time"]
    changed.loc[future, "n_procs"] = 1
    past = jobs[~future].reset_index(drop=True)
    past.attrs = dict(jobs.attrs)
    again = select_by_schedule(changed, SMALL, period="3D", test_periods=1)
    folds = [c for c in found.table.columns if c.startswith("fold_")]
    pd.testing.assert_frame_equal(again.table[["candidate", "cv_score", *folds, "chosen"]],
                                  found.table[["candidate", "cv_score", *folds, "chosen"]])
    assert again.chosen == found.chosen
    assert not np.allclose(again.table["test_score"], found.table["test_score"])
    # ... and none of it: the log as it stood at the split gives the same choice
    cut = select_by_schedule(past, SMALL, period="3D", test_periods=1, warmup_periods=0)
    alone = select_by_schedule(jobs, SMALL, period="3D", test_periods=1, warmup_periods=0)
    last = [c for c in cut.table.columns if c.startswith("fold_")][-1]
    assert last in alone.table.columns


def test_without_a_machine_size_the_choice_takes_the_past_jobs_widest_not_a_later_one(jobs):
    headless = jobs.copy()
    headless.attrs = {k: v for k, v in jobs.attrs.items() if k != "max_procs"}
    found = select_by_schedule(headless, SMALL, period="3D", test_periods=1)
    wide = headless.copy()
    wide.loc[wide.index[-1], ["n_procs", "req_procs"]] = 4 * headless["n_procs"].max()
    with pytest.warns(UserWarning, match="give machine_procs to simulate the machine"):
        again = select_by_schedule(wide, SMALL, period="3D", test_periods=1)
    assert again.machine_procs == 4 * headless["n_procs"].max() > found.machine_procs
    folds = [c for c in found.table.columns if c.startswith("fold_")]
    pd.testing.assert_frame_equal(again.table[["candidate", "cv_score", *folds, "chosen"]],
                                  found.table[["candidate", "cv_score", *folds, "chosen"]])


def test_with_max_runtime_a_split_job_is_scored_by_the_time_it_ran_as_the_metrics_do(jobs):
    from predictkit.metrics import schedule_metrics

    found = select_by_schedule(jobs, SMALL[:1], baseline=None, period="3D", test_periods=1,
                               max_runtime="1h", machine_procs=jobs.attrs["max_procs"])
    schedule = simulate(jobs, machine_procs=jobs.attrs["max_procs"], max_runtime="1h")
    assert (schedule.jobs["n_pieces"] > 1).any()
    test = schedule.jobs[schedule.jobs["submit_time"] >= found.split_time]
    expected = schedule_metrics(test, machine_procs=jobs.attrs["max_procs"]).set_index(
        "metric").loc["mean_bounded_slowdown", "value"]
    assert found.table["test_score"].iloc[0] == pytest.approx(expected, rel=1e-12)


def test_a_job_waiting_at_the_split_is_scored_as_if_nobody_came_after_it():
    """The last past period's jobs still queued at the split would otherwise be passed by
    (or wait behind) jobs of the following months."""
    # one processor; job 2 waits behind job 1 at the split (t = 10); job 3 comes after it
    jobs = pd.DataFrame(dict(job_id=[1, 2, 3, 4], submit_time=[0.0, 9.0, 10.0, 21.0],
                             run_time=[10.0, 5.0, 1.0, 1.0], req_time=[10.0, 100.0, 1.0, 1.0],
                             n_procs=[1, 1, 1, 1], user_id=[1, 2, 3, 4]))
    jobs.attrs["max_procs"] = 1
    found = select_by_schedule(jobs, [ScheduleCandidate("requested")], baseline=None, period=10.0,
                               test_periods=2, warmup_periods=0, priority="sjf",
                               metric="wait")
    whole = simulate(jobs, machine_procs=1, priority="sjf")
    assert whole.jobs["start_time"].tolist()[1] == 11.0  # job 3 went first in the whole run
    # in the past run job 2 starts as soon as job 1 ends: waits 0 and 1 s
    assert found.table["fold_0"].iloc[0] == pytest.approx(np.mean([0.0, 1.0]))


def test_candidate_set_holds_every_builtin_predictor_once():
    candidates = schedule_candidates()
    assert len(set(candidates)) == len(candidates)
    assert {c.predictor for c in candidates} == {"requested", "tang", "usage-max",
                                                 "recent-average"}
    assert EASY_PLUS_PLUS in candidates
    assert {dict(c.params).get("keys") for c in candidates if c.predictor == "tang"} == {
        "user", "group", "user,group", "user,group,request"}
    assert any(c.selective for c in candidates)
    assert {c.name for c in schedule_candidates(easy_pp_style=False)}.isdisjoint(
        {c.name for c in candidates if c.backfill_order == "sjf"})
    tang = ScheduleCandidate("tang", (("keys", "user,group"), ("quantile", 0.85)), True,
                             "increments", "sjf")
    assert tang.name == "tang keys=user,group quantile=0.85 selective +increments +sjf-backfill"
    estimator = tang.estimates()
    assert isinstance(estimator, WalltimeAdjuster)
    assert estimator.keys == ("user_id", "group_id") and estimator.quantile == 0.85
    assert ScheduleCandidate("requested").estimates() == "requested"


def test_recent_averages_of_one_two_and_three_runtimes_are_candidates():
    candidates = schedule_candidates()
    assert len(candidates) == 66
    counts = {dict(c.params)["n_recent"] for c in candidates if c.predictor == "recent-average"}
    assert counts == {1, 2, 3}
    for n in (1, 2, 3):  # each used four ways, like every other predictor
        assert sum(c.params == (("n_recent", n),) for c in candidates) == 4
    earlier = schedule_candidates(recent=(2,))
    assert len(earlier) == 58 and set(earlier) < set(candidates)
    assert EASY_PLUS_PLUS in earlier
    assert not any(c.predictor == "recent-average" for c in schedule_candidates(recent=()))
    assert isinstance(schedule_candidates(recent=(4,))[-1].estimates(), RecentAverage)
    assert schedule_candidates(recent=(4,))[-1].estimates().n_recent == 4


@pytest.mark.parametrize("recent", [(0,), (2, -1), (1.5,), ("2",), (True,)])
def test_bad_recent_counts_are_one_clear_error(recent):
    with pytest.raises(ConfigError, match="recent must hold whole numbers >= 1"):
        schedule_candidates(recent=recent)


@pytest.mark.parametrize("kwargs, message", [
    ({"metric": "utilization"}, "metric must be one of"),
    ({"candidates": []}, "candidates is empty"),
    ({"candidates": ["tang"]}, r"candidates\[0\] must be a ScheduleCandidate"),
    ({"candidates": [ScheduleCandidate("tang", (("quantile", 3.0),))]}, "quantile"),
    ({"candidates": [ScheduleCandidate("oracle")]}, "oracle"),
    ({"test_periods": 0}, "test_periods must be a whole number >= 1"),
    ({"warmup_periods": -1}, "warmup_periods must be a whole number >= 0"),
    ({"test_periods": 2.5}, "test_periods must be a whole number"),
    ({"test_periods": 40}, r"span \d+ period\(s\) of 3D: too few"),
    ({"period": "-3D"}, "period"),
    ({"selective": True}, "selective is set by each candidate"),
    ({"criterion": "best"}, "criterion must be one of mean, jobs, recent, rank"),
    ({"policy": "fcfs"}, "policy='fcfs' with priority='fcfs' never reads a runtime estimate"),
    ({"policy": "no_guarantee", "priority": "fairshare"}, "same score"),
    ({"criterion": "recent", "half_life": -1.0}, "half_life must be a positive number"),
])
def test_bad_values_are_one_clear_error(jobs, kwargs, message):
    kwargs = {"candidates": SMALL[:1], "period": "3D", **kwargs}
    with pytest.raises(ConfigError, match=message):
        select_by_schedule(jobs, **kwargs)


def test_bad_tables_are_refused(jobs):
    with pytest.raises(JobTableError, match="non-empty job table"):
        select_by_schedule(jobs.iloc[:0], SMALL[:1])
    with pytest.raises(JobTableError, match="non-empty job table"):
        select_by_schedule(np.zeros(3), SMALL[:1])
    holed = jobs.copy()
    holed.loc[5, "submit_time"] = np.nan
    with pytest.raises(JobTableError, match=r"^jobs: column 'submit_time' has missing values "
                       r"\(1 row\(s\); first at row 5"):
        select_by_schedule(holed, SMALL[:1], period="3D")
    holed["submit_time"] = holed["submit_time"].astype(object)
    for value, message in (("abc", r"is not numeric .*first at row 5.*'abc'"),
                           (np.inf, r"holds infinite values .*first at row 5")):
        holed.loc[5, "submit_time"] = value
        with pytest.raises(JobTableError, match=message):
            select_by_schedule(holed, SMALL[:1], period="3D")
    times = jobs["submit_time"].to_numpy()
    with pytest.raises(JobTableError, match="holds datetime64"):
        select_by_schedule(jobs.assign(submit_time=pd.to_datetime(times, unit="s")), SMALL[:1],
                           period="3D")


def test_a_gap_over_every_scored_past_period_is_refused_not_chosen_from(jobs):
    submit = jobs["submit_time"].to_numpy(dtype=float)
    gapped = jobs.copy()
    late = submit >= submit.min() + 3 * 86400
    gapped.loc[late, "submit_time"] = submit[late] + 30 * 86400
    with pytest.raises(ConfigError, match=r"no job was submitted in the past period\(s\) 1 to "):
        select_by_schedule(gapped, SMALL[:1], period="3D", test_periods=3)


# --- the GridSearchCV scorer: what it simulates, exactly and without peeking ---------

@pytest.mark.parametrize("estimator", [
    WalltimeAdjuster(keys=("user_id",), quantile=0.7, window="2D", min_jobs=3),
    RecentUsageMax(), RecentAverage()])
@pytest.mark.parametrize("selective", [False, True])
def test_scorer_simulates_the_test_fold_with_the_training_history_known_in_time(
        jobs, estimator, selective):
    """Job by job: each test job is planned with the prediction an online replay gives.

    The replay's history holds the training jobs from the time the log says
    they ended and the test jobs from the time they end in the simulated
    fold, never earlier: the training jobs still running at a test job's
    submission are not in its prediction.
    """
    cv = TraceSplit(n_splits=2, period="3D")
    jobs = jobs.copy()
    long = np.arange(len(jobs)) % 40 == 0  # jobs running across fold starts in the log
    jobs.loc[long, ["run_time", "req_time"]] = 4 * DAY
    y = jobs["run_time"].to_numpy(dtype=float)
    scorer = make_schedule_scorer(policy="easy", metric="bounded_slowdown", selective=selective,
                                  machine_procs=jobs.attrs["max_procs"])
    search = GridSearchCV(estimator, {"clip_to_request": [True]}, cv=cv, scoring=scorer,
                          refit=False).fit(jobs, y)
    for k, (train, test) in enumerate(cv.split(jobs)):
        fitted = clone(estimator).fit(jobs.iloc[train], y[train])
        schedule = simulate(jobs.iloc[test], estimates=fitted, selective=selective,
                            machine_procs=jobs.attrs["max_procs"])
        assert search.cv_results_[f"split{k}_test_score"][0] == pytest.approx(
            -bounded_slowdown(schedule).mean(), rel=1e-12)
        # reference: replay over training (log end times) + test (simulated end times)
        both = pd.concat([jobs.iloc[train], jobs.iloc[test]], ignore_index=True)
        train_known = (jobs["submit_time"] + jobs["wait_time"] + jobs["run_time"]).to_numpy()[train]
        sim = schedule.jobs
        test_known = sim["end_time"].to_numpy(dtype=float)
        run = np.concatenate([y[train], sim["sim_run_time"].to_numpy(dtype=float)])
        expected = replay(clone(estimator), both, run, method="reference",
                          known_time=np.concatenate([train_known, test_known]))[len(train):]
        straddling = train_known > jobs["submit_time"].to_numpy()[test].min()
        assert straddling.any()  # the check below covers jobs running across the fold start
        np.testing.assert_allclose(sim["estimate"].to_numpy(dtype=float),
                                   np.maximum(np.minimum(expected, sim["req_time"]), 1.0),
                                   rtol=0, atol=0)


@pytest.mark.parametrize("warmup", [None, "2D"])
def test_scorer_with_history_simulates_the_fold_after_the_jobs_before_it(jobs, warmup):
    """history=: the fold is simulated after the earlier jobs, by a clone learning online."""
    cv = TraceSplit(n_splits=2, period="3D")
    y = jobs["run_time"].to_numpy(dtype=float)
    estimator = WalltimeAdjuster(keys=("user_id",), quantile=0.7, window="2D", min_jobs=3)
    scorer = make_schedule_scorer(policy="easy", metric="bounded_slowdown", history=jobs,
                                  warmup=warmup, machine_procs=jobs.attrs["max_procs"])
    search = GridSearchCV(estimator, {"quantile": [0.7, 0.9]}, cv=cv, scoring=scorer,
                          refit=False).fit(jobs, y)
    submit = jobs["submit_time"].to_numpy()
    for k, (_, test) in enumerate(cv.split(jobs)):
        first, last = submit[test].min(), submit[test].max()
        keep = submit <= last
        if warmup is not None:
            keep &= submit >= first - 2 * DAY
        before = jobs[keep].reset_index(drop=True)
        for c, quantile in enumerate([0.7, 0.9]):
            schedule = simulate(before, estimates=clone(estimator).set_params(quantile=quantile),
                                selective=True, machine_procs=jobs.attrs["max_procs"])
            fold = np.isin(before["job_id"], jobs["job_id"].to_numpy()[test])
            assert fold.sum() == len(test)
            expected = bounded_slowdown(schedule)[fold].mean()
            assert search.cv_results_[f"split{k}_test_score"][c] == pytest.approx(
                -expected, rel=1e-12)
    # jobs after a fold are never simulated for it: changing them changes no earlier fold
    later = submit > submit[list(cv.split(jobs))[0][1]].max()
    changed = jobs.copy()
    changed.loc[later, "run_time"] = changed.loc[later, "req_time"]
    scorer2 = make_schedule_scorer(policy="easy", history=changed, warmup=warmup,
                                   machine_procs=jobs.attrs["max_procs"])
    again = GridSearchCV(estimator, {"quantile": [0.7, 0.9]}, cv=cv, scoring=scorer2,
                         refit=False).fit(changed, changed["run_time"])
    np.testing.assert_array_equal(again.cv_results_["split0_test_score"],
                                  search.cv_results_["split0_test_score"])


@pytest.mark.parametrize("kwargs, message", [
    (dict(params={"quantile": 0.7}), r"params must be a tuple of \(name, value\) pairs .*from "
                                     r"a dict: tuple\(params.items\(\)\)"),
    (dict(params=("quantile", 0.7)), "params must be a tuple of"),
    (dict(selective=1), "selective must be True or False, got 1"),
    (dict(on_underestimate="triple"), "on_underestimate must be one of 'double'"),
    (dict(backfill_order="lifo"), "backfill_order must be one of 'priority', 'sjf'"),
])
def test_a_candidate_is_checked_when_made(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        ScheduleCandidate("tang", **kwargs)


def test_unknown_simulate_arguments_are_refused_when_the_scorer_is_made(jobs):
    with pytest.raises(ConfigError, match="make_schedule_scorer: simulate.. takes no argument "
                                          "foo"):
        make_schedule_scorer(machine_procs=100, foo=1)
    with pytest.raises(ConfigError, match="select_by_schedule: simulate.. takes no argument "
                                          "colour"):
        select_by_schedule(jobs, SMALL[:1], period="3D", colour="red")


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(metric="utilisation"), "metric 'utilisation' is not a schedule metric; use one of "
                                 "bounded_slowdown"),
    (dict(policy="bogus"), "'policy' parameter of make_schedule_scorer must be one of"),
    (dict(priority="bogus"), "'priority' parameter of make_schedule_scorer"),
    (dict(selective="no"), "'selective' parameter of make_schedule_scorer"),
    (dict(machine_procs=0), "'machine_procs' parameter of make_schedule_scorer"),
    (dict(on_underestimate="triple"), "'on_underestimate' parameter of make_schedule_scorer"),
])
def test_bad_values_are_refused_when_the_scorer_is_made_not_scored_as_nan(jobs, kwargs,
                                                                           message):
    # inside a search a scorer's error only warns and scores NaN: refuse it up front
    with pytest.raises(ConfigError, match=message):
        make_schedule_scorer(**kwargs)


def test_every_metric_a_schedule_reports_can_be_scored(jobs):
    from predictkit.metrics import schedule_metrics
    from predictkit.metrics._schedule import SCHEDULE_METRIC_NAMES

    part = jobs.iloc[:300].reset_index(drop=True)
    part.attrs = dict(jobs.attrs)
    reported = set(schedule_metrics(simulate(part, policy="easy"))["metric"])
    assert reported <= set(SCHEDULE_METRIC_NAMES)
    for name in SCHEDULE_METRIC_NAMES:
        make_schedule_scorer(metric=name)


def test_scorer_refuses_a_scheduler_that_reads_no_estimate():
    with pytest.raises(ConfigError, match="every predictor gives the same schedule"):
        make_schedule_scorer(policy="fcfs")
    with pytest.raises(ConfigError, match="priority='fairshare' never reads"):
        make_schedule_scorer(policy="no_guarantee", priority="fairshare")
    make_schedule_scorer(policy="fcfs", priority="sjf")
    make_schedule_scorer(policy="no_guarantee", backfill_order="sjf")


def test_scorer_history_errors(jobs):
    with pytest.raises(ConfigError, match="warmup applies with history= only"):
        make_schedule_scorer(warmup="1D")
    with pytest.raises(ConfigError, match="history must be the job table"):
        make_schedule_scorer(history=np.zeros(3))
    with pytest.raises(ConfigError, match="repeated index labels"):
        make_schedule_scorer(history=pd.concat([jobs, jobs]))
    with pytest.raises(ConfigError, match="warmup must look like"):
        make_schedule_scorer(history=jobs, warmup="soon")
    scorer = make_schedule_scorer(history=jobs.iloc[:100], machine_procs=64)
    fitted = RecentAverage().fit(jobs.iloc[:10], jobs["run_time"].iloc[:10])
    with pytest.raises(ConfigError, match="not rows of history="):
        scorer(fitted, jobs.iloc[200:300])
    shifted = jobs.iloc[50:60].copy()
    shifted["submit_time"] += 1.0
    with pytest.raises(ConfigError, match="not rows of history="):
        scorer(fitted, shifted)
    assert "history=<100 jobs>" in repr(scorer)
    value = scorer(fitted, jobs.iloc[50:60])
    assert value < 0


def test_learned_candidates_are_asked_for_by_budget():
    plain = schedule_candidates()
    assert "learned" not in {c.predictor for c in plain}
    with_learned = schedule_candidates(learned=(0.02, 0.1))
    learned = [c for c in with_learned if c.predictor == "learned"]
    assert len(learned) == 2 * 2 * 2  # budgets x (regular, selective) x scheduler styles
    assert {dict(c.params)["max_bad_share"] for c in learned} == {0.02, 0.1}
    assert [c for c in with_learned if c.predictor != "learned"] == plain
    for bad in (0.0, 1.0, 1.5, True, "0.1"):
        with pytest.raises(ConfigError, match="learned must hold budgets in"):
            schedule_candidates(learned=(bad,))


def test_the_selections_slowdown_is_the_metrics_slowdown():
    import numpy as np
    import pandas as pd

    from predictkit.metrics import bounded_slowdown, slowdown
    from predictkit.model_selection._schedule_search import SCHEDULE_METRICS

    submit, start, end = np.zeros(3), np.array([0.0, 0.0, 5.0]), np.array([0.5, 0.0, 5.0])
    frame = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": submit, "start_time": start,
                          "end_time": end, "n_procs": [1.0, 1.0, 1.0]})
    np.testing.assert_array_equal(SCHEDULE_METRICS["slowdown"](submit, start, end, end - start), [1, 1, 5])
    np.testing.assert_array_equal(SCHEDULE_METRICS["slowdown"](submit, start, end, end - start),
                                  slowdown(frame))
    np.testing.assert_array_equal(SCHEDULE_METRICS["bounded_slowdown"](submit, start, end, end - start),
                                  bounded_slowdown(frame))


def test_a_table_of_first_jobs_does_not_lend_the_past_runs_the_whole_logs_machine(jobs):
    from predictkit._summary import first_jobs

    headless = jobs.copy()
    headless.attrs = {k: v for k, v in jobs.attrs.items() if k != "max_procs"}
    wide = headless.copy()
    wide.loc[wide.index[-1], ["n_procs", "req_procs"]] = 4 * headless["n_procs"].max()
    plain = select_by_schedule(headless, SMALL[:1], baseline=None, period="3D",
                               test_periods=1)
    with pytest.warns(UserWarning, match=r"the runs of the past months simulate the widest job "
                                         r"before the split \(\d+ processors\) and those of "
                                         r"the whole table its widest"):
        first = select_by_schedule(first_jobs(wide, len(wide)), SMALL[:1], baseline=None,
                                   period="3D", test_periods=1)
    folds = [c for c in plain.table.columns if c.startswith("fold_")]
    pd.testing.assert_frame_equal(first.table[folds], plain.table[folds])

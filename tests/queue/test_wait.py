import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError, JobTableError
from predictkit.model_selection import replay
from predictkit.queue import QBETS, WaitPredictor
from predictkit.queue._conformal import ConformalCalibrator, score
from predictkit.queue._forward import GRID, forecast_wait, replay_forecasts
from predictkit.runtime import RecentUsageMax
from predictkit.simulate import simulate


@pytest.fixture(scope="module")
def waited():
    """A simulated EASY schedule: jobs with waits, runtimes and requests."""
    jobs = simulate(make_workload(n_jobs=1200, random_state=3), policy="easy").jobs
    jobs = jobs.drop(columns=["start_time", "end_time"])
    # ties in submit times and waits of zero are the tricky cases of the replay
    jobs.loc[10:20, "submit_time"] = jobs.loc[10, "submit_time"]
    return jobs.sort_values("submit_time", kind="stable").reset_index(drop=True)


# -- a plain reference of the forward simulation ---------------------------------

def reference_forecast(now, capacity, running, queue, job, max_queue=512):
    """Conservative backfilling on the grid, written plainly (lists, no numba)."""
    grid = GRID.tolist()
    free = [capacity] * len(grid)

    def touched(span):  # grid points strictly below span
        return sum(1 for g in grid if g < span)

    def duration(runtime, request):
        if runtime == runtime:
            return runtime
        return request if request == request else 3600.0

    for start, procs, runtime, request in running:
        elapsed = now - start
        if runtime == runtime and runtime > elapsed:
            end = start + runtime
        elif request == request and request > elapsed:
            end = start + request
        elif runtime != runtime and request != request:
            end = max(start + 3600.0, now + 60.0)
        else:
            end = now + 60.0
        for k in range(touched(end - now)):
            free[k] -= min(procs, capacity)

    def place(table, procs, dur):
        procs = min(procs, capacity)
        for s in range(len(grid)):
            stop = max(touched(grid[s] + dur), s + 1)
            if all(table[k] >= procs for k in range(s, stop)):
                for k in range(s, stop):
                    table[k] -= procs
                return s
        return len(grid) - 1

    alone = grid[place(list(free), job[0], duration(job[1], job[2]))]
    for procs, runtime, request in queue[:max_queue]:
        place(free, procs, duration(runtime, request))
    return grid[place(free, job[0], duration(job[1], job[2]))], alone


times = st.floats(1.0, 5e5, allow_nan=False)
maybe = st.one_of(st.just(math.nan), times)


@settings(max_examples=60, deadline=None)
@given(running=st.lists(st.tuples(st.floats(0, 1e5), st.integers(1, 64).map(float), maybe, maybe),
                        max_size=12),
       queue=st.lists(st.tuples(st.integers(1, 64).map(float), maybe, maybe), max_size=12),
       job=st.tuples(st.integers(1, 80).map(float), maybe, maybe),
       max_queue=st.integers(0, 12))
def test_forecast_matches_a_plain_conservative_backfill(running, queue, job, max_queue):
    now, capacity = 1e5, 64.0
    run = [np.array(col, dtype=float).reshape(-1) for col in zip(*running)] or \
        [np.zeros(0)] * 4
    que = [np.array(col, dtype=float).reshape(-1) for col in zip(*queue)] or [np.zeros(0)] * 3
    got = forecast_wait(now, capacity, *run, *que, *job, max_queue)
    assert tuple(map(float, got)) == reference_forecast(now, capacity, running, queue, job,
                                                        max_queue)


def test_forecast_waits_for_running_jobs_and_the_queue_ahead():
    # 10 of 10 processors busy for 2 hours: a 1-processor job waits about 2 hours;
    # an hour-long 10-processor job queued ahead pushes it one more hour back
    run = [np.array([0.0]), np.array([10.0]), np.array([7200.0]), np.array([9000.0])]
    empty = [np.zeros(0)] * 3
    alone_wait, alone = forecast_wait(0.0, 10.0, *run, *empty, 1.0, 600.0, 600.0, 10)
    assert alone_wait == alone and 7200.0 <= alone_wait < 7200.0 * 1.2
    queued = [np.array([10.0]), np.array([3600.0]), np.array([3600.0])]
    behind, alone2 = forecast_wait(0.0, 10.0, *run, *queued, 1.0, 600.0, 600.0, 10)
    assert alone2 == alone and behind >= 7200.0 + 3600.0
    # the queue is ignored beyond max_queue
    assert forecast_wait(0.0, 10.0, *run, *queued, 1.0, 600.0, 600.0, 0)[0] == alone


# -- the estimator -------------------------------------------------------------------

@pytest.mark.parametrize("params", [dict(quantile=0.95), dict(quantile=0.5, window=50),
                                    dict(quantile=0.75, runtime="request", capacity=128.0),
                                    dict(quantile=0.9, runtime=RecentUsageMax(), max_queue=3)])
def test_fast_replay_equals_the_reference_protocol(waited, params):
    y = waited["wait_time"].to_numpy()
    fast = replay(WaitPredictor(**params), waited, y, method="fast")
    slow = replay(WaitPredictor(**params), waited, y, method="reference")
    assert np.isfinite(fast).sum() > len(waited) // 2
    np.testing.assert_array_equal(fast, slow)


def test_no_peeking_at_the_runtime_of_a_running_job_or_at_later_jobs(waited):
    y = waited["wait_time"].to_numpy()
    base = replay(WaitPredictor(quantile=0.9), waited, y)
    submit = waited["submit_time"].to_numpy()
    start = submit + y
    k = int(np.argmax((waited["run_time"].to_numpy() > 3600) & (np.arange(len(waited)) > 300)))
    # a longer runtime for job k: nothing submitted before its (original) end may change
    changed = waited.copy()
    changed.loc[k, "run_time"] = waited.loc[k, "run_time"] * 3
    bounds = replay(WaitPredictor(quantile=0.9), changed, y)
    before = submit < start[k] + waited.loc[k, "run_time"]
    np.testing.assert_array_equal(bounds[before], base[before])
    # different waits for the jobs submitted after t: nothing submitted up to t changes
    t = submit[600]
    later = submit > t
    y2 = y.copy()
    y2[later] = y2[later] * 2 + 100
    again = replay(WaitPredictor(quantile=0.9), waited.assign(wait_time=y2), y2)
    np.testing.assert_array_equal(again[submit <= t], base[submit <= t])


def test_bounds_reach_the_quantile_on_a_simulated_schedule():
    jobs = simulate(make_workload(n_jobs=4000, random_state=7), policy="easy").jobs
    y = jobs["wait_time"].to_numpy()
    for q in (0.5, 0.9):
        bounds = replay(WaitPredictor(quantile=q), jobs, y)
        ok = np.isfinite(bounds) | np.isinf(bounds)
        ok &= ~np.isnan(bounds)
        assert ok.mean() > 0.9
        assert np.mean(y[ok] <= bounds[ok]) >= q


def test_protocol_predict_start_probability_and_forecast(waited):
    started = waited.iloc[:400]
    model = WaitPredictor(quantile=0.9, window=50)
    model.fit(started.iloc[:0])
    t = float(waited["submit_time"].iloc[400])
    ends = started["submit_time"] + started["wait_time"]
    model.partial_fit(started[ends <= t], started["wait_time"][ends <= t])
    queue = started[ends > t]
    model.observe_queue(queue, now=t)
    new = waited.iloc[[400]]
    bound = model.predict(new)
    # the forecast is never calibrated (no job was predicted): QBETS's bound from the history
    history = QBETS(quantile=0.9, random_state=0).fit(started.iloc[:0])
    history.partial_fit(started[ends <= t], started["wait_time"][ends <= t])
    history.observe_queue(queue, now=t)
    assert bound.shape == (1,) and bound[0] == history.predict(new)[0]
    assert model.forecast(new)[0] >= 0.0
    # ... and QBETS's probability, so that the two answers agree
    for within in (600.0, bound[0], 1e9):
        p = model.start_probability(new, within=[within])
        assert p[0] == history.start_probability(new, within=[within])[0]
    assert model.start_probability(new, within=bound)[0] >= 0.9


def test_a_job_wider_than_a_given_capacity_is_forecast_with_a_warning(waited):
    model = WaitPredictor(capacity=64).fit(waited.iloc[:0])
    wide = waited.iloc[[0]].assign(req_procs=1000.0, n_procs=1000.0)
    with pytest.warns(UserWarning, match=r"1 job wider than the machine \(64 processors\)"):
        model.forecast(wide)
    with pytest.warns(UserWarning, match="wider than the machine"):
        replay(WaitPredictor(capacity=64), waited.iloc[:50].assign(req_procs=100.0),
               waited["wait_time"].iloc[:50])


def test_start_probability_is_a_distribution(waited):
    model = WaitPredictor(quantile=0.9, window=100).fit(waited.iloc[:0])
    y = waited["wait_time"].to_numpy()
    submit = waited["submit_time"].to_numpy()
    added = np.zeros(len(waited), bool)
    # the protocol by hand over the first 800 jobs, predicting each batch
    for t in np.unique(submit[:800]):
        started = np.flatnonzero((submit + y <= t) & ~added)
        started = started[np.lexsort((started, submit[started], (submit + y)[started]))]
        added[started] = True
        if len(started):
            model.partial_fit(waited.iloc[started], y[started])
        model.observe_queue(waited.iloc[np.flatnonzero((submit < t) & (submit + y > t))], now=t)
        model.predict(waited.iloc[np.flatnonzero(submit == t)])
    assert model.n_scored_ > 100
    new = waited.iloc[[800]]
    probs = [model.start_probability(new, within=w)[0] for w in (0.0, 600.0, 3600.0, 1e7)]
    assert all(0.0 <= p <= 1.0 for p in probs)
    assert probs == sorted(probs) and probs[-1] == 1.0


# -- calibration ---------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), q=st.sampled_from([0.5, 0.8, 0.95]))
def test_online_shift_keeps_the_miss_rate_whatever_the_drift(seed, q):
    # waits that drift by orders of magnitude against a constant forecast:
    # the long-run miss rate stays within (B + eta) / (eta T) of 1 - q*, B the
    # largest score
    rng = np.random.default_rng(seed)
    eta = 0.05
    cal = ConformalCalibrator(q, window=200, step=eta, min_scores=20)
    label = (0, 0, 0, 0, 0)
    n, misses, told, largest = 6000, 0, 0, 0.0
    drift = np.exp(np.cumsum(rng.normal(0, 0.05, n)))
    for i in range(n):
        wait = float(rng.exponential(100.0) * drift[i])
        b = cal.bound(label, 60.0, cal.shift(label))
        if b == b:
            missed = wait > b
            misses += missed
            told += 1
            cal.outcome(label, missed)
        value = score(wait, 60.0)
        largest = max(largest, abs(value))
        cal.add(label, value)
    assert abs(misses / told - (1 - cal.target)) <= (largest + eta) / (eta * told)


def test_calibrator_needs_scores_before_bounding():
    cal = ConformalCalibrator(0.95, window=100, step=0.005, min_scores=20)
    label = (1, 0, 0, 0, 0)
    assert math.isnan(cal.bound(label, 10.0, cal.shift(label)))
    for value in np.linspace(-1, 1, 200):
        cal.add(label, float(value))
    assert cal.bound(label, 10.0, 0.0) < cal.bound(label, 10.0, 0.05)
    # however wound up the shift, the threshold stops at the largest score
    assert cal.bound(label, 10.0, 40.0) == pytest.approx(70.0 * math.exp(1.0) - 60.0)
    small = ConformalCalibrator(0.99, window=100, step=0.005, min_scores=20)
    for value in np.linspace(-1, 1, 30):
        small.add(label, float(value))
    assert small.bound(label, 10.0, 0.0) == math.inf  # 30 scores cannot bound q* = 0.991


# -- errors ---------------------------------------------------------------------------

def test_bad_inputs_are_one_clear_error(waited):
    with pytest.raises(JobTableError, match="job table"):
        WaitPredictor().fit(np.zeros((3, 3)))
    with pytest.raises(JobTableError, match="submit_time"):
        WaitPredictor().fit(pd.DataFrame({"req_procs": [1.0]}), [1.0])
    with pytest.raises(JobTableError, match=r"WaitPredictor: y holds negative waits \(1 row\(s\); "
                                            r"first at row 1"):
        WaitPredictor().fit(waited.iloc[:3], [1.0, -2.0, 3.0])
    with pytest.raises(JobTableError, match=r"y must have one value per job \(3\)"):
        WaitPredictor().fit(waited.iloc[:3], [1.0, 2.0])
    with pytest.raises(ConfigError, match="runtime"):
        WaitPredictor(runtime="magic").fit(waited.iloc[:3])
    with pytest.raises(ConfigError, match="runtime"):
        WaitPredictor(runtime=object()).fit(waited.iloc[:3])
    with pytest.raises(ConfigError, match="quantile"):
        WaitPredictor(quantile=1.0).fit(waited.iloc[:3])
    model = WaitPredictor().fit(waited.iloc[:3])
    with pytest.raises(ConfigError, match="now"):
        model.observe_queue(waited.iloc[3:5], now=float("nan"))
    with pytest.raises(ConfigError, match="within"):
        model.start_probability(waited.iloc[3:5], within=-1.0)
    with pytest.raises(ConfigError, match="within"):
        model.start_probability(waited.iloc[3:5])


def test_replay_forecasts_ignores_jobs_without_a_start():
    submit = np.array([0.0, 10.0, 20.0])
    start = np.array([np.nan, 10.0, 3000.0])
    end = start + 5000.0
    procs = np.array([4.0, 4.0, 4.0])
    forecast, alone, caps = replay_forecasts(submit, start, end, procs, procs,
                                             np.full(3, 5000.0), np.full(3, 5000.0),
                                             capacity=4.0)
    # job 0 never starts: it neither occupies the machine nor queues ahead of job 1
    assert forecast[1] == 0.0 and forecast[2] >= 4000.0 and np.all(caps == 4.0)


def test_queued_jobs_older_than_the_threshold_raise_the_bound_as_in_qbets():
    cal = ConformalCalibrator(0.9, window=100, step=0.05, min_scores=20)
    label = (2, 0, 0, 0, 0)
    for value in np.linspace(-2.0, 0.0, 50):
        cal.add(label, float(value))
    plain = cal.bound(label, 600.0, 0.0)
    now = 1e6
    young = (now, np.array([now - 10.0]), np.array([600.0]))
    assert cal.bound(label, 600.0, 0.0, young) == plain  # under the threshold: no evidence
    old = (now, np.full(5, now - 1e5), np.full(5, 600.0))
    raised = cal.bound(label, 600.0, 0.0, old)
    # five known misses join the 50 scores: the order statistic moves into them
    aged = score(1e5, 600.0)
    k2 = math.ceil(cal.target * 56)
    assert k2 == 51 and raised == pytest.approx((600.0 + 60.0) * math.exp(aged) - 60.0)
    assert raised > plain


@pytest.mark.parametrize("make", [lambda: QBETS(random_state=0),
                                  lambda: WaitPredictor(capacity=64)], ids=["QBETS", "wait"])
@pytest.mark.parametrize(("column", "value", "message"), [
    ("n_procs", "x", r"column 'n_procs' is not numeric \(1 row\(s\) hold something else; "
                     r"first at row 2, job_id 3: 'x'\)"),
    ("req_procs", "x", r"column 'req_procs' is not numeric"),
    ("req_time", np.inf, r"column 'req_time' holds infinite values \(1 row\(s\); first at "
                         r"row 2, job_id 3\)"),
    ("req_time", 2.0**60, r"column 'req_time' holds values of 2\*\*53 or more"),
])
def test_a_column_the_bounds_read_holding_nonsense_is_named(make, column, value, message):
    jobs = pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": [0.0, 5.0, 9.0, 20.0],
                         "wait_time": [1.0, 2.0, 3.0, 4.0], "run_time": [10.0] * 4,
                         "n_procs": [1.0, 2.0, 4.0, 8.0], "req_procs": [1.0, 2.0, 4.0, 8.0],
                         "req_time": [60.0] * 4})
    jobs = jobs.assign(start_time=jobs["submit_time"] + jobs["wait_time"],
                       end_time=jobs["submit_time"] + jobs["wait_time"] + jobs["run_time"])
    jobs[column] = jobs[column].astype(object)
    jobs.loc[2, column] = value
    with pytest.raises(JobTableError, match=message):
        make().fit(jobs, jobs["wait_time"])


# -- jobs are row labels; widths are whole numbers > 0 --------------------------------

@pytest.mark.parametrize("method", ["reference", "fast"])
def test_replay_refuses_repeated_row_labels(waited, method):
    # the reference replay merged the jobs of a label and gave other bounds, without error
    jobs = waited.iloc[:300]
    with pytest.raises(JobTableError, match=r"row label 0 (is repeated|names)"):
        replay(WaitPredictor(capacity=128), jobs.set_axis([0] * 300),
               jobs["wait_time"].to_numpy(), method=method)


@pytest.mark.parametrize("labels", [[np.nan, np.nan, 2.0], [np.nan, 1.0, 2.0],
                                    pd.to_datetime([None, "2020-01-01", "2020-01-02"])])
def test_a_row_without_a_label_is_refused_in_each_call(waited, labels):
    # a NaN label is no key: the job would be lost between calls
    jobs = waited.iloc[:3].set_axis(labels)
    with pytest.raises(JobTableError, match=r"^WaitPredictor.partial_fit: row 0 has no row "
                                            r"label \((nan|NaT)\); jobs are identified by"):
        WaitPredictor(capacity=128).fit(jobs)
    model = WaitPredictor(capacity=128).fit(waited.iloc[3:20])
    with pytest.raises(JobTableError, match=r"^WaitPredictor.predict: row 0 has no row label"):
        model.predict(jobs)


def test_each_call_refuses_a_label_naming_two_jobs(waited):
    jobs = waited.iloc[:40]
    twice = jobs.iloc[[0, 1]].set_axis([5, 5])
    model = WaitPredictor(capacity=128)
    with pytest.raises(JobTableError, match=r"WaitPredictor.partial_fit: row label 5 is "
                                            r"repeated \(rows 0 and 1\)"):
        model.fit(twice)
    model.fit(jobs.iloc[:20])
    now = float(jobs["submit_time"].iloc[25])
    for call in (model.predict, model.forecast, lambda X: model.observe_queue(X, now=now)):
        with pytest.raises(JobTableError, match=r"row label 5 is repeated"):
            call(twice)
    # a label already given to a job submitted at another time, or started again
    later = jobs.iloc[[25]].set_axis([3])
    with pytest.raises(JobTableError, match=(
            rf"^WaitPredictor.predict: row label 3 names two jobs \(one submitted at "
            rf"{float(jobs['submit_time'].iloc[3])!r}, this one at "
            rf"{float(jobs['submit_time'].iloc[25])!r}\); .*label jobs by their id, e.g. "
            r"X.set_index\('job_id', drop=False\)\)$")):
        model.predict(later)
    # the rows named are those of the repeated label
    with pytest.raises(JobTableError, match=r"row label 31 is repeated \(rows 1 and 3\)"):
        model.predict(jobs.iloc[21:25].set_axis([30, 31, 32, 31]))
    with pytest.raises(JobTableError, match=r"WaitPredictor.partial_fit: row label 3 names a job "
                                            r"that has started already"):
        model.partial_fit(jobs.iloc[[3]])
    # the same job asked about again, then started: one job throughout
    new = jobs.iloc[[25]]
    first = model.predict(new)
    np.testing.assert_array_equal(model.predict(new), first)
    model.partial_fit(new)


def test_observe_queue_refuses_a_job_that_has_started(waited):
    jobs = waited.iloc[:300]
    submit = jobs["submit_time"].to_numpy()
    start = submit + jobs["wait_time"].to_numpy()
    queued = [((submit < t) & (start > t)).sum() for t in submit]
    now = float(submit[int(np.argmax(np.asarray(queued) >= 2))])  # a queue of 2 jobs or more
    model = WaitPredictor(capacity=128).fit(jobs[start <= now])
    waiting = jobs[(submit < now) & (start > now)]
    model.observe_queue(waiting, now=now)  # the documented queue is taken
    model.observe_queue(waiting.drop(columns="wait_time"), now=now)
    # a job partial_fit started, told again as waiting (its own row says nothing)
    started = jobs[start <= now].iloc[[3]]
    label, job_id = started.index[0], started["job_id"].iloc[0]
    with pytest.raises(JobTableError, match=(
            rf"^WaitPredictor.observe_queue: the job at row label {label}, job_id {job_id} "
            rf"started at {float(start[label])!r} \(partial_fit added it\), not after now={now!r}, "
            r"so it is not waiting; give only the jobs submitted before now that have not "
            r"started$")):
        model.observe_queue(pd.concat([waiting, started.drop(columns="wait_time")]), now=now)
    # a job whose own row says it started (wait_time, or start_time when given)
    early = waiting.iloc[[0]].assign(wait_time=now - waiting["submit_time"].iloc[0])
    with pytest.raises(JobTableError, match=rf"row label {early.index[0]}, .*\(its row says "
                                            r"so\), not after now"):
        model.observe_queue(early, now=now)
    with pytest.raises(JobTableError, match=r"\(its row says so\)"):
        model.observe_queue(waiting.assign(start_time=now - 1.0), now=now)
    # a start_time column wins over wait_time (as replay's clock does)
    model.observe_queue(early.assign(start_time=now + 1.0), now=now)
    # jobs submitted at now are ignored, after it left out with a warning, as documented
    model.observe_queue(jobs[submit == now].assign(wait_time=0.0), now=now)
    with pytest.warns(UserWarning, match=r"^WaitPredictor.observe_queue: \d+ jobs? submitted "
                                         r"after now=.* left out: not in the queue yet$"):
        model.observe_queue(jobs[submit >= now].assign(wait_time=0.0), now=now)


@pytest.mark.parametrize(("column", "value", "message"), [
    ("n_procs", -4.0, r"column 'n_procs' has values <= 0"),
    ("req_procs", 0.0, r"column 'req_procs' has values <= 0"),
    ("n_procs", 2.5, r"column 'n_procs' has values that are not whole numbers"),
    ("req_procs", 1.5, r"column 'req_procs' has values that are not whole numbers"),
    ("wait_time", -3.0, r"column 'wait_time' has negative values, so start_time is unknown"),
])
@pytest.mark.parametrize("method", ["reference", "fast"])
def test_impossible_widths_and_times_are_refused_naming_the_row(waited, column, value, message,
                                                                method):
    # they were taken and changed the bounds
    jobs = waited.iloc[:200].copy()
    jobs.loc[7, column] = value
    job = jobs.loc[7, "job_id"]
    # the reference replay hands the estimator pieces of the table: a row of the piece
    row = 7 if method == "fast" or column == "wait_time" else r"\d+"
    with pytest.raises(JobTableError, match=rf"{message} \(1 row\(s\); first at row {row}, "
                                            rf"job_id {job}\)"):
        replay(WaitPredictor(capacity=128), jobs, waited["wait_time"].iloc[:200],
               method=method)


def test_one_unknown_width_column_is_fine_where_the_other_gives_the_width(waited):
    jobs = waited.iloc[:300].copy()
    y = jobs["wait_time"].to_numpy()
    same = np.flatnonzero(jobs["n_procs"].to_numpy() == jobs["req_procs"].to_numpy())
    expected = replay(WaitPredictor(capacity=128), jobs, y)
    jobs.loc[same[::3], "n_procs"] = np.nan
    jobs.loc[same[1::3], "req_procs"] = np.nan
    np.testing.assert_array_equal(replay(WaitPredictor(capacity=128), jobs, y), expected)
    jobs.loc[same[0], "req_procs"] = np.nan  # now neither is known
    with pytest.raises(JobTableError, match=r"jobs without n_procs nor req_procs \(a job's "
                                            rf"width\) \(1 row\(s\); first at row {same[0]}"):
        replay(WaitPredictor(capacity=128), jobs, y)


@pytest.mark.parametrize("make", [lambda: QBETS(random_state=0),
                                  lambda: WaitPredictor(capacity=128)], ids=["QBETS", "wait"])
@pytest.mark.parametrize("method", ["reference", "fast"])
@pytest.mark.parametrize(("value", "kind"), [(-3.0, "negative"), (-3e6, "negative"),
                                             (np.inf, "infinite")])
def test_replay_refuses_an_impossible_wait_as_fit_does(waited, make, method, value, kind):
    # the fast replays dropped a negative wait silently; an infinite one was "a job with a
    # known time has no wait", with no row
    jobs = waited.iloc[:200]
    y = jobs["wait_time"].to_numpy().copy()
    y[12] = value
    where = rf"\(1 row\(s\); first at row 12, job_id {jobs['job_id'].iloc[12]}\)"
    with pytest.raises(JobTableError, match=rf"replay: y holds {kind} waits {where}"):
        replay(make(), jobs, y, method=method)
    with pytest.raises(JobTableError, match=rf"y holds {kind} waits {where}"):
        make().fit(jobs, y)


def test_a_table_without_requests_is_named_for_the_wait_predictor(waited):
    with pytest.raises(JobTableError, match=r"WaitPredictor.partial_fit: job table lacks req_time"):
        WaitPredictor(capacity=128).fit(waited.iloc[:20].drop(columns="req_time"))


@pytest.mark.parametrize("within", [True, "ten", [600.0, 600.0]])
def test_start_probability_takes_seconds_only(waited, within):
    model = WaitPredictor().fit(waited.iloc[:3])
    with pytest.raises(ConfigError, match="'within' parameter of WaitPredictor"):
        model.start_probability(waited.iloc[3:6], within=within)


def test_a_window_too_small_for_the_quantile_is_refused():
    from predictkit.exceptions import InvalidParameterError
    from predictkit.queue import WaitPredictor

    jobs = pd.DataFrame({"submit_time": [0.0, 1.0], "req_procs": [1.0, 1.0],
                         "req_time": [60.0, 60.0]})
    with pytest.raises(InvalidParameterError, match=r"'window' parameter of WaitPredictor must "
                                                    r"hold at least 999 scores at quantile 0.999"):
        WaitPredictor(quantile=0.999, window=998).fit(jobs, [0.0, 0.0])
    WaitPredictor(quantile=0.999, window=999).fit(jobs, [0.0, 0.0])

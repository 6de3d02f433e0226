"""QBETS: coverage on i.i.d. samples, the fast replay, the online protocol, sklearn checks."""

import contextlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from scipy import stats
from sklearn.base import clone
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.metrics import bound_summary
from predictkit.model_selection import replay
from predictkit.queue import QBETS, order_statistic_index

SINGLE = dict(clustering=None, changepoint=None)


def _jobs(n, nodes=4.0, req=3600.0):
    return pd.DataFrame({"submit_time": np.arange(float(n)), "req_procs": nodes,
                         "n_procs": nodes, "req_time": req})


DISTRIBUTIONS = {
    "exponential": stats.expon(scale=300.0),
    "lognormal": stats.lognorm(s=2.0, scale=600.0),
    "pareto": stats.pareto(b=1.2, scale=30.0),
    "uniform": stats.uniform(0.0, 1000.0),
}


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
@pytest.mark.parametrize("n", [59, 200])
def test_bound_covers_the_quantile_in_c_of_trials(name, n):
    """Statistical test: 600 trials, the bound is above the true 0.95 quantile in at
    least 0.95 of them, minus 3 binomial standard errors (0.027)."""
    dist = DISTRIBUTIONS[name]
    true_q = dist.ppf(0.95)
    rng = np.random.default_rng(11)
    jobs = _jobs(n)
    covered = []
    for _ in range(600):
        waits = dist.rvs(size=n, random_state=rng)
        bound = QBETS(**SINGLE).fit(jobs, waits).predict(jobs.iloc[:1])[0]
        covered.append(bound >= true_q)
    assert np.mean(covered) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 600)


def test_reference_index_undercovers_at_small_n():
    dist = DISTRIBUTIONS["exponential"]
    true_q = dist.ppf(0.95)
    rng = np.random.default_rng(12)
    jobs = _jobs(59)
    model = QBETS(index="reference", **SINGLE)
    covered = [model.fit(jobs, dist.rvs(size=59, random_state=rng))
               .predict(jobs.iloc[:1])[0] >= true_q for _ in range(600)]
    # theory: P(Bin(59, .95) <= 57) = 0.80
    assert abs(np.mean(covered) - stats.binom.cdf(57, 59, 0.95)) < 0.05


def test_no_bound_before_min_history():
    waits = np.arange(1.0, 60.0)
    model = QBETS(**SINGLE).fit(_jobs(58), waits[:58])
    assert np.isnan(model.predict(_jobs(2))).all()
    assert model.min_history_ == 59
    model.partial_fit(_jobs(1), waits[58:])
    assert model.predict(_jobs(1))[0] == 59.0
    assert QBETS(index="reference", **SINGLE).fit(_jobs(59), waits).predict(_jobs(1))[0] == 58.0


def test_bound_is_the_order_statistic():
    rng = np.random.default_rng(3)
    waits = rng.exponential(100, 777)
    model = QBETS(quantile=0.75, **SINGLE).fit(_jobs(777), waits)
    k = order_statistic_index(777, 0.75, 0.95)
    assert model.predict(_jobs(1))[0] == np.sort(waits)[k - 1]


def test_start_probability_is_the_inverted_bound():
    waits = np.linspace(0.0, 1990.0, 200)
    model = QBETS(**SINGLE).fit(_jobs(200), waits)
    within = np.array([0.0, 1.0, 500.0, 1000.0, 1900.0, 1990.0, 5000.0])
    got = model.start_probability(_jobs(len(within)), within=within)
    for w, p in zip(within, got):
        grid = np.arange(99, 0, -1) / 100
        ok = [q for q in grid
              if (k := order_statistic_index(200, q, 0.95)) and np.sort(waits)[k - 1] <= w]
        assert p == (ok[0] if ok else 0.0)
    assert np.all(np.diff(got) >= 0)
    # 200 waits are too few for a 0.99 bound at confidence 0.95 (0.99**200 > 0.05)
    assert got[-1] == 0.98


@pytest.mark.parametrize("step, grid", [(0.3, [0.3, 0.6, 0.9]), (0.4, [0.4, 0.8]),
                                        (0.25, [0.25, 0.5, 0.75]), (0.5, [0.5])])
def test_start_probability_takes_the_multiples_of_its_step(step, grid):
    waits = np.linspace(0.0, 1990.0, 200)
    model = QBETS(**SINGLE, proba_step=step).fit(_jobs(200), waits)
    within = np.concatenate([[0.0], np.linspace(1.0, 1990.0, 400), [1e9]])
    got = set(model.start_probability(_jobs(len(within)), within=within))
    assert got == {0.0, *grid}


def _queue(ages, now=10000.0):
    return _jobs(len(ages)).assign(submit_time=now - np.asarray(ages, dtype=float)), now


def _expected_queued_bound(waits, ages, q=0.95):
    """The order statistic of the waits united with the ages above the history bound."""
    n = len(waits)
    plain = np.sort(waits)[order_statistic_index(n, q, 0.95) - 1]
    late = [a for a in ages if a > plain]
    merged = np.sort(np.r_[waits, late])
    return merged[order_statistic_index(len(merged), q, 0.95) - 1]


def test_queued_jobs_older_than_the_bound_raise_it():
    rng = np.random.default_rng(11)
    waits = rng.exponential(10.0, 100)
    model = QBETS(**SINGLE).fit(_jobs(100), waits)
    plain = model.predict(_jobs(1))[0]
    ages = [3000.0, 2500.0, 2000.0, 1500.0, 1000.0, 800.0, 1.0, 0.5]
    queue, now = _queue(ages)
    raised = model.observe_queue(queue, now=now).predict(_jobs(1))[0]
    assert raised == _expected_queued_bound(waits, ages) > plain
    # the queued bound is still an inverted-probability grid point
    proba = model.start_probability(_jobs(2), within=[raised, raised - 1e-6])
    assert proba[0] >= 0.95 > proba[1]
    # young queued jobs tell nothing yet; queue=None ignores the queue
    young, now = _queue([1.0, 2.0, 0.0])
    assert model.observe_queue(young, now=now).predict(_jobs(1))[0] == plain
    unaware = QBETS(queued=None, **SINGLE).fit(_jobs(100), waits)
    assert unaware.observe_queue(queue, now=now).predict(_jobs(1))[0] == plain
    # jobs submitted at or after `now` are not in the queue yet
    future = queue.assign(submit_time=now)
    assert model.observe_queue(future, now=now).predict(_jobs(1))[0] == plain


def test_partial_fit_forgets_the_queue():
    waits = np.full(100, 10.0)
    model = QBETS(**SINGLE).fit(_jobs(100), waits)
    queue, now = _queue(np.full(20, 5000.0))
    assert model.observe_queue(queue, now=now).predict(_jobs(1))[0] == 5000.0
    model.partial_fit(_jobs(1), [10.0])
    assert model.predict(_jobs(1))[0] == 10.0


def test_observe_queue_bad_input():
    model = QBETS(**SINGLE).fit(_jobs(100), np.ones(100))
    queue, _ = _queue([5.0])
    with pytest.raises(ConfigError, match="now"):
        model.observe_queue(queue, now=np.nan)
    with pytest.raises(JobTableError, match="submit_time"):
        model.observe_queue(queue.drop(columns="submit_time"), now=10.0)
    with pytest.raises(JobTableError, match="submit_time"):
        model.observe_queue(queue.assign(submit_time=np.nan), now=10.0)


def _burst_trace(seed=2, n=3000):
    """Steady short waits, and three stalls: every job submitted in a 5000 s window
    starts together 6000 s after the window opened."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 3e5, n)).round()
    wait = rng.exponential(60.0, n).round()
    stalled = np.zeros(n, dtype=bool)
    for start in (5e4, 1.5e5, 2.5e5):
        burst = (submit >= start) & (submit < start + 5000)
        wait[burst] = start + 6000.0 - submit[burst]
        stalled |= burst
    X = pd.DataFrame({"submit_time": submit, "wait_time": wait,
                      "req_procs": rng.choice([1.0, 8.0, 64.0], n), "req_time": 3600.0})
    return X, stalled


@pytest.mark.parametrize("params", [dict(clustering=None), dict(cluster_start=500, random_state=0)],
                         ids=["single", "auto"])
def test_queued_fast_replay_equals_reference_and_sees_bursts(params):
    X, stalled = _burst_trace()
    y = X["wait_time"].to_numpy()
    fast = replay(QBETS(**params), X, y, method="fast")
    assert_array_equal(fast, replay(QBETS(**params), X, y, method="reference"))
    blind = replay(QBETS(queued=None, **params), X, y, method="fast")
    ok = np.isfinite(blind)
    assert np.all(fast[ok] >= blind[ok])
    # in a stall, a job submitted x s in waits 6000 - x while the queue ahead of it
    # has waited x already: once enough of the queue is older than the bound, late
    # jobs of the stall are covered; history alone covers almost none
    seen = ok & stalled
    hits, blind_hits = (y[seen] <= fast[seen]).mean(), (y[seen] <= blind[seen]).mean()
    assert hits > blind_hits + 0.15
    assert (fast[ok & ~stalled] == blind[ok & ~stalled]).mean() > 0.8


@pytest.mark.parametrize("options", [SINGLE, {}, {"clustering": "bic"},
                                     {"by": ("queue_id",), "clustering": None}])
def test_fit_on_no_rows_is_an_empty_history_without_bounds(options):
    """Zero rows are a legitimate (empty) history, as for the runtime predictors:
    no bound until waits arrive through partial_fit."""
    empty = _jobs(0).assign(queue_id=np.zeros(0), wait_time=np.zeros(0))
    probe = _jobs(3).assign(queue_id=1.0)
    model = QBETS(**options).fit(empty, np.zeros(0))
    assert model.n_seen_ == 0
    assert np.isnan(model.predict(probe)).all()
    assert np.isnan(model.start_probability(probe, within=1e9)).all()
    assert np.isnan(QBETS(**options).fit(empty).predict(probe)).all()  # y from wait_time
    waits = np.linspace(0.0, 1990.0, 200)
    model.partial_fit(_jobs(200).assign(queue_id=1.0), waits)
    assert model.n_seen_ == 200
    assert np.isfinite(model.predict(probe)).all()


@pytest.mark.parametrize("within", [-5.0, -1e-9, np.nan, -np.inf, [100.0, -1.0, 100.0],
                                    [100.0, np.nan, 100.0], True, np.True_, "ten",
                                    ["600", "x", "600"], [100.0, 200.0]])
@pytest.mark.parametrize("method", ["start_probability", "predict_proba"])
def test_start_probability_refuses_negative_or_nan_within(within, method):
    model = QBETS(**SINGLE).fit(_jobs(200), np.linspace(0.0, 1990.0, 200))
    warns = (pytest.warns(DeprecationWarning) if method == "predict_proba"
             else contextlib.nullcontext())
    with warns:
        with pytest.raises(ConfigError, match=r"^The 'within' parameter of "
                           r"QBETS.start_probability must be seconds >= 0") as info:
            getattr(model, method)(_jobs(3), within=within)
    assert "\n" not in str(info.value)
    assert info.value.parameter == "within"


@pytest.mark.parametrize("now", [True, "ten", None, np.nan])
def test_observe_queue_takes_a_time_only(now):
    model = QBETS(**SINGLE).fit(_jobs(200), np.linspace(0.0, 1990.0, 200))
    with pytest.raises(ConfigError, match="'now' parameter of QBETS.observe_queue"):
        model.observe_queue(_jobs(3), now=now)


def test_observe_queue_refuses_a_job_that_has_started():
    model = QBETS(**SINGLE).fit(_jobs(200), np.linspace(0.0, 1990.0, 200))
    queue = _jobs(3).assign(start_time=[5.0, 1.0, 50.0])
    with pytest.raises(JobTableError, match=r"^QBETS\.observe_queue: 1 job\(s\) of the queue "
                                            r"at now=2 s had started by then \(first at row "
                                            r"1\): the queue holds the jobs still waiting$"):
        model.observe_queue(queue, now=2.0)
    with pytest.raises(JobTableError, match=r"\(first at row 1, job_id 8\)"):
        model.observe_queue(queue.assign(job_id=[7, 8, 9]), now=2.0)
    model.observe_queue(queue.assign(start_time=[5.0, 3.0, 50.0]), now=2.0)
    with pytest.raises(JobTableError, match="had started"):
        model.observe_queue(_jobs(3).assign(wait_time=[0.0, 0.5, 9.0]), now=2.0)
    dated = queue.assign(start_time=pd.to_datetime([5.0, 3.0, 50.0], unit="s"))
    with pytest.raises(JobTableError, match=r"^QBETS.observe_queue: job table: column "
                                            r"'start_time' holds datetime64"):
        model.observe_queue(dated, now=2.0)


def test_a_by_value_that_cannot_name_a_group_is_named():
    model = QBETS(**SINGLE, by=("queue_id",))
    jobs = _jobs(4).assign(queue_id=[1, [2], 1, 1])
    with pytest.raises(JobTableError, match=r"'by' column 'queue_id' holds a value that "
                                            r"cannot name a group at row 1: \[2\]"):
        model.fit(jobs, np.zeros(4))


def test_start_probability_within_zero_is_starting_at_once():
    waits = np.r_[np.zeros(190), np.full(10, 500.0)]
    model = QBETS(**SINGLE).fit(_jobs(200), waits)
    at_once = model.start_probability(_jobs(1), within=0.0)[0]
    assert 0.9 <= at_once < 0.95  # a 0.95 bound needs a wait of 500 s
    assert model.start_probability(_jobs(1), within=[0])[0] == at_once


def test_start_probability_without_history_is_nan():
    model = QBETS(**SINGLE).fit(_jobs(0), np.zeros(0))
    assert np.isnan(model.start_probability(_jobs(1), within=100.0)).all()
    with pytest.raises(ConfigError, match="within"):
        model.start_probability(_jobs(1))


@given(cuts=st.lists(st.integers(0, 400), max_size=6),
       changepoint=st.sampled_from(["runs", None]))
@settings(max_examples=20)
def test_partial_fit_in_pieces_equals_fit(cuts, changepoint):
    rng = np.random.default_rng(4)
    waits = np.r_[rng.exponential(100, 200), rng.exponential(5000, 200)]
    jobs = _jobs(400, nodes=rng.choice([1.0, 64.0], 400))
    params = dict(changepoint=changepoint, clustering=([8], []))
    whole = QBETS(**params).fit(jobs, waits)
    piecewise = QBETS(**params)
    edges = [0, *sorted(cuts), 400]
    for a, b in zip(edges, edges[1:]):
        piecewise.partial_fit(jobs.iloc[a:b], waits[a:b])
    probe = _jobs(2, nodes=np.array([1.0, 64.0]))
    assert_array_equal(whole.predict(probe), piecewise.predict(probe))


@pytest.fixture(scope="module")
def sp2():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 1500)
    return X, X["wait_time"].to_numpy()


@pytest.mark.parametrize("params", [
    dict(clustering=None),
    dict(clustering=None, queued=None),
    dict(clustering=None, trim_on_hits=True, index="reference"),
    dict(clustering="bic", cluster_start=200),
    dict(clustering="auto", cluster_start=300, random_state=0),
    dict(changepoint="ruptures", clustering=None, ruptures_every=100),
    dict(changepoint=None, clustering=((8, 32), (3600,))),
], ids=["single", "single-blind", "hits-reference", "bic", "auto", "ruptures", "edges"])
def test_fast_replay_equals_reference(sp2, params):
    X, y = sp2
    fast = replay(QBETS(**params), X, y, method="fast")
    slow = replay(QBETS(**params), X, y, method="reference")
    assert_array_equal(fast, slow)
    assert np.isfinite(fast).mean() > 0.5


def test_fast_replay_with_ties_and_unsorted_rows():
    rng = np.random.default_rng(5)
    n = 600
    X = pd.DataFrame({"submit_time": np.round(rng.uniform(0, 2000, n)),
                      "wait_time": np.round(rng.exponential(30, n)),
                      "req_procs": rng.choice([1.0, 16.0], n), "req_time": 600.0})
    y = X["wait_time"].to_numpy()
    params = dict(clustering=([4], []), quantile=0.5)
    assert_array_equal(replay(QBETS(**params), X, y, method="fast"),
                       replay(QBETS(**params), X, y, method="reference"))


def test_real_trace_replay_smoke():
    X = load_trace("KTH-SP2-1996-2.1-cln", 4000)
    y = X["wait_time"].to_numpy()
    bounds = replay(QBETS(random_state=0), X, y)
    summary = bound_summary(y, bounds, quantile=0.95)
    assert summary["availability"] > 0.9
    assert summary["correctness"] > 0.9
    assert 1 < summary["median_ratio"] < 1000


def test_class_bounds_table():
    jobs = _jobs(300, nodes=np.r_[np.ones(150), np.full(150, 64.0)])
    waits = np.r_[np.full(150, 10.0), np.full(150, 1000.0)]
    model = QBETS(clustering=([8], []), changepoint=None).fit(jobs, waits)
    table = model.class_bounds()
    assert list(table.columns) == ["class", "nodes", "requested_time", "n_history", "bound"]
    assert table["bound"].tolist() == [10.0, 1000.0]
    assert model.n_classes_ == 2


@pytest.mark.parametrize("params", [dict(quantile=1.0), dict(quantile=0.0),
                                    dict(confidence=1.5), dict(changepoint="pelt"),
                                    dict(clustering="kmeans"), dict(index="median"),
                                    dict(clustering=([8, 4], [])), dict(by=()),
                                    dict(by=("queue_id", 3)), dict(by="queue_id"),
                                    dict(by=("user_id", "run_time")), dict(by=("slurm_state",))])
def test_bad_parameters_raise_config_error(params):
    with pytest.raises(ConfigError):
        QBETS(**params).fit(_jobs(3), np.zeros(3))


def test_bad_input():
    with pytest.raises(JobTableError, match="DataFrame"):
        QBETS().fit(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(JobTableError, match="waits"):
        QBETS().fit(_jobs(2), [1.0, np.nan])
    with pytest.raises(JobTableError, match="waits"):
        QBETS().fit(_jobs(2), [1.0, -5.0])
    with pytest.raises(JobTableError, match="req_time"):
        QBETS().fit(pd.DataFrame({"req_procs": [1.0]}), [1.0])


@pytest.mark.parametrize(("column", "value", "message"), [
    ("req_procs", 0.0, r"column 'req_procs' has values <= 0"),
    ("req_procs", -2.0, r"column 'req_procs' has values <= 0"),
    ("req_procs", 2.5, r"column 'req_procs' has values that are not whole numbers"),
])
@pytest.mark.parametrize("method", ["fit", "reference", "fast"])
def test_widths_are_refused_as_wait_predictor_refuses_them(column, value, message, method):
    jobs = _jobs(60).assign(job_id=np.arange(100.0, 160.0), wait_time=10.0)
    jobs.loc[7, column] = value
    with pytest.raises(JobTableError, match=rf"^QBETS: job table: {message} \(1 row\(s\); "
                                            r"first at row \d+, job_id 107\.0\)$"):
        if method == "fit":
            QBETS(changepoint=None).fit(jobs)
        else:
            replay(QBETS(changepoint=None), jobs, jobs["wait_time"], method=method)


def test_the_allocation_is_checked_only_where_it_gives_the_width():
    jobs = _jobs(30).assign(wait_time=10.0)
    jobs.loc[3, "n_procs"] = 0.0  # as in LPC-EGEE: the request gives the width
    QBETS(changepoint=None).fit(jobs)
    jobs.loc[3, "req_procs"] = np.nan
    with pytest.raises(JobTableError, match=r"column 'n_procs' has values <= 0"):
        QBETS(changepoint=None).fit(jobs)
    QBETS(clustering=None, changepoint=None).fit(jobs)  # no classes: widths are not read


def test_clone_keeps_parameters_and_y_defaults_to_wait_time():
    model = QBETS(quantile=0.5, clustering=None)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    jobs = _jobs(10).assign(wait_time=np.arange(10.0))
    a = copy.fit(jobs).predict(jobs)
    b = clone(model).fit(jobs, jobs["wait_time"]).predict(jobs)
    assert_array_equal(a, b)



def _two_sub_traces(n=1500):
    """Two real sub-traces on one clock, interleaved by submit time: partition 1 and
    a partition left unknown (NaN, its own group)."""
    parts = []
    for name, partition in [("KTH-SP2-1996-2.1-cln", 1.0), ("SDSC-SP2-1998-4.2-cln", np.nan)]:
        part = load_trace(name, n)
        parts.append(part.assign(submit_time=part["submit_time"] - part["submit_time"].min(),
                                 partition_id=partition))
    mixed = pd.concat(parts, ignore_index=True)
    mixed = mixed.sort_values("submit_time", kind="stable").reset_index(drop=True)
    return mixed, parts


@pytest.mark.parametrize("params", [
    dict(clustering="auto", cluster_start=300, random_state=0),
    dict(clustering="bic", cluster_start=200, changepoint="ruptures", ruptures_every=100),
], ids=["auto", "bic-ruptures"])
@pytest.mark.parametrize("method", ["fast", "reference"])
def test_by_equals_separate_estimators_per_group(params, method):
    mixed, parts = _two_sub_traces(1500 if method == "fast" else 1000)
    together = replay(QBETS(by=("partition_id",), **params), mixed, mixed["wait_time"],
                      method=method)
    unknown = mixed["partition_id"].isna().to_numpy()
    for part, rows in [(parts[0], ~unknown), (parts[1], unknown)]:
        alone = replay(QBETS(**params), part, part["wait_time"], method=method)
        # both sub-traces keep their row order inside the stable submit sort
        assert_array_equal(together[rows], alone)
    assert np.isfinite(together).mean() > 0.6  # most jobs have a bound to compare
    if method == "fast":
        # grouping changes the bounds (the reference pools as the fast path does:
        # test_fast_replay_equals_reference)
        pooled = replay(QBETS(**params), mixed, mixed["wait_time"], method=method)
        assert not np.array_equal(together, pooled, equal_nan=True)


def test_by_fit_start_probability_and_class_bounds_per_group():
    mixed, parts = _two_sub_traces(800)
    params = dict(clustering="bic", cluster_start=200)
    model = QBETS(by=("partition_id",), **params).fit(mixed)
    alone = [QBETS(**params).fit(part) for part in parts]
    probe = pd.concat([parts[0].iloc[:50], parts[1].iloc[:50]], ignore_index=True)
    probe["partition_id"] = np.r_[np.ones(50), np.full(50, np.nan)]
    within = np.linspace(0, 20000, 100)
    assert_array_equal(model.predict(probe), np.r_[alone[0].predict(probe.iloc[:50]),
                                                   alone[1].predict(probe.iloc[50:])])
    assert_array_equal(model.start_probability(probe, within=within),
                       np.r_[alone[0].start_probability(probe.iloc[:50], within=within[:50]),
                             alone[1].start_probability(probe.iloc[50:], within=within[50:])])
    assert model.n_seen_ == 1600 and model.n_groups_ == 2
    assert model.n_classes_ == alone[0].n_classes_ + alone[1].n_classes_
    table = model.class_bounds()
    assert list(table.columns)[:2] == ["partition_id", "class"]
    first = table[table["partition_id"] == 1.0].drop(columns="partition_id")
    pd.testing.assert_frame_equal(first.reset_index(drop=True), alone[0].class_bounds())
    assert table["partition_id"].isna().sum() == alone[1].n_classes_
    unseen = probe.assign(partition_id=7.0)
    assert np.isnan(model.predict(unseen)).all()
    assert np.isnan(model.start_probability(unseen, within=100.0)).all()


@pytest.mark.parametrize("name", ["LPC-EGEE-2004-1.2-cln", "METACENTRUM-2009-2"])
def test_by_fast_replay_equals_reference_on_real_partitions(name):
    X = load_trace(name, 3000)
    y = X["wait_time"].to_numpy()
    by = ("queue_id", "partition_id")
    assert X.groupby(list(by), dropna=False).ngroups > 1
    params = dict(by=by, cluster_start=300, random_state=0)
    fast = replay(QBETS(**params), X, y, method="fast")
    slow = replay(QBETS(**params), X, y, method="reference")
    assert_array_equal(fast, slow)
    assert np.isfinite(fast).mean() > 0.5


def test_by_missing_column_is_named():
    jobs = _jobs(5).drop(columns="n_procs")
    model = QBETS(by=("queue_id", "partition_id"), **SINGLE)
    with pytest.raises(JobTableError, match="partition_id"):
        model.fit(jobs.assign(queue_id=1.0), np.zeros(5))
    fitted = QBETS(by=("queue_id",), **SINGLE).fit(jobs.assign(queue_id=1.0), np.zeros(5))
    with pytest.raises(JobTableError, match="queue_id"):
        fitted.predict(jobs)
    with pytest.raises(JobTableError, match="queue_id"):
        replay(QBETS(by=("queue_id",), **SINGLE), jobs.assign(wait_time=0.0), np.zeros(5),
               method="fast")


def test_by_keeps_clone_and_get_params():
    model = QBETS(by=("queue_id", "partition_id"), clustering=None)
    assert clone(model).get_params()["by"] == ("queue_id", "partition_id")
    assert QBETS().get_params()["by"] is None


def test_deprecated_predict_proba_warns_and_returns_the_start_probability():
    waits = np.linspace(0.0, 1990.0, 200)
    model = QBETS(**SINGLE).fit(_jobs(200), waits)
    within = np.array([0.0, 500.0, 1990.0])
    with pytest.warns(DeprecationWarning, match="QBETS.start_probability"):
        old = model.predict_proba(_jobs(3), within=within)
    assert_array_equal(old, model.start_probability(_jobs(3), within=within))


def test_impossible_requests_misaligned_waits_and_bad_clocks_are_refused():
    jobs = _jobs(50)
    waits = pd.Series(np.arange(50.0), index=jobs.index)
    model = QBETS(clustering=([8], [])).fit(jobs, waits.to_numpy())  # reads the requests
    with pytest.raises(JobTableError, match="column 'req_time' has negative values .*first at "
                                            "row 1"):
        model.predict(jobs.iloc[:3].assign(req_time=[10.0, -5.0, 10.0]))
    with pytest.raises(JobTableError, match="QBETS: y is a Series whose index differs"):
        QBETS(clustering=None).fit(jobs, waits.iloc[::-1])
    with pytest.raises(ConfigError, match="'now' parameter of QBETS.observe_queue must be a "
                                          "finite time"):
        model.observe_queue(jobs.iloc[:3], now="x")


@pytest.mark.parametrize("options", [SINGLE, {"random_state": 0, "cluster_start": 500},
                                     {"clustering": "bic", "cluster_start": 500}])
def test_job_classes_name_the_class_and_history_a_bound_rests_on(options):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 3000).reset_index(drop=True)
    model = QBETS(**options).fit(jobs, jobs["wait_time"])
    asked = jobs.iloc[::7].set_axis([f"job{k}" for k in range(len(jobs.iloc[::7]))])
    classes = model.job_classes(asked)
    assert list(classes.index) == list(asked.index)
    table = model.class_bounds().set_index("class")
    assert (classes["n_history"].to_numpy()
            == table.loc[classes["class"], "n_history"].to_numpy()).all()
    assert (classes["nodes"].to_numpy() == table.loc[classes["class"], "nodes"].to_numpy()).all()
    bounds = model.predict(asked)
    assert_array_equal(np.isnan(bounds), classes["n_history"].to_numpy() < model.min_history_)


def test_job_classes_of_a_group_never_seen_have_no_history():
    jobs = _jobs(200).assign(queue_id=1.0)
    model = QBETS(by=("queue_id",), **SINGLE).fit(jobs, np.linspace(0.0, 1990.0, 200))
    classes = model.job_classes(_jobs(2).assign(queue_id=[1.0, 2.0]))
    assert list(classes.columns) == ["queue_id", "class", "nodes", "requested_time", "n_history"]
    assert classes["class"].tolist() == [0, -1] and classes["n_history"].tolist() == [200, 0]


def test_a_job_wider_than_the_historys_machine_is_bounded_with_a_warning():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 1500)
    model = QBETS(random_state=0).fit(X)
    assert model.machine_procs_ == X.attrs["max_procs"] == 128
    asked = pd.DataFrame({"req_procs": [4.0, 1000.0], "req_time": [3600.0, 3600.0]})
    with pytest.warns(UserWarning, match=r"^QBETS: 1 job wider than the machine \(128 "
                                         r"processors\) is given the bound of its class, "
                                         r"though it cannot start on that machine$"):
        bounds = model.predict(asked)
    assert np.isfinite(bounds).all()
    with pytest.warns(UserWarning, match="wider than the machine"):
        model.start_probability(asked, within=3600.0)
    untold = X.copy()
    untold.attrs.pop("max_procs")
    assert QBETS(random_state=0).fit(untold).machine_procs_ is None
    bad = X.copy()
    bad.attrs["max_procs"] = 12.5
    with pytest.raises(ConfigError, match=r"QBETS: the table's attrs\['max_procs'\] is 12.5"):
        QBETS(random_state=0).fit(bad)


def test_jobs_submitted_after_now_are_left_out_of_the_queue_with_a_warning():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 600)
    model = QBETS(random_state=0).fit(X.iloc[:400])
    now = float(X["submit_time"].iloc[450])
    later = X.iloc[451:460].drop(columns="wait_time")
    with pytest.warns(UserWarning, match=r"^QBETS.observe_queue: \d+ jobs submitted after "
                                         r"now=.* left out: not in the queue yet$"):
        model.observe_queue(later, now=now)


def test_start_probability_reads_a_duration_text_as_its_seconds():
    model = QBETS(**SINGLE).fit(_jobs(200), np.linspace(0.0, 1990.0, 200))
    assert_array_equal(model.start_probability(_jobs(3), within="10min"),
                       model.start_probability(_jobs(3), within=600.0))
    with pytest.raises(ConfigError, match=r"; 1 of the 3 jobs' values are not\. Got -1\.0"):
        model.start_probability(_jobs(3), within=[100.0, -1.0, 100.0])


def test_one_column_name_given_as_a_string_is_told_to_be_a_tuple():
    with pytest.raises(ConfigError, match=r"^The 'by' parameter of QBETS must be a tuple of "
                                          r"column names, e\.g\. \('queue_id',\), not one string"):
        QBETS(by="queue_id").fit(_jobs(3), np.zeros(3))

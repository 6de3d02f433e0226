"""LearnedRuntime: no peeking, the budget decision against a plain reference, the budget held."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from naive_replay import naive_replay
from tracedata import load_trace

from predictkit._reference_path import reference_path
from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError
from predictkit.metrics import adjustment_outcomes, estimate_accuracy
from predictkit.model_selection import replay
from predictkit.runtime import LearnedRuntime, make_predictor
from predictkit.runtime._learned_kernels import (_AIM_WINDOW, _AIM_Z, _LOG_OVERRUN, _decide,
                                                  aimed_share)
from predictkit.simulate import simulate


def _small(**params):
    """A predictor that fits its model after a few jobs, with a small, quick regressor."""
    regressor = HistGradientBoostingRegressor(max_iter=10, early_stopping=False, random_state=0)
    return LearnedRuntime(min_train=60, refit_every=80, regressor=regressor, **params)


@pytest.fixture(scope="module")
def sp2():
    X = load_trace("SDSC-SP2-1998-4.2-cln", 320)
    X.attrs = {}
    return X, X["run_time"].to_numpy()


def test_naive_reference_and_fast_replays_agree(sp2):
    X, y = sp2
    est = _small()
    fast = replay(est, X, y, method="fast")
    assert_array_equal(fast, replay(est, X, y, method="reference"))
    assert_array_equal(fast, naive_replay(est, X, y))
    # the model is fitted within this prefix, and estimates do move off the requests
    req = X["req_time"].to_numpy()
    assert (fast < req).mean() > 0.2


def test_a_job_never_sees_its_own_future(sp2):
    X, y = sp2
    est = _small()
    base = replay(est, X, y)
    # changing the outcome of the last job submitted changes no estimate before it ends
    changed = y.copy()
    changed[-1] = 7.0 * y[-1] + 5000.0
    status = X["status"].to_numpy().copy()
    status[-1] = 5
    other = replay(est, X.assign(status=status), changed)
    assert_array_equal(other[:-1], base[:-1])


def test_status_of_jobs_to_predict_is_not_read(sp2):
    X, y = sp2
    done = np.flatnonzero(np.isfinite(y[:200]))
    est = _small().fit(X.iloc[done], y[done])
    new = X.iloc[200:]
    assert_array_equal(est.predict(new), est.predict(new.assign(status=0)))


def _reference_decide(log_ratios, weights, request, lam, threshold, sentinel):
    """The estimate with the least ``-E[accuracy] + lam * P(bad)``, by direct sums."""
    runs = [request * math.exp(min(v, _LOG_OVERRUN)) for v in log_ratios]
    long_run = request + threshold + 1.0
    pool = list(zip(runs, weights)) + [(long_run, sentinel)]
    total = sum(w for _, w in pool)

    def loss(p):
        acc = sum(w * (1.0 if r == p else min(r, p) / max(r, p)) for r, w in pool)
        bad = 0.0 if p >= request else sum(w for r, w in pool if r > p + threshold)
        return (-acc + lam * bad) / total

    best, best_loss = request, loss(request)
    candidates = [max(r, 1.0) for r in runs] + [max(r - threshold, 1.0) for r in runs]
    for p in candidates:
        if p >= request:
            continue
        value = loss(p)
        if value < best_loss - 1e-12 or (abs(value - best_loss) <= 1e-12 and p > best):
            best, best_loss = p, value
    return best


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-9, 1), min_size=1, max_size=20), st.floats(60, 200_000),
       st.floats(0.01, 1000), st.floats(0, 3600), st.floats(0, 2))
def test_budget_decision_equals_the_plain_reference(log_ratios, request, lam, threshold,
                                                    sentinel):
    log_ratios = np.asarray(log_ratios)
    weights = np.linspace(0.5, 1.5, len(log_ratios))
    ours = _decide(log_ratios, weights, request, lam, threshold, sentinel)
    assert_allclose(ours, _reference_decide(log_ratios, weights, request, lam, threshold,
                                            sentinel), rtol=1e-9)
    assert 1.0 <= ours <= request


@given(st.floats(1e-4, 0.999))
def test_the_aimed_share_puts_the_upper_bound_at_the_budget(budget):
    aim = aimed_share(budget)
    assert 0.0 < aim < budget
    bound = aim + _AIM_Z * np.sqrt(aim * (1 - aim) / _AIM_WINDOW)
    assert bound == pytest.approx(budget, rel=1e-9)
    assert aimed_share(min(budget * 1.01, 0.9999)) >= aim


@pytest.mark.parametrize("budget", [0.02, 0.05, 0.3])
def test_realized_bad_share_follows_the_budget(budget):
    # the calibration aims below the budget (a maximum over stretches of jobs); a budget
    # above the bad share of the most accurate estimates is not filled: spending it would
    # only lower the accuracy
    jobs = make_workload(6000, random_state=3, runtime_spread=1.0)
    y = jobs["run_time"].to_numpy()
    pred = replay(_small(max_bad_share=budget, step=0.1), jobs, y,
                  known_time=jobs["submit_time"] + y)
    late = slice(2000, None)
    share = adjustment_outcomes(y[late], jobs["req_time"].to_numpy()[late], pred[late])["BE"]
    if budget < 0.1:
        assert abs(share - aimed_share(budget)) < 0.006 and share <= budget
    else:
        assert share < budget


def test_a_replay_at_another_budget_reuses_only_what_the_budget_leaves_unchanged():
    jobs = make_workload(1500, random_state=6, runtime_spread=1.0)
    y = jobs["run_time"].to_numpy()
    known = (jobs["submit_time"] + y).to_numpy()
    est = _small(max_bad_share=0.3)
    est._replay(jobs, y, known)
    for params in ({"max_bad_share": 0.01}, {"step": 0.5}, {"bad_threshold": 60.0},
                   {"max_train": 100}):
        again = est.set_params(**params)._replay(jobs, y, known)
        assert_array_equal(again, clone(est)._replay(jobs, y, known))
    # other jobs: nothing kept applies
    head = jobs.iloc[:900]
    assert_array_equal(est._replay(head, y[:900], known[:900]),
                       clone(est)._replay(head, y[:900], known[:900]))


def test_a_regressor_changed_after_a_fit_is_fitted_again():
    X = make_workload(600, random_state=4, runtime_spread=1.0)
    X["wait_time"] = 0.0
    y = X["run_time"].to_numpy()
    est = _small()
    before = est.fit(X, y).predict(X)
    changes = ({"regressor": HistGradientBoostingRegressor(max_iter=2, random_state=0)},
               {"regressor__max_iter": 4}, {"regressor__learning_rate": 0.5})
    for params in changes:
        after = est.set_params(**params).fit(X, y).predict(X)
        assert_array_equal(after, clone(est).fit(X, y).predict(X))
        assert not np.array_equal(after, before), params
        before = after
    est.regressor.set_params(max_iter=7)  # on the regressor itself
    assert_array_equal(est.fit(X, y).predict(X), clone(est).fit(X, y).predict(X))


def test_a_larger_budget_buys_accuracy():
    jobs = make_workload(4000, random_state=4, runtime_spread=1.0, runtimes="lublin",
                         estimates="modal", load=None)
    y = jobs["run_time"].to_numpy()
    tight, loose = (replay(_small(max_bad_share=b), jobs, y, known_time=jobs["submit_time"] + y)
                    for b in (0.01, 0.2))
    assert estimate_accuracy(y, loose) > estimate_accuracy(y, tight)
    req = jobs["req_time"].to_numpy()
    assert ((tight >= 1) & (tight <= req)).all() and ((loose >= 1) & (loose <= req)).all()


def test_simulation_drives_it_online():
    jobs = make_workload(500, random_state=5)
    result = simulate(jobs, machine_procs=128, estimates=_small())
    assert len(result.jobs) == len(jobs)


def test_bad_parameters_are_one_clear_error():
    for params in ({"max_bad_share": 0.0}, {"max_bad_share": 1.0}, {"step": -1.0},
                   {"min_train": 1}, {"regressor": "gbm"}, {"bad_threshold": -5}):
        with pytest.raises(ConfigError, match=next(iter(params))):
            make_predictor("learned", **params)


def test_command_line_runs_it(tmp_path):
    from predictkit.cli import main

    jobs = make_workload(300, random_state=6)
    from predictkit.io import write_swf

    path = tmp_path / "log.swf"
    write_swf(jobs, path)
    outputs = {}
    for method in ("learned", "tang"):
        out = tmp_path / f"{method}.csv"
        assert main(["predict", str(path), "--method", method, "--assume-no-wait", "-q",
                     "--output", str(out)]) == 0
        outputs[method] = out.read_text()
    assert outputs["learned"] != outputs["tang"]


def test_command_line_refuses_a_bad_budget(tmp_path, capsys):
    from predictkit.cli import main

    assert main(["predict", "missing.swf", "--method", "learned", "--max-bad-share", "1.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-bad-share" in err[0]


class _Recorded(LearnedRuntime):
    """Keeps the copy the simulator drives (``simulate`` works on a copy)."""

    driven = []

    def start(self, jobs):
        _Recorded.driven.append(self)
        return super().start(jobs)


def _simulated(jobs, *, incremental, fitted=None, **params):
    est = _Recorded(**_small(**params).get_params(deep=False))
    if fitted is not None:
        est.fit(*fitted)
    with reference_path(not incremental):
        result = simulate(jobs, machine_procs=128, estimates=est)
    return result.jobs, _Recorded.driven[-1]


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_simulation_keeps_the_passes_state_and_predicts_as_the_reference(seed):
    rng = np.random.default_rng(seed)
    jobs = make_workload(int(rng.integers(300, 700)), random_state=seed,
                         runtime_spread=float(rng.uniform(0.3, 1.5)))
    fast, est = _simulated(jobs, incremental=True, max_bad_share=float(rng.uniform(0.01, 0.2)))
    assert est._online is not None  # the kept state served every call
    assert est._online.model is not None  # and the model was refitted within the run
    slow, _ = _simulated(jobs, incremental=False, max_bad_share=est.max_bad_share)
    for column in ("estimate", "start_time", "end_time"):
        assert_array_equal(fast[column].to_numpy(), slow[column].to_numpy())
    assert (fast["estimate"] < fast["req_time"]).mean() > 0.1


def test_simulation_of_a_real_log_prefix_predicts_as_the_reference():
    from predictkit.jobs import clean_jobs

    X = clean_jobs(load_trace("SDSC-SP2-1998-4.2-cln", 600), for_simulation=True,
                   require_request=True)
    fast, est = _simulated(X, incremental=True)
    assert est._online is not None
    slow, _ = _simulated(X, incremental=False)
    for column in ("estimate", "start_time", "end_time"):
        assert_array_equal(fast[column].to_numpy(), slow[column].to_numpy())


def test_a_history_fitted_before_the_simulation_is_served_by_the_passes():
    jobs = make_workload(400, random_state=14)
    before = make_workload(100, random_state=15)
    before = before.assign(end_time=before["submit_time"] - 1e6 + before["run_time"],
                           submit_time=before["submit_time"] - 1e6)
    fitted = (before, before["run_time"])
    with pytest.warns(UserWarning, match="_Recorded was fitted before start"):
        fast, est = _simulated(jobs, incremental=True, fitted=fitted)
    assert est._online is None
    slow, _ = _simulated(jobs, incremental=False, fitted=fitted)
    assert_array_equal(fast["estimate"].to_numpy(), slow["estimate"].to_numpy())


def test_the_kept_state_steps_aside_when_completions_come_out_of_order():
    jobs = make_workload(300, random_state=16)
    y = jobs["run_time"].to_numpy()
    end = jobs["submit_time"].to_numpy() + y + 10.0
    order = np.argsort(end, kind="stable")
    ests = []
    for incremental in (True, False):
        est = _small()
        with reference_path(not incremental):
            est.start(jobs)
        first, second = order[:150], order[150:200]
        est.observe(second, end[second], end[second], y[second])
        est.observe(first, end[first], end[first], y[first])  # earlier ends, observed later
        ests.append(est.predict_for(np.arange(250, 300)))
    assert ests and est._online is None
    assert_array_equal(ests[0], ests[1])


def _with_same_second_ends(seed, n=420):
    """A workload where many jobs end in the second they are submitted, some in bursts.

    A burst of 40 such jobs sits where the model's refit sizes (60, 120) fall,
    and one of 140 (more than the 128 pooled residuals) later on.
    """
    rng = np.random.default_rng(seed)
    # a light load, so that most jobs start, and the zero-length ones end, as submitted
    jobs = make_workload(n, random_state=seed, load=0.3).sort_values("submit_time",
                                                                     kind="stable")
    jobs = jobs.reset_index(drop=True).assign(job_id=np.arange(1.0, n + 1))
    submit = jobs["submit_time"].to_numpy().copy()
    run = jobs["run_time"].to_numpy().copy()
    zero = rng.random(n) < 0.15
    for first, size in ((45, 40), (230, 140)):
        submit[first:first + size] = submit[first]
        zero[first:first + size] = True
    run[zero] = 0.0
    return jobs.assign(submit_time=submit, run_time=run, wait_time=0.0)


def _driven_by_hand(jobs, *, incremental):
    """Estimates of each job at its submission; a job without runtime ends right then."""
    est = _small()
    with reference_path(not incremental):
        est.start(jobs)
    submit = jobs["submit_time"].to_numpy()
    run = jobs["run_time"].to_numpy()
    end = submit + np.where(run > 0, run + 7.0, 0.0)
    done = np.zeros(len(jobs), dtype=bool)
    out = np.empty(len(jobs))
    for j in range(len(jobs)):
        due = np.flatnonzero(~done[:j] & (end[:j] <= submit[j]))
        if len(due):
            est.observe(due, end[due], end[due], run[due])
            done[due] = True
        out[j] = est.predict_for(np.array([j]))[0]
        if end[j] == submit[j]:
            est.observe(np.array([j]), end[[j]], end[[j]], run[[j]])
            done[j] = True
    return out, est


@pytest.mark.parametrize("seed", [21, 22])
def test_jobs_ending_in_the_second_they_are_submitted_keep_the_kept_state(seed):
    jobs = _with_same_second_ends(seed)
    fast, est = _driven_by_hand(jobs, incremental=True)
    assert est._online is not None, est._online_stopped
    assert est._online.model is not None
    slow, ref = _driven_by_hand(jobs, incremental=False)
    assert ref._online is None
    assert_array_equal(fast, slow)
    assert (fast < jobs["req_time"].to_numpy()).mean() > 0.1


def test_simulation_with_jobs_ending_as_they_are_submitted_predicts_as_the_reference():
    jobs = _with_same_second_ends(23).drop(columns=["wait_time"])
    fast, est = _simulated(jobs, incremental=True)
    assert est._online is not None, est._online_stopped
    assert (fast["end_time"] == fast["submit_time"]).sum() > 100
    slow, _ = _simulated(jobs, incremental=False)
    for column in ("estimate", "start_time", "end_time"):
        assert_array_equal(fast[column].to_numpy(), slow[column].to_numpy())


@pytest.mark.parametrize(("column", "value"), [("group_id", "chem"), ("status", "COMPLETED"),
                                                ("group_id", np.inf)])
def test_an_optional_column_that_holds_no_number_is_refused_naming_it(column, value):
    import pandas as pd

    from predictkit.exceptions import JobTableError
    from predictkit.model_selection import replay
    from predictkit.runtime import LearnedRuntime

    jobs = pd.DataFrame(dict(submit_time=np.arange(50) * 100.0, wait_time=0.0, run_time=100.0,
                             req_time=600.0, user_id=1.0))
    jobs[column] = [value] * 50
    for call in (lambda: LearnedRuntime().fit(jobs, jobs["run_time"]),
                 lambda: replay(LearnedRuntime(), jobs, jobs["run_time"].to_numpy())):
        with pytest.raises(JobTableError, match=f"column '{column}' (is not numeric|holds "
                                                f"infinite).*first at row 0"):
            call()


def test_a_history_fitted_after_start_serves_predict_for_as_the_reference_does():
    from predictkit._reference_path import reference_path
    from predictkit.datasets import make_workload
    from predictkit.runtime import LearnedRuntime

    jobs = make_workload(400, random_state=3).sort_values("submit_time").reset_index(drop=True)
    y = jobs["run_time"].to_numpy()
    end = jobs["submit_time"].to_numpy() + y
    done = np.flatnonzero(end <= jobs["submit_time"].iloc[250])
    done = done[np.argsort(end[done], kind="stable")]
    extra = make_workload(200, random_state=9)
    extra = extra.assign(user_id=jobs["user_id"].iloc[:200].to_numpy(),
                         submit_time=jobs["submit_time"].iloc[:200].to_numpy() - 1e5,
                         run_time=10.0)
    extra = extra.assign(end_time=extra["submit_time"] + 10.0)

    def predictions(reference, how):
        estimator = LearnedRuntime(min_train=60, refit_every=80)
        with reference_path(reference):
            estimator.start(jobs)
            estimator.observe(done, end[done], end[done], y[done])
            getattr(estimator, how)(extra, extra["run_time"])
            return estimator.predict_for(np.arange(250, 300))

    for how in ("fit", "partial_fit"):
        assert_array_equal(predictions(False, how), predictions(True, how))

"""The compiled passes of the learned predictor equal plain-Python references.

:func:`~predictkit.runtime._learned_kernels.submission_features` computes the
features of every submission in one pass over the events; the reference
(:func:`runtime_reference.learned_features`) recomputes each submission's
features from scratch out of the jobs that ended by then.
:func:`~predictkit.runtime._learned_kernels.budgeted_predictions` keeps
residual rings and the penalty's multiplier; the reference
(:func:`runtime_reference.budgeted_estimates`) keeps lists and dicts. They
must agree job by job, exactly. (The decision itself, ``_decide``, has its
own reference in ``test_learned.py``.)
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from runtime_reference import budgeted_estimates, learned_features

from predictkit.runtime import _learned_kernels as kernels

_NAN = float("nan")


@st.composite
def _tables(draw):
    """History rows (some never ending, ties in time, codes -1 for none) and queries."""
    n_hist = draw(st.integers(0, 40))
    n_query = draw(st.integers(0, 8))
    n = n_hist + n_query

    def column(values, size):
        return np.array(draw(st.lists(st.sampled_from(values), min_size=size, max_size=size)),
                        dtype=np.float64)

    submit = column(list(range(0, 120, 5)), n)
    duration = column([0.0, 1.0, 5.0, 30.0, 200.0, _NAN], n_hist)
    # the ratios of a 1 s job on a 2**31 s request (CEA-Curie) and others far apart
    log_ratio = column([-21.487562596892644, -12.970369405476406, -3.0, -1.25, -0.5, 0.0,
                        np.log(2.0), _NAN], n_hist)
    return {
        "user": column([-1, 0, 1, 2], n).astype(np.int64),
        "group": column([-1, 0, 1], n).astype(np.int64),
        "key": column([-1, 0, 1, 2, 3], n).astype(np.int64),
        "submit": submit,
        "known": submit[:n_hist] + duration,
        "job_id": column([1, 2, 3, 4, 5, 6], n_hist),
        "seq": np.arange(n_hist, dtype=np.float64),
        "req": column([0.0, 60.0, 600.0, 3600.0], n),
        "width": column([0.0, 1.0, 4.0, 64.0], n),
        "fail": np.concatenate([column([0.0, 1.0, _NAN], n_hist), np.full(n_query, _NAN)]),
        "log_ratio": np.concatenate([log_ratio, np.full(n_query, _NAN)]),
        "log_run": np.concatenate([column([0.0, 2.5, 7.0], n_hist), np.full(n_query, _NAN)]),
        "n_hist": n_hist,
    }


@settings(max_examples=150, deadline=None)
@given(table=_tables(), ring=st.integers(1, 6), session=st.sampled_from([0.0, 10.0, 60.0]))
def test_submission_features_equal_the_reference_job_by_job(table, ring, session):
    t, nh = table, table["n_hist"]
    kind, row, time = kernels.event_order(t["known"], t["submit"][:nh], t["job_id"], t["seq"],
                                          t["submit"][nh:])
    n_codes = [int(t[c].max(initial=-1) + 1) for c in ("user", "group", "key")]
    got = kernels.submission_features(
        kind, row, time, t["user"], t["group"], t["key"], t["submit"], t["req"], t["width"],
        t["fail"], t["log_ratio"], t["log_run"], *n_codes, ring, session)
    assert got.shape == (len(t["submit"]), len(kernels.FEATURE_NAMES))
    rows = [{name: float(t[name][i]) if i < len(t[name]) else _NAN
             for name in ("user", "group", "key", "submit", "known", "job_id", "seq", "req",
                          "width", "fail", "log_ratio", "log_run")}
            for i in range(len(t["submit"]))]
    for i in range(len(rows)):
        want = learned_features(rows, i, ring=ring, session=session,
                                key_weight=kernels._KEY_WEIGHT,
                                group_weight=kernels._GROUP_WEIGHT)
        np.testing.assert_array_equal(got[i], want, err_msg=f"row {i}")


@settings(max_examples=150, deadline=None)
@given(table=_tables(), data=st.data())
def test_budgeted_predictions_equal_the_reference_job_by_job(table, data):
    t, nh = table, table["n_hist"]
    n = len(t["submit"])
    draw = data.draw
    ring, pooled_size = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    min_user_jobs = draw(st.integers(1, 3))
    threshold = draw(st.sampled_from([0.0, 0.0, 60.0, 1800.0]))
    budget = draw(st.sampled_from([0.02, 0.1, 0.3]))
    step = draw(st.sampled_from([0.05, 0.5]))
    sentinel, pooled_weight, log_lam_start, bounds = 0.02, 2.0, -np.log(budget), (-2.0, 3.0)
    # a key is a (user, request) pair: its jobs share a request, so that an estimate
    # (a sampled runtime of the key) often equals a job's runtime exactly
    req = np.where(t["key"] >= 0, 600.0 * (t["key"] + 1), t["req"] * 3.0)
    run = np.concatenate([req[:nh] * np.exp(np.nan_to_num(t["log_ratio"][:nh])),
                          np.full(n - nh, _NAN)])
    mu = np.array(draw(st.lists(st.sampled_from([-2.0, -0.5, 0.0, _NAN]), min_size=n,
                                max_size=n)), dtype=np.float64)
    modeled = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    kind, row, _ = kernels.event_order(t["known"], t["submit"][:nh], t["job_id"], t["seq"],
                                       t["submit"][nh:])
    got, got_trace = kernels.budgeted_predictions(
        kind, row, t["user"], t["key"], req, run, t["log_ratio"], mu, modeled, ring,
        pooled_size, pooled_weight, sentinel, min_user_jobs, threshold, budget, step,
        log_lam_start, *bounds)
    rows = [{"user": int(t["user"][i]), "key": int(t["key"][i]),
             "submit": float(t["submit"][i]),
             "known": float(t["known"][i]) if i < nh else _NAN,
             "job_id": float(t["job_id"][i]) if i < nh else _NAN,
             "seq": float(t["seq"][i]) if i < nh else _NAN,
             "req": float(req[i]), "run": float(run[i]), "log_ratio": float(t["log_ratio"][i]),
             "mu": float(mu[i]), "modeled": bool(modeled[i])} for i in range(n)]

    def decide(samples, weights, request, lam):
        return kernels._decide(np.array(samples), np.array(weights), request, lam, threshold,
                               sentinel)

    want, want_trace = budgeted_estimates(
        rows, decide=decide, aimed_share=kernels.aimed_share, ring=ring,
        pooled_size=pooled_size, pooled_weight=pooled_weight, sentinel=sentinel,
        min_user_jobs=min_user_jobs, threshold=threshold, budget=budget, step=step,
        log_lam_start=log_lam_start, log_lam_bounds=bounds, recency=kernels._RECENCY)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_trace, want_trace)


def test_each_feature_column_is_named_after_its_feature():
    for column, name in enumerate(kernels.FEATURE_NAMES):
        assert getattr(kernels, name.upper()) == column

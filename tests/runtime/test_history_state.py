"""HistoryState: the online state of HistoryFeatures gives transform's features bit for bit."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.runtime import HistoryFeatures
from predictkit.runtime._history_state import HistoryState, features_ahead, usage_ratio


@st.composite
def tables(draw):
    n = draw(st.integers(1, 40))
    X = pd.DataFrame(dict(
        submit_time=np.sort(np.array(draw(st.lists(st.integers(0, 50), min_size=n,
                                                    max_size=n)), dtype=float)),
        req_time=np.array(draw(st.lists(st.sampled_from([0.0, 10.0, 100.0, np.nan]),
                                        min_size=n, max_size=n))),
        user_id=np.array(draw(st.lists(st.sampled_from([1.0, 2.0, np.nan]), min_size=n,
                                       max_size=n))),
        job_id=np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, np.nan]), min_size=n,
                                      max_size=n)))))
    y = np.array(draw(st.lists(st.sampled_from([0.0, 5.0, 7.0, 13.0, 0.1]), min_size=n,
                               max_size=n)))
    # a job ends after it has run: at its submission plus a wait plus its runtime
    X["end_time"] = X["submit_time"] + y + np.array(
        draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)), dtype=float)
    return X, y


def codes_of(state, X, users):
    """The state's user code of each user id (-1: none)."""
    known = X["user_id"].to_numpy()
    return np.array([state.user[np.flatnonzero(known == u)[0]] if u == u else -1
                     for u in users], dtype=np.int64)


@settings(max_examples=150, deadline=None)
@given(case=tables(), n_recent=st.integers(1, 4), n_fitted=st.integers(0, 40),
       chunk=st.integers(1, 5), seed=st.integers(0, 2**31 - 1))
def test_online_state_equals_transform(case, n_recent, n_fitted, chunk, seed):
    X, y = case
    rng = np.random.default_rng(seed)
    m = min(n_fitted, len(X))
    reference = HistoryFeatures(n_recent=n_recent).fit(X.iloc[:m], y[:m])
    columns = {c: X[c].to_numpy(dtype=float) for c in ("submit_time", "req_time", "user_id",
                                                        "job_id")}
    state = HistoryState(reference, columns)
    # the rest completes in end order, ties in any order, in chunks
    rest = np.arange(m, len(X))
    rest = rest[np.lexsort((rng.random(len(rest)), X["end_time"].to_numpy()[rest]))]
    for k in range(0, len(rest), chunk):
        index = rest[k:k + chunk]
        state.observe(index, X["end_time"].to_numpy()[index], y[index])
        reference.partial_fit(X.iloc[index], y[index])
    queries = X.iloc[rng.integers(0, len(X), 15)].copy()
    queries["submit_time"] = rng.integers(0, 90, 15).astype(float)
    want = reference.transform(queries)[:, 4:]
    got = state.user_features(codes_of(state, X, queries["user_id"].to_numpy()),
                              queries["submit_time"].to_numpy())
    np.testing.assert_array_equal(got, want)


@settings(max_examples=150, deadline=None)
@given(case=tables(), n_recent=st.integers(1, 4), n_fitted=st.integers(0, 40),
       split=st.integers(0, 40), seed=st.integers(0, 2**31 - 1))
def test_features_ahead_equal_features_after_adding_the_entries(case, n_recent, n_fitted,
                                                                split, seed):
    # entries known later than everything observed so far, passed as extra
    # entries, give the features the state has once they are observed
    X, y = case
    rng = np.random.default_rng(seed)
    m = min(n_fitted, len(X))
    fitted = HistoryFeatures(n_recent=n_recent).fit(X.iloc[:m], y[:m])
    columns = {c: X[c].to_numpy(dtype=float) for c in ("submit_time", "req_time", "user_id",
                                                        "job_id")}
    ahead, after = HistoryState(fitted, columns), HistoryState(fitted, columns)
    end = X["end_time"].to_numpy()
    rest = np.arange(m, len(X))
    rest = rest[np.lexsort((rng.random(len(rest)), end[rest]))]
    cut = min(split, len(rest))
    now = end[rest[cut - 1]] if cut else -1.0
    observed = rest[:cut]
    extra = rest[cut:][end[rest[cut:]] > now]
    for state in (ahead, after):
        state.observe(observed, end[observed], y[observed])
    after.observe(extra, end[extra], y[extra])
    u = int(rng.choice(ahead.user)) if len(ahead.user) else -1
    mine = extra[ahead.user[extra] == u]
    t = float(rng.integers(0, 90))
    mine = mine[end[mine] <= t]
    mine = mine[np.lexsort((np.arange(len(mine)), columns["job_id"][mine],
                            columns["submit_time"][mine], end[mine]))]
    ratio = usage_ratio(y[mine], columns["req_time"][mine])
    out = np.empty((1, 2 * n_recent + 4))
    features_ahead(ahead.entries, u, t, n_recent, end[mine], columns["submit_time"][mine],
                   columns["job_id"][mine], y[mine], ratio, out, 0)
    np.testing.assert_array_equal(out[0], after.user_features([u], [t])[0])

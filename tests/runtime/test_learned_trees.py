"""The compiled tree walk of the learned predictor's model equals scikit-learn's ``predict``.

:func:`~predictkit.runtime._learned_trees.model_predict` walks the flattened
trees of a fitted ``HistGradientBoostingRegressor`` in compiled code; the
learned predictor (replay and simulator) relies on it giving the very
numbers ``predict`` gives, so the comparisons are exact, not approximate.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingRegressor

from predictkit.runtime._learned_trees import model_predict, on_columns, tree_tables


def _data(seed, n_rows, n_features, missing):
    """Features drawn from a few values (so test rows fall on thresholds), NaN at ``missing``."""
    rng = np.random.default_rng(seed)
    X = rng.choice(rng.normal(size=12) * 1e4, size=(n_rows, n_features))
    X[rng.random(X.shape) < missing] = np.nan
    y = np.log1p(np.abs(X[:, 0] if n_features else 0) + rng.exponential(3600.0, n_rows))
    y = np.where(np.isnan(y), rng.normal(8.0, 2.0, n_rows), y)
    return X, y


def _on_thresholds(trees, n_features, seed):
    """Rows whose every value is a split threshold of the trees (where ``<=`` and ``<`` differ)."""
    feature, threshold, is_leaf = trees[2], trees[3], trees[7]
    rng = np.random.default_rng(seed)
    rows = np.full((100, n_features), np.nan)
    for f in range(n_features):
        values = threshold[~is_leaf & (feature == f)]
        if len(values):
            rows[:, f] = rng.choice(values, size=len(rows))
    return rows


def _model(X, y, max_iter):
    return HistGradientBoostingRegressor(max_iter=max_iter, early_stopping=False,
                                         random_state=0).fit(X, y)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rows=st.integers(40, 400),
       n_features=st.integers(1, 6), missing=st.sampled_from([0.0, 0.1, 0.5]),
       max_iter=st.integers(1, 30))
def test_compiled_walk_equals_predict_bit_for_bit(seed, n_rows, n_features, missing, max_iter):
    X, y = _data(seed, n_rows, n_features, missing)
    model = _model(X, y, max_iter)
    trees = tree_tables(model)
    assert trees is not None  # the default kind of model is walked, not asked
    queries, _ = _data(seed + 1, 200, n_features, missing)
    queries = np.vstack([queries, X[:50], _on_thresholds(trees, n_features, seed)])
    np.testing.assert_array_equal(model_predict(model, trees, queries), model.predict(queries))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_trees_on_columns_read_the_columns_the_model_was_fitted_on(seed, data):
    X, y = _data(seed, 300, 6, 0.1)
    columns = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True))
    model = _model(X[:, columns], y, 10)
    trees = on_columns(tree_tables(model), columns)
    queries, _ = _data(seed + 1, 100, 6, 0.1)
    np.testing.assert_array_equal(model_predict(model, trees, queries),
                                  model.predict(queries[:, columns]))


def test_models_the_walk_cannot_reproduce_are_asked_through_predict():
    X, y = _data(0, 200, 3, 0.0)
    absolute = HistGradientBoostingRegressor(loss="absolute_error", max_iter=5).fit(X, y)
    categorical = HistGradientBoostingRegressor(
        max_iter=5, categorical_features=[True, False, False]).fit(np.abs(X.round(-4)) % 7, y)
    for model, queries in ((absolute, X), (categorical, np.abs(X.round(-4)) % 7)):
        assert tree_tables(model) is None
        np.testing.assert_array_equal(model_predict(model, None, queries),
                                      model.predict(queries))

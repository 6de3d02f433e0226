"""The model of :class:`~predictkit.runtime.LearnedRuntime` predicted by compiled tree walks.

A default-kind model (``HistGradientBoostingRegressor``, squared error,
numeric features) is flattened once into arrays that
:func:`~predictkit.runtime._learned_kernels.tree_ensemble_predict` walks in
one compiled call: the same nodes, the same comparisons and the same sums in
the same order as the model's ``predict``, so the same numbers, without
scikit-learn's fixed cost per tree and per call. Any other model is asked
through its ``predict``.
"""

import numpy as np

from ._learned_kernels import tree_ensemble_predict

__all__ = ["tree_tables", "model_predict", "on_columns"]


def tree_tables(model):
    """The trees of a default-kind model as flat arrays (None: use its ``predict``)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    if type(model) is not HistGradientBoostingRegressor or model.loss != "squared_error" \
            or model.n_trees_per_iteration_ != 1:
        return None
    try:
        return _flatten_trees(model)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        return None  # a scikit-learn whose private tree layout differs: use ``predict``


def model_predict(model, trees, X):
    """``model.predict(X)``, by the compiled walk when ``trees`` (:func:`tree_tables`) is set."""
    if trees is None:
        return model.predict(X)
    return tree_ensemble_predict(np.ascontiguousarray(X, dtype=np.float64), *trees)


def on_columns(trees, columns):
    """The same trees (:func:`tree_tables`) reading column ``columns[j]`` for feature ``j``.

    For a model fitted on ``X[:, columns]``: walking them over ``X`` reads the
    same values as walking the original trees over ``X[:, columns]``.
    """
    columns = np.asarray(columns, dtype=np.int64)
    feature = trees[2]
    return trees[:2] + (columns[np.minimum(feature, len(columns) - 1)],) + trees[3:]


def _flatten_trees(model):
    nodes = [predictors[0].nodes for predictors in model._predictors]
    if any(n["is_categorical"].any() for n in nodes):
        return None
    offsets = np.cumsum([0] + [len(n) for n in nodes[:-1]]).astype(np.int64)
    flat = np.concatenate(nodes)
    shift = np.repeat(offsets, [len(n) for n in nodes])
    baseline = np.asarray(model._baseline_prediction, dtype=np.float64).ravel()
    if baseline.shape != (1,):
        return None
    return (float(baseline[0]), offsets, flat["feature_idx"].astype(np.int64),
            flat["num_threshold"].astype(np.float64), flat["missing_go_to_left"].astype(np.bool_),
            flat["left"].astype(np.int64) + shift, flat["right"].astype(np.int64) + shift,
            flat["is_leaf"].astype(np.bool_), flat["value"].astype(np.float64))

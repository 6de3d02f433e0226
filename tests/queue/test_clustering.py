"""Job classes: features, explicit edges, the greedy BIC merge, the Gaussian mixture."""

import numpy as np
import pandas as pd
import pytest

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.queue._clustering import (BinClasses, fit_bic_bins, fit_gaussian_mixture,
                                          job_features, parse_edges)


def test_features_use_requested_nodes_then_allocated():
    jobs = pd.DataFrame({"req_procs": [4.0, np.nan, np.nan], "n_procs": [8.0, 16.0, 2.0],
                         "req_time": [3600.0, np.nan, 0.0]})
    f = job_features(jobs)
    assert f[:, 0].tolist() == [2.0, 4.0, 1.0]
    with pytest.raises(JobTableError, match="'req_procs' has values <= 0"):
        job_features(jobs.assign(req_procs=[4.0, np.nan, -1.0]))  # SWF's -1 is read as NaN
    assert f[0, 1] == pytest.approx(np.log(3600))
    assert np.isnan(f[1:, 1]).all()


def test_features_name_missing_columns():
    with pytest.raises(JobTableError, match="req_time"):
        job_features(pd.DataFrame({"req_procs": [1.0]}))
    with pytest.raises(JobTableError, match="n_procs"):
        job_features(pd.DataFrame({"req_time": [1.0]}))


def test_explicit_edges_label_by_interval():
    classes = BinClasses([16, 64], [3600])
    jobs = pd.DataFrame({"req_procs": [1.0, 16.0, 63.0, 64.0, 1000.0],
                         "req_time": [60.0, 3600.0, 100.0, 7200.0, 3599.0]})
    # node interval * 2 + time interval
    assert classes.labels(job_features(jobs)).tolist() == [0, 3, 2, 5, 4]
    assert classes.n_classes == 6
    assert len(classes.describe()) == 6


@pytest.mark.parametrize("bad", [([16, 8], []), ([0], []), ([1], [2], [3]), "x",
                                 {"cores": [1]}, ([np.inf], [])])
def test_bad_edges(bad):
    with pytest.raises(ConfigError):
        parse_edges(bad)


def test_edges_from_dict():
    nodes, times = parse_edges({"nodes": [8], "req_time": [600, 3600]})
    assert nodes.tolist() == [8.0] and times.tolist() == [600.0, 3600.0]


def test_bic_merge_finds_the_node_split():
    rng = np.random.default_rng(0)
    nodes = rng.choice([1, 2, 4, 8, 16, 32, 64, 128], 6000)
    req = rng.choice([600, 3600, 14400], 6000)
    waits = np.where(nodes >= 16, rng.exponential(5000, 6000), rng.exponential(50, 6000))
    jobs = pd.DataFrame({"req_procs": nodes.astype(float), "req_time": req.astype(float)})
    classes = fit_bic_bins(job_features(jobs), waits)
    assert classes.node_edges.tolist() == [16.0]
    assert len(classes.time_edges) == 0  # requested time does not matter here
    labels = classes.labels(job_features(jobs))
    assert set(labels[nodes >= 16]) == {1} and set(labels[nodes < 16]) == {0}


def test_bic_merge_keeps_at_most_three_bins_per_feature():
    rng = np.random.default_rng(1)
    nodes = rng.choice(2.0 ** np.arange(10), 8000)
    waits = rng.exponential(10.0 * nodes ** 2)  # every node count differs
    jobs = pd.DataFrame({"req_procs": nodes, "req_time": 600.0})
    classes = fit_bic_bins(job_features(jobs), waits)
    assert 1 <= len(classes.node_edges) <= 2


def test_gaussian_mixture_separates_two_groups_deterministically():
    rng = np.random.default_rng(2)
    small = np.column_stack([rng.normal(0, 0.3, 500), rng.normal(6, 0.3, 500)])
    large = np.column_stack([rng.normal(7, 0.3, 500), rng.normal(10, 0.3, 500)])
    features = np.vstack([small, large])
    a = fit_gaussian_mixture(features, random_state=0)
    b = fit_gaussian_mixture(features, random_state=0)
    assert a.n_classes >= 2
    la = a.labels(features)
    assert np.array_equal(la, b.labels(features))
    assert not set(la[:500]) & set(la[500:])


def test_unknown_features_take_the_median():
    rng = np.random.default_rng(3)
    features = np.column_stack([rng.normal(3, 1, 300), np.full(300, np.nan)])
    model = fit_gaussian_mixture(features, random_state=0)
    labels = model.labels(np.array([[3.0, np.nan]]))
    assert labels.shape == (1,)


def test_mixture_labels_equal_sklearn_predict():
    rng = np.random.default_rng(4)
    features = np.column_stack([rng.choice(8, 3000) + rng.normal(0, 0.1, 3000),
                                rng.normal(8, 2, 3000)])
    model = fit_gaussian_mixture(features, random_state=0)
    assert np.array_equal(model.labels(features), model.mixture.predict(features))

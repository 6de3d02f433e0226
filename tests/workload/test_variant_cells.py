"""The wbin variant's paddings per runtime bin and job-size class (benchmarks/estimate_variants)."""

import numpy as np
import pandas as pd

from benchmarks.estimate_variants import N_BINS, size_cells
from predictkit.workload._runtimes import PROBABILITIES, SIZE_CLASSES


def test_dense_cells_keep_their_own_paddings_and_sparse_cells_their_bins():
    rng = np.random.default_rng(0)
    procs = np.r_[np.ones(300), np.full(100, 64.0)]  # serial and "up to 1/4" of 256
    jobs = pd.DataFrame({"n_procs": procs})
    jobs.attrs["max_procs"] = 256
    bins = np.r_[np.zeros(300, dtype=np.int64), np.zeros(60, dtype=np.int64),
                 np.ones(40, dtype=np.int64)]
    padding = np.r_[rng.random(300), 2 + rng.random(100)]
    out = size_cells(jobs, padding, bins)
    table, cells = out["cell_table"], out["cells"]
    k = len(SIZE_CLASSES)
    assert table.shape == (N_BINS * k, PROBABILITIES.size)
    assert cells[0] == 0 and cells[300] == 3 and cells[-1] == k + 3
    assert np.allclose(table[0], np.quantile(padding[:300], PROBABILITIES))
    assert np.allclose(table[3], np.quantile(padding[300:360], PROBABILITIES))
    # runtime bin 1 has 40 jobs: fewer than 50, so every cell of it takes the pooled row
    assert np.allclose(table[k + 3], np.quantile(padding, PROBABILITIES))
    # an empty cell of a dense bin takes that bin's paddings
    assert np.allclose(table[1], np.quantile(padding[:360], PROBABILITIES))


def test_attribution_is_one_for_an_empty_subset_and_the_base_ratio_for_every_job():
    from benchmarks.estimate_variants import attribution, fit_extra, measure, variant_requests
    from benchmarks.workload_validation import easy
    from predictkit.datasets import make_workload
    from predictkit.workload import JointEstimates

    jobs = make_workload(400, random_state=3, machine_procs=64)
    jobs["run_time"] = np.minimum(jobs["run_time"], 600.0)  # every job short
    jobs["req_time"] = np.maximum(jobs["req_time"], jobs["run_time"])
    _, real = easy(jobs)
    model = JointEstimates(user_requests=False).fit(jobs)
    extra = fit_extra(jobs, measure(jobs))
    out = attribution(model, jobs, extra, [0, 1], real)
    assert out["long (> 10 min)"]["jobs"] == 0
    assert out["long (> 10 min)"]["ratio"] == 1.0
    assert out["long and wide"]["ratio"] == 1.0
    base = []
    for seed in (0, 1):
        generated = jobs.copy()
        generated.attrs = jobs.attrs
        generated["req_time"] = variant_requests("base", model, jobs, extra, seed)
        base.append(easy(generated)[1])
    assert out["short (<= 10 min)"]["jobs"] == len(jobs)
    assert np.isclose(out["short (<= 10 min)"]["ratio"], np.mean(base) / real)
    widths = out["narrow (<= 1/16 of the machine)"]["jobs"] + out["wide (> 1/16)"]["jobs"]
    assert widths == len(jobs)

"""Online replay throughput (jobs/s) and memory of QBETS.

Target: at least 20,000 jobs/s for ``replay(QBETS(...), method="auto")`` (the
one-pass fast path) on a 1,000,000-job table, for the default configuration
(runs rule, Gaussian-mixture classes) and the single-class and BIC-class
variants.

The 1M-job table is the largest shared trace with waits (RICC-2010-2) repeated
end to end (each copy shifted by the trace's span), cut at 1,000,000 rows.
Memory: the process peak RSS after all runs (``tracemalloc`` is not used: it
slows allocation-heavy Python several times).
``jobs_per_s`` is wall-clock, ``cpu_jobs_per_s`` process CPU time (the
machine may be shared).
``baseline_ratio`` is the replay time over the time of a stable
``numpy.argsort`` of the submit times in the same process (a machine-speed
yardstick). ``reference_jobs_per_s`` is the literal event-by-event replay
(``method="reference"``) on the first ``--reference-jobs`` jobs.

Run from the repository root: ``python -m benchmarks.qbets_speed [--n-jobs 1000000]``; prints JSON.
"""

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit.io import read_swf
from predictkit.model_selection import replay
from predictkit.queue import QBETS
from benchmarks._common import traces_dir

TARGET_JOBS_PER_S = 20_000
REPO = Path(__file__).resolve().parents[1]
SOURCE = "RICC-2010-2"
CONFIGS = {
    "default (runs, auto classes)": dict(random_state=0),
    "runs, single class": dict(clustering=None),
    "runs, bic classes": dict(clustering="bic"),
    "no change points, single class": dict(changepoint=None, clustering=None),
}


def million(jobs, n_jobs):
    jobs = jobs[np.isfinite(jobs["wait_time"]) & np.isfinite(jobs["submit_time"])]
    jobs = jobs.sort_values("submit_time", kind="stable").reset_index(drop=True)
    span = float(jobs["submit_time"].max() - jobs["submit_time"].min()) + 1.0
    copies = []
    for i in range(int(np.ceil(n_jobs / len(jobs)))):
        copy = jobs.copy()
        copy["submit_time"] = copy["submit_time"] + i * span
        copies.append(copy)
    out = pd.concat(copies, ignore_index=True).iloc[:n_jobs].copy()
    out["job_id"] = np.arange(1, len(out) + 1)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=1_000_000)
    parser.add_argument("--reference-jobs", type=int, default=5_000)
    args = parser.parse_args(argv)
    folder = traces_dir()
    if folder is None:
        print(json.dumps({"skipped": "shared traces not found"}))
        return 0
    jobs = million(read_swf(folder / f"{SOURCE}.swf.gz"), args.n_jobs)
    y = jobs["wait_time"].to_numpy()
    started = time.perf_counter()
    np.argsort(jobs["submit_time"].to_numpy(), kind="stable")
    yardstick = time.perf_counter() - started
    results = {}
    for name, params in CONFIGS.items():
        started = time.perf_counter()
        cpu_started = time.process_time()
        bounds = replay(QBETS(**params), jobs, y)
        seconds = time.perf_counter() - started
        cpu_seconds = time.process_time() - cpu_started
        head = jobs.iloc[:args.reference_jobs]
        started = time.perf_counter()
        reference = replay(QBETS(**params), head, y[:len(head)], method="reference")
        ref_seconds = time.perf_counter() - started
        results[name] = {
            "jobs_per_s": round(len(jobs) / seconds),
            "cpu_jobs_per_s": round(len(jobs) / cpu_seconds),
            "seconds": round(seconds, 1),
            "baseline_ratio": round(seconds / yardstick, 1),
            "reference_jobs_per_s": round(len(head) / ref_seconds),
            "fast_equals_reference_on_head": bool(np.array_equal(
                reference, bounds[:len(head)], equal_nan=True)),
            "meets_target": len(jobs) / seconds >= TARGET_JOBS_PER_S,
        }
    report = {"source": SOURCE, "n_jobs": len(jobs), "target_jobs_per_s": TARGET_JOBS_PER_S,
              "argsort_seconds": round(yardstick, 3),
              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
              "results": results}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

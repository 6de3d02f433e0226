"""Online replay throughput (jobs/s) and memory of the runtime predictors.

Target: at least 100,000 jobs/s for every registered predictor at its defaults
(``predictkit.runtime._registry.REGISTRY``: ``RequestedTime``,
``WalltimeAdjuster`` with the triple key and a 30-day window,
``RecentUsageMax``, ``RecentAverage``) with
``replay(..., method="auto")`` (the one-pass fast path), on the largest shared
trace and on a 1,000,000-job table; peak memory under 2 GB at 1M jobs.

The 1M-job table is the largest trace repeated end to end (each copy shifted by
the trace's span, users and groups kept, so histories continue), cut at
1,000,000 rows. Memory: peak of ``tracemalloc`` (Python and numpy allocations)
during the replay, and the process peak RSS. Each time is the best of
``--repeat`` runs; ``baseline_ratio`` is the replay time over the time of a
stable ``numpy.argsort`` of the submit times in the same process (a machine-speed
yardstick). ``reference`` gives the literal event-by-event replay on the first
``--reference-jobs`` jobs for comparison.

Run from the repository root: ``python -m benchmarks.runtime_speed [--repeat 3]
[--n-jobs 1000000]``;
prints JSON.
"""

import argparse
import csv
import json
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from predictkit.io import read_swf
from predictkit.model_selection import replay
from predictkit.runtime import HistoryFeatures, WalltimeAdjuster, make_predictor
from predictkit.runtime._registry import REGISTRY
from benchmarks._common import traces_dir

TARGET_JOBS_PER_S = 100_000
TARGET_MEMORY_BYTES = 2 * 1024 ** 3
REPO = Path(__file__).resolve().parents[1]
LABELS = {"tang": "WalltimeAdjuster(triple key, 30D)"}
"""Labels of registered predictors other than their class name."""
ESTIMATORS = {LABELS.get(name, entry.estimator.__name__): make_predictor(name)
              for name, entry in REGISTRY.items()}
TARGETED = tuple(ESTIMATORS)
"""Every registered predictor, at its defaults, must reach the target."""
ESTIMATORS["WalltimeAdjuster(user, all history)"] = WalltimeAdjuster(keys=("user_id",),
                                                                     window=None)


def largest_trace(folder):
    manifest = folder / "MANIFEST.tsv"
    with open(manifest, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    best = max(rows, key=lambda r: int(r["jobs"]))
    return folder / best["file"], best["name"]


def tile(jobs, n_jobs):
    submit = jobs["submit_time"].to_numpy()
    span = np.nanmax(submit) - np.nanmin(submit) + 86400.0
    copies = -(-n_jobs // len(jobs))
    parts = []
    for i in range(copies):
        part = jobs.copy()
        part["submit_time"] = part["submit_time"] + i * span
        part["job_id"] = part["job_id"] + i * len(jobs)
        parts.append(part)
    out = pd.concat(parts, ignore_index=True).iloc[:n_jobs].copy()
    out.attrs = {}
    return out


def best_of(function, repeat):
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(jobs, repeat, *, memory):
    y = jobs["run_time"].to_numpy()
    submit = jobs["submit_time"].to_numpy()
    base, _ = best_of(lambda: np.argsort(submit, kind="stable"), repeat)
    out = {"n_jobs": len(jobs), "baseline_argsort_s": base, "estimators": {}}
    for name, est in ESTIMATORS.items():
        seconds, _ = best_of(lambda: replay(est, jobs, y), repeat)
        entry = {"seconds": round(seconds, 3), "jobs_per_s": round(len(jobs) / seconds),
                 "baseline_ratio": round(seconds / base, 1)}
        if memory:
            tracemalloc.start()
            replay(est, jobs, y)
            entry["tracemalloc_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
            tracemalloc.stop()
        if name in TARGETED:
            entry["meets_target"] = entry["jobs_per_s"] >= TARGET_JOBS_PER_S
        out["estimators"][name] = entry
    features = HistoryFeatures()
    seconds, _ = best_of(lambda: features.fit(jobs[np.isfinite(y)], y[np.isfinite(y)])
                         .transform(jobs), repeat)
    out["estimators"]["HistoryFeatures (fit + transform)"] = {
        "seconds": round(seconds, 3), "jobs_per_s": round(len(jobs) / seconds)}
    return out


def reference_speed(jobs, n):
    part = jobs.iloc[:n].copy()
    part.attrs = {}
    y = part["run_time"].to_numpy()
    out = {}
    for name in TARGETED:
        start = time.perf_counter()
        replay(ESTIMATORS[name], part, y, method="reference")
        out[name] = round(n / (time.perf_counter() - start))
    return {"n_jobs": n, "jobs_per_s": out}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1_000_000)
    parser.add_argument("--reference-jobs", type=int, default=5000)
    args = parser.parse_args(argv)
    folder = traces_dir()
    if folder is None:
        print(json.dumps({"skipped": "shared traces not found"}))
        return 0
    path, name = largest_trace(folder)
    jobs = read_swf(path)
    # compile (or load the cached) kernels before timing
    warm = jobs.iloc[:2000]
    for est in ESTIMATORS.values():
        replay(est, warm, warm["run_time"].to_numpy())
    report = {"target_jobs_per_s": TARGET_JOBS_PER_S, "target_memory_mb": 2048}
    with threadpool_limits(1):
        report["largest_trace"] = {"name": name, **measure(jobs, args.repeat, memory=False)}
        big = tile(jobs, args.n_jobs)
        del jobs
        report["table_1m"] = {"source": f"{name} repeated", **measure(big, args.repeat,
                                                                         memory=True)}
        report["reference_replay"] = reference_speed(big, args.reference_jobs)
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    report["peak_rss_mb"] = round(peak_rss / 2**20, 1)
    report["memory_ok"] = bool(peak_rss < TARGET_MEMORY_BYTES)
    report["all_targets_met"] = report["memory_ok"] and all(
        entry["meets_target"] for part in ("largest_trace", "table_1m")
        for entry in report[part]["estimators"].values() if "meets_target" in entry)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Speed of ``read_swf`` against a bare ``pandas.read_csv`` of the same file.

Target: ``read_swf`` within 2x the time of
``pandas.read_csv(path, sep=r"\\s+", comment=";", header=None)`` (the least any
SWF reader must do), on every shared trace (the largest by job count is
reported first) and on a 1,000,000-job SWF file written to a temporary
directory. Each timing is the best of ``--repeat`` runs in this process.

Run from the repository root: ``python -m benchmarks.io_speed [--repeat 3]
[--n-jobs 1000000]``; prints JSON.
"""

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit.io import read_swf
from predictkit.jobs import as_job_table

from benchmarks._common import best_of, traces_dir

TARGET_RATIO = 2.0
REPO = Path(__file__).resolve().parents[1]


def job_counts(folder):
    """Jobs per trace file, from MANIFEST.tsv when present, else by reading."""
    manifest = folder / "MANIFEST.tsv"
    if manifest.is_file():
        with open(manifest, encoding="utf-8") as handle:
            return {folder / row["file"]: int(row["jobs"])
                    for row in csv.DictReader(handle, delimiter="\t")}
    return {path: len(read_swf(path)) for path in sorted(folder.glob("*.swf*"))}



def compare(path, repeat):
    """Time both readers on one file; check they agree on the number of rows."""
    n_swf = len(read_swf(path))
    n_csv = len(pd.read_csv(path, sep=r"\s+", comment=";", header=None))
    if n_swf != n_csv:
        raise RuntimeError(f"{path}: read_swf gives {n_swf} rows, read_csv {n_csv}")
    baseline = best_of(lambda: pd.read_csv(path, sep=r"\s+", comment=";", header=None), repeat)
    ours = best_of(lambda: read_swf(path), repeat)
    return {"file": path.name, "jobs": n_swf, "bytes": path.stat().st_size,
            "read_csv_seconds": round(baseline, 4), "read_swf_seconds": round(ours, 4),
            "ratio": round(ours / baseline, 3), "meets_target": ours / baseline <= TARGET_RATIO,
            "read_swf_jobs_per_second": round(n_swf / ours)}


def synthetic_jobs(n_jobs, seed=0):
    """Plausible random jobs: Poisson arrivals, log-uniform runtimes, power-of-two sizes."""
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(60.0, n_jobs)).round()
    run = np.exp(rng.uniform(0, np.log(86400), n_jobs)).round()
    request = np.maximum(run, np.exp(rng.uniform(np.log(60), np.log(172800), n_jobs))).round()
    procs = 2 ** rng.integers(0, 11, n_jobs)
    return as_job_table({
        "job_id": np.arange(1, n_jobs + 1), "submit_time": submit,
        "wait_time": rng.exponential(1800.0, n_jobs).round(), "run_time": run,
        "n_procs": procs, "avg_cpu_time": (run * rng.uniform(0.1, 1.0, n_jobs)).round(),
        "used_memory": rng.integers(1000, 4_000_000, n_jobs), "req_procs": procs,
        "req_time": request, "status": rng.choice([0, 1, 5], n_jobs, p=[0.1, 0.8, 0.1]),
        "user_id": rng.integers(1, 500, n_jobs), "group_id": rng.integers(1, 50, n_jobs),
        "queue_id": rng.integers(1, 5, n_jobs), "partition_id": np.ones(n_jobs),
    }, attrs={"max_procs": 1024})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    parser.add_argument("--n-jobs", type=int, default=1_000_000, help="size of the synthetic file")
    args = parser.parse_args(argv)

    result = {"target_ratio": TARGET_RATIO, "repeat": args.repeat, "pandas": pd.__version__,
              "traces": [], "skipped": {}}
    folder = traces_dir()
    if folder is None:
        result["skipped"]["shared traces"] = "folder not found (set PREDICTKIT_TRACES)"
    else:
        counts = job_counts(folder)
        for path in sorted(counts, key=counts.get, reverse=True):
            result["traces"].append(compare(path, args.repeat))
        result["largest_trace"] = result["traces"][0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"synthetic-{args.n_jobs}.swf"
        from predictkit.io import write_swf

        write_swf(synthetic_jobs(args.n_jobs), path)
        result["synthetic"] = compare(path, args.repeat)
    ratios = [t["ratio"] for t in result["traces"]] + [result["synthetic"]["ratio"]]
    result["max_ratio"] = max(ratios)
    result["all_meet_target"] = all(r <= TARGET_RATIO for r in ratios)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if result["all_meet_target"] else 1


if __name__ == "__main__":
    sys.exit(main())

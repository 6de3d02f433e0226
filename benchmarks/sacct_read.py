"""Speed and memory of ``read_sacct`` against a bare ``pandas.read_csv`` of the same file.

A site's ``sacct`` dump holds a job's allocation line and each of its steps:
a year of a busy cluster is millions of lines. The file here is made by
``datasets/make_sacct_sample.py`` (the committed sample's generator: steps,
arrays, every end state, requeued runs) with ``--n-jobs`` jobs, written to a
temporary directory.

Targets, each measured against ``pandas.read_csv(path, sep="|", dtype=str,
keep_default_na=False)`` (the least any reader of the file must do):

- time: ``read_sacct`` within ``TARGET_TIME_RATIO`` times the baseline's, both
  run in this process (best of ``--repeat``);
- memory: the peak resident memory ``read_sacct`` adds to a fresh process
  that has imported predictkit within ``TARGET_MEMORY_RATIO`` times what the
  baseline adds to the same process (each measured in a child process, by
  Linux's ``VmHWM`` after resetting it through ``/proc/self/clear_refs``).

Run from the repository root: ``python -m benchmarks.sacct_read [--n-jobs
300000] [--repeat 1]``; prints JSON, exit 1 when a target is missed.
"""

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from predictkit.io import read_sacct

from benchmarks._common import REPO, best_of, provenance

TARGET_TIME_RATIO = 6.0
TARGET_MEMORY_RATIO = 4.0

_PEAK = """
import sys, warnings
import pandas as pd
import predictkit.io
def status(key):
    with open("/proc/self/status") as handle:
        line = next(line for line in handle if line.startswith(key + ":"))
    return int(line.split()[1]) * 1024
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # the peak so far (the imports') is forgotten
before = status("VmRSS")
warnings.simplefilter("ignore")
if sys.argv[1] == "read_sacct":
    rows = len(predictkit.io.read_sacct(sys.argv[2]))
else:
    rows = len(pd.read_csv(sys.argv[2], sep="|", dtype=str, keep_default_na=False))
print(rows, max(status("VmHWM") - before, 1))
"""
"""A child process: resident memory after the imports, then the peak while reading."""


def write_sample(path, n_jobs, seed):
    """Write the generator's sample of ``n_jobs`` jobs to ``path``."""
    spec = importlib.util.spec_from_file_location(
        "make_sacct_sample", REPO / "datasets" / "make_sacct_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text(module.make_sample(n_jobs=n_jobs, seed=seed), encoding="utf-8")



def peak_added(reader, path):
    """``(rows, bytes)``: what ``reader`` returns and the peak memory it adds in a child."""
    done = subprocess.run([sys.executable, "-c", _PEAK, reader, str(path)], cwd=REPO,
                          capture_output=True, text=True, check=True)
    rows, added = done.stdout.split()
    return int(rows), int(added)


def read_quietly(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_sacct(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=300_000, help="jobs in the generated file")
    parser.add_argument("--seed", type=int, default=11, help="the generator's seed")
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing (best kept)")
    args = parser.parse_args(argv)
    made_by = provenance("sacct_read", sys.argv[1:] if argv is None else argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sacct.txt"
        write_sample(path, args.n_jobs, args.seed)
        with open(path, encoding="utf-8") as handle:
            n_lines = sum(1 for _ in handle)
        jobs = len(read_quietly(path))
        baseline = best_of(lambda: pd.read_csv(path, sep="|", dtype=str,
                                               keep_default_na=False), args.repeat)
        ours = best_of(lambda: read_quietly(path), args.repeat)
        csv_rows, csv_bytes = peak_added("read_csv", path)
        sacct_rows, sacct_bytes = peak_added("read_sacct", path)
        size = path.stat().st_size
    if (sacct_rows, csv_rows) != (jobs, n_lines - 1):
        raise RuntimeError(f"the child processes read {sacct_rows} jobs and {csv_rows} lines, "
                           f"this one {jobs} jobs of {n_lines - 1} lines")
    time_ratio = ours / baseline
    memory_ratio = sacct_bytes / csv_bytes
    result = {
        "provenance": made_by,
        "file": {"jobs": jobs, "lines": n_lines, "bytes": size, "seed": args.seed},
        "pandas": pd.__version__, "repeat": args.repeat,
        "read_csv_seconds": round(baseline, 3), "read_sacct_seconds": round(ours, 3),
        "time_ratio": round(time_ratio, 2), "target_time_ratio": TARGET_TIME_RATIO,
        "read_csv_peak_added_mb": round(csv_bytes / 1e6, 1),
        "read_sacct_peak_added_mb": round(sacct_bytes / 1e6, 1),
        "read_sacct_peak_added_per_file_byte": round(sacct_bytes / size, 2),
        "memory_ratio": round(memory_ratio, 2), "target_memory_ratio": TARGET_MEMORY_RATIO,
        "read_sacct_lines_per_second": round(n_lines / ours),
    }
    result["meets_targets"] = (time_ratio <= TARGET_TIME_RATIO
                               and memory_ratio <= TARGET_MEMORY_RATIO)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if result["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())

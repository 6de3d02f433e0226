"""Speed of the estimate model and of make_workload.

Targets: modes plus assignment for 1,000,000 jobs under 5 s;
``make_workload(1_000_000)`` (every default: built-in site, joint requests,
paced load) under 30 s and 2 GB. Times are also given as ratios to a baseline
measured in the same process (sorting 1,000,000 floats with numpy), so runs
on different machines compare. Memory is the peak resident set of a fresh
process that imports predictkit and makes the workload
(``make_workload_peak_rss_mb``), next to that of the same process importing
predictkit only (``import_peak_rss_mb``). The first call of the assignment
kernel compiles it (numba, cached on disk); it is timed separately as
``warmup_s``.

Run from the repository root: ``python -m benchmarks.workload_speed
[--jobs 1000000]``. Prints JSON.
"""

import argparse
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from predictkit.workload import ShuffledEstimates, TsafrirEstimates, make_workload


def timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


RSS_SCRIPT = """
import resource, sys
import predictkit.workload as w
if int(sys.argv[1]):
    w.make_workload(int(sys.argv[1]), random_state=0)
try:  # the high-water mark of this process image (ru_maxrss survives exec on Linux)
    with open("/proc/self/status") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(kib)
"""


def peak_rss_mb(n_jobs):
    """Peak resident set (MiB) of a fresh process making ``n_jobs`` jobs (0: import only)."""
    done = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(n_jobs)], capture_output=True,
                          text=True, check=True)
    return int(done.stdout.split()[-1]) / 1024.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    n = args.jobs
    rng = np.random.default_rng(0)
    runtimes = np.floor(np.exp(rng.uniform(0, np.log(17 * 3600), n)))
    users = rng.zipf(1.5, n).clip(max=500).astype(float)
    submit = np.sort(rng.uniform(0, 3e7, n))

    baseline, _ = timed(lambda: np.sort(rng.random(n)))
    start = time.perf_counter()
    TsafrirEstimates(t_max="18h", random_state=0).sample(runtimes[:1000])
    warmup = time.perf_counter() - start

    shuffle_s, est = timed(lambda: TsafrirEstimates(t_max="18h", random_state=1).sample(runtimes))
    assert (est >= runtimes).all()
    sessions_s, _ = timed(lambda: TsafrirEstimates(
        t_max="18h", assignment="sessions", random_state=1).sample(runtimes, users, submit))
    real_shuffle_s, _ = timed(lambda: ShuffledEstimates(random_state=1).sample(
        runtimes, estimates=np.maximum(est, 1.0)))
    workload_s, jobs = timed(lambda: make_workload(n, random_state=0), repeat=1)
    workload_mb = peak_mb(lambda: make_workload(min(n, 200_000), random_state=0))
    rss_mb = peak_rss_mb(n)
    import_mb = peak_rss_mb(0)
    result = {
        "jobs": n,
        "baseline_sort_s": round(baseline, 4),
        "warmup_s": round(warmup, 2),
        "modes_plus_shuffle_s": round(shuffle_s, 3),
        "modes_plus_sessions_s": round(sessions_s, 3),
        "shuffle_real_estimates_s": round(real_shuffle_s, 3),
        "make_workload_s": round(workload_s, 2),
        "make_workload_jobs_per_s": round(n / workload_s),
        "make_workload_peak_mb_per_200k_jobs": round(workload_mb, 1),
        "make_workload_peak_rss_mb": round(rss_mb, 1),
        "import_peak_rss_mb": round(import_mb, 1),
        "ratio_modes_plus_shuffle_to_sort": round(shuffle_s / baseline, 1),
        "ratio_make_workload_to_sort": round(workload_s / baseline, 1),
        "target_modes_plus_assignment_ok": bool(max(shuffle_s, sessions_s) < 5.0 * n / 1e6),
        "target_make_workload_ok": bool(workload_s < 30.0 * n / 1e6),
        "target_make_workload_memory_ok": bool(rss_mb < 2048.0),
        "rows": len(jobs),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

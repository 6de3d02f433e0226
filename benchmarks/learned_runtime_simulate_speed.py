"""Speed of ``make_predictor("learned")`` (LearnedRuntime) inside the simulator, whole log.

EASY with ``estimates=make_predictor("learned")`` (the default: the budget
of 2% bad estimates) over every job of a shared log, loaded as
``simulate_speed`` does. The predictor keeps the state of its passes
between the simulator's calls (``_learned_online``). Reported: wall and CPU
time (the machine may be shared: CPU time is the measure), jobs per CPU
second, the target of the issue (a whole 200k-job log in under a minute),
and whether the kept state served the whole run. ``--reference-jobs N``
also simulates the first ``N`` jobs with the passes over the whole history
at every call (the reference) and says whether the schedules are equal.

Prints JSON and writes it to ``build/benchmarks/learned_runtime_simulate_speed.json``.
One OpenMP thread (``threadpool_limits(1)``).

Run from the repository root:
``python -m benchmarks.learned_runtime_simulate_speed [--trace NAME] [--max-jobs N]``
"""

import argparse
import json
import os
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._common import BUILD, provenance, trace_file, write_json
from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.runtime import LearnedRuntime
from predictkit.simulate import simulate

TARGET_CPU_SECONDS = 60.0


class _Driven(LearnedRuntime):
    """LearnedRuntime keeping the copy the simulator drives, for the report."""

    last = None

    def start(self, jobs):
        _Driven.last = self
        return super().start(jobs)


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def simulated(jobs, *, incremental):
    est = _Driven()
    est._incremental = incremental
    (result, wall, cpu) = timed(lambda: simulate(jobs, policy="easy", estimates=est))
    return result, wall, cpu, _Driven.last


def same_schedule(a, b):
    return all(np.array_equal(a.jobs[c].to_numpy(), b.jobs[c].to_numpy(), equal_nan=True)
               for c in ("estimate", "start_time", "end_time"))


def run(trace, *, max_jobs, reference_jobs):
    jobs = clean_jobs(read_swf(trace_file(trace)), for_simulation=True, require_request=True)
    if max_jobs is not None:
        jobs = jobs.iloc[:max_jobs]
    n = len(jobs)
    with threadpool_limits(1):
        result, wall, cpu, driven = simulated(jobs, incremental=True)
        out = {"trace": trace, "n_jobs": n, "policy": "easy",
               "predictor": 'make_predictor("learned")', "wall_s": wall, "cpu_s": cpu,
               "jobs_per_cpu_s": n / cpu, "target_cpu_s": TARGET_CPU_SECONDS,
               "meets_target": bool(cpu < TARGET_CPU_SECONDS * n / 200_000),
               "kept_state_served_whole_run": driven._online is not None,
               "refits": int(len(driven._refit_sizes(int(driven.n_history_)))),
               "share_estimated_below_request": float(
                   (result.jobs["estimate"] < result.jobs["req_time"]).mean())}
        if reference_jobs:
            prefix = jobs.iloc[:reference_jobs]
            fast, fast_wall, fast_cpu, _ = simulated(prefix, incremental=True)
            slow, ref_wall, ref_cpu, _ = simulated(prefix, incremental=False)
            out["reference"] = {"n_jobs": len(prefix), "kept_state_cpu_s": fast_cpu,
                                "reference_cpu_s": ref_cpu, "reference_wall_s": ref_wall,
                                "same_schedule": same_schedule(fast, slow)}
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="SDSC-BLUE-2000-4.2-cln")
    parser.add_argument("--max-jobs", type=int, help="simulate only the first N jobs")
    parser.add_argument("--reference-jobs", type=int, default=0,
                        help="also compare with the reference path on the first N jobs")
    parser.add_argument("--output-dir", default=str(BUILD))
    args = parser.parse_args(argv)
    result = {"provenance": provenance("learned_runtime_simulate_speed", argv),
              "load_average_at_start": os.getloadavg()[0]}
    result["run"] = run(args.trace, max_jobs=args.max_jobs, reference_jobs=args.reference_jobs)
    result["load_average_at_end"] = os.getloadavg()[0]
    write_json(f"{args.output_dir}/learned_runtime_simulate_speed.json", result)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()

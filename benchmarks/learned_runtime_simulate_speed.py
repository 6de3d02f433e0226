"""Speed of ``make_predictor("learned")`` (LearnedRuntime) inside the simulator, whole log.

EASY with ``estimates=make_predictor("learned")`` (the default: the budget
of 2% bad estimates) over every job of a shared log, loaded as
``simulate_speed`` does. The predictor keeps the state of its passes
between the simulator's calls (``_learned_online``). Reported: wall and CPU
time (the machine may be shared: CPU time is the measure), jobs per CPU
second, the target of the issue (a whole 200k-job log in under a minute),
whether the kept state served the whole run (and if not, why it stepped
aside), how many completions it took back to apply a late one of the same
instant before them (a zero-runtime job that waited, ending where jobs
submitted after it already ended), how many jobs ended in the second they
were submitted, and whether the kept state's estimate of every completed
job equals the one a single pass over the history the simulation built
gives (each estimate feeds the calibration when its job ends, so this
checks every step of the kept state). ``--reference-jobs N`` also
simulates the first ``N`` jobs with the passes over the whole history at
every call (the reference) and says whether the schedules are equal.

Prints JSON and writes it to ``build/benchmarks/learned_runtime_simulate_speed.json``
(the committed copy: ``benchmarks/results/``). One OpenMP thread
(``threadpool_limits(1)``); several traces run one after the other.
``--merge PATH`` keeps the runs of an earlier result for the other traces
(each with the provenance of the run that made it) and replaces those of the
traces run now.

Run from the repository root:
``python -m benchmarks.learned_runtime_simulate_speed [--trace NAME ...] [--max-jobs N]
[--merge benchmarks/results/learned_runtime_simulate_speed.json]``
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchmarks._common import BUILD, provenance, read_json, trace_file, write_json
from predictkit._reference_path import reference_path
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
    with reference_path(not incremental):
        (result, wall, cpu) = timed(lambda: simulate(jobs, policy="easy", estimates=est))
    return result, wall, cpu, _Driven.last


def same_schedule(a, b):
    return all(np.array_equal(a.jobs[c].to_numpy(), b.jobs[c].to_numpy(), equal_nan=True)
               for c in ("estimate", "start_time", "end_time"))


def same_as_one_pass(driven, jobs):
    """Whether the kept state's estimates of the completed jobs equal one pass's (None: no ids)."""
    ids = jobs["job_id"] if "job_id" in jobs.columns else None
    online = driven._online
    if online is None or ids is None or not ids.is_unique:
        return None
    hist = driven.history_
    passes = driven._predict_raw(hist, {c: hist[c] for c in (
        "submit_time", "req_time", "user_id", "group_id", "width")})
    rows = np.asarray(pd.Index(ids.to_numpy(float)).get_indexer(hist["job_id"]))
    return bool(np.array_equal(online.pred[rows], passes, equal_nan=True))


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
               "kept_state_stepped_aside_because": driven._online_stopped,
               "completions_taken_back_and_applied_again": (
                   None if driven._online is None else driven._online.n_taken_back),
               "jobs_ended_in_their_submit_second": int(
                   (result.jobs["end_time"] == result.jobs["submit_time"]).sum()),
               "refits": int(len(driven._refit_sizes(int(driven.n_history_)))),
               "share_estimated_below_request": float(
                   (result.jobs["estimate"] < result.jobs["req_time"]).mean())}
        (same, check_wall, check_cpu) = timed(lambda: same_as_one_pass(driven, jobs))
        out["kept_state_equals_one_pass"] = same
        out["one_pass_cpu_s"] = check_cpu
        if reference_jobs:
            prefix = jobs.iloc[:reference_jobs]
            fast, fast_wall, fast_cpu, _ = simulated(prefix, incremental=True)
            slow, ref_wall, ref_cpu, _ = simulated(prefix, incremental=False)
            out["reference"] = {"n_jobs": len(prefix), "kept_state_cpu_s": fast_cpu,
                                "reference_cpu_s": ref_cpu, "reference_wall_s": ref_wall,
                                "same_schedule": same_schedule(fast, slow)}
    return out


def merged_runs(path, traces):
    """The runs of ``path`` for traces other than ``traces``, each with its provenance."""
    try:
        earlier = read_json(path)
        return [{**r, "provenance": r.get("provenance", earlier["provenance"])}
                for r in earlier["runs"] if r["trace"] not in traces]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"--merge {path}: not a result of this benchmark ({error})")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", nargs="+", default=["SDSC-BLUE-2000-4.2-cln"])
    parser.add_argument("--max-jobs", type=int, help="simulate only the first N jobs")
    parser.add_argument("--reference-jobs", type=int, default=0,
                        help="also compare with the reference path on the first N jobs")
    parser.add_argument("--output-dir", default=str(BUILD))
    parser.add_argument("--merge", metavar="PATH",
                        help="an earlier result whose runs of other traces are kept")
    args = parser.parse_args(argv)
    made = provenance("learned_runtime_simulate_speed", argv)
    kept = merged_runs(args.merge, args.trace) if args.merge else []
    result = {"provenance": made, "runs": []}
    for trace in args.trace:
        load = os.getloadavg()[0]
        result["runs"].append({**run(trace, max_jobs=args.max_jobs,
                                     reference_jobs=args.reference_jobs),
                               "load_average_at_start": load,
                               "load_average_at_end": os.getloadavg()[0]})
    if args.merge:
        result["runs"] = kept + [{**r, "provenance": made} for r in result["runs"]]
    write_json(f"{args.output_dir}/learned_runtime_simulate_speed.json", result)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()

"""Speed of a learned predictor inside the simulator, on a whole shared log.

``Pipeline(HistoryFeatures(), HistGradientBoostingRegressor(loss="quantile",
quantile=0.85))`` is fitted on the first ``--train-days`` of the log and then
plans every later job of the log under EASY (``simulate(estimates=pipeline)``).
Reported: wall and CPU time of the compiled path (jobs/s), the number of
regressor calls and of jobs predicted in them, and, on the first
``--reference-jobs`` simulated jobs, the time of the reference path (the
pipeline driven through ``PartialFitAdapter``: job tables, ``transform`` and
``predict`` at each instant) with the compiled path's time on the same jobs and
whether both gave the same schedule. The reference path is not run on the
whole log (it takes about half an hour); its whole-log time is extrapolated
from its rate on the prefix, and labelled so.

Prints JSON and writes it to ``build/benchmarks/learned_simulate_speed.json``.
One OpenMP thread (``threadpool_limits(1)``): the machine may be shared.

Run from the repository root:
``python -m benchmarks.learned_simulate_speed [--trace NAME] [--quick]``
"""

import argparse
import json
import os
import sys
import time

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

from benchmarks._common import BUILD, provenance, trace_file, write_json
from predictkit._reference_path import reference_path
from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.runtime import HistoryFeatures
from predictkit.simulate import _learned, simulate

TARGET_SECONDS = 60.0


class _CountingFeeder(_learned.LearnedFeeder):
    """The compiled path's feeder, keeping itself for the report."""

    last = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _CountingFeeder.last = self


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def same_schedule(a, b):
    return all(np.array_equal(a.jobs[c].to_numpy(), b.jobs[c].to_numpy(), equal_nan=True)
               for c in ("estimate", "start_time", "end_time"))


def run(trace, *, train_days, max_iter, reference_jobs, max_jobs):
    jobs = clean_jobs(read_swf(trace_file(trace)), for_simulation=True, require_request=True)
    submit = jobs["submit_time"].to_numpy()
    n_train = int(np.searchsorted(submit, submit[0] + train_days * 86400.0, side="left"))
    train = jobs.iloc[:n_train]
    test = jobs.iloc[n_train:] if max_jobs is None else jobs.iloc[n_train:n_train + max_jobs]
    test = test.reset_index(drop=True)
    test.attrs = dict(jobs.attrs)
    model = HistGradientBoostingRegressor(loss="quantile", quantile=0.85, max_iter=max_iter,
                                          random_state=0)
    pipeline = make_pipeline(HistoryFeatures(), model)
    _learned.LearnedFeeder, original = _CountingFeeder, _learned.LearnedFeeder
    try:
        with threadpool_limits(1):
            _, fit_wall, _ = timed(lambda: pipeline.fit(train, train["run_time"]))
            _, whole_wall, whole_cpu = timed(lambda: simulate(test, estimates=pipeline))
            feeder = _CountingFeeder.last
            counts = dict(regressor_calls=feeder.n_calls, jobs_predicted=feeder.n_rows,
                          stops=feeder.stops)
            prefix = test.iloc[:reference_jobs]
            prefix.attrs = dict(test.attrs)
            fast, fast_wall, fast_cpu = timed(lambda: simulate(prefix, estimates=pipeline))
            prefix_calls = _CountingFeeder.last.n_calls
            with reference_path():
                slow, ref_wall, ref_cpu = timed(lambda: simulate(prefix, estimates=pipeline))
    finally:
        _learned.LearnedFeeder = original
    n = len(test)
    instants = int(np.unique(test["submit_time"].to_numpy()).size)
    return {
        "trace": trace, "jobs_in_log": len(jobs), "train_jobs": n_train,
        "train_days": train_days, "simulated_jobs": n, "submit_instants": instants,
        "model": {"max_iter": max_iter, "n_iter_": int(model.n_iter_), "fit_wall_s": fit_wall},
        "compiled": {"wall_s": whole_wall, "cpu_s": whole_cpu, "jobs_per_s": n / whole_wall,
                     **counts, "calls_per_job": counts["regressor_calls"] / n,
                     "target_s": TARGET_SECONDS,
                     "target_met_wall": bool(whole_wall < TARGET_SECONDS),
                     "target_met_cpu": bool(whole_cpu < TARGET_SECONDS)},
        "prefix": {"jobs": len(prefix), "compiled_wall_s": fast_wall,
                   "compiled_cpu_s": fast_cpu, "compiled_calls": prefix_calls,
                   "reference_wall_s": ref_wall, "reference_cpu_s": ref_cpu,
                   "speedup": ref_wall / fast_wall, "same_schedule": same_schedule(fast, slow),
                   "reference_whole_log_s_extrapolated": ref_wall / len(prefix) * n,
                   "reference_whole_log_cpu_s_extrapolated": ref_cpu / len(prefix) * n},
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="SDSC-BLUE-2000-4.2-cln")
    parser.add_argument("--train-days", type=float, default=60.0)
    parser.add_argument("--max-iter", type=int, nargs="+", default=[100, 25],
                        help="boosting iterations of each model measured")
    parser.add_argument("--reference-jobs", type=int, default=3000)
    parser.add_argument("--quick", action="store_true",
                        help="simulate the first 10,000 jobs after training only")
    parser.add_argument("--max-jobs", type=int, help="simulate only this many jobs after training")
    parser.add_argument("--output-dir", default=str(BUILD))
    args = parser.parse_args(argv)
    result = {"provenance": provenance("learned_simulate_speed", argv),
              "load_average_at_start": os.getloadavg()[0], "runs": []}
    for max_iter in args.max_iter:
        result["runs"].append(run(args.trace, train_days=args.train_days, max_iter=max_iter,
                                  reference_jobs=args.reference_jobs,
                                  max_jobs=args.max_jobs or (10_000 if args.quick else None)))
    result["load_average_at_end"] = os.getloadavg()[0]
    write_json(f"{args.output_dir}/learned_simulate_speed.json", result)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()

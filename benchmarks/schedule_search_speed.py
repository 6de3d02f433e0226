"""Time scheduling-level model selection on a whole log.

``GridSearchCV(WalltimeAdjuster(), {"keys": Tang's four, "quantile": ...},
cv=TraceSplit(n_splits, period), scoring=make_schedule_scorer(policy="easy",
metric="bounded_slowdown", history=jobs))`` on a whole trace (default SDSC-BLUE, 232,562
simulable jobs; the target is under 2 minutes), and
:func:`predictkit.model_selection.select_by_schedule` with the built-in
candidate set (every candidate simulated twice: over the jobs before the split, for
the choice, and over the whole log, for the following months). Prints JSON
with the provenance of the run, the wall and CPU times, the jobs simulated
per second and the choices, and writes it to
``build/benchmarks/schedule_search_speed.json``.

Run from the repository root: ``python -m benchmarks.schedule_search_speed
[--trace NAME] [--n-splits 3] [--quantiles 0.7 0.85 0.95] [--max-jobs N]
[--scorer history fold] [--no-select] [--no-grid]``
"""

import argparse
import json
import sys
import time

import numpy as np

from benchmarks._common import BUILD, provenance, trace_file, write_json
from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.model_selection import (TraceSplit, make_schedule_scorer, schedule_candidates,
                                        select_by_schedule)
from predictkit.runtime import WalltimeAdjuster

TANG_KEYS = [("user_id",), ("group_id",), ("user_id", "group_id"),
             ("user_id", "group_id", "req_time")]


def load(name, max_jobs):
    jobs = clean_jobs(read_swf(trace_file(name)), for_simulation=True, require_request=True)
    if max_jobs is not None:
        attrs = dict(jobs.attrs)
        jobs = jobs.iloc[:max_jobs].reset_index(drop=True)
        jobs.attrs = attrs
    if "group_id" in jobs.columns:
        jobs["group_id"] = jobs["group_id"].fillna(-1.0)
    return jobs


def grid_search(jobs, machine, n_splits, quantiles, mode):
    from sklearn.model_selection import GridSearchCV

    cv = TraceSplit(n_splits=n_splits, period="30D")
    folds = [len(test) for _, test in cv.split(jobs)]
    history = jobs if mode == "history" else None
    submit = jobs["submit_time"].to_numpy()
    # with history=, each fold is simulated after every job before it
    simulated_per_candidate = sum(int((submit <= submit[test].max()).sum())
                                  for _, test in cv.split(jobs)) if history is not None \
        else sum(folds)
    search = GridSearchCV(
        WalltimeAdjuster(), {"keys": TANG_KEYS, "quantile": list(quantiles)}, cv=cv,
        scoring=make_schedule_scorer(policy="easy", metric="bounded_slowdown",
                                     machine_procs=machine, history=history),
        refit=False)
    wall, cpu = time.perf_counter(), time.process_time()
    search.fit(jobs, jobs["run_time"])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n_candidates = len(search.cv_results_["params"])
    simulated = n_candidates * simulated_per_candidate
    return dict(scorer=mode, n_candidates=n_candidates, n_splits=n_splits, fold_jobs=folds,
                wall_s=wall, cpu_s=cpu, jobs_simulated=simulated,
                jobs_per_s=simulated / wall,
                best_params={k: list(v) if isinstance(v, tuple) else v
                             for k, v in search.cv_results_["params"][
                                 int(np.argmax(search.cv_results_["mean_test_score"]))].items()},
                best_mean_bounded_slowdown=-float(search.cv_results_["mean_test_score"].max()))


def selection(jobs, machine, test_periods):
    candidates = schedule_candidates()
    wall, cpu = time.perf_counter(), time.process_time()
    found = select_by_schedule(jobs, candidates, test_periods=test_periods, machine_procs=machine)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    runs = len(found.table)
    past = int((jobs["submit_time"].to_numpy() < found.split_time).sum())
    simulated = runs * (past + len(jobs))
    return dict(n_candidates=len(candidates), runs=runs, simulations=2 * runs,
                wall_s=wall, cpu_s=cpu, jobs_simulated=simulated,
                jobs_per_s=simulated / wall, chosen=found.chosen.name,
                chosen_test_score=found.chosen_test_score,
                easy_pp_test_score=found.baseline_test_score)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trace", default="SDSC-BLUE-2000-4.2-cln")
    parser.add_argument("--n-splits", type=int, default=3)
    parser.add_argument("--quantiles", type=float, nargs="+", default=[0.7, 0.85, 0.95])
    parser.add_argument("--max-jobs", type=int)
    parser.add_argument("--test-periods", type=int, default=3)
    parser.add_argument("--scorer", nargs="+", choices=("history", "fold"),
                        default=["history"],
                        help="history: each fold simulated after the jobs before it "
                             "(make_schedule_scorer(history=jobs)); fold: the fold alone, "
                             "with the fitted estimator")
    parser.add_argument("--no-grid", action="store_true")
    parser.add_argument("--no-select", action="store_true")
    args = parser.parse_args(argv)
    jobs = load(args.trace, args.max_jobs)
    machine = int(jobs.attrs.get("max_procs") or jobs["n_procs"].max())
    result = dict(provenance=provenance("schedule_search_speed", argv), trace=args.trace,
                  n_jobs=len(jobs), machine_procs=machine)
    if not args.no_grid:
        result["grid_search"] = []
        for mode in args.scorer:
            result["grid_search"].append(grid_search(jobs, machine, args.n_splits,
                                                     args.quantiles, mode))
            print(f"grid search ({mode}): {result['grid_search'][-1]['wall_s']:.1f} s",
                  file=sys.stderr, flush=True)
    if not args.no_select:
        result["select_by_schedule"] = selection(jobs, machine, args.test_periods)
    write_json(BUILD / "schedule_search_speed.json", result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Speed and memory of the simulator: jobs simulated per second for each policy.

Measured on SDSC-BLUE (the target trace of the speed goals), on the largest
shared trace, and on a synthetic 1,000,000-job workload; compared, on the
first jobs of SDSC-BLUE, with the plain reference simulator of the tests
(``tests/simulate/reference.py``). Prints JSON, with the provenance of the
run, and writes it to ``build/benchmarks/simulate_speed.json``. CPU time
(``process_time``) is reported next to wall time because the machine may be
shared.

Run from the repository root: ``python -m benchmarks.simulate_speed [--quick]``

``--planning`` instead times only the policies that plan ahead (conservative,
EASY with reservation depths 4 and 16) against EASY on the whole of the
overloaded RICC-2010-2, in one process, and writes
``build/benchmarks/simulate_planning.json`` (key ``"planning"``).

``--compare-with OTHER_CHECKOUT`` instead times every policy on one trace
(``--trace``, default SDSC-BLUE) with this checkout and another one (e.g. the
main branch, to show a change loses no speed), in two worker processes driven
in turn, and reports the best CPU time of ``--repeat`` runs of each.
"""

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks._common import BUILD, REPO, provenance, trace_file, write_json
from predictkit.io import read_swf
from predictkit.simulate import POLICIES as POLICY_NAMES
from predictkit.simulate import simulate
from predictkit.jobs import clean_jobs

POLICIES = [(name, None) for name in POLICY_NAMES] + [("easy", 4)]


def timed(func, repeat=3):
    best_wall = best_cpu = np.inf
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = func()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return result, best_wall, best_cpu


def load(name):
    jobs = clean_jobs(read_swf(trace_file(name)), for_simulation=True, require_request=True)
    return jobs, {r["rule"]: r["removed"] for r in jobs.attrs["cleaning"] if r["removed"]}


def synthetic(n, seed=0):
    rng = np.random.default_rng(seed)
    run = np.exp(rng.normal(7.0, 1.8, n)).round()
    jobs = pd.DataFrame(dict(
        job_id=np.arange(1, n + 1),
        submit_time=np.cumsum(rng.exponential(430.0, n)).round(),  # offered load ~0.7
        run_time=run, n_procs=2.0 ** rng.integers(0, 9, n),
        req_time=np.maximum(run * rng.uniform(1.0, 5.0, n), 60.0).round(),
        user_id=rng.integers(0, 500, n).astype(float)))
    jobs.attrs["max_procs"] = 1024
    return jobs


def speed(jobs, label, repeat, caps=None):
    rows = []
    for policy, depth in POLICIES:
        name = policy if depth is None else f"{policy}-depth{depth}"
        part = jobs
        if caps and name in caps:
            part = jobs.iloc[:caps[name]]
            part.attrs = dict(jobs.attrs)
        _, wall, cpu = timed(lambda: simulate(part, policy=policy, reservation_depth=depth),
                             repeat)
        rows.append(dict(workload=label if part is jobs else f"{label} (first {len(part)} jobs)",
                         policy=name, n_jobs=len(part), wall_s=wall, cpu_s=cpu,
                         jobs_per_s_wall=len(part) / wall, jobs_per_s_cpu=len(part) / cpu))
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def versus_reference(jobs, n, n_conservative):
    from tests.simulate.reference import reference_simulate

    rows = []
    for policy, depth in POLICIES:
        size = n_conservative if policy == "conservative" else n
        part = jobs.iloc[:size].reset_index(drop=True)
        part.attrs = dict(jobs.attrs)
        machine = int(part.attrs["max_procs"])
        req = part["req_time"].to_numpy()
        dur = np.minimum(part["run_time"].to_numpy(), req)
        width = part["n_procs"].to_numpy().astype(int)
        est = np.maximum(req, 1.0)
        ref_policy = {"no_guarantee": "depth"}.get(policy, policy)
        ref_depth = 0 if policy == "no_guarantee" else (depth or 1)
        if depth and depth > 1:
            ref_policy = "depth"
        _, ref_wall, ref_cpu = timed(lambda: reference_simulate(
            part["submit_time"].to_numpy(), dur, width, est, None, req,
            part["user_id"].to_numpy(), machine, policy=ref_policy, depth=ref_depth), 1)
        _, wall, cpu = timed(lambda: simulate(part, policy=policy, reservation_depth=depth))
        rows.append(dict(policy=policy if depth is None else f"{policy}-depth{depth}",
                         n_jobs=size, reference_cpu_s=ref_cpu, fast_cpu_s=cpu,
                         speedup=ref_cpu / cpu))
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


PLANNING = [("easy", None), ("conservative", None), ("easy", 4), ("easy", 16)]
PLANNING_TARGET = 0.1
"""Planning policies should simulate at least this fraction of EASY's jobs per second."""


def planning(jobs, workload):
    """Jobs per second of each :data:`PLANNING` case on ``jobs``, and its ratio to EASY's."""
    rows = []
    for policy, depth in PLANNING:
        _, wall, cpu = timed(lambda: simulate(jobs, policy=policy, reservation_depth=depth), 1)
        rows.append(dict(workload=workload, policy=label(policy, depth), n_jobs=len(jobs),
                         wall_s=wall, cpu_s=cpu, jobs_per_s_cpu=len(jobs) / cpu))
        print(json.dumps(rows[-1]), file=sys.stderr)
    easy = rows[0]["jobs_per_s_cpu"]
    for row in rows:
        row["ratio_to_easy"] = row["jobs_per_s_cpu"] / easy
        row["meets_target"] = row["ratio_to_easy"] >= PLANNING_TARGET
    return dict(target_ratio=PLANNING_TARGET, rows=rows)


def memory(jobs):
    tracemalloc.start()
    simulate(jobs, policy="easy")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def label(policy, depth):
    return policy if depth is None else f"{policy}-depth{depth}"


def worker(jobs_file):
    """Serve timing requests ``policy depth`` (one per line) on stdin."""
    with open(jobs_file, "rb") as handle:
        jobs = pickle.load(handle)
    simulate(jobs.iloc[:1000], policy="easy")  # load the compiled code
    for line in sys.stdin:
        policy, depth = line.split()
        depth = None if depth == "-" else int(depth)
        cpu = time.process_time()
        simulate(jobs, policy=policy, reservation_depth=depth)
        print(json.dumps({"cpu_s": time.process_time() - cpu}), flush=True)


def compare(other, trace, repeat, only=None):
    """Best CPU time per policy here and in ``other``, measured in turn."""
    cases = [case for case in POLICIES if only is None or label(*case) in only]
    jobs, _ = load(trace)
    trees = {"this": REPO, "other": Path(other).resolve()}
    with tempfile.TemporaryDirectory() as folder:
        jobs_file = Path(folder) / "jobs.pkl"
        with open(jobs_file, "wb") as handle:
            pickle.dump(jobs, handle)
        workers = {
            name: subprocess.Popen(
                [sys.executable, __file__, "--worker", str(jobs_file)], cwd=root,
                env={**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{REPO}"},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True)
            for name, root in trees.items()}
        best = {}
        for round_ in range(repeat):
            for policy, depth in cases:
                # alternate which checkout goes first, so drifts in load cancel out
                for name in (sorted(trees) if round_ % 2 else sorted(trees, reverse=True)):
                    process = workers[name]
                    process.stdin.write(f"{policy} {'-' if depth is None else depth}\n")
                    process.stdin.flush()
                    cpu = json.loads(process.stdout.readline())["cpu_s"]
                    key = (label(policy, depth), name)
                    best[key] = min(best.get(key, np.inf), cpu)
        for process in workers.values():
            process.stdin.close()
            process.wait()
    rows = []
    for policy, depth in cases:
        name = label(policy, depth)
        this, other_cpu = best[(name, "this")], best[(name, "other")]
        rows.append(dict(workload=trace, n_jobs=len(jobs), policy=name,
                         this_cpu_s=this, other_cpu_s=other_cpu,
                         change_pct=100.0 * (this - other_cpu) / other_cpu))
        print(json.dumps(rows[-1]), file=sys.stderr)
    return dict(this=str(trees["this"]), other=str(trees["other"]), repeat=repeat, rows=rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one repeat, 200k synthetic jobs")
    parser.add_argument("--compare-with", metavar="CHECKOUT",
                        help="time each policy here and in another checkout, in turn")
    parser.add_argument("--trace", default="SDSC-BLUE-2000-4.2-cln",
                        help="trace of --compare-with (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs per policy and checkout with --compare-with (best kept)")
    parser.add_argument("--only", nargs="+", metavar="POLICY",
                        help="with --compare-with: only these (e.g. conservative easy-depth4)")
    parser.add_argument("--planning", action="store_true",
                        help="only conservative and depth-k against EASY on the whole RICC-2010-2")
    parser.add_argument("--worker", metavar="JOBS_PICKLE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if args.planning:
        simulate(synthetic(1000), policy="conservative")  # compile / load the cache
        simulate(synthetic(1000), policy="easy", reservation_depth=4)
        ricc, dropped = load("RICC-2010-2")
        out = {"provenance": provenance("simulate_speed", sys.argv[1:]),
               "dropped": {"RICC-2010-2": dropped}, "planning": planning(ricc, "RICC-2010-2")}
        write_json(BUILD / "simulate_planning.json", out)
        print(json.dumps(out, indent=2))
        return
    if args.compare_with:
        print(json.dumps(compare(args.compare_with, args.trace, args.repeat, args.only), indent=2))
        return
    repeat = 1 if args.quick else 3
    simulate(synthetic(1000), policy="easy")  # compile / load the cache
    out = {"provenance": provenance("simulate_speed", sys.argv[1:]), "speed": [],
           "reference": [], "skipped": {}}
    blue, dropped = load("SDSC-BLUE-2000-4.2-cln")
    out["dropped"] = {"SDSC-BLUE-2000-4.2-cln": dropped}
    out["speed"] += speed(blue, "SDSC-BLUE-2000-4.2-cln", repeat)
    largest = "RICC-2010-2"
    ricc, dropped = load(largest)
    out["dropped"][largest] = dropped
    # RICC is heavily overloaded (queues of thousands of jobs): the policies that
    # plan with a profile (O(queue x profile) per pass) run on a prefix
    out["speed"] += speed(ricc, largest, 1, caps={"conservative": 20_000, "no_guarantee": 100_000,
                                                 "easy-depth4": 20_000})
    # ... and on the whole log against EASY, in one process (``--planning``)
    out["planning"] = planning(ricc, largest)
    n = 200_000 if args.quick else 1_000_000
    big = synthetic(n)
    out["speed"] += speed(big, f"synthetic-{n}", 1)
    out["peak_traced_bytes_easy_synthetic"] = memory(big)
    out["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # the reference is O(n^2)-ish: 20,000 jobs (5,000 for conservative, ~6 min otherwise)
    out["reference"] = versus_reference(blue, 20_000, 5_000)
    write_json(BUILD / "simulate_speed.json", out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

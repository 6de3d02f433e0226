"""How much a user's consecutive jobs repeat their runtime: the default workload against real logs.

Runtime predictors that learn from a user's last jobs (Tsafrir, Etsion &
Feitelson's recent average; Klusacek & Soysal's usage maximum) work because
real users submit the same job again and again. This measures that
repetition on ``make_workload``'s default workload (seeds 0 to ``--seeds`` -
1, ``--jobs`` jobs each) and on every shared log with user ids and runtimes:
for each pair of a user's consecutive jobs (by submit time, runtime > 0),
``|log10(run_2 / run_1)|``; reported as its median, the share of pairs within
12% of each other (< 0.05) and within a factor of 2 (< 0.3), and the
correlation of the two log-runtimes. Online predictors see a runtime only
once the job has ended, so it also reports the share of pairs whose second
job was submitted after the first one ran (``submit_1 + run_1``, without the
wait, which a synthetic workload does not have yet).

``summary`` says whether the synthetic median ratio and after-run share lie
within the logs' range. Run from the repository
root: ``python -m benchmarks.workload_locality [--jobs 50000] [--seeds 5]``;
prints JSON (and writes it with ``--output``).
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import predictkit
from predictkit.workload import make_workload

from benchmarks._common import provenance, traces_dir, write_json


def repetition(jobs):
    """The statistics of a user's consecutive runtimes (see the module docstring), or
    None when the table has no two consecutive jobs of one user."""
    known = (jobs["run_time"] > 0) & jobs["user_id"].notna() & (jobs["user_id"] >= 0)
    own = jobs[known].sort_values(["user_id", "submit_time"], kind="stable")
    log_run = np.log10(own["run_time"].to_numpy(dtype=float))
    user = own["user_id"].to_numpy()
    same = user[1:] == user[:-1]
    if not same.any():
        return None
    earlier, later = log_run[:-1][same], log_run[1:][same]
    step = np.abs(later - earlier)
    submit = own["submit_time"].to_numpy(dtype=float)
    ended = submit[:-1] + own["run_time"].to_numpy(dtype=float)[:-1]
    spread = earlier.std() > 0 and later.std() > 0
    return {"pairs": int(same.sum()),
            "median_abs_log10_ratio": float(np.median(step)),
            "share_within_12pct": float(np.mean(step < 0.05)),
            "share_within_2x": float(np.mean(step < 0.3)),
            "correlation": float(np.corrcoef(earlier, later)[0, 1]) if spread else None,
            "share_after_run": float(np.mean(submit[1:][same] >= ended[same]))}


def _ranges(result, key):
    """The synthetic seeds' and the logs' range of ``key``, and whether the first lies in the
    second."""
    synthetic = [s[key] for s in result["synthetic"].values()]
    real = [s[key] for s in result["logs"].values()]
    if not synthetic or not real:
        return {"synthetic": synthetic or None, "real": real or None}
    return {"synthetic": [min(synthetic), max(synthetic)], "real": [min(real), max(real)],
            "synthetic_within_real": bool(min(real) <= min(synthetic)
                                          and max(synthetic) <= max(real))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=50_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    result = {"provenance": provenance("workload_locality", sys.argv[1:] if argv is None else argv),
              "synthetic": {}, "logs": {}, "skipped": {}}
    for seed in range(args.seeds):
        result["synthetic"][f"seed {seed}"] = repetition(
            make_workload(args.jobs, random_state=seed))
    folder = traces_dir()
    for path in sorted(folder.glob("*.swf*")) if folder else []:
        jobs = predictkit.read_swf(path)
        found = repetition(jobs)
        name = path.name.split(".swf")[0]
        if found is None:
            result["skipped"][name] = "no two consecutive jobs of one known user with a runtime"
        else:
            result["logs"][name] = found
    if folder is None:
        result["skipped"]["all logs"] = "no shared traces found (set PREDICTKIT_TRACES)"
    result["summary"] = {key: _ranges(result, key)
                         for key in ("median_abs_log10_ratio", "share_after_run")}
    if args.output:
        write_json(args.output, result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

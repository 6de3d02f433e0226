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
within the logs' range. With ``--fitted`` it also fits a ``SiteModel`` to
every log (its jobs with a runtime, width and request, as ``simulate`` cleans them),
generates as many jobs (at most ``--jobs``) from it and compares that
workload's statistics with the log's (logs without requests are skipped: a
site's request model needs them): ``fitted_summary`` gives, per
statistic, the median and largest distance to the logs of the default
workload (seed 0) and of the fitted sites. Four statistics are fitted
(``predictkit.workload._session_fit.FIT_PAIRS``); the median ratio and the
correlation are not, and check the fit. Run from the repository
root: ``python -m benchmarks.workload_locality [--jobs 50000] [--seeds 5]
[--fitted]``;
prints JSON (and writes it with ``--output``).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import predictkit
from predictkit.jobs import clean_jobs
from predictkit.workload import SiteModel, make_workload, runtime_locality
from predictkit.workload._locality import LOCALITY_STATISTICS

from benchmarks._common import provenance, traces_dir, write_json


def fitted_site(kept, max_jobs):
    """A site fitted to ``kept`` (cleaned jobs with requests): its session parameters,
    fitting time and the locality of as many jobs (at most ``max_jobs``) generated from it."""
    started = time.perf_counter()
    site = SiteModel(random_state=0).fit(kept)
    seconds = time.perf_counter() - started
    generated = make_workload(min(len(kept), max_jobs), site=site, random_state=1)
    return {"sessions": {name: round(value, 4) for name, value in site.sessions_._asdict().items()},
            "fit_seconds": round(seconds, 1), "jobs": len(generated),
            "locality": runtime_locality(generated)}


def _fitted_summary(result):
    """Per statistic, the median and largest distance to the logs of the default workload
    (seed 0) and of the sites fitted to them."""
    default = result["synthetic"].get("seed 0")
    summary = {}
    for key in LOCALITY_STATISTICS:
        pairs = [(log[key], default[key] if default else None,
                  result["fitted"][name]["locality"][key])
                 for name, log in result["logs"].items()
                 if log[key] is not None and name in result["fitted"]]
        entry = {}
        for label, column in (("default", 1), ("fitted", 2)):
            gaps = [abs(row[column] - row[0]) for row in pairs if row[column] is not None]
            if gaps:
                entry[label] = {"median": round(float(np.median(gaps)), 4),
                                "largest": round(float(np.max(gaps)), 4)}
        summary[key] = entry
    return summary


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
    parser.add_argument("--fitted", action="store_true",
                        help="also fit a site to every log and compare its workload")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    result = {"provenance": provenance("workload_locality", sys.argv[1:] if argv is None else argv),
              "synthetic": {}, "logs": {}, "skipped": {}}
    for seed in range(args.seeds):
        result["synthetic"][f"seed {seed}"] = runtime_locality(
            make_workload(args.jobs, random_state=seed))
    folder = traces_dir()
    for path in sorted(folder.glob("*.swf*")) if folder else []:
        jobs = predictkit.read_swf(path)
        found = runtime_locality(jobs)
        name = path.name.split(".swf")[0]
        if found is None:
            result["skipped"][name] = "no two consecutive jobs of one known user with a runtime"
            continue
        result["logs"][name] = found
        if args.fitted:
            kept = clean_jobs(jobs, for_simulation=True, require_request=True)
            if len(kept):
                result.setdefault("fitted", {})[name] = fitted_site(kept, args.jobs)
            else:
                result["skipped"][f"{name} (fitted site)"] = (
                    "no job with a runtime, width and request to fit a site to")
    if folder is None:
        result["skipped"]["all logs"] = "no shared traces found (set PREDICTKIT_TRACES)"
    result["summary"] = {key: _ranges(result, key)
                         for key in ("median_abs_log10_ratio", "share_after_run")}
    if args.fitted and result["logs"]:
        result["fitted_summary"] = _fitted_summary(result)
    if args.output:
        write_json(args.output, result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Section 11 of Tsafrir, Etsion & Feitelson (2005) on every shared trace with estimates.

For each trace (its first ``--jobs`` jobs with a known request and runtime),
replace the requests with each model's estimates and report

* the Kolmogorov-Smirnov distance between generated and real estimate CDFs
  (section 11.1, Figs. 14-15), and
* EASY's average wait and average bounded slowdown (threshold 10 s) from
  predictkit's simulator, mean and absolute deviation over ``--seeds`` seeds
  (section 11.3, Fig. 16), next to the original estimates.

Models: vanilla (t_max, N, p_max), improved with the log's top 1-3 other
modes, f-model f in {0, 1, 3, 10, 100, 300}, phi-model, X2, shuffle, and two
session-aware assignments (the paper's future work): "sessions" (improved-3
modes, one estimate per user session) and "shuffle+sessions" (the real
estimates shuffled between sessions).

Runtimes are capped at ``min(request, t_max)`` first (the reference
truncates runtimes above t_max; jobs running past their request were killed
at it), so every model sees the same jobs. Prints JSON and writes
``estimate_models.json`` (every row, with the provenance of the run), and
``estimate_models.md`` and ``estimate_models.csv`` rendered from it, into
``--output-dir`` (default ``build/benchmarks/``). ``--from-json`` renders the
page and the CSV again from a saved JSON. The page's hand-written reading of
the results is the JSON's ``reading`` field: a new run carries it over from
``docs/results/estimate_models.json``; edit it there when the numbers change.

Run from the repository root: ``python -m benchmarks.estimate_models
[--jobs 10000] [--seeds 20] [--traces NAME ...] [--output-dir DIR]
[--from-json PATH]``
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.simulate import simulate
from predictkit.workload import (DoubledEstimates, FModel, PhiModel, ShuffledEstimates,
                                 TsafrirEstimates)

from benchmarks._common import (RESULTS, parse_or_render, provenance,
                                provenance_lines, read_json, trace_file, traces_dir, write_json,
                                write_text)

MACHINE_PROCS = {"RICC-2010-2": 8192}
"""Machine sizes of logs without a header (from the archive's description of the log)."""
QUIET_WAIT = 60.0
"""Traces whose original average wait is below this (s) have no queue to speak of."""


def load(name, n_jobs):
    jobs = clean_jobs(read_swf(trace_file(name)), for_simulation=True, require_request=True)
    attrs = dict(jobs.attrs)
    jobs = jobs.iloc[:n_jobs].reset_index(drop=True)
    jobs.attrs = attrs
    if "max_procs" not in jobs.attrs and name in MACHINE_PROCS:
        jobs.attrs["max_procs"] = MACHINE_PROCS[name]
    base = TsafrirEstimates(n_fit_modes=0).fit(jobs)
    jobs["run_time"] = np.minimum(jobs["run_time"], np.minimum(jobs["req_time"], base.t_max_))
    return jobs, base.t_max_, base.p_max_


def models(t_max, p_max):
    """(label, factory(seed) -> model, random?) in the order of Fig. 16."""
    out = [("vanilla", lambda s: TsafrirEstimates(t_max=t_max, p_max=p_max, n_fit_modes=0,
                                                  random_state=s), True)]
    for k in (1, 2, 3):
        out.append((f"improved-{k}", lambda s, k=k: TsafrirEstimates(
            t_max=t_max, n_fit_modes=k, random_state=s), True))
    for f in (0, 1, 3, 10, 100, 300):
        out.append((f"f{f}", lambda s, f=f: FModel(f=f, random_state=s), f != 0))
    out += [
        ("phi", lambda s: PhiModel(t_max=max(t_max, 86400.0), random_state=s), True),
        ("x2", lambda s: DoubledEstimates(), False),
        ("shuffle", lambda s: ShuffledEstimates(random_state=s), True),
        ("sessions", lambda s: TsafrirEstimates(t_max=t_max, n_fit_modes=3,
                                                assignment="sessions", random_state=s), True),
        ("shuffle+sessions", lambda s: ShuffledEstimates(assignment="sessions",
                                                         random_state=s), True),
    ]
    return out


def easy(jobs):
    done = simulate(jobs, policy="easy", estimates="requested").jobs
    wait = done["wait_time"].to_numpy(float)
    run = done["run_time"].to_numpy(float)
    bsld = np.maximum((wait + run) / np.maximum(run, 10.0), 1.0)
    return float(wait.mean()), float(bsld.mean())


def needs_sessions(label):
    return "sessions" in label


def run_trace(name, n_jobs, seeds):
    jobs, t_max, p_max = load(name, n_jobs)
    has_users = jobs["user_id"].notna().all()
    real = jobs["req_time"].to_numpy(float)
    wait0, bsld0 = easy(jobs)
    rows = [{"trace": name, "model": "original", "ks": 0.0, "wait": wait0, "wait_dev": 0.0,
             "bsld": bsld0, "bsld_dev": 0.0, "runs": 1}]
    for label, factory, random in models(t_max, p_max):
        if needs_sessions(label) and not has_users:
            continue
        fitted = factory(0).fit(jobs)
        ks, waits, bslds = [], [], []
        for seed in (seeds if random else [0]):
            model = fitted.set_params(random_state=seed) if random else fitted
            out = model.transform(jobs)
            ks.append(ks_2samp(out["req_time"], real, method="asymp").statistic)
            w, b = easy(out)
            waits.append(w)
            bslds.append(b)
        waits, bslds = np.array(waits), np.array(bslds)
        rows.append({"trace": name, "model": label, "ks": float(np.mean(ks)),
                     "wait": float(waits.mean()),
                     "wait_dev": float(np.abs(waits - waits.mean()).mean()),
                     "bsld": float(bslds.mean()),
                     "bsld_dev": float(np.abs(bslds - bslds.mean()).mean()),
                     "runs": len(waits)})
    info = {"trace": name, "jobs": len(jobs), "t_max_h": t_max / 3600, "p_max": p_max,
            "users": bool(has_users), "n_procs": jobs.attrs.get("max_procs"),
            "queue": wait0 >= QUIET_WAIT}
    return rows, info


def usable_traces():
    manifest = pd.read_csv(traces_dir() / "MANIFEST.tsv", sep="\t")
    skipped = {}
    names = []
    for row in manifest.itertuples():
        if row.frac_req_time_present == 0:
            skipped[row.name] = "no requested times"
        else:
            names.append(row.name)
    return names, skipped


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--traces", nargs="*")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return
    made = provenance("estimate_models", argv)
    names, skipped = usable_traces()
    if args.traces:
        names = [n for n in names if n in args.traces]
    rows, infos = [], []
    started = time.perf_counter()
    for name in names:
        t0 = time.perf_counter()
        trace_rows, info = run_trace(name, args.jobs, list(range(args.seeds)))
        info["seconds"] = round(time.perf_counter() - t0, 1)
        rows += trace_rows
        infos.append(info)
        print(f"{name}: {info['seconds']} s", file=sys.stderr)
    result = {"provenance": made, "jobs_per_trace": args.jobs,
              "seeds": args.seeds, "traces": infos, "skipped": skipped,
              "seconds": round(time.perf_counter() - started, 1), "results": rows,
              "reading": kept_reading(RESULTS / "estimate_models.json")}
    print(json.dumps(result, indent=1))
    write_json(args.output_dir / "estimate_models.json", result)
    render(result, args.output_dir)


def closeness(table, infos):
    """Per trace with a queue: relative distance of each model's wait and slowdown to
    the original."""
    queued = {info["trace"] for info in infos if info.get("queue", True)}
    out = []
    for name, part in table.groupby("trace", sort=False):
        if name not in queued:
            continue
        orig = part[part["model"] == "original"].iloc[0]
        for row in part.itertuples():
            out.append({"trace": name, "model": row.model,
                        "wait_err": abs(row.wait - orig.wait) / orig.wait,
                        "bsld_err": abs(row.bsld - orig.bsld) / orig.bsld})
    return pd.DataFrame(out)


def conclusions(err, table):
    """Count the traces on which each claim of section 11 holds (wait and slowdown)."""
    claims = [
        ("the modal model (vanilla or improved-1..3) is closer to the original than every "
         "f-model with f >= 1", ["vanilla", "improved-1", "improved-2", "improved-3"],
         ["f1", "f3", "f10", "f100", "f300"], "all"),
        ("the modal model is closer than the phi-model", ["vanilla", "improved-1", "improved-2",
                                                          "improved-3"], ["phi"], "all"),
        ("exact estimates (f0) are closer than the f-model with f >= 1 (section 12: 'perfect "
         "accuracy is almost always closer to the truth')", ["f0"],
         ["f1", "f3", "f10", "f100", "f300"], "all"),
        ("the improved model is closer to shuffle than the vanilla model (section 11.3)",
         None, None, "shuffle"),
        ("the session-aware assignment (sessions) is closer to the original than improved-3",
         ["sessions"], ["improved-3"], "all"),
        ("shuffle+sessions is closer to the original than shuffle", ["shuffle+sessions"],
         ["shuffle"], "all"),
    ]
    lines = ["Number of traces where each claim holds, judged on the relative distance of "
             "the average wait and of the average bounded slowdown to the original "
             "estimates' (both columns must agree for 'both').", "",
             "| claim | wait | slowdown | both | traces |", "|---|---|---|---|---|"]
    for text, ours, theirs, kind in claims:
        counts = {"wait_err": 0, "bsld_err": 0, "both": 0}
        n = 0
        for name, part in err.groupby("trace", sort=False):
            get = part.set_index("model")
            if kind == "shuffle":
                metrics = table[table["trace"] == name].set_index("model")
                if not {"shuffle", "vanilla", "improved-3"} <= set(metrics.index):
                    continue
                ok = {}
                for col, raw in (("wait_err", "wait"), ("bsld_err", "bsld")):
                    ref = metrics.loc["shuffle", raw]
                    ok[col] = (abs(metrics.loc["improved-3", raw] - ref)
                               < abs(metrics.loc["vanilla", raw] - ref))
            else:
                if not set(ours + theirs) <= set(get.index):
                    continue
                ok = {col: get.loc[ours, col].min() < get.loc[theirs, col].min()
                      for col in ("wait_err", "bsld_err")}
            n += 1
            counts["wait_err"] += ok["wait_err"]
            counts["bsld_err"] += ok["bsld_err"]
            counts["both"] += ok["wait_err"] and ok["bsld_err"]
        lines.append(f"| {text} | {counts['wait_err']} | {counts['bsld_err']} | "
                     f"{counts['both']} | {n} |")
    return lines


READING = ("<!-- reading -->", "<!-- /reading -->")


def kept_reading(path):
    """The hand-written interpretation in an earlier run's JSON, kept across runs."""
    if path.exists():
        reading = read_json(path).get("reading")
        if reading:
            return reading
    return [READING[0], "(interpretation to be written)", READING[1]]


def render(result, out_dir):
    """Write ``estimate_models.md`` and ``.csv`` of a result (a run's JSON) into ``out_dir``."""
    table = pd.DataFrame(result["results"])
    infos, skipped = result["traces"], result["skipped"]
    jobs, seeds = result["jobs_per_trace"], result["seeds"]
    lines = ["# Estimate models on the shared traces (Tsafrir et al. 2005, section 11)", "",
             *provenance_lines(result, "estimate_models"),
             f"The first {jobs:,} jobs of each trace with a known request "
             "and runtime (runtimes capped at min(request, t_max)); EASY backfilling with "
             "requests as estimates; random models averaged over "
             f"{seeds} seeds (± absolute deviation). KS = Kolmogorov-Smirnov distance "
             "between the generated and the real estimate distributions. Bounded slowdown "
             "uses a 10 s threshold.", "",
             "`t_max` and `p_max` are learned from those jobs (`TsafrirEstimates.fit`: the "
             "longest of the 20 most popular requests and its share). Traces whose original "
             f"average wait is below {QUIET_WAIT:g} s have no queue: every model gives the "
             "same schedule there, so they are listed but left out of the summary and the "
             "claims.", "",
             "| trace | jobs | machine procs | t_max (h) | p_max (%) | queue | seconds |",
             "|---|---|---|---|---|---|---|"]
    for info in infos:
        lines.append(f"| {info['trace']} | {info['jobs']:,} | {info.get('n_procs') or 'widest job'}"
                     f" | {info['t_max_h']:.4g} | {info['p_max']:.1f} | "
                     f"{'yes' if info.get('queue', True) else 'no'} | {info['seconds']} |")
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()) + "."]
    err = closeness(table, infos)
    summary = err.groupby("model", sort=False)[["wait_err", "bsld_err"]].median()
    ks = table.groupby("model", sort=False)["ks"].median()
    lines += ["", "## Summary over traces (median)", "",
              "Relative distance of the average wait / bounded slowdown to the original "
              "estimates' (smaller is more realistic), and median KS distance.", "",
              "| model | wait error | slowdown error | KS |", "|---|---|---|---|"]
    for model, row in summary.iterrows():
        lines.append(f"| {model} | {row.wait_err:.2f} | {row.bsld_err:.2f} | {ks[model]:.3f} |")
    lines += ["", "## Where the paper's conclusions hold", ""] + conclusions(err, table)
    lines += ["", *result["reading"]]
    for name, part in table.groupby("trace", sort=False):
        lines += ["", f"## {name}", "", "| model | KS | avg wait (s) | avg bounded slowdown |",
                  "|---|---|---|---|"]
        for row in part.itertuples():
            lines.append(f"| {row.model} | {row.ks:.3f} | {row.wait:,.0f} ± {row.wait_dev:,.0f}"
                         f" | {row.bsld:,.2f} ± {row.bsld_dev:,.2f} |")
    lines.append("")
    write_text(Path(out_dir) / "estimate_models.md", "\n".join(lines))
    write_text(Path(out_dir) / "estimate_models.csv", table.to_csv(index=False))


if __name__ == "__main__":
    main()

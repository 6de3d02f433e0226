"""The VARQ simulation experiment (Nurmi et al. 2008, sections 4.4-4.5, Tables 3-4).

On every shared trace with requested times, jobs submitted in a window of
``--days`` days starting ``--start-day`` days into the log become VARQ
requests with probability 0.10, 0.50 or 0.95; each asks to be running at the
next 6-hour deadline with success probability 0.5, 0.75 or 0.95. VARQ plans
them on QBETS (default configuration) trained online on the waits of the
VARQ-free simulation; the machine (the trace's size, EASY backfilling, FCFS
order, requested times as estimates) is simulated with the planned
submissions (see :mod:`predictkit.experiments._varq_experiment` for the departures from
the paper). The simulation makes its own waits, so logs without recorded
waits take part; a trace is skipped (and named) when fewer than 90% of its
jobs with a runtime have a requested time, since the others would be left out
of the simulated machine. Writes ``varq.json`` (every row, with the provenance
of the run) and ``varq.md`` (rendered from that JSON alone) into
``--output-dir`` (default ``build/benchmarks/``); prints the JSON.
``--from-json`` renders the page again from a saved JSON.

Run from the repository root: ``python -m benchmarks.varq_experiment [--days 30]
[--start-day 60] [--traces A,B] [--output-dir DIR] [--from-json PATH]``.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit.io import read_swf
from predictkit.experiments import varq_experiment
from benchmarks._common import (parse_or_render, provenance, provenance_lines, traces_dir,
                                write_json, write_text)

MIN_REQUESTED = 0.9


def usable(jobs):
    """Why a trace cannot run the experiment, or None."""
    ran = np.isfinite(jobs["run_time"]).to_numpy()
    if not ran.any():
        return "no job has a runtime"
    have = (np.isfinite(jobs["req_time"]) & (jobs["req_time"] > 0)).to_numpy()[ran].mean()
    if have < MIN_REQUESTED:
        return (f"only {have:.0%} of the jobs with a runtime have a requested time "
                f"(needs {MIN_REQUESTED:.0%}): the rest would vanish from the machine")
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--start-day", type=float, default=60.0)
    parser.add_argument("--traces", default="", help="comma-separated trace names")
    parser.add_argument("--no-write", action="store_true", help="only print JSON")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return 0
    made = provenance("varq_experiment", argv)
    folder = traces_dir()
    if folder is None:
        print(json.dumps({"skipped": "shared traces not found"}))
        return 0
    wanted = set(filter(None, args.traces.split(",")))
    tables, skipped, info = [], {}, {}
    for path in sorted(folder.glob("*.swf*"), key=lambda p: p.stat().st_size):
        name = path.name.split(".swf")[0]
        if wanted and name not in wanted:
            continue
        jobs = read_swf(path)
        why = usable(jobs)
        if why is None:
            span = (jobs["submit_time"].max() - jobs["submit_time"].min()) / 86400
            if span < args.start_day + args.days:
                why = f"the log spans {span:.0f} days, the window ends at day " \
                      f"{args.start_day + args.days:g}"
        if why:
            skipped[name] = why
            print(f"skip {name}: {why}", file=sys.stderr)
            continue
        first = float(jobs["submit_time"].min())
        lo = first + args.start_day * 86400
        started = time.perf_counter()
        table = varq_experiment(jobs, window=(lo, lo + args.days * 86400), random_state=0)
        seconds = time.perf_counter() - started
        info[name] = dict(seconds=round(seconds, 1), n_procs=jobs.attrs.get("max_procs"))
        tables.append(table.assign(trace=name))
        print(f"{name}: {seconds:.0f} s", file=sys.stderr)
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    result = {"provenance": made,
              "window_days": [args.start_day, args.start_day + args.days],
              "skipped": skipped, "traces": info, "rows": table.to_dict(orient="records")}
    result = json.loads(json.dumps(result, default=float))
    if not args.no_write and len(table):
        write_json(args.output_dir / "varq_experiment.json", result)
        render(result, args.output_dir)
    print(json.dumps(result, indent=1))
    return 0


def render(result, out_dir):
    """Write ``varq.md`` of a result (a run's JSON) into ``out_dir``."""
    table = pd.DataFrame(result["rows"])
    skipped, info = result["skipped"], result["traces"]
    first, last = result["window_days"]
    lines = ["# VARQ simulation experiment", "",
             *provenance_lines(result, "varq_experiment"),
             "Requests from jobs submitted "
             f"between day {first:g} and day {last:g} of each "
             "log; start deadline every 6 hours; the trace's machine size, EASY "
             "backfilling, FCFS order, requested times as estimates; VARQ on QBETS "
             "(default configuration, q grid 0.01-0.99, c = 0.95) trained online on the "
             "waits of the VARQ-free simulation, with its queue. Nurmi et al. 2008, "
             "sections 4.4-4.5, Tables 3 and 4 (their simulation used SDSC DataStar, "
             "SDSC-DS-2004 here).", ""]
    if skipped:
        lines += ["Skipped traces:", ""]
        lines += [f"- {name}: {why}" for name, why in skipped.items()]
        lines.append("")
    lines += ["## Summary: predicted and observed success", "",
              "Mean planned probability (predicted) and fraction of accepted "
              "reservations running by their deadline (observed), per trace.", "",
              "| trace | VARQ jobs | p = 0.50 | p = 0.75 | p = 0.95 |", "|---|---|---|---|---|"]
    for (trace, fraction), group in table.groupby(["trace", "fraction"], sort=False):
        cells = [f"{r['predicted']:.2f} / {r['observed']:.2f}" for _, r in group.iterrows()]
        lines.append(f"| {trace} | {100 * fraction:.0f}% | " + " | ".join(cells) + " |")
    lines.append("")
    for trace, group in table.groupby("trace", sort=False):
        lines += [f"## {trace} ({info[trace]['seconds']:.0f} s)", "",
                  "| VARQ jobs | probability | selected | accepted | refused | predicted | "
                  "observed | required node-h | used node-h | ratio | mean wait of others "
                  "(s) | same without VARQ (s) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for _, r in group.iterrows():
            lines.append(
                f"| {100 * r['fraction']:.0f}% | {r['probability']:.2f} | "
                f"{int(r['selected'])} | {int(r['count'])} | {int(r['refused'])} | "
                f"{r['predicted']:.2f} | {r['observed']:.2f} | "
                f"{r['required_node_hours']:.0f} | {r['used_node_hours']:.0f} | "
                f"{r['ratio']:.2f} | {r['mean_wait_others']:.0f} | "
                f"{r['mean_wait_others_baseline']:.0f} |")
        lines.append("")
    lines += ["The paper's Tables 3-4 are the reference for reading these numbers; "
              "QBETS here learns from the VARQ-free schedule (see "
              "predictkit/experiments/_varq_experiment.py).", ""]
    write_text(Path(out_dir) / "varq.md", "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())

"""Correctness and tightness of QBETS wait bounds on every shared trace with waits.

Online replay (``predictkit.model_selection.replay``: a wait is known once its
job has started) of QBETS at ``q`` in {0.5, 0.75, 0.95}, ``c = 0.95``
(Nurmi et al. 2008, section 2.3; the QBETS evaluation of Nurmi, Brevik and
Wolski, JSSPP 2007):

- headline, on the whole trace: the default configuration (runs rule,
  Gaussian-mixture classes, queued jobs older than their bound counted), the
  same without the queue (the paper's information), single-class QBETS (runs
  rule, one class) with and without the queue, and the naive baseline "empirical q quantile of all past waits" (the
  ``ceil(q n)``-th smallest of the ``n`` known waits, no confidence, no
  trimming, no classes);
- grid, on the first ``--grid-jobs`` jobs of each trace (to keep the whole
  benchmark near 20 minutes on two cores): every change-point option (runs,
  ruptures, none) with and without classes, the reference greedy-BIC classes,
  the reference order-statistic index, and the run rule with hit trimming.
  ``ruptures`` runs PELT on block means of each class's last 2000 waits every
  1000 waits added to the class.

Correctness: fraction of jobs with a bound whose wait is at or under it (the
method promises at least ``q``); availability: fraction of jobs that got a
bound; tightness: median and mean of bound / wait over jobs that waited more
than 60 s. Writes ``queue_bounds.json`` (every row, with the provenance of the
run), and ``queue_bounds.md`` and ``queue_bounds.csv`` rendered from it, into
``--output-dir`` (default ``build/benchmarks/``); prints the JSON.
``--from-json`` renders the page and the CSV again from a saved JSON.

Run from the repository root: ``python -m benchmarks.queue_bounds
[--grid-jobs 50000] [--traces A,B] [--output-dir DIR] [--from-json PATH]``.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit.io import read_swf
from predictkit.metrics import bound_summary
from predictkit.model_selection import replay
from predictkit.queue import QBETS
from predictkit.queue._history import SortedHistory
from benchmarks._common import (parse_or_render, provenance, provenance_lines, traces_dir,
                                write_json, write_text)

QUANTILES = (0.5, 0.75, 0.95)
DEFAULT = dict(random_state=0)
SINGLE = dict(clustering=None)
HEADLINE = {
    "runs + auto classes + queue (default)": DEFAULT,
    "runs + auto classes, no queue": dict(queued=None, random_state=0),
    "runs, single class + queue": SINGLE,
    "runs, single class, no queue (paper's single class)": dict(clustering=None, queued=None),
}
GRID = {
    "runs + auto classes + queue (default)": DEFAULT,
    "runs, single class": SINGLE,
    "default, up to 6 mixture components": dict(max_classes=6, random_state=0),
    "default without the queue": dict(queued=None, random_state=0),
    "ruptures + auto classes": dict(changepoint="ruptures", random_state=0),
    "ruptures, single class": dict(changepoint="ruptures", clustering=None),
    "no change points + auto classes": dict(changepoint=None, random_state=0),
    "no change points, single class": dict(changepoint=None, clustering=None),
    "runs + bic classes (reference)": dict(clustering="bic"),
    "default, reference index": dict(index="reference", random_state=0),
    "default + hit trimming": dict(trim_on_hits=True, random_state=0),
}


def naive_replay(X, y, q):
    """Empirical ``q`` quantile of all waits known at each submission (no trimming)."""
    submit = X["submit_time"].to_numpy(dtype=float)
    known = submit + y
    rows = np.arange(len(X))
    by_known = np.lexsort((rows, submit, known))
    known_sorted = known[by_known]
    by_submit = np.argsort(submit, kind="stable")
    n_known = np.searchsorted(known_sorted, submit[by_submit], side="right")
    hist = SortedHistory()
    out = np.full(len(X), np.nan)
    done = 0
    waits = y[by_known].tolist()
    for pos, j in enumerate(by_submit.tolist()):
        target = int(n_known[pos])
        while done < target:
            hist.add(waits[done])
            done += 1
        if done:
            out[j] = hist.kth(max(1, math.ceil(q * done)))
    return out


def evaluate(X, y, q, name, params):
    started = time.perf_counter()
    if params is None:
        bounds = naive_replay(X, y, q)
    else:
        bounds = replay(QBETS(quantile=q, confidence=0.95, **params), X, y)
    seconds = time.perf_counter() - started
    row = bound_summary(y, bounds, quantile=q)
    row.update(config=name, quantile=q, seconds=round(seconds, 1))
    return row


def load(path):
    jobs = read_swf(path)
    usable = np.isfinite(jobs["wait_time"]) & np.isfinite(jobs["submit_time"])
    return jobs, jobs[usable].reset_index(drop=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid-jobs", type=int, default=50_000)
    parser.add_argument("--traces", default="", help="comma-separated trace names")
    parser.add_argument("--no-write", action="store_true", help="only print JSON")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return 0
    made = provenance("queue_bounds", argv)
    folder = traces_dir()
    if folder is None:
        print(json.dumps({"skipped": "shared traces not found"}))
        return 0
    files = sorted(folder.glob("*.swf*"), key=lambda p: p.stat().st_size)
    wanted = set(filter(None, args.traces.split(",")))
    rows, skipped = [], {}
    for path in files:
        name = path.name.split(".swf")[0]
        if wanted and name not in wanted:
            continue
        jobs, X = load(path)
        if len(X) < 1000:
            skipped[name] = (f"{len(X)} of {len(jobs)} jobs have a wait time (SWF field 3 "
                             "is -1): nothing to bound")
            continue
        y = X["wait_time"].to_numpy()
        head = X.iloc[:args.grid_jobs].reset_index(drop=True)
        y_head = head["wait_time"].to_numpy()
        for q in QUANTILES:
            for label, params in [("naive empirical quantile", None), *HEADLINE.items()]:
                row = evaluate(X, y, q, label, params)
                rows.append(dict(trace=name, scope="full", **row))
                print(f"{name} full q={q} {label}: {row['correctness']:.4f} "
                      f"{row['median_ratio']:.1f} ({row['seconds']} s)", file=sys.stderr)
            for label, params in [("naive empirical quantile", None), *GRID.items()]:
                row = evaluate(head, y_head, q, label, params)
                rows.append(dict(trace=name, scope=f"first {len(head)}", **row))
                print(f"{name} head q={q} {label}: {row['correctness']:.4f} "
                      f"{row['median_ratio']:.1f} ({row['seconds']} s)", file=sys.stderr)
    result = {"provenance": made, "grid_jobs": args.grid_jobs,
              "skipped": skipped, "rows": pd.DataFrame(rows).to_dict(orient="records")}
    result = json.loads(json.dumps(result, default=float))
    if not args.no_write and rows:
        write_json(args.output_dir / "queue_bounds.json", result)
        render(result, args.output_dir)
    print(json.dumps(result, indent=1))
    return 0


def _fmt(row):
    flag = "" if row["correctness"] >= row["quantile"] else " **(< q)**"
    return (f"{row['correctness']:.3f}{flag} | {row['availability']:.3f} | "
            f"{row['median_ratio']:.1f} | {row['mean_ratio']:.1f}")


def render(result, out_dir):
    """Write ``queue_bounds.md`` and ``queue_bounds.csv`` of a result (a run's JSON)."""
    out = Path(out_dir)
    table = pd.DataFrame(result["rows"])
    skipped, grid_jobs = result["skipped"], result["grid_jobs"]
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "queue_bounds.csv", table.to_csv(index=False))
    lines = ["# QBETS queue-wait bounds on the shared traces", "",
             *provenance_lines(result, "queue_bounds"),
             "Online replay, a wait known once "
             "its job starts; c = 0.95. Correctness = fraction of jobs with a bound whose "
             "wait was at or under it (must reach q); availability = fraction of jobs that "
             "got a bound; tightness = median / mean of bound / actual wait over jobs that "
             "waited more than 60 s. Full data: `queue_bounds.csv`.", ""]
    if skipped:
        lines += ["Skipped traces:", ""]
        lines += [f"- {name}: {why}" for name, why in skipped.items()]
        lines.append("")
    full = table[table["scope"] == "full"]
    lines += ["## Summary (whole traces)", "",
              "Traces where correctness reaches q, and the median over traces of the "
              "median bound / wait ratio.", "",
              "| q | config | traces reaching q | worst correctness | median of median ratios |",
              "|---|---|---|---|---|"]
    for q in QUANTILES:
        sub = full[full["quantile"] == q]
        for config, group in sub.groupby("config", sort=False):
            lines.append(f"| {q} | {config} | {int((group['correctness'] >= q).sum())} of "
                         f"{len(group)} | {group['correctness'].min():.3f} | "
                         f"{group['median_ratio'].median():.1f} |")
    lines.append("")
    for q in QUANTILES:
        lines += [f"## Whole traces, q = {q}", "",
                  "| trace | config | correctness | availability | median ratio | mean ratio |",
                  "|---|---|---|---|---|---|"]
        for _, row in full[full["quantile"] == q].iterrows():
            lines.append(f"| {row['trace']} | {row['config']} | {_fmt(row)} |")
        lines.append("")
    grid = table[table["scope"] != "full"]
    lines += [f"## Configuration grid (first {grid_jobs:,} jobs of each trace)", "",
              "Mean over traces of correctness, availability and median ratio, the number "
              "of traces where correctness < q, and the worst correctness.", ""]
    for q in QUANTILES:
        sub = grid[grid["quantile"] == q]
        lines += [f"### q = {q}", "",
                  "| config | mean correctness | worst correctness | traces < q | "
                  "mean availability | mean median ratio |", "|---|---|---|---|---|---|"]
        for config, group in sub.groupby("config", sort=False):
            lines.append(
                f"| {config} | {group['correctness'].mean():.3f} | "
                f"{group['correctness'].min():.3f} | "
                f"{int((group['correctness'] < q).sum())} of {len(group)} | "
                f"{group['availability'].mean():.3f} | {group['median_ratio'].mean():.1f} |")
        lines.append("")
    write_text(out / "queue_bounds.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())

"""Fairness of the CPlant scheduling policies: Leung, Sabin & Sadayappan (2010) section VI.

The original CPlant/Ross scheduler (no-guarantee backfilling in fairshare
order with an FCFS starvation queue entered after 24 hours, cplant24.nomax.all)
and the eight modifications of section V.E: starvation threshold 24 or 72
hours (cplant24 / cplant72), no runtime limit or jobs split into 72-hour
pieces (nomax / 72max), every user or heavy users barred from the starvation
queue (all / fair), conservative backfilling in fairshare order (cons) and
conservative backfilling with dynamic reservations (consdyn: every
reservation rebuilt at each pass in fairshare order; EASY with a reservation
depth of at least the queue length). Estimates are the users' requested
times, jobs are killed at their request, fairshare usage decays by half
every 24 hours.

For each run: the percentage of jobs starting after their hybrid fair start
time (section IV.A), the average fair start miss time (over all jobs), the
average turnaround time and the loss of capacity (eq. 1), overall and by the
width categories of Table I (Figs. 6-13).

Logs: Sandia-Ross-2001-1.1-cln (the CPlant/Ross machine itself, whole, and
the paper's period, 1 Dec 2002 - 14 Jul 2003), SDSC-SP2-1998-4.2-cln (an
overloaded 128-node machine whose queue is long enough for thousands of jobs
to wait a day) and SDSC-BLUE-2000-4.2-cln (the largest shared log with
requests and user ids, a 1152-processor machine like Ross with jobs up to
118 hours), whole logs. Writes ``leung.json`` and ``leung.md`` (rendered from
the JSON alone) into ``--output-dir``; ``--from-json`` renders the page again.

Run from the repository root: ``python -m benchmarks.leung [--traces A B]
[--max-jobs N] [--output-dir DIR] [--from-json PATH]``
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit._time import format_duration
from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.metrics import (WIDTH_CATEGORIES, fair_start_times, loss_of_capacity,
                                utilization, width_category)
from predictkit.simulate import simulate

from benchmarks._common import (parse_or_render, provenance, provenance_lines, trace_file,
                                write_json, write_text)

ROSS = "Sandia-Ross-2001-1.1-cln"
PAPER_PERIOD = ("2002-12-01", "2003-07-15")
"""The period of the paper's CPlant/Ross log (section II.B), local time (US/Mountain)."""
LOGS = [ROSS, f"{ROSS}@paper-period", "SDSC-SP2-1998-4.2-cln", "SDSC-BLUE-2000-4.2-cln"]

DYNAMIC_DEPTH = 10 ** 9
"""A reservation depth beyond any queue length: every waiting job is reserved for."""

POLICIES = {
    "cplant24.nomax.all": dict(policy="no_guarantee", starvation_after="24h"),
    "cplant72.nomax.all": dict(policy="no_guarantee", starvation_after="72h"),
    "cplant24.nomax.fair": dict(policy="no_guarantee", starvation_after="24h",
                                starvation_bar_heavy=True),
    "cplant24.72max.all": dict(policy="no_guarantee", starvation_after="24h", max_runtime="72h"),
    "cplant72.72max.fair": dict(policy="no_guarantee", starvation_after="72h",
                                starvation_bar_heavy=True, max_runtime="72h"),
    "cons.nomax": dict(policy="conservative"),
    "cons.72max": dict(policy="conservative", max_runtime="72h"),
    "consdyn.nomax": dict(policy="easy", reservation_depth=DYNAMIC_DEPTH),
    "consdyn.72max": dict(policy="easy", reservation_depth=DYNAMIC_DEPTH, max_runtime="72h"),
}
"""Section V.E's policies by the paper's names; all in fairshare order."""
BASELINE = "cplant24.nomax.all"


def load(log, max_jobs):
    """The cleaned jobs of a log (``NAME@paper-period``: Ross in the paper's period)."""
    name, _, window = log.partition("@")
    jobs = read_swf(trace_file(name))
    n_in_file = len(jobs)
    jobs = clean_jobs(jobs, for_simulation=True, require_request=True)
    dropped = {r["rule"]: r["removed"] for r in jobs.attrs["cleaning"] if r["removed"]}
    attrs = dict(jobs.attrs)
    if window:
        zone = attrs["time_zone_string"]
        origin = pd.Timestamp(attrs["unix_start_time"], unit="s", tz="UTC")
        lo, hi = ((pd.Timestamp(day, tz=zone) - origin).total_seconds() for day in PAPER_PERIOD)
        submit = jobs["submit_time"].to_numpy()
        jobs = jobs[(submit >= lo) & (submit < hi)]
        jobs = jobs.assign(submit_time=jobs["submit_time"] - lo)
    if max_jobs is not None:
        jobs = jobs.iloc[:max_jobs]
    jobs = jobs.reset_index(drop=True)
    jobs.attrs = attrs
    return jobs, dict(n_in_file=n_in_file, dropped=dropped, n_simulated=len(jobs),
                      window=list(PAPER_PERIOD) if window else None)


def measure(schedule):
    """Overall and per-width fairness, turnaround and loss of capacity of one run."""
    out = schedule.jobs
    fst = fair_start_times(schedule)
    miss = out["start_time"].to_numpy() - fst
    turnaround = (out["end_time"] - out["submit_time"]).to_numpy()
    frame = pd.DataFrame(dict(width=width_category(out["n_procs"].to_numpy()),
                              unfair=miss > 0, miss=np.maximum(miss, 0.0),
                              turnaround=turnaround))
    by_width = frame.groupby("width", observed=True).agg(
        n_jobs=("miss", "size"), miss_percent=("unfair", "mean"), mean_miss=("miss", "mean"),
        mean_turnaround=("turnaround", "mean"))
    by_width["miss_percent"] *= 100.0
    starving = out["starving_since"].notna().sum() if "starving_since" in out else 0
    return dict(
        n_jobs=len(out), rejected=len(schedule.rejected),
        miss_percent=float(100.0 * frame["unfair"].mean()),
        mean_miss=float(frame["miss"].mean()), mean_turnaround=float(turnaround.mean()),
        mean_wait=float(out["wait_time"].mean()),
        loss_of_capacity=float(loss_of_capacity(schedule)),
        utilization=float(utilization(schedule)), starved=int(starving),
        by_width={str(k): {c: float(v) for c, v in row.items()}
                  for k, row in by_width.iterrows()})


def run_log(log, max_jobs, policies):
    jobs, info = load(log, max_jobs)
    runs = {}
    for label in policies:
        began = time.perf_counter()
        schedule = simulate(jobs, priority="fairshare", **POLICIES[label])
        simulated = time.perf_counter() - began
        runs[label] = measure(schedule)
        runs[label]["seconds"] = round(simulated, 2)
        print(f"{log} {label}: {simulated:.1f} s, {runs[label]['miss_percent']:.1f}% unfair",
              file=sys.stderr, flush=True)
    return info, runs


# ----------------------------------------------------------------- findings


def findings(result):
    """The paper's section VI findings, checked on every log: one dict per finding.

    A log on which the compared runs are identical (e.g. no job runs longer
    than 72 hours) is listed as unchanged and not counted.
    """
    checks = []

    def check(claim, rows):
        counted = [ok for _, ok, _ in rows if ok is not None]
        checks.append(dict(claim=claim, holds=sum(counted), of=len(counted),
                           detail=[f"{log}: {text}" for log, _, text in rows]))

    def compare(new, old, better, worse=()):
        """Rows where ``new`` has lower ``better`` and higher ``worse`` metrics than ``old``."""
        rows = []
        for log, data in result["logs"].items():
            runs = data["runs"]
            if new not in runs or old not in runs:
                continue
            a, b = runs[new], runs[old]
            metrics = (*better, *worse)
            text = ", ".join(f"{_label(m)} {_value(m, b[m])} -> {_value(m, a[m])}"
                             for m in metrics)
            if all(a[m] == b[m] for m in ("miss_percent", "mean_miss", "mean_turnaround",
                                          "loss_of_capacity")):
                rows.append((log, None, f"unchanged ({text})"))
                continue
            ok = all(a[m] < b[m] for m in better) and all(a[m] > b[m] for m in worse)
            rows.append((log, ok, text))
        return rows

    def ranking(text, keep, winner):
        rows = []
        for log, data in result["logs"].items():
            runs = {k: v for k, v in data["runs"].items() if keep(k)}
            if not runs:
                continue
            ok = winner(runs)
            rows.append((log, ok, ", ".join(f"{k} {v['miss_percent']:.2f}%"
                                            for k, v in runs.items())))
        check(text, rows)

    four = ("miss_percent", "mean_miss", "mean_turnaround", "loss_of_capacity")
    check("A 72-hour maximum runtime improves the share of unfair jobs, the average miss "
          "time, the average turnaround and the loss of capacity (cplant24.72max.all against "
          "cplant24.nomax.all)", compare("cplant24.72max.all", BASELINE, four))
    check("The same under conservative backfilling (cons.72max against cons.nomax)",
          compare("cons.72max", "cons.nomax", four))
    for new, what in (("cplant72.nomax.all", "A 72-hour starvation threshold"),
                      ("cplant24.nomax.fair", "Barring heavy users from the starvation queue")):
        check(f"{what} cuts the share of unfair jobs but worsens the average miss time "
              f"({new} against {BASELINE})",
              compare(new, BASELINE, ("miss_percent",), ("mean_miss",)))
    ranking("All three changes together give the fewest unfair jobs of the cplant policies "
            "(cplant72.72max.fair)", lambda k: k.startswith("cplant"),
            lambda runs: "cplant72.72max.fair" in runs and min(
                runs, key=lambda k: runs[k]["miss_percent"]) == "cplant72.72max.fair"
            and sorted(v["miss_percent"] for v in runs.values())[:2].count(
                runs["cplant72.72max.fair"]["miss_percent"]) == 1)
    ranking("Every conservative policy has fewer unfair jobs than the original "
            "(cons.*, consdyn.* against cplant24.nomax.all)",
            lambda k: k.startswith("cons") or k == BASELINE,
            lambda runs: BASELINE in runs and all(
                v["miss_percent"] < runs[BASELINE]["miss_percent"]
                for k, v in runs.items() if k != BASELINE))
    check("Conservative backfilling with 72-hour limits improves both the share of unfair "
          "jobs and the average miss time over the original (cons.72max against "
          "cplant24.nomax.all)", compare("cons.72max", BASELINE, ("miss_percent", "mean_miss")))
    return checks


def _label(metric):
    return {"miss_percent": "unfair", "mean_miss": "average miss",
            "mean_turnaround": "turnaround", "loss_of_capacity": "LOC"}[metric]


def _value(metric, value):
    if metric == "miss_percent":
        return f"{value:.2f}%"
    if metric == "loss_of_capacity":
        return f"{value:.4f}"
    return format_duration(value)


# ------------------------------------------------------------------- page


def _duration(seconds):
    return format_duration(seconds) if np.isfinite(seconds) else "-"


def write_markdown(result, path):
    lines = ["# Fairness of the CPlant scheduling policies (Leung, Sabin & Sadayappan 2010, "
             "section VI)", "", *provenance_lines(result, "leung"),
             f"{result['elapsed_s']:.0f} s in all (simulations and fair start times).", "",
             "Every policy orders its queue by fairshare (each user's processor-seconds, "
             "halved every 24 hours) and plans with the users' requested times; jobs are "
             "killed at their request. cplant24/cplant72: no-guarantee backfilling with an "
             "FCFS starvation queue entered after 24/72 hours whose head gets a reservation "
             "(`simulate(policy=\"no_guarantee\", starvation_after=...)`); .fair: heavy "
             "users (decayed usage above the mean of the users with a job waiting) are "
             "barred from that queue (`starvation_bar_heavy=True`); .72max: jobs longer than "
             "72 hours run as chained 72-hour pieces (`max_runtime=\"72h\"`); cons: "
             "conservative backfilling; consdyn: every reservation rebuilt at each pass "
             "(`policy=\"easy\", reservation_depth=10**9`).", "",
             "Unfair: the share of jobs starting after their hybrid fair start time "
             "(section IV.A); average miss: `sum(max(0, start - FST)) / n_jobs`; turnaround: "
             "end minus submit (for a split job, from its submission to the end of its last "
             "piece); LOC: loss of capacity, eq. (1). A split job's fair start time is "
             "computed as if it held its processors from its first start for its total "
             "runtime.", "",
             "The paper gives its results as bar charts only, so the numbers here are "
             "compared with the direction of its findings, not with its values. Unlike "
             "CPlant, which let a job run past its request while nobody needed its nodes, "
             "every job here ends at its request.", "", "## Logs", ""]
    for log, data in result["logs"].items():
        info = data["info"]
        window = (f", jobs submitted {info['window'][0]} to {info['window'][1]} (US/Mountain), "
                  "the paper's period" if info.get("window") else "")
        lines.append(f"- {log}: {info['n_simulated']:,} jobs simulated of "
                     f"{info['n_in_file']:,} in the file{window} (dropped: "
                     f"{_dropped(info['dropped'])})"
                     + (f"; first {result['max_jobs']:,} jobs only" if result["max_jobs"] else ""))
    lines += ["", "Why these logs: Sandia-Ross is the CPlant/Ross machine of the paper "
              "(the archive's log spans Nov 2001 - Jan 2005, a superset of the paper's 13,614 "
              "jobs); SDSC-SP2 is the most overloaded shared log with requests (thousands of "
              "jobs wait more than a day, so the starvation queue matters); SDSC-BLUE is the "
              "largest, on a machine of Ross's size with jobs longer than 72 hours.", "",
              "## Findings", "",
              "Each finding of section VI, checked on each log from the numbers below; "
              "a finding holds on a log when every metric it names moves the stated way.", ""]
    items = findings(result)
    lines += [_summary(result, items), ""]
    for item in items:
        if item["of"] == 0:
            verdict = "cannot be judged: the runs are identical on every log"
        else:
            verdict = ("holds" if item["holds"] == item["of"]
                       else "does not hold" if item["holds"] == 0 else "holds partly")
            verdict += f" ({item['holds']} of {item['of']} logs"
            verdict += " where the runs differ)" if item["of"] < len(item["detail"]) else ")"
        lines.append(f"- **{item['claim']}**: {verdict}.")
        lines += [f"  - {d}" for d in item["detail"]]
    lines += ["", "## All runs (Figs. 8, 9, 11, 13)", ""]
    for log, data in result["logs"].items():
        lines += [f"### {log}", "",
                  "| policy | unfair | average miss | turnaround | mean wait | LOC | "
                  "utilization | starving jobs | simulation |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label, run in data["runs"].items():
            lines.append(
                f"| {label} | {run['miss_percent']:.2f}% | {_duration(run['mean_miss'])} | "
                f"{_duration(run['mean_turnaround'])} | {_duration(run['mean_wait'])} | "
                f"{run['loss_of_capacity']:.4f} | {run['utilization']:.3f} | "
                f"{run['starved']:,} | {run['seconds']:.1f} s |")
        lines.append("")
    lines += ["## By job width (Figs. 6, 7, 10, 12)", "",
              "Width categories of Table I (processors). Each cell: unfair share / average "
              "miss / average turnaround.", ""]
    for log, data in result["logs"].items():
        present = [w for w in WIDTH_CATEGORIES
                   if any(w in run["by_width"] for run in data["runs"].values())]
        lines += [f"### {log}", "", "| policy | " + " | ".join(present) + " |",
                  "|---|" + "---:|" * len(present)]
        for label, run in data["runs"].items():
            cells = []
            for w in present:
                row = run["by_width"].get(w)
                cells.append("-" if row is None else
                             f"{row['miss_percent']:.0f}% / {_duration(row['mean_miss'])} / "
                             f"{_duration(row['mean_turnaround'])}")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        counts = next(iter(data["runs"].values()))["by_width"]
        lines += ["", "Jobs per category: " + ", ".join(
            f"{w}: {int(counts[w]['n_jobs']):,}" for w in present if w in counts) + ".", ""]
    write_text(path, "\n".join(lines).rstrip("\n") + "\n")


def _summary(result, items):
    """One paragraph answering the headline questions of section VI, half by half."""
    limit = items[0]

    def halves(new):
        logs = [d["runs"] for d in result["logs"].values() if new in d["runs"]
                and BASELINE in d["runs"]]
        cut = sum(r[new]["miss_percent"] < r[BASELINE]["miss_percent"] for r in logs)
        worse = sum(r[new]["mean_miss"] > r[BASELINE]["mean_miss"] for r in logs)
        return (f"cuts the share of unfair jobs on {cut} of {len(logs)} logs and worsens the "
                f"average miss time on {worse} of {len(logs)}")

    same = [d.split(": ", 1)[0] for d in limit["detail"] if ": unchanged" in d]
    unchanged = f" (it changes nothing on {', '.join(same)})" if same else ""
    return (f"In short: the 72-hour maximum runtime improves the share of unfair jobs, the "
            f"average miss time, the turnaround and the loss of capacity together on "
            f"{limit['holds']} of {limit['of']} logs where it changes the schedule"
            f"{unchanged}. The 72-hour starvation threshold "
            f"{halves('cplant72.nomax.all')}; barring heavy users "
            f"{halves('cplant24.nomax.fair')}. (The whole Ross log and its paper period "
            f"count as two logs.)")


def _dropped(dropped):
    if not dropped:
        return "none"
    return ", ".join(f"{count:,} with {reason}" for reason, count in dropped.items())


def render(result, out_dir):
    """Write the page of a result (a run's JSON) into ``out_dir``."""
    write_markdown(result, Path(out_dir) / "leung.md")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", nargs="*", default=LOGS,
                        help=f"logs (NAME, or {ROSS}@paper-period); default: {' '.join(LOGS)}")
    parser.add_argument("--policies", nargs="*", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="simulate only the first N jobs of each log (default: whole logs)")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return
    began = time.perf_counter()
    result = dict(provenance=provenance("leung", argv), max_jobs=args.max_jobs, logs={})
    for log in args.traces:
        info, runs = run_log(log, args.max_jobs, args.policies)
        result["logs"][log] = dict(info=info, runs=runs)
    result["elapsed_s"] = time.perf_counter() - began
    out = Path(args.output_dir)
    write_json(out / "leung.json", result)
    render(result, out)
    print((out / "leung.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()

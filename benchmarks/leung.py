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
average turnaround time and the loss of capacity (eq. 1), overall, by the
width categories of Table I (Figs. 6-13) and for the wide jobs (wider than
:data:`WIDE_SHARE` of the machine; section VI.B's "wide jobs").

Logs: Sandia-Ross-2001-1.1-cln (the CPlant/Ross machine itself, whole, and
the paper's period, 1 Dec 2002 - 14 Jul 2003), SDSC-SP2-1998-4.2-cln (an
overloaded 128-node machine whose queue is long enough for thousands of jobs
to wait a day) and SDSC-BLUE-2000-4.2-cln (the largest shared log with
requests and user ids, a 1152-processor machine like Ross, though few of its
jobs run or ask for more than 72 hours: the page counts them), whole logs.
Writes ``leung.json`` and ``leung.md`` (rendered from the JSON alone) into
``--output-dir``; ``--from-json`` renders the page again.

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
BLUE = "SDSC-BLUE-2000-4.2-cln"
PAPER_PERIOD = ("2002-12-01", "2003-07-15")
"""The period of the paper's CPlant/Ross log (section II.B), local time (US/Mountain)."""
LOGS = [ROSS, f"{ROSS}@paper-period", "SDSC-SP2-1998-4.2-cln", BLUE]

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

WIDE_SHARE = 1 / 8
"""Jobs wider than this share of the machine are "wide" (the paper gives no bound)."""

LIMIT = 72 * 3600.0
"""The maximum runtime of the .72max policies, seconds."""

PAPER_JOBS = 13_614
"""Jobs in the paper's CPlant/Ross log (section II.B)."""


def load(log, max_jobs):
    """The cleaned jobs of a log (``NAME@paper-period``: Ross in the paper's period,
    cleaned after the period is cut out, so that what is dropped is the period's)."""
    name, _, window = log.partition("@")
    jobs = read_swf(trace_file(name))
    n_in_file = len(jobs)
    attrs = dict(jobs.attrs)
    lo = 0.0
    if window:
        zone = attrs["time_zone_string"]
        origin = pd.Timestamp(attrs["unix_start_time"], unit="s", tz="UTC")
        lo, hi = ((pd.Timestamp(day, tz=zone) - origin).total_seconds() for day in PAPER_PERIOD)
        submit = jobs["submit_time"].to_numpy()
        jobs = jobs[(submit >= lo) & (submit < hi)]
        jobs.attrs = dict(attrs)
    n_considered = len(jobs)
    jobs = clean_jobs(jobs, for_simulation=True, require_request=True)
    dropped = {r["rule"]: r["removed"] for r in jobs.attrs["cleaning"] if r["removed"]}
    if window:
        jobs = jobs.assign(submit_time=jobs["submit_time"] - lo)
    if max_jobs is not None:
        jobs = jobs.iloc[:max_jobs]
    jobs = jobs.reset_index(drop=True)
    jobs.attrs = attrs
    return jobs, dict(n_in_file=n_in_file, n_in_window=n_considered if window else None,
                      dropped=dropped, n_simulated=len(jobs),
                      window=list(PAPER_PERIOD) if window else None,
                      machine_procs=int(attrs["max_procs"]),
                      runs_over_limit=int((jobs["run_time"] > LIMIT).sum()),
                      requests_over_limit=int((jobs["req_time"] > LIMIT).sum()))


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
    wide = frame[out["n_procs"].to_numpy() > WIDE_SHARE * schedule.machine_procs]
    return dict(
        n_jobs=len(out), rejected=len(schedule.rejected),
        miss_percent=float(100.0 * frame["unfair"].mean()),
        mean_miss=float(frame["miss"].mean()), mean_turnaround=float(turnaround.mean()),
        mean_wait=float(out["wait_time"].mean()),
        loss_of_capacity=float(loss_of_capacity(schedule)),
        utilization=float(utilization(schedule)), starved=int(starving),
        wide=dict(n_jobs=len(wide), miss_percent=float(100.0 * wide["unfair"].mean()),
                  mean_miss=float(wide["miss"].mean())) if len(wide) else None,
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


ENHANCED = ("cplant72.nomax.all", "cplant24.nomax.fair", "cplant24.72max.all",
            "cplant72.72max.fair")
"""Section VI.A's enhanced CPlant policies (the "minor changes")."""

NEAR = 0.01
"""A change below this relative size is named as a near miss when it breaks a finding."""


def findings(result):
    """The paper's section VI findings, checked on every log: one dict per finding.

    A log on which the compared runs are identical (e.g. no job runs longer
    than 72 hours) is listed as unchanged and not counted.
    """
    checks = []
    logs = result["logs"]

    def check(claim, rows):
        counted = [ok for _, ok, _ in rows if ok is not None]
        checks.append(dict(claim=claim, holds=sum(counted), of=len(counted),
                           detail=[f"{log}: {text}" for log, _, text in rows]))

    def compare(new, old, better, worse=()):
        """Rows where ``new`` has lower ``better`` and higher ``worse`` metrics than ``old``."""
        rows = []
        for log, data in logs.items():
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
            wrong = [m for m in better if not a[m] < b[m]] + [m for m in worse
                                                             if not a[m] > b[m]]
            near = [m for m in wrong if abs(a[m] - b[m]) <= NEAR * abs(b[m])]
            if wrong and len(near) == len(wrong):
                text += (f" (misses only by less than {NEAR:.0%}: "
                         f"{', '.join(_label(m) for m in near)})")
            rows.append((log, not wrong, text))
        return rows

    def limit_changes(runs):
        """Whether the 72-hour limit changes any compared run on a log."""
        return any(runs[a][m] != runs[b][m] for a, b in (("cplant24.72max.all", BASELINE),
                                                        ("cons.72max", "cons.nomax"))
                   if a in runs and b in runs
                   for m in ("miss_percent", "mean_miss", "mean_turnaround",
                             "loss_of_capacity"))

    def per_log(claim, names, judge, metrics=("miss_percent",), needs_limit=False):
        """One row a log: ``judge(runs)`` on the runs of ``names`` present there."""
        rows = []
        for log, data in logs.items():
            runs = {k: data["runs"][k] for k in names if k in data["runs"]}
            if len(runs) < len(names):
                continue
            text = (" / ".join(_label(m) for m in metrics) + ": " + ", ".join(
                f"{k} " + " / ".join(_value(m, _metric(v, m)) for m in metrics)
                for k, v in runs.items()))
            if needs_limit and not limit_changes(data["runs"]):
                rows.append((log, None, f"the 72-hour limit changes nothing here ({text})"))
            else:
                rows.append((log, bool(judge(runs)), text))
        check(claim, rows)

    everything = list(POLICIES)
    four = ("miss_percent", "mean_miss", "mean_turnaround", "loss_of_capacity")
    per_log("All enhanced CPlant policies reduce the share of unfair jobs (Fig. 8; "
            + ", ".join(ENHANCED) + f" against {BASELINE})", (BASELINE, *ENHANCED),
            lambda r: all(r[k]["miss_percent"] < r[BASELINE]["miss_percent"] for k in ENHANCED),
            needs_limit=True)
    per_log("Of the enhanced CPlant policies, only those with a 72-hour maximum runtime "
            "reduce the average miss time (Fig. 9)", (BASELINE, *ENHANCED),
            lambda r: all((r[k]["mean_miss"] < r[BASELINE]["mean_miss"]) == (".72max" in k)
                          for k in ENHANCED), metrics=("mean_miss",), needs_limit=True)
    for new, what in (("cplant72.nomax.all", "A 72-hour starvation threshold"),
                      ("cplant24.nomax.fair", "Barring heavy users from the starvation queue")):
        check(f"{what} cuts the share of unfair jobs but worsens the average miss time "
              f"({new} against {BASELINE})",
              compare(new, BASELINE, ("miss_percent",), ("mean_miss",)))
    per_log("The average turnaround improves for most of the enhanced CPlant policies "
            "(Fig. 11: more than half of them)", (BASELINE, *ENHANCED),
            lambda r: 2 * sum(r[k]["mean_turnaround"] < r[BASELINE]["mean_turnaround"]
                              for k in ENHANCED) > len(ENHANCED), metrics=("mean_turnaround",))
    check("A 72-hour maximum runtime improves the share of unfair jobs, the average miss "
          "time, the average turnaround and the loss of capacity (cplant24.72max.all against "
          "cplant24.nomax.all)", compare("cplant24.72max.all", BASELINE, four))
    per_log("All three changes together give the fewest unfair jobs of the CPlant policies "
            "(cplant72.72max.fair)", (BASELINE, *ENHANCED),
            lambda r: sorted(r, key=lambda k: r[k]["miss_percent"])[0] == "cplant72.72max.fair"
            and sorted(v["miss_percent"] for v in r.values())[:2].count(
                r["cplant72.72max.fair"]["miss_percent"]) == 1)
    check("All three changes together further reduce the share of unfair jobs and the "
          "average turnaround, but the average miss time and the loss of capacity are "
          "slightly worse than with the 72-hour limit alone (cplant72.72max.fair against "
          "cplant24.72max.all)",
          compare("cplant72.72max.fair", "cplant24.72max.all",
                  ("miss_percent", "mean_turnaround"), ("mean_miss", "loss_of_capacity")))
    conservative = [k for k in POLICIES if k.startswith("cons")]
    per_log("Every conservative policy has fewer unfair jobs than the original (Fig. 8; "
            f"{', '.join(conservative)} against {BASELINE})", (BASELINE, *conservative),
            lambda r: all(r[k]["miss_percent"] < r[BASELINE]["miss_percent"]
                          for k in conservative))
    per_log("Without a 72-hour limit, the conservative policies have a higher average miss "
            "time than the original (Fig. 9; cons.nomax, consdyn.nomax)",
            (BASELINE, "cons.nomax", "consdyn.nomax"),
            lambda r: all(r[k]["mean_miss"] > r[BASELINE]["mean_miss"]
                          for k in ("cons.nomax", "consdyn.nomax")), metrics=("mean_miss",))
    per_log("Dynamic reservations give the fewest unfair jobs of all policies, but the jobs "
            "that miss are treated very unfairly (a consdyn policy has the lowest share of "
            "unfair jobs, and its jobs that miss miss by more on average than the "
            "original's)", everything,
            lambda r: (lambda best: best.startswith("consdyn")
                       and _miss_per_unfair(r[best]) > _miss_per_unfair(r[BASELINE]))(
                min(r, key=lambda k: r[k]["miss_percent"])),
            metrics=("miss_percent", "miss_per_unfair"))
    per_log("Only conservative backfilling with 72-hour limits improves both the share of "
            "unfair jobs and the average miss time over the original (cons.72max does, "
            "cons.nomax, consdyn.nomax and consdyn.72max do not)", (BASELINE, *conservative),
            lambda r: all((r[k]["miss_percent"] < r[BASELINE]["miss_percent"]
                           and r[k]["mean_miss"] < r[BASELINE]["mean_miss"])
                          == (k == "cons.72max") for k in conservative),
            metrics=("miss_percent", "mean_miss"), needs_limit=True)
    check("A 72-hour limit improves conservative backfilling too (cons.72max against "
          "cons.nomax)", compare("cons.72max", "cons.nomax", four))
    per_log("Conservative backfilling with 72-hour limits has a better average turnaround "
            "and a lower loss of capacity than most of the other policies (Figs. 11, 13: "
            "better than more than half of them on both)", everything,
            lambda r: all(2 * sum(r["cons.72max"][m] < v[m] for k, v in r.items()
                                  if k != "cons.72max") > len(r) - 1
                          for m in ("mean_turnaround", "loss_of_capacity")),
            metrics=("mean_turnaround", "loss_of_capacity"))
    rows = []
    for log, data in logs.items():
        runs = data["runs"]
        if BASELINE not in runs or runs[BASELINE].get("wide") is None:
            continue
        base = runs[BASELINE]["wide"]["mean_miss"]
        cons = {k: runs[k]["wide"]["mean_miss"] for k in ("cons.nomax", "cons.72max")
                if k in runs}
        rows.append((log, all(v < base for v in cons.values()), ", ".join(
            f"{k} {_duration(v)}" for k, v in {BASELINE: base, **cons}.items())
            + f" ({runs[BASELINE]['wide']['n_jobs']:,} wide jobs)"))
    check("Conservative backfilling reduces the unfairness of wide jobs (Fig. 10: the average "
          f"miss of jobs wider than {WIDE_SHARE:.1%} of the machine, cons.nomax and cons.72max "
          f"against {BASELINE})", rows)
    return checks


def _miss_per_unfair(run):
    """Average miss of the jobs that start after their fair start time."""
    share = run["miss_percent"] / 100.0
    return run["mean_miss"] / share if share > 0 else 0.0


def _metric(run, metric):
    return _miss_per_unfair(run) if metric == "miss_per_unfair" else run[metric]


def _label(metric):
    return {"miss_percent": "unfair", "mean_miss": "average miss",
            "mean_turnaround": "turnaround", "loss_of_capacity": "LOC",
            "miss_per_unfair": "miss per unfair job"}[metric]


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
             "halved every 24 hours: the paper gives the daily decay, not its factor) and "
             "plans with the users' requested times; jobs are killed at their request. "
             "cplant24/cplant72: no-guarantee backfilling with an "
             "FCFS starvation queue entered after 24/72 hours whose head gets a reservation "
             "(`simulate(policy=\"no_guarantee\", starvation_after=...)`); .fair: heavy "
             "users (decayed usage above the mean of the users with a job waiting) are "
             "barred from that queue (`starvation_bar_heavy=True`); .72max: jobs longer than "
             "72 hours run as chained 72-hour pieces, and no estimate exceeds 72 hours "
             "(`max_runtime=\"72h\"`); cons: "
             "conservative backfilling; consdyn: every reservation rebuilt at each pass "
             "(`policy=\"easy\", reservation_depth=10**9`).", "",
             "Unfair: the share of jobs starting after their hybrid fair start time "
             "(section IV.A); average miss: `sum(max(0, start - FST)) / n_jobs`; turnaround: "
             "end minus submit (for a split job, from its submission to the end of its last "
             "piece); LOC: loss of capacity, eq. (1). Fair start times come from a list "
             "schedule of the waiting jobs in fairshare order, each held for its simulated "
             "runtime on the processors that free up first (no backfilling); a split "
             "job's pieces hold their processors as they ran, and its fair start time is "
             "its first piece's. The waits of later pieces count in no metric (the mean "
             "wait and the misses are the first piece's), so under .72max the mean wait "
             "drops partly because they are left out.", "",
             "The paper gives its results as bar charts only, so the numbers here are "
             "compared with the direction of its findings, not with its values. Unlike "
             "CPlant, which let a job run past its request while nobody needed its nodes, "
             "every job here ends at its request.", "", "## Logs", ""]
    for log, data in result["logs"].items():
        info = data["info"]
        window = (f", {info['n_in_window']:,} of them submitted {info['window'][0]} to "
                  f"{info['window'][1]} (US/Mountain), the paper's period"
                  if info.get("window") else "")
        lines.append(f"- {log}: {info['n_simulated']:,} jobs simulated of "
                     f"{info['n_in_file']:,} in the file{window} (dropped: "
                     f"{_dropped(info['dropped'])})"
                     + (f"; first {result['max_jobs']:,} jobs only" if result["max_jobs"] else "")
                     + f"; {info['machine_procs']:,} processors; "
                     f"{info['runs_over_limit']:,} jobs run and "
                     f"{info['requests_over_limit']:,} ask for more than 72 hours")
    period = next((d["info"] for d in result["logs"].values() if d["info"].get("window")),
                  None)
    versus = ("" if period is None else
              f", the superset of its traces the paper announced; yet in the paper's period "
              f"it holds {period['n_in_window']:,} jobs, "
              f"{'fewer' if period['n_in_window'] < PAPER_JOBS else 'more'} than the "
              f"{PAPER_JOBS:,} the paper took from the machine's PBS and yod logs")
    procs = {name: d["info"]["machine_procs"] for name, d in result["logs"].items()}
    size = ("" if not {ROSS, BLUE} <= procs.keys() else
            f": {procs[BLUE]:,} processors against Ross's {procs[ROSS]:,}")
    lines += ["", "Why these logs: Sandia-Ross is the CPlant/Ross machine of the paper "
              f"(the archive's log spans Nov 2001 - Jan 2005{versus}); SDSC-SP2 is a heavily "
              "loaded log with requests (thousands of its jobs waited more than a day, so the "
              "starvation queue matters); SDSC-BLUE is a longer log on a machine of about "
              f"Ross's size{size} (the counts above say how many of its jobs the 72-hour "
              "limit touches).", "",
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
    limit = next(item for item in items if item["claim"].startswith("A 72-hour maximum"))

    def halves(new):
        logs = [d["runs"] for d in result["logs"].values() if new in d["runs"]
                and BASELINE in d["runs"]]
        cut = sum(r[new]["miss_percent"] < r[BASELINE]["miss_percent"] for r in logs)
        worse = sum(r[new]["mean_miss"] > r[BASELINE]["mean_miss"] for r in logs)
        return (f"cuts the share of unfair jobs on {cut} of {len(logs)} logs and worsens the "
                f"average miss time on {worse} of {len(logs)}")

    same = [d.split(": ", 1)[0] for d in limit["detail"] if ": unchanged" in d]
    unchanged = f" (it changes nothing on {', '.join(same)})" if same else ""
    every = sum(i["of"] > 0 and i["holds"] == i["of"] for i in items)
    return (f"In short: the 72-hour maximum runtime improves the share of unfair jobs, the "
            f"average miss time, the turnaround and the loss of capacity together on "
            f"{limit['holds']} of {limit['of']} logs where it changes the schedule"
            f"{unchanged}. The 72-hour starvation threshold "
            f"{halves('cplant72.nomax.all')}; barring heavy users "
            f"{halves('cplant24.nomax.fair')}. Of the {len(items)} findings checked, "
            f"{every} {'holds' if every == 1 else 'hold'} on every log where they can be "
            f"judged, {sum(0 < i['holds'] < i['of'] for i in items)} on "
            f"some and {sum(i['of'] > 0 and i['holds'] == 0 for i in items)} on none. (The "
            f"whole Ross log and its paper period count as two logs.)")


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

"""Scheduling with predicted runtimes on whole shared logs: Tang et al. (2013) section 6,
EASY++ (Tsafrir, Etsion & Feitelson 2007), and the predictor chosen by scheduling-level
cross-validation.

For every shared trace with runtimes and requests, on the whole log:

* EASY and conservative backfilling x FCFS / WFP priority x runtime estimates
  {request, Tang walltime adjustment p95 / p85 / p70 (keys user + group +
  request, 30-day window) regular and selective, RecentUsageMax (Klusacek &
  Soysal) regular and selective, perfect}: Tang's two questions (does
  selective adjustment beat regular adjustment? does WFP gain more than FCFS
  priority?). ``--conservative-max-jobs`` cuts the conservative runs to the
  first jobs of each log (its re-planning on overloaded logs is slow).
* EASY with requests against EASY++ (the recent average of two runtimes,
  increments on underestimation, shortest-first backfilling) and against
  Tang p85 selective used the EASY++ way, next to the published reductions.
* Scheduling-level model selection
  (:func:`predictkit.model_selection.select_by_schedule`): the built-in
  candidates (``schedule_candidates()``, 66) are simulated under EASY; the one
  with the lowest mean bounded slowdown over the past 30-day periods (after a
  warm-up period) is chosen, and scored on the last ``--test-periods``
  periods against EASY++ on the same periods. Every candidate's score on
  every past period is kept, so the page also compares other ways of
  choosing (:data:`SELECTION_DESIGNS`: the earlier 58 candidates, the other
  criteria of :func:`~predictkit.model_selection.cross_validation_scores`)
  from the same runs. ``--update-selection PATH`` reruns only this part and
  merges it into the result at ``PATH`` (the other sections are kept);
  ``--update-matrix PATH`` does the same for Tang's matrix.

Predictors are asked at each submission with every job completed before it
(exact online; the built-in ones run compiled inside the simulator). Writes
``scheduling.json`` (the runs, with the provenance of the run) and
``scheduling.md`` (rendered from that JSON alone) into ``--output-dir``
(default ``build/benchmarks/``) and prints the JSON; ``--from-json`` renders
the page again from a saved JSON without simulating.

Run from the repository root: ``python -m benchmarks.scheduling [--max-jobs N]
[--conservative-max-jobs N] [--test-periods 3] [--traces A B] [--no-matrix]
[--no-selection] [--update-selection PATH] [--update-matrix PATH] [--output-dir DIR]
[--from-json PATH]``
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from predictkit._format import format_number
from predictkit._time import format_duration
from predictkit.io import read_swf
from predictkit.jobs import clean_jobs
from predictkit.model_selection import (EASY_PLUS_PLUS, ScheduleCandidate,
                                        cross_validation_scores, schedule_candidates,
                                        select_by_schedule)
from predictkit.runtime import RecentUsageMax, WalltimeAdjuster
from predictkit.simulate import simulate

from benchmarks._common import (parse_or_render, provenance, provenance_lines, read_json,
                                trace_file, traces_dir, write_json, write_text)

METRICS = ["mean_wait", "mean_slowdown", "mean_bounded_slowdown", "weighted_wait",
           "utilization", "loss_of_capacity", "backfill_ratio"]
SKIP = {
    "SDSC-Par-1996-3.1-cln": "no requested times",
    "METACENTRUM-2009-2": "no requested times",
    "lublin_256": "synthetic, no requested times",
    "LLNL-Thunder-2007-1.1-cln": "requested times for 32% of jobs only (pdebug partition)",
}
PUBLISHED_EASYPP = {"KTH-SP2-1996-2.1-cln": "KTH-SP2", "SDSC-SP2-1998-4.2-cln": "SDSC-SP2",
                    "SDSC-BLUE-2000-4.2-cln": "SDSC-BLUE"}
"""Shared logs on which Tsafrir, Etsion & Feitelson (2007) report EASY++ (also CTC-SP2,
which is not among the shared logs)."""
PUBLISHED_RANGE = (0.28, 0.50)
"""Their reduction of the mean bounded slowdown of EASY by EASY++ on those logs."""
CONSERVATIVE_SKIP = {}
"""Logs left out of the conservative runs of Tang's matrix, and why (none since the
conservative pass runs whole RICC-2010-2, whose queues are the longest, in one to four
minutes a run on a loaded two-core machine)."""
TANG_PLUS = ScheduleCandidate("tang", (("keys", "user,group,request"), ("quantile", 0.85)),
                              selective=True, on_underestimate="increments",
                              backfill_order="sjf")
"""Tang p85 selective, used the EASY++ way (increments, shortest-first backfilling)."""
EARLIER_CANDIDATES = frozenset(c.name for c in schedule_candidates(recent=(2,)))
"""The 58 candidates of earlier versions (recent average of two only)."""
SELECTION_DESIGNS = [
    ("58 mean", "the 58 candidates of earlier versions (recent average of 2 only), mean",
     True, "mean", {}),
    ("mean", "the 66 candidates, mean of the period scores (the default)", False, "mean", {}),
    ("jobs", "the 66, mean over the past jobs", False, "jobs", {}),
    ("recent 1", "the 66, recent periods weighted more, half-life 1 period", False, "recent",
     {"half_life": 1.0}),
    ("recent 3", "the 66, recent periods weighted more, half-life 3 periods", False, "recent",
     {"half_life": 3.0}),
    ("recent 6", "the 66, recent periods weighted more, half-life 6 periods", False, "recent",
     {"half_life": 6.0}),
    ("rank", "the 66, mean rank across the periods", False, "rank", {}),
]
"""Ways of choosing compared on the page: (short name, description, earlier candidates only,
criterion, criterion options)."""


def estimate_sources():
    sources = [("request", "requested", False)]
    for q in (0.95, 0.85, 0.70):
        adjuster = WalltimeAdjuster(keys=("user_id", "group_id", "req_time"), window="30D",
                                    quantile=q)
        sources.append((f"tang-p{round(q * 100)}", adjuster, False))
        sources.append((f"tang-p{round(q * 100)}-selective", adjuster, True))
    sources.append(("usage-max", RecentUsageMax(), False))
    sources.append(("usage-max-selective", RecentUsageMax(), True))
    sources.append(("perfect", "perfect", False))
    return sources


def metrics_of(schedule):
    values = schedule.metrics().set_index("metric")["value"]
    return {m: float(values[m]) for m in METRICS}


def load(name, max_jobs):
    jobs = read_swf(trace_file(name))
    n_total = len(jobs)
    jobs = clean_jobs(jobs, for_simulation=True, require_request=True)
    dropped = {r["rule"]: r["removed"] for r in jobs.attrs["cleaning"] if r["removed"]}
    attrs = dict(jobs.attrs)
    if max_jobs is not None:
        jobs = jobs.iloc[:max_jobs].reset_index(drop=True)
        jobs.attrs = attrs
    if "group_id" in jobs.columns:
        jobs["group_id"] = jobs["group_id"].fillna(-1.0)
    submit = jobs["submit_time"].to_numpy(dtype=float)
    return jobs, dict(n_in_file=n_total, dropped=dropped, n_simulated=len(jobs),
                      span_days=float((submit.max() - submit.min()) / 86400.0))


def head(jobs, n):
    if n is None or len(jobs) <= n:
        return jobs
    out = jobs.iloc[:n].reset_index(drop=True)
    out.attrs = dict(jobs.attrs)
    return out


def run_matrix(name, jobs, conservative_max_jobs):
    rows = []
    for policy in ("easy", "conservative"):
        if policy == "conservative" and name in CONSERVATIVE_SKIP:
            continue
        table = head(jobs, conservative_max_jobs) if policy == "conservative" else jobs
        for priority in ("fcfs", "wfp"):
            for label, source, selective in estimate_sources():
                began = time.perf_counter()
                schedule = simulate(table, policy=policy, priority=priority, estimates=source,
                                    selective=selective)
                rows.append(dict(trace=name, policy=policy, priority=priority, estimates=label,
                                 n_jobs=len(schedule.jobs),
                                 seconds=time.perf_counter() - began, **metrics_of(schedule)))
            print(f"{name} {policy} {priority} done", file=sys.stderr, flush=True)
    return rows


def run_easypp(name, jobs):
    out = dict(trace=name, n_jobs=len(jobs))
    for label, kwargs in (("easy", {}), ("easypp", EASY_PLUS_PLUS.simulate_kwargs()),
                          ("tang_plus", TANG_PLUS.simulate_kwargs())):
        began = time.perf_counter()
        schedule = simulate(jobs, policy="easy", **kwargs)
        out["rejected"] = len(schedule.rejected)
        values = metrics_of(schedule)
        out[f"{label}_bounded_slowdown"] = values["mean_bounded_slowdown"]
        out[f"{label}_wait"] = values["mean_wait"]
        out[f"{label}_seconds"] = time.perf_counter() - began
    print(f"{name} EASY++ done", file=sys.stderr, flush=True)
    return out


def _folds(row, names):
    """A table row's past-period scores, in period order (None for a period without jobs)."""
    return [None if np.isnan(getattr(row, f)) else float(getattr(row, f)) for f in names]


PAST_ALONE = "alone"
"""How a selection row's past scores were simulated: the jobs before the split alone
(rows without it read them from the whole-log runs, as the selection first did)."""


def simulate_machine(jobs):
    """The machine :func:`~predictkit.simulate.simulate` takes for ``jobs`` by default: the
    header's ``max_procs``, else the widest job."""
    from predictkit._summary import machine_size

    return int(machine_size(jobs)[0])


def run_selection(name, jobs, test_periods, period):
    began = time.perf_counter()
    # the machine every other simulation of the page runs (the header's size, else the
    # widest job of the whole log: RICC-2010-2's 8,192 processors), given as a site knows
    # its machine; without it the choice would take the widest job before the split
    machine = simulate_machine(jobs)
    found = select_by_schedule(jobs, schedule_candidates(), test_periods=test_periods,
                               period=period, policy="easy", metric="bounded_slowdown",
                               machine_procs=machine)
    fold_names = list(found.fold_jobs)
    table = found.table
    candidates = table[~table["is_baseline"]]
    hindsight = candidates.loc[candidates["test_score"].idxmin()]
    request = candidates[candidates["candidate"] == "requested"].iloc[0]
    print(f"{name} selection done", file=sys.stderr, flush=True)
    return dict(
        trace=name, past=PAST_ALONE, n_candidates=int(len(candidates)),
        split_time=found.split_time,
        test_jobs=int((jobs["submit_time"] >= found.split_time).sum()),
        chosen=found.chosen.name,
        chosen_cv=float(table.loc[table["chosen"], "cv_score"].iloc[0]),
        chosen_test=found.chosen_test_score, easypp_test=found.baseline_test_score,
        easypp_cv=float(table.loc[table["is_baseline"], "cv_score"].iloc[0]),
        easy_test=float(request["test_score"]), hindsight=str(hindsight["candidate"]),
        hindsight_test=float(hindsight["test_score"]),
        seconds=time.perf_counter() - began,
        fold_jobs=[found.fold_jobs[f] for f in fold_names],
        easypp_folds=_folds(next(table[table["is_baseline"]].itertuples()), fold_names),
        candidates=[dict(candidate=r.candidate, cv=float(r.cv_score), test=float(r.test_score),
                         folds=_folds(r, fold_names))
                    for r in candidates.itertuples()])


def tang_findings(frame):
    """Tang's two findings, on the backfilling policies."""
    index = ["trace", "policy", "priority"]
    base = frame[frame["estimates"] == "request"].set_index(index)
    checks = []
    for q in ("p95", "p85", "p70"):
        reg = frame[frame["estimates"] == f"tang-{q}"].set_index(index)
        sel = frame[frame["estimates"] == f"tang-{q}-selective"].set_index(index)
        for metric in ("mean_wait", "mean_slowdown", "weighted_wait"):
            tied = np.isclose(sel[metric], reg[metric], rtol=1e-9)
            better = (sel[metric] < reg[metric]) & ~tied
            gain = ((reg[metric] - sel[metric]) / reg[metric].where(reg[metric] > 0)).mean()
            checks.append(dict(quantile=q, metric=metric, cases=int(len(sel)),
                               ties=int(tied.sum()),
                               share_selective_better=float(better.sum() / max((~tied).sum(), 1)),
                               mean_gain_selective_over_regular=float(gain)))
    gains = []
    for label in ("tang-p95", "tang-p85", "tang-p70", "tang-p95-selective",
                  "tang-p85-selective", "tang-p70-selective", "usage-max",
                  "usage-max-selective", "perfect"):
        adj = frame[frame["estimates"] == label].set_index(index)
        for metric in ("mean_wait", "mean_slowdown", "weighted_wait"):
            gain = (base[metric] - adj[metric]) / base[metric].where(base[metric] > 0)
            by = gain.groupby(level="priority").mean()
            gains.append(dict(estimates=label, metric=metric, mean_gain_fcfs=float(by.get("fcfs")),
                              mean_gain_wfp=float(by.get("wfp"))))
    return {"selective_vs_regular": checks, "gain_by_priority": gains}


def verdict(findings):
    """Judge Tang's findings on mean wait and slowdown (weighted wait: see the note)."""
    sel = pd.DataFrame(findings["selective_vs_regular"])
    sel = sel[sel["metric"] != "weighted_wait"]
    share = sel["share_selective_better"].mean()
    gain = sel["mean_gain_selective_over_regular"].mean()
    gains = pd.DataFrame(findings["gain_by_priority"])
    tang = gains[gains["estimates"].str.startswith("tang") & (gains["metric"] != "weighted_wait")]
    wfp_more = (tang["mean_gain_wfp"] > tang["mean_gain_fcfs"]).mean()
    return [
        f"- Selective beats regular adjustment in {share:.0%} of the non-tied (trace, policy, "
        f"priority) cases, averaged over the three quantiles for mean wait and mean slowdown "
        f"(mean relative gain {gain:+.1%}): Tang's first finding "
        f"{'holds' if share > 0.5 and gain > 0 else 'does not hold'} on these traces"
        + (", with smaller gains than Tang's 22% on Intrepid." if 0 < gain < 0.22 else "."),
        f"- WFP gains more than FCFS priority from Tang's adjustment in {wfp_more:.0%} of the "
        f"(estimates, metric) rows for mean wait and mean slowdown: Tang's second finding "
        f"{'holds' if wfp_more > 0.5 else 'does not hold'} here.",
    ]


def easypp_findings(rows):
    """Where EASY++ cuts EASY's bounded slowdown as published, and where it does not."""
    low, high = PUBLISHED_RANGE
    lines = []
    for row in rows:
        row["reduction"] = (row["easy_bounded_slowdown"] - row["easypp_bounded_slowdown"]) \
            / row["easy_bounded_slowdown"]
    published = [r for r in rows if r["trace"] in PUBLISHED_EASYPP]
    for r in published:
        cut = r["reduction"]
        if low <= cut <= high:
            word = "within the published range"
        elif cut > high:
            word = "a larger cut than published"
        elif cut > 0:
            word = "a smaller cut than published: the finding does not hold in full"
        else:
            word = "no cut at all: the finding does not hold"
        lines.append(f"- {PUBLISHED_EASYPP[r['trace']]}: EASY++ cuts the mean bounded slowdown "
                     f"of EASY by {cut:.0%} ({word}, {low:.0%}-{high:.0%}).")
    worse = [r for r in rows if r["reduction"] < 0]
    lines.append(f"- Over all {len(rows)} logs EASY++ lowers the mean bounded slowdown on "
                 f"{sum(r['reduction'] > 0 for r in rows)}; it is worse than EASY on "
                 f"{len(worse)}" + (": " + ", ".join(
                     f"{r['trace']} ({r['easypp_bounded_slowdown']:.1f} vs "
                     f"{r['easy_bounded_slowdown']:.1f})" for r in worse) if worse else "") + ".")
    better = sum(r["tang_plus_bounded_slowdown"] < r["easypp_bounded_slowdown"] for r in rows)
    lines.append(f"- Tang p85 selective used the EASY++ way beats EASY++ on {better} of "
                 f"{len(rows)} logs.")
    return lines


def design_choices(row):
    """Per design of :data:`SELECTION_DESIGNS`: the candidate it chooses on a log, its score."""
    out = []
    for label, _, earlier, criterion, options in SELECTION_DESIGNS:
        pool = [c for c in row["candidates"] if not earlier or c["candidate"] in EARLIER_CANDIDATES]
        scores = np.array([[np.nan if v is None else v for v in c["folds"]] for c in pool])
        cv = cross_validation_scores(scores, criterion=criterion, job_counts=row["fold_jobs"],
                                     **options)
        chosen = pool[int(np.nanargmin(cv))]
        out.append(dict(design=label, chosen=chosen["candidate"], test=chosen["test"]))
    return out


def design_findings(rows):
    """Wins, ties and losses against EASY++ of every design, and its mean change."""
    per_design = {}
    for row in rows:
        for choice in design_choices(row):
            per_design.setdefault(choice["design"], []).append((choice, row))
    summary = []
    for label, pairs in per_design.items():
        tests = np.array([c["test"] for c, _ in pairs])
        base = np.array([r["easypp_test"] for _, r in pairs])
        summary.append(dict(design=label, wins=int((tests < base).sum()),
                            ties=int((tests == base).sum()), losses=int((tests > base).sum()),
                            change=float(np.mean((tests - base) / base)),
                            tests=[float(t) for t in tests]))
    return summary


def selection_findings(rows, target=9):
    wins = [r for r in rows if r["chosen_test"] < r["easypp_test"]]
    ties = [r for r in rows if r["chosen_test"] == r["easypp_test"]]
    losses = [r for r in rows if r["chosen_test"] > r["easypp_test"]]
    alike = [r for r in ties if len({c["test"] for c in r["candidates"]}) == 1]
    change = np.mean([(r["chosen_test"] - r["easypp_test"]) / r["easypp_test"] for r in rows])
    hindsight = sum(r["chosen"] == r["hindsight"] for r in rows)
    if len(rows) == 11:
        verdict = f"the target, at least {target} of the 11, " + (
            "holds" if len(wins) >= target else "does not hold")
    else:
        best = len(wins) + 11 - len(rows)
        verdict = (f"the target (at least {target} of the 11 shared logs) needs all 11; even if "
                   f"the {11 - len(rows)} missing one(s) were won it would be {best} of 11, "
                   + ("so it can still hold" if best >= target else "so it does not hold"))
    return [
        f"- The predictor chosen on the past months has a lower mean bounded slowdown than "
        f"EASY++ on the following months on {len(wins)} of {len(rows)} logs"
        + (f" and the same on {len(ties)} ({', '.join(r['trace'] for r in ties)})" if ties
           else "")
        + f"; {verdict}.",
        *([f"- Higher than EASY++ on {len(losses)}: " + ", ".join(
            f"{r['trace']} ({r['chosen_test']:.5f} against {r['easypp_test']:.5f}, "
            f"{(r['chosen_test'] - r['easypp_test']) / r['easypp_test']:+.3%}"
            + ("; no candidate is lower than EASY++ there, even in hindsight"
               if r["hindsight_test"] >= r["easypp_test"] else "") + ")"
            for r in losses) + "."] if losses else []),
        *([f"- Every candidate scores the same on the following months of "
           f"{', '.join(r['trace'] for r in alike)}: the estimates change nothing there, and "
           "no choice can beat EASY++."] if alike else []),
        f"- Mean relative change against EASY++ on the following months: {change:+.1%}.",
        f"- The choice is also the best candidate in hindsight on {hindsight} of {len(rows)} "
        "logs.",
    ]


def design_section(sel):
    """The ways of choosing compared on the same runs: one row per design, one column per log."""
    designs = design_findings(sel)
    described = {d[0]: d[1] for d in SELECTION_DESIGNS}
    lines = ["", "### Other ways of choosing, on the same runs", "",
             "Each design picks from the same simulations by its own criterion "
             "(`cross_validation_scores`); the recent weighting halves a period's weight every "
             "half-life.", "",
             "| design | what it chooses from and how | lower than EASY++ | same | higher | "
             "mean change |", "|---|---|---:|---:|---:|---:|"]
    for d in designs:
        lines.append(f"| {d['design']} | {described[d['design']]} | {d['wins']} | {d['ties']} "
                     f"| {d['losses']} | {d['change']:+.1%} |")
    lines += ["", "The chosen candidate's mean bounded slowdown on the following months, per "
              "design (`<` below EASY++, `=` the same, `>` above):", "",
              "| trace | EASY++ | " + " | ".join(d["design"] for d in designs) + " |",
              "|---|---:|" + "---:|" * len(designs)]
    for k, row in enumerate(sel):
        cells = []
        for d in designs:
            t = d["tests"][k]
            mark = "<" if t < row["easypp_test"] else "=" if t == row["easypp_test"] else ">"
            cells.append(f"{t:.3f} {mark}")
        lines.append(f"| {row['trace']} | {row['easypp_test']:.3f} | " + " | ".join(cells)
                     + " |")
    default = next(d for d in designs if d["design"] == "mean")
    best = max(designs, key=lambda d: (d["wins"], -d["change"]))
    others = [d["design"] for d in designs if d is not default
              and (d["wins"], -d["change"]) > (default["wins"], -default["change"])]
    lines += ["", f"- The default design (mean, 66 candidates) is lower than EASY++ on "
              f"{default['wins']} of {len(sel)} logs (mean change {default['change']:+.1%}); "
              f"the most wins of any design: {best['wins']} ({best['design']}, "
              f"{best['change']:+.1%})."
              + (f" Designs with more wins, or as many and a larger mean cut: "
                 f"{', '.join(others)}." if others else
                 " No other design has more wins, or as many with a larger mean cut.")]
    return lines


def _run_text(result):
    conservative = result.get("conservative_max_jobs")
    text = ("Whole logs" if result.get("max_jobs") is None
            else f"First {result['max_jobs']:,} simulable jobs of each log")
    if conservative is not None:
        text += (f"; conservative backfilling on the first {conservative:,} jobs of each log "
                 "(whole logs below that)")
    reruns = " (the reruns' times: in the note above)" if result["provenance"].get("note") \
        else ""
    return (text + "; predictors are asked at each submission and have seen every job "
            f"completed before it (exact online); the full run took "
            f"{result['elapsed_s']:.0f} s{reruns}.")


def write_markdown(result, path):
    frame = pd.DataFrame(result["runs"])
    lines = ["# Scheduling with predicted runtimes on whole logs", "",
             *provenance_lines(result, "scheduling"), _run_text(result), "",
             "Tang et al. (2013, section 6) used the Intrepid log (12 monthly workloads) and "
             "Tsafrir, Etsion & Feitelson (2007) KTH-SP2, SDSC-SP2, CTC-SP2 and SDSC-BLUE; "
             "here every shared log with requested times is simulated. A missing group id "
             "counts as one group of its own (-1), so Tang's group keys pool those jobs.", ""]
    lines += ["## Traces", ""]
    for name, info in result["traces"].items():
        lines.append(f"- {name}: {info['n_simulated']:,} jobs simulated of {info['n_in_file']:,} "
                     f"over {info['span_days']:.0f} days (dropped: "
                     f"{dropped_text(info['dropped'])}; wider than the machine: "
                     f"{info['rejected']})")
    for name, reason in result["skipped"].items():
        lines.append(f"- {name}: skipped ({reason})")
    for name, reason in result.get("unfinished", {}).items():
        lines.append(f"- {name}: not in these results ({reason})")
    for name, reason in result.get("conservative_skipped", {}).items():
        lines.append(f"- {name}: no conservative runs in Tang's matrix ({reason})")
    lines.append("- CTC-SP2, one of the EASY++ paper's logs, is not among the shared logs.")
    if result.get("easypp"):
        lines += ["", "## EASY++ against EASY", "",
                  "EASY with requested times; EASY++: the recent average of the user's two "
                  "last runtimes, increments on underestimation (1 min, 5 min, 15 min, ...), "
                  "shortest-first backfilling; Tang+: Tang p85 (user + group + request, 30 "
                  "days) selective, used the EASY++ way. Mean bounded slowdown (10 s) and "
                  "mean wait. Published: EASY++ cuts EASY's bounded slowdown by 28-50% on "
                  "KTH-SP2, SDSC-SP2, CTC-SP2 and SDSC-BLUE.", "",
                  "| trace | EASY | EASY++ | cut | published | Tang+ | EASY wait | "
                  "EASY++ wait | Tang+ wait |", "|---|---:|---:|---:|---|---:|---:|---:|---:|"]
        findings = easypp_findings(result["easypp"])
        for row in result["easypp"]:
            lines.append(
                f"| {row['trace']} | {row['easy_bounded_slowdown']:.2f} | "
                f"{row['easypp_bounded_slowdown']:.2f} | {row['reduction']:+.1%} | "
                f"{'28-50%' if row['trace'] in PUBLISHED_EASYPP else ''} | "
                f"{row['tang_plus_bounded_slowdown']:.2f} | "
                f"{format_duration(row['easy_wait'])} | {format_duration(row['easypp_wait'])} | "
                f"{format_duration(row['tang_plus_wait'])} |")
        lines += ["", *findings]
    if result.get("selection"):
        sel = result["selection"]
        lines += ["", "## The predictor chosen by scheduling-level cross-validation", "",
                  f"`select_by_schedule` under EASY with FCFS priority: the "
                  f"{sel[0]['n_candidates']} built-in candidates (requested times, Tang's four "
                  "keys x p70/p85/p95, usage max, recent average of the last "
                  + ("one, two or three runtimes" if sel[0]["n_candidates"] == 66 else "two")
                  + "; each regular and selective, "
                  "each with doubling and priority-order backfilling or with EASY++'s "
                  "increments and shortest-first backfilling) are simulated. The past "
                  f"months are every 30-day period but the last {result['test_periods']} "
                  "(the first one is a warm-up); the chosen candidate has the lowest mean "
                  "over them of the period's mean bounded slowdown, in a simulation of the "
                  "jobs submitted before the split alone (the log as a site had it then). "
                  f"The following months are the last {result['test_periods']} periods; "
                  "their mean bounded slowdown is read from a simulation of the whole log.",
                  *_old_past(sel), "",
                  "| trace | following jobs | chosen on the past months | chosen | EASY++ | "
                  "EASY | best in hindsight |", "|---|---:|---|---:|---:|---:|---|"]
        for row in sel:
            lines.append(f"| {row['trace']} | {row['test_jobs']:,} | {row['chosen']} | "
                         f"{row['chosen_test']:.3f} | {row['easypp_test']:.3f} | "
                         f"{row['easy_test']:.3f} | {row['hindsight']} "
                         f"({row['hindsight_test']:.3f}) |")
        lines += ["", *selection_findings(sel)]
        with_folds = [row for row in sel if "fold_jobs" in row]
        if with_folds:
            lines += design_section(with_folds)
            if len(with_folds) < len(sel):
                lines.append("- Left out of this comparison (their runs kept no period "
                             "scores): " + ", ".join(r["trace"] for r in sel
                                                    if "fold_jobs" not in r) + ".")
    if len(frame):
        findings = result["tang_findings"]
        lines += ["", "## Does selective adjustment beat regular adjustment?", "",
                  "EASY and conservative backfilling. Per quantile and metric: the share of "
                  "(trace, policy, priority) cases where selective is lower than regular "
                  "(ties left out) and the mean relative gain of selective over regular:", "",
                  "| quantile | metric | cases | ties | selective better | mean gain |",
                  "|---|---|---|---|---|---|"]
        for row in findings["selective_vs_regular"]:
            lines.append(f"| {row['quantile']} | {row['metric']} | {row['cases']} | "
                         f"{row['ties']} | {row['share_selective_better']:.0%} | "
                         f"{row['mean_gain_selective_over_regular']:+.1%} |")
        lines += ["", "## Does WFP gain more than FCFS priority?", "",
                  "Mean relative gain against request estimates (positive = better), "
                  "averaged over traces and the two backfilling policies:", "",
                  "| estimates | metric | FCFS priority | WFP priority |", "|---|---|---|---|"]
        for row in findings["gain_by_priority"]:
            lines.append(f"| {row['estimates']} | {row['metric']} | "
                         f"{row['mean_gain_fcfs']:+.1%} | {row['mean_gain_wfp']:+.1%} |")
        lines += ["", "Weighted wait (Tang eq. 4) weighs each job by its priority score at "
                  "start; for WFP that is eq. 5 with the estimate the scheduler used, so "
                  "shorter (predicted) estimates raise the weights of waiting jobs and the WFP "
                  "weighted-wait rows are not comparable across estimate sources; for FCFS "
                  "priority the weight is the wait itself.", "", "## Verdict on Tang's "
                  "findings", "", *result["verdict"]]
        lines += ["", "## All runs", "",
                  "Mean wait as a duration; slowdowns, weighted wait (seconds times the "
                  "priority weight), utilization, loss of capacity and backfill ratio as "
                  "numbers; jobs: how many were simulated.", "", runs_table(frame)]
    write_text(path, "\n".join(lines) + "\n")


def dropped_text(dropped):
    """``{'no positive width': 3, 'no run_time': 11287}`` as "3 with no positive width, ..."."""
    if not dropped:
        return "none"
    return ", ".join(f"{count:,} with {reason}" for reason, count in dropped.items())


def runs_table(frame):
    """The runs as Markdown, one table per trace: durations for mean waits, one number format."""
    lines = []
    for trace, runs in frame.drop(columns=["seconds"]).groupby("trace", sort=False):
        runs = runs.drop(columns=["trace"]).rename(columns={"n_jobs": "jobs"})
        lines += ["", f"### {trace}", "",
                  "| " + " | ".join(c.replace("_", " ") for c in runs.columns) + " |",
                  "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(runs[c]) else "---"
                                 for c in runs) + "|"]
        for row in runs.itertuples(index=False):
            cells = []
            for column, value in zip(runs.columns, row):
                if column == "mean_wait":
                    cells.append(format_duration(value))
                elif isinstance(value, str):
                    cells.append(value)
                else:
                    cells.append(format_number(value))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines[1:])


def render(result, out_dir):
    """Write the page of a result (a run's JSON) into ``out_dir``; recompute the findings."""
    result = dict(result)
    if result["runs"]:
        result["tang_findings"] = tang_findings(pd.DataFrame(result["runs"]))
        result["verdict"] = verdict(result["tang_findings"])
    write_markdown(result, Path(out_dir) / "scheduling.md")


def _old_past(selection):
    """The note on rows whose past scores came from the whole-log runs."""
    old = [row["trace"] for row in selection if row.get("past") != PAST_ALONE]
    if not old:
        return []
    return ["", f"Not yet rerun that way: {', '.join(old)}, whose past scores were read from "
            "the whole-log runs. There a job still waiting at the split could be passed by "
            "jobs of the following months, so those past scores, and a close choice, can "
            "depend slightly on them."]


UPDATABLE = {
    "selection": ("model-selection section", "selection",
                  lambda name, jobs, result: [run_selection(name, jobs, result["test_periods"],
                                                            "30D")]),
    "matrix": ("matrix of policies, priorities and estimates (Tang's questions)", "runs",
               lambda name, jobs, result: run_matrix(name, jobs,
                                                     result["conservative_max_jobs"])),
}
"""Sections ``--update-selection`` and ``--update-matrix`` rerun: what the page calls
them, their key in the result (rows with a ``trace``) and how to rerun one log's rows."""


def update_section(args, argv, section, path):
    """Rerun one section of some logs and put it into an earlier result in their place."""
    began = time.perf_counter()
    title, key, rerun = UPDATABLE[section]
    result = read_json(path)
    names = args.traces or list(dict.fromkeys(row["trace"] for row in result[key])) \
        or list(result["traces"])
    unknown = [n for n in names if n not in result["traces"]]
    if unknown:
        raise SystemExit(f"--update-{section}: {', '.join(unknown)} not in {path}; run them "
                         f"in full first")
    earlier = result["provenance"]
    result["provenance"] = provenance("scheduling", argv)

    def note(took):
        return (f"The {title} was rerun for {', '.join(names)}{took}; the other sections "
                f"are from the run of {earlier['date']} (commit `{earlier['commit']}`, "
                f"`{earlier['command']}`)" + (f". {earlier['note']}" if earlier.get("note")
                                              else "."))
    result["provenance"]["note"] = note(" (unfinished)")
    order = list(result["traces"])
    kept = {}
    for row in result[key]:
        kept.setdefault(row["trace"], []).append(row)
    for name in names:
        jobs, _ = load(name, result["max_jobs"])
        kept[name] = rerun(name, jobs, result)
        result[key] = [row for n in order for row in kept.get(n, [])]
        if section == "matrix" and name not in CONSERVATIVE_SKIP:
            result.get("conservative_skipped", {}).pop(name, None)
        write_json(args.output_dir / "scheduling.json", result)
    result["provenance"]["note"] = note(f" in {time.perf_counter() - began:.0f} s")
    write_json(args.output_dir / "scheduling.json", result)
    render(result, args.output_dir)
    print(json.dumps(result[key], indent=2))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="cut every log to its first N simulable jobs (default: whole logs)")
    parser.add_argument("--conservative-max-jobs", type=int, default=None,
                        help="cut the conservative runs to the first N jobs of each log")
    parser.add_argument("--test-periods", type=int, default=3,
                        help="30-day periods held out as the following months")
    parser.add_argument("--traces", nargs="*",
                        help="logs to simulate, in this order (default: every shared log)")
    parser.add_argument("--resume", type=Path, metavar="PATH",
                        help="continue an interrupted run from its JSON: keep its logs, "
                             "simulate the others")
    parser.add_argument("--no-matrix", action="store_true",
                        help="skip Tang's policy x priority x estimates matrix")
    parser.add_argument("--no-selection", action="store_true",
                        help="skip the scheduling-level model selection")
    parser.add_argument("--update-selection", type=Path, metavar="PATH",
                        help="rerun only the scheduling-level model selection (of --traces, "
                             "default: the logs in PATH) and merge it into the result at PATH; "
                             "the other sections are kept")
    parser.add_argument("--update-matrix", type=Path, metavar="PATH",
                        help="rerun only Tang's policy x priority x estimates matrix (of "
                             "--traces, default: the logs in PATH) and merge it into the "
                             "result at PATH; the other sections are kept")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return
    for section in UPDATABLE:
        path = getattr(args, f"update_{section}")
        if path is not None:
            update_section(args, argv, section, path)
            return
    began = time.perf_counter()
    names = args.traces or sorted(p.name.split(".swf")[0] for p in traces_dir().glob("*.swf*"))
    if args.resume is not None:
        result = read_json(args.resume)
        done = set(result["traces"]) | set(result["skipped"])
        earlier = result["provenance"]
        result["provenance"] = provenance("scheduling", argv)
        result["provenance"]["note"] = (
            f"Continues the run of {earlier['date']} (commit `{earlier['commit']}`, "
            f"`{earlier['command']}`), which simulated {', '.join(result['traces'])}.")
        began -= result.get("elapsed_s", 0.0)
        names = [n for n in names if n not in done]
    else:
        result = None
    result = result or dict(provenance=provenance("scheduling", argv), max_jobs=args.max_jobs,
                  conservative_max_jobs=args.conservative_max_jobs,
                  test_periods=args.test_periods, runs=[], traces={}, skipped={}, easypp=[],
                  selection=[], conservative_skipped={} if args.no_matrix else {
                      n: r for n, r in CONSERVATIVE_SKIP.items() if args.traces is None
                      or n in args.traces})
    for name in names:
        if name in SKIP:
            result["skipped"][name] = SKIP[name]
            continue
        jobs, info = load(name, args.max_jobs)
        result["easypp"].append(run_easypp(name, jobs))
        if not args.no_selection:
            result["selection"].append(run_selection(name, jobs, args.test_periods, "30D"))
        info["rejected"] = result["easypp"][-1].pop("rejected")
        if not args.no_matrix:
            result["runs"] += run_matrix(name, jobs, args.conservative_max_jobs)
        result["traces"][name] = info
        # keep what is done: a run over every whole log takes a while
        result["elapsed_s"] = time.perf_counter() - began
        write_json(args.output_dir / "scheduling.json", result)
    result["elapsed_s"] = time.perf_counter() - began
    write_json(args.output_dir / "scheduling.json", result)
    render(result, args.output_dir)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

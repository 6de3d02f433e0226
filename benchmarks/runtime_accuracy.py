"""Tang et al. (2013) Fig. 4/5 grid and the other runtime predictors on every shared trace.

For every shared trace with requested times and user ids: online replay
(``predictkit.model_selection.replay``, no peeking) of

* ``WalltimeAdjuster`` for the four key types of Tang section 4.1 (user,
  group = project, user+group, user+group+request) x percentiles
  {50, 70, 80, 85, 90, 95, 100} x windows {30D, all history}, each without the
  floor (Fig. 4/5) and with ``floor=0.5`` (section 4.2.3, Fig. 6/7);
* Tang's recommended scheme (section 4.2.5: triple key, 30D, p85, floor 0.5;
  user+request on traces without groups), ``RecentUsageMax`` (Klusacek &
  Soysal 2019), ``RecentAverage`` (Tsafrir et al. 2007) and the user requests;
* the learned pipeline ``HistoryFeatures() -> HistGradientBoostingRegressor
  (loss="quantile", quantile=0.85)``, on the last ``--folds`` 30-day periods
  only (``TraceSplit``, sliding 90-day training window cut to its most recent
  ``--max-train`` jobs, test jobs finished before each submission fed to the
  features as in ``replay_cross_validate``), clipped to [1 s, request]; the
  other predictors are also scored on those same jobs for comparison;
* the accuracy-vs-bad-estimate frontier on those same jobs: every grid cell
  and predictor as a point, ``LearnedRuntime`` (``make_predictor("learned")``)
  as a curve over ``max_bad_share`` in {0.5%, 1%, 2%, 5%, 10%, 20%}, its
  default (2%) replayed on its own and timed.

Scores: Tang's average accuracy (eq. 3) and NA/OE/UE/BE shares (section
4.2.2) over the jobs with a known runtime and request, leaving out the jobs
cancelled before they ran (``cancelled_before_running``: a runtime of 0 that
is no runtime), as ``predictkit predict`` does. Keys needing
``group_id`` are skipped on traces without groups. Logs without wait times
(LLNL-Atlas, LLNL-Thunder) are replayed assuming no queue wait (known time =
submit + run); LLNL-Thunder jobs without a submit time are dropped.

Run from the repository root: ``python -m benchmarks.runtime_accuracy
[--traces NAME ...] [--output-dir DIR] [--from-json PATH]``; prints JSON and
writes ``runtime_accuracy.json`` (the scores, with the provenance of the run)
and ``runtime.md`` (rendered from that JSON alone) into ``--output-dir``
(default ``build/benchmarks/``). ``--from-json`` renders the page again from
a saved JSON without replaying anything.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

from predictkit._table import cancelled_before_running, known_after_submission
from predictkit.io import read_swf
from predictkit.jobs import known_time
from predictkit.metrics import adjustment_outcomes, estimate_accuracy
from predictkit.model_selection import TraceSplit, known_times, replay
from predictkit.runtime import (HistoryFeatures, LearnedRuntime, RecentAverage, RecentUsageMax,
                                RequestedTime, WalltimeAdjuster)
from benchmarks._common import parse_or_render, provenance, traces_dir, write_json
from benchmarks._runtime_report import write_markdown

KEYS = {"user": ("user_id",), "group": ("group_id",), "user+group": ("user_id", "group_id"),
        "user+group+request": ("user_id", "group_id", "req_time")}
PERCENTILES = (50, 70, 80, 85, 90, 95, 100)
BUDGETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
"""``max_bad_share`` of the learned predictor's curve."""
WINDOWS = {"30D": "30D", "all": None}


def score(y, req, pred, rows):
    out = adjustment_outcomes(y[rows], req[rows], pred[rows])
    return {"accuracy": round(estimate_accuracy(y[rows], pred[rows]), 4),
            **{k: round(v, 4) for k, v in out.items()}}


def prepare(path):
    """Load a trace; return (jobs, y, known_time, notes) or a skip reason."""
    jobs = read_swf(path)
    notes = []
    req = jobs["req_time"].to_numpy(dtype=float)
    if not np.isfinite(req).any():
        return "no requested times"
    if not np.isfinite(jobs["user_id"].to_numpy(dtype=float)).any():
        return "no user ids (every key type and the per-user predictors need them)"
    no_submit = np.isnan(jobs["submit_time"].to_numpy(dtype=float))
    if no_submit.any():
        notes.append(f"dropped {int(no_submit.sum())} jobs without a submit time")
        jobs = jobs[~no_submit].reset_index(drop=True)
    y = jobs["run_time"].to_numpy(dtype=float)
    wait = jobs["wait_time"].to_numpy(dtype=float)
    known = None
    if np.isnan(wait[np.isfinite(y)]).any():
        notes.append("no wait times: replayed assuming no queue wait")
        known = known_time(jobs, y=y, assume_no_wait=True)
    return jobs, y, known, notes


def learned(jobs, y, req, folds, max_train):
    """Pipeline predictions on the last ``folds`` 30-day periods (NaN elsewhere)."""
    pred = np.full(len(jobs), np.nan)
    cv = TraceSplit(n_splits=folds, period="30D", train="sliding", train_window="90D")
    known = None
    if "end_time" not in jobs.columns and np.isnan(jobs["wait_time"].to_numpy(float)).any():
        wait = np.nan_to_num(jobs["wait_time"].to_numpy(float))
        known = jobs["submit_time"].to_numpy(float) + wait + y
    table = jobs if known is None else jobs.assign(end_time=known)
    for train, test in cv.split(table):
        train = train[np.isfinite(y[train])][-max_train:]
        pipe = make_pipeline(HistoryFeatures(), HistGradientBoostingRegressor(
            loss="quantile", quantile=0.85, random_state=0))
        pipe.fit(table.iloc[train], y[train])
        done = test[np.isfinite(y[test])]
        pipe[0].partial_fit(table.iloc[done], y[done])
        raw = pipe.predict(table.iloc[test])
        pred[test] = np.maximum(np.fmin(raw, req[test]), 1.0)
    return pred


def last_folds(jobs, folds):
    """Rows of the test jobs of the last ``folds`` 30-day periods (the pipeline's folds)."""
    rows = np.zeros(len(jobs), dtype=bool)
    cv = TraceSplit(n_splits=folds, period="30D", train="sliding", train_window="90D")
    for _, test in cv.split(jobs):
        rows[test] = True
    return rows


def learned_curve(jobs, y, req, known, rows):
    """Scores of ``LearnedRuntime`` over :data:`BUDGETS`; the default's replay time."""
    started = time.perf_counter()
    default = replay(LearnedRuntime(), jobs, y, known_time=known)
    seconds = time.perf_counter() - started
    # one estimator for the curve: the budget changes no model, so its fits are reused
    est = LearnedRuntime()
    if known is None:
        known = known_times(jobs, y)
    # replay's clock: a runtime known at its job's submission is known just after it
    known = known_after_submission(np.asarray(known, dtype=float),
                                   jobs["submit_time"].to_numpy(dtype=float))
    curve = []
    for budget in BUDGETS:
        pred = default if budget == 0.02 else est.set_params(max_bad_share=budget)._replay(
            jobs, y, known)
        curve.append({"max_bad_share": budget, **score(y, req, pred, rows)})
    return {"default": score(y, req, default, rows), "seconds": round(seconds, 1),
            "curve": curve}


def run_trace(path, args):
    prepared = prepare(path)
    if isinstance(prepared, str):
        return {"skipped": prepared}
    jobs, y, known, notes = prepared
    req = jobs["req_time"].to_numpy(dtype=float)
    never_ran = cancelled_before_running(jobs)
    rows = np.isfinite(y) & np.isfinite(req) & ~never_ran
    if (never_ran & np.isfinite(y) & np.isfinite(req)).any():
        notes.append(f"{int((never_ran & np.isfinite(y) & np.isfinite(req)).sum())} jobs "
                     "cancelled before they ran not scored")
    has_group = np.isfinite(jobs["group_id"].to_numpy(dtype=float)).any()
    result = {"n_jobs": len(jobs), "n_scored": int(rows.sum()), "notes": notes, "grid": []}
    fold_rows = rows & last_folds(jobs, args.folds)
    frontier = {"n_scored": int(fold_rows.sum()), "points": [],
                # the jobs that can be bad estimates at all (Tang's BE: 30 minutes)
                "long_share": round(float(np.mean(y[fold_rows] > 1800.0)), 4)}
    if not has_group:
        notes.append("no group ids: group-based key types skipped")
    started = time.perf_counter()
    for key_name, keys in KEYS.items():
        if "group_id" in keys and not has_group:
            continue
        for window_name, window in WINDOWS.items():
            for pct in PERCENTILES:
                for floor in (None, 0.5):
                    est = WalltimeAdjuster(keys=keys, window=window, quantile=pct / 100,
                                           floor=floor)
                    pred = replay(est, jobs, y, known_time=known)
                    cell = {"keys": key_name, "window": window_name, "percentile": pct,
                            "floor": floor}
                    result["grid"].append({**cell, **score(y, req, pred, rows)})
                    frontier["points"].append({"predictor": "tang", **cell,
                                               **score(y, req, pred, fold_rows)})
    result["grid_seconds"] = round(time.perf_counter() - started, 1)
    tang_keys = KEYS["user+group+request"] if has_group else ("user_id", "req_time")
    others = {"requested": RequestedTime(), "RecentUsageMax": RecentUsageMax(),
              "RecentAverage": RecentAverage(),
              "Tang triple 30D p85 floor 0.5": WalltimeAdjuster(keys=tang_keys)}
    preds = {name: replay(est, jobs, y, known_time=known) for name, est in others.items()}
    result["predictors"] = {name: score(y, req, p, rows) for name, p in preds.items()}
    frontier["points"] += [{"predictor": name, **score(y, req, p, fold_rows)}
                           for name, p in preds.items()]
    frontier["learned"] = learned_curve(jobs, y, req, known, fold_rows)
    result["frontier"] = frontier
    started = time.perf_counter()
    try:
        with threadpool_limits(1):
            pipe = learned(jobs, y, req, args.folds, args.max_train)
    except Exception as exc:  # reported, not hidden: the table says why it is missing
        result["learned"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    else:
        test_rows = rows & np.isfinite(pipe)
        block = {"n_scored": int(test_rows.sum()),
                 "pipeline": score(y, req, pipe, test_rows)}
        block.update({name: score(y, req, p, test_rows) for name, p in preds.items()})
        block["seconds"] = round(time.perf_counter() - started, 1)
        result["learned"] = block
        frontier["points"].append({"predictor": "pipeline", **block["pipeline"],
                                   "n_scored": block["n_scored"]})
    return result


def render(report, out_dir):
    """Write ``runtime.md`` of a report (a run's JSON) into ``out_dir``."""
    write_markdown(report, Path(out_dir) / "runtime.md")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="*", help="trace names (default: all)")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--max-train", type=int, default=40_000)
    parser.add_argument("--no-write", action="store_true", help="only print JSON")
    args = parse_or_render(parser, argv, render)
    if args is None:
        return 0
    folder = traces_dir()
    if folder is None:
        print(json.dumps({"skipped": "shared traces not found"}))
        return 0
    report = {"provenance": provenance("runtime_accuracy", argv), "traces": {}}
    started = time.perf_counter()
    for path in sorted(folder.glob("*.swf*")):
        name = path.name.split(".swf")[0]
        if args.traces and name not in args.traces:
            continue
        t0 = time.perf_counter()
        report["traces"][name] = run_trace(path, args)
        report["traces"][name]["seconds"] = round(time.perf_counter() - t0, 1)
        print(f"{name}: {report['traces'][name]['seconds']} s", file=sys.stderr)
    report["seconds"] = round(time.perf_counter() - started, 1)
    if not args.no_write:
        write_json(args.output_dir / "runtime_accuracy.json", report)
        render(report, args.output_dir)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

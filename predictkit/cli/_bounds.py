"""``predictkit bounds TRACE``: QBETS wait bounds per job class now and per job."""

import re
import sys

import numpy as np
import pandas as pd

from ..exceptions import JobTableError
from ..metrics import bound_summary
from ..model_selection import replay
from ..queue import QBETS
from ._checks import check_fraction, check_seed
from ._common import (Progress, add_command, add_output_options, print_json, read_trace_arg,
                      table_format, write_table)
from ._tables import format_number, format_table


def register(subparsers):
    parser = add_command(
        subparsers, "bounds", help="QBETS upper bounds on queue waits (per class now, per job online)",
        description="Replay the trace online with QBETS (Nurmi et al. 2008, section 2.3): "
                    "each job gets, at its submission, an upper bound on its wait from the "
                    "waits of jobs already started. Prints the bound of each job class at "
                    "the end of the trace ('now') and the correctness/tightness of the "
                    "per-job bounds; -o writes the per-job bounds (CSV or JSON).")
    from ._common import add_log_argument
    add_log_argument(parser)
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="quantile of the wait to bound, in (0, 1)")
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="confidence of the bound, in (0, 1)")
    parser.add_argument("--changepoint", choices=("runs", "ruptures", "none"), default="runs",
                        help="history trimming rule")
    parser.add_argument("--clustering", choices=("auto", "bic", "none"), default="auto",
                        help="job classes by requested nodes and time")
    parser.add_argument("--index", choices=("textbook", "reference"), default="textbook",
                        help="order-statistic rule")
    parser.add_argument("--seed", type=int, default=0,
                        help="random state of QBETS's job classes; fixed by default so that "
                             "two runs agree (QBETS(random_state=None) in Python draws fresh "
                             "ones)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


def run(args):
    check_fraction(args.quantile, "--quantile")
    check_fraction(args.confidence, "--confidence")
    check_seed(args.seed)
    if args.output:
        table_format(args.output, args.format)  # refuse -o x.swf before reading
    progress = Progress("bounds", quiet=args.quiet)
    progress.settings(quantile=args.quantile, confidence=args.confidence,
                      changepoint=args.changepoint, clustering=args.clustering, index=args.index,
                      seed=args.seed)
    with progress.step(lambda: f"read {len(jobs):,} jobs from {args.trace}"):
        jobs = read_trace_arg(args.trace)
    usable = np.isfinite(jobs["wait_time"]) & np.isfinite(jobs["submit_time"])
    if not usable.any():
        raise JobTableError(f"{args.trace}: no job has a known wait time; QBETS needs waits "
                            "(predictkit simulate TRACE -o waits.swf gives a log simulated ones)")
    if not usable.all():
        progress.say(f"left out {int((~usable).sum()):,} jobs without a known wait or "
                     "submit time")
    jobs = jobs[usable].reset_index(drop=True)
    model = QBETS(quantile=args.quantile, confidence=args.confidence,
                  changepoint=None if args.changepoint == "none" else args.changepoint,
                  clustering=None if args.clustering == "none" else args.clustering,
                  index=args.index, random_state=args.seed)
    waits = jobs["wait_time"].to_numpy()
    with progress.step(f"bounded the waits of {len(jobs):,} jobs online"):
        bounds = replay(model, jobs, waits)
    # the state at the end of the trace: every wait, in the order they became known
    submit = jobs["submit_time"].to_numpy()
    order = np.lexsort((np.arange(len(jobs)), submit, submit + waits))
    with progress.step("fitted the classes at the end of the log"):
        model.fit(jobs.iloc[order])
    classes = model.class_bounds()
    summary = bound_summary(waits, bounds, quantile=args.quantile)
    summary["n_skipped_unknown_wait"] = int((~usable).sum())
    if args.output:
        _write(jobs, bounds, args)
    if args.quiet:
        return 0
    stream = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        print_json({"summary": summary, "classes": classes.to_dict(orient="records")}, stream)
        return 0
    print(f"QBETS q={args.quantile:g} c={args.confidence:g}: bound per class now "
          f"(n/a = too little history)", file=stream)
    shown = classes.copy()
    for column in ("nodes", "requested_time"):
        shown[column] = [_numbers_in(text) for text in shown[column].astype(str)]
    shown["bound"] = shown["bound"] / 3600.0
    shown = shown.rename(columns={"nodes": "nodes (requested)",
                                  "requested_time": "requested_time (s)",
                                  "n_history": "history (jobs)", "bound": "bound (h)"})
    print(format_table(shown), file=stream)
    print(f"\nper-job bounds: {summary['n_bounded']:,} of {summary['n_jobs']:,} jobs got one; "
          f"correct {format_number(summary['correctness'])} (95% CI "
          f"{format_number(summary['correctness_low'])}-"
          f"{format_number(summary['correctness_high'])}); bound/actual median "
          f"{format_number(summary['median_ratio'])}, mean "
          f"{format_number(summary['mean_ratio'])} (jobs waiting > 60 s)", file=stream)
    return 0


def _numbers_in(text):
    """A class description (``~4.7e+03``, ``[16, 64)``) with its numbers in the table format."""
    def number(match):
        value = float(match.group())
        return format_number(int(value) if value.is_integer() else value)

    return re.sub(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", number, text)


def _write(jobs, bounds, args):
    out = pd.DataFrame({"job_id": jobs["job_id"].to_numpy(),
                        "submit_time": jobs["submit_time"].to_numpy(),
                        "wait_time": jobs["wait_time"].to_numpy(), "bound": bounds})
    write_table(out, args.output, args.format)

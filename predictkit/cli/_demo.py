"""``predictkit demo``: the whole toolkit on a built-in synthetic workload (or a log) in a minute."""

import contextlib
import sys
import time

import pandas as pd

from ..datasets import make_workload
from ..report import analyze, build_report
from ._common import read_trace_arg, result_stream


def register(subparsers):
    parser = subparsers.add_parser(
        "demo", help="run the whole study on a synthetic workload (or a log) and write a report",
        description=(
            "Summarise a log, compare the users' requests with each runtime predictor "
            "(online replay, no peeking), check QBETS wait bounds, simulate EASY and "
            "conservative backfilling with requests and with the best predictor, and "
            "write an HTML report. Without --trace it uses the built-in synthetic "
            "workload (Lublin & Feitelson model with users, sessions and modal "
            "estimates), simulated once with EASY to give it waits."),
    )
    from ._common import add_log_argument
    add_log_argument(parser, flag="--trace", help="a log instead of the synthetic workload")
    parser.add_argument("--jobs", type=int, default=5000,
                        help="synthetic jobs, or the first N jobs of --trace (default 5000)")
    parser.add_argument("--procs", type=int, default=128, help="synthetic machine size (default 128)")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed of the workload and of the analysis (default 0)")
    parser.add_argument("-o", "--output", default="predictkit-demo",
                        help="folder for the HTML report (default ./predictkit-demo); '-' "
                             "writes the page to standard output")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(func=run, output_is_folder=True)


def _print_table(title, frame, columns=None):
    print(f"\n== {title}")
    frame = frame if columns is None else frame[columns]
    print(frame.to_string(index=False, float_format=lambda v: f"{v:,.3f}"))


def run(args):
    if args.jobs < 100:
        from ..exceptions import ConfigError

        raise ConfigError(f"--jobs must be at least 100, got {args.jobs}")
    started = time.perf_counter()
    if args.trace:
        jobs, name = read_trace_arg(args.trace), None
    else:
        jobs = make_workload(n_jobs=args.jobs, n_procs=args.procs, random_state=args.seed)
        name = f"synthetic ({args.jobs:,} jobs, {args.procs} procs, seed {args.seed})"
    show_progress = not args.quiet and sys.stderr.isatty()
    analysis = analyze(jobs, name=name, max_jobs=args.jobs, progress=show_progress,
                       random_state=args.seed)
    page = build_report(analysis, args.output)
    if args.quiet:
        return 0
    with contextlib.redirect_stdout(result_stream(args.output)):
        _print_results(analysis, page, started)
    return 0


def _print_results(analysis, page, started):
    summary = analysis.summary
    print(f"predictkit demo on {analysis.name}")
    keys = ["n_jobs", "span_days", "machine_procs", "n_users", "accuracy_mean",
            "frac_at_request", "n_estimates", "modes_for_90pct"]
    print(pd.DataFrame({"value": summary[keys]}).to_string())
    for note in analysis.notes:
        print(f"note: {note}")
    if analysis.predictor_table is not None:
        _print_table("Runtime predictions (online replay; accuracy: Tang eq. 3, higher is better)",
                     analysis.predictor_table,
                     ["predictor", "accuracy", "underestimated", "NA", "OE", "UE", "BE"])
    _print_table(f"QBETS wait bounds (q = {analysis.quantile}; correctness should reach q)",
                 analysis.bound_table)
    if analysis.schedule_table is not None:
        _print_table("Schedules (waits in hours; bounded slowdown with 10 s threshold)",
                     analysis.schedule_table,
                     ["policy", "estimates", "mean_wait_h", "mean_bounded_slowdown", "utilization"])
    where = "standard output" if str(page) == "-" else page.resolve()
    print(f"\nReport: {where}  ({time.perf_counter() - started:.0f} s)")

"""``predictkit demo``: the whole toolkit on a built-in synthetic workload (or a log) in a minute."""

import contextlib
import time

import pandas as pd

from .._format import displayable, format_count
from ..datasets import make_workload
from ..workload._synthetic import DEFAULT_MACHINE_PROCS
from ..exceptions import ConfigError, JobTableError
from ..jobs import SUMMARY_LABELS
from ..jobs import describe_cleaning
from ..report import analyze, build_report
from ._checks import check_load, check_procs, check_seed, flag_names, is_given, os_errors
from ._logs import add_log_argument, read_done, read_trace_arg, refuse_log_options
from ._machine import with_machine_size
from ._output import result_stream
from ._parser import DeprecatedAlias, add_command, add_quiet_option, path_text
from ._progress import Progress, print_warning
from ._tables import format_table
from ._info import _value


def register(subparsers):
    parser = add_command(
        subparsers, "demo", help="run the whole study on a synthetic workload (or a log) and write a report",
        description=(
            "Summarise a log, compare the users' requests with each runtime predictor "
            "(online replay, no peeking), check QBETS wait bounds, simulate EASY and "
            "conservative backfilling with requests and with the best predictor, and "
            "write an HTML report. Without --trace it uses the built-in synthetic "
            "workload (make_workload: Lublin & Feitelson arrivals and sizes with users, "
            "sessions, and the runtimes and requests of a site fitted to nine archive "
            f"logs, at an offered load of {DEMO_LOAD} per week), simulated once with EASY "
            "to give it waits."),
    )
    add_log_argument(parser, flag="--trace", help="a log instead of the synthetic workload")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="synthetic jobs (default: 5000)")
    parser.add_argument("--max-jobs", type=int, default=None, metavar="N",
                        help="analyse only the first N jobs (after cleaning; default: every "
                             "synthetic job, 5000 of --trace)")
    parser.add_argument("--machine-procs", type=int, default=None, metavar="P",
                        help="processors of the synthetic machine (default: 128); with "
                             "--trace, of the log's machine (default: its header's MaxProcs, "
                             "else its widest job)")
    parser.add_argument("--n-procs", "--procs", type=int, dest="machine_procs",
                        action=DeprecatedAlias, new="--machine-procs")
    parser.add_argument("--load", type=float, default=None,
                        help=f"offered load of every week of the synthetic workload (default: "
                             f"{DEMO_LOAD})")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random choice (workload, QBETS job classes)")
    parser.add_argument("-o", "--output", default="predictkit-demo", type=path_text,
                        help="folder for the HTML report; '-' writes the page to standard "
                             "output")
    add_quiet_option(parser, "the report is still written")
    parser.set_defaults(func=run, output_is_folder=True)


DEMO_LOAD = 0.6
"""Offered load of the demo's synthetic workload: a production machine's (0.6-0.8)."""

_UNITS = {"underestimated": "underestimated (fraction)", "NA": "NA (fraction)",
          "OE": "OE (fraction)", "UE": "UE (fraction)", "BE": "BE (fraction)",
          "mae_h": "mean abs. error (h)", "mean_wait_h": "mean wait (h)",
          "mean_bounded_slowdown": "mean bounded slowdown (ratio)",
          "utilization": "utilization (fraction)"}
"""Columns of the printed tables, with their units."""


def _print_table(title, frame, columns=None):
    print(f"\n== {title}")
    frame = frame if columns is None else frame[columns]
    print(format_table(frame.rename(columns=_UNITS)))


def _check_args(args):
    """Refuse bad values before any work, each naming its flag; return the job limit."""
    max_jobs = args.max_jobs
    if args.trace and args.jobs is not None:
        print_warning("predictkit demo", "--jobs with --trace is deprecated; use --max-jobs")
        max_jobs = args.jobs if max_jobs is None else max_jobs
    jobs = 5000 if args.jobs is None else args.jobs
    if max_jobs is None:
        max_jobs = 5000 if args.trace else jobs
    if not args.trace and jobs < 100:
        raise ConfigError(f"--jobs must be at least 100, got {jobs}")
    if max_jobs < 100:
        flag = "--max-jobs" if args.max_jobs is not None or not args.trace else "--jobs"
        raise ConfigError(f"{flag} must be at least 100, got {max_jobs}")
    if args.machine_procs is not None:
        check_procs(args.machine_procs)
    check_seed(args.seed)
    if args.trace:
        if is_given(args, "load"):
            raise ConfigError("--load applies to the synthetic workload only, not to --trace")
    else:
        refuse_log_options(args, False, "--trace")
        args.machine_procs = (DEFAULT_MACHINE_PROCS if args.machine_procs is None
                              else args.machine_procs)
        args.load = DEMO_LOAD if args.load is None else args.load
        check_load(args.load)
    if not args.trace:
        from ..workload._synthetic import _check_memory

        with flag_names({"n_jobs": "--jobs"}):
            _check_memory(jobs)
    return jobs, max_jobs


STEPS = {"prepare": "cleaned the log", "predictors": "replayed the runtime predictors",
         "bounds": "replayed the wait bounds (QBETS, WaitPredictor)", "schedules": "simulated the schedules",
         "fairness": "computed the fair start times"}
"""What each step of :func:`predictkit.report.analyze` did, for the progress lines."""


def analyze_and_write(jobs, output, progress, *, command=None, **options):
    """Run :func:`predictkit.report.analyze` with progress lines, then write the report page
    (which names the ``command`` that made it).

    Shared by ``demo`` and ``report``; returns ``(analysis, page)``.
    """
    analysis = analyze(jobs, progress=lambda step, seconds: progress.finished(
        STEPS.get(step, step), seconds), **options)
    if describe_cleaning(analysis.cleaning):
        progress.left_out(describe_cleaning(analysis.cleaning))
    with progress.step("wrote the report"), os_errors("-o", output):
        page = build_report(analysis, output, command=command)
    return analysis, page


def run(args):
    n_jobs, max_jobs = _check_args(args)
    started = time.perf_counter()
    progress = Progress("demo", quiet=args.quiet)
    if args.trace:
        progress.settings(trace=args.trace, max_jobs=max_jobs,
                          machine_procs=args.machine_procs or "the log's", seed=args.seed,
                          output=args.output)
        with progress.step(lambda: read_done(jobs, args.trace)):
            jobs, name = read_trace_arg(args.trace), None
        if not len(jobs):
            raise JobTableError(f"--trace {args.trace}: the log has no jobs")
        jobs = with_machine_size(jobs, args.machine_procs)
    else:
        progress.settings(jobs=n_jobs, machine_procs=args.machine_procs, load=args.load,
                          seed=args.seed, output=args.output)
        with progress.step(f"generated {format_count(n_jobs, 'job')}"):
            jobs = make_workload(n_jobs=n_jobs, machine_procs=args.machine_procs,
                                 random_state=args.seed, load=args.load)
        name = (f"synthetic ({format_count(n_jobs, 'job')}, {args.machine_procs} procs, "
                f"load {args.load:g}, "
                f"seed {args.seed})")
    analysis, page = analyze_and_write(jobs, args.output, progress, command=args.command_line,
                                       name=name, max_jobs=max_jobs,
                                       random_state=args.seed)
    if args.quiet:
        return 0
    with contextlib.redirect_stdout(result_stream(args.output)):
        _print_results(analysis, page, started)
    return 0


def _print_results(analysis, page, started):
    summary = analysis.summary
    print(f"predictkit demo on {displayable(analysis.name)}")
    keys = ["n_jobs", "span_days", "machine_procs", "n_users", "accuracy_mean",
            "frac_at_request", "n_estimates", "modes_for_90pct"]
    columns = {"value": [_value(k, summary[k]) for k in keys]}
    if analysis.analysed_summary is not None:  # the sections below cover a prefix
        columns = {"whole log": columns["value"],
                   "analysed": [_value(k, analysis.analysed_summary[k]) for k in keys]}
    print(pd.DataFrame(columns, index=[SUMMARY_LABELS.get(k, k) for k in keys]).to_string())
    for note in analysis.notes:
        print(f"note: {note}")
    if analysis.predictor_table is not None:
        _print_table("Runtime predictions (online replay; accuracy: Tang eq. 3, higher is better)",
                     analysis.predictor_table,
                     ["predictor", "accuracy", "underestimated", "NA", "OE", "UE", "BE"])
    _print_table(f"Wait bounds, QBETS and WaitPredictor (q = {analysis.quantile}; correctness "
                 "should reach q)",
                 analysis.bound_table)
    if analysis.schedule_table is not None:
        _print_table("Schedules (bounded slowdown with 10 s threshold)",
                     analysis.schedule_table,
                     ["policy", "estimates", "mean_wait_h", "mean_bounded_slowdown", "utilization"])
    where = "standard output" if str(page) == "-" else page.resolve()
    print(f"\nReport: {displayable(where)}  ({time.perf_counter() - started:.0f} s)")

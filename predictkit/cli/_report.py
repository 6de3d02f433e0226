"""``predictkit report TRACE -o DIR``: the static HTML report of a log."""

import sys

from ..report import analyze, build_report
from ._common import read_trace_arg


def register(subparsers):
    parser = subparsers.add_parser(
        "report", help="write a static HTML report with the papers' plots for a log",
        description=(
            "Analyse a log (requests, runtime predictors, QBETS bounds, schedules, "
            "fairness) and write OUTPUT/index.html, one self-contained page with the "
            "figures embedded."),
    )
    from ._common import add_log_argument
    add_log_argument(parser)
    parser.add_argument("-o", "--output", default="report",
                        help="output folder (default ./report); '-' writes the page to "
                             "standard output")
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="analyse only the first N jobs (after cleaning)")
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="quantile of the QBETS bounds (default 0.95)")
    parser.add_argument("--no-fairness", action="store_true",
                        help="skip the fair-start-time analysis (the slowest part)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(func=run, output_is_folder=True)


def run(args):
    from ..exceptions import ConfigError

    if not 0 < args.quantile < 1:
        raise ConfigError(f"--quantile must be in (0, 1), got {args.quantile}")
    if args.max_jobs is not None and args.max_jobs < 100:
        raise ConfigError(f"--max-jobs must be at least 100, got {args.max_jobs}")
    jobs = read_trace_arg(args.trace)
    analysis = analyze(jobs, max_jobs=args.max_jobs, quantile=args.quantile,
                       fairness=not args.no_fairness,
                       progress=not args.quiet and sys.stderr.isatty())
    page = build_report(analysis, args.output)
    if not args.quiet and args.output != "-":
        print(page.resolve())
    return 0

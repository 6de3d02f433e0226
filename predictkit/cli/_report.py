"""``predictkit report TRACE -o DIR``: the static HTML report of a log."""

from .._format import displayable
from ._checks import check_fraction, check_procs, check_seed
from ._logs import add_log_argument, read_done, read_trace_arg
from ._machine import with_machine_size
from ._parser import add_command, add_quiet_option, path_text
from ._progress import Progress
from ._demo import analyze_and_write


def register(subparsers):
    parser = add_command(
        subparsers, "report", help="write a static HTML report with the papers' plots for a log",
        description=(
            "Analyse a log (requests, runtime predictors, QBETS bounds, schedules, "
            "fairness) and write OUTPUT/index.html, one self-contained page with the "
            "figures embedded."),
    )
    add_log_argument(parser)
    parser.add_argument("-o", "--output", default="report", type=path_text,
                        help="output folder; '-' writes the page to "
                             "standard output")
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="analyse only the first N jobs (after cleaning; default: all)")
    parser.add_argument("--machine-procs", type=int, default=None, metavar="P",
                        help="processors of the log's machine, for the schedules and the "
                             "wait bounds (default: its header's MaxProcs, else its widest "
                             "job: give it for a Slurm log, whose jobs rarely fill the machine)")
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="quantile of the QBETS bounds")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random choice (the QBETS job classes)")
    parser.add_argument("--no-fairness", action="store_true",
                        help="skip the fair-start-time analysis (the slowest part)")
    add_quiet_option(parser, "the report is still written")
    parser.set_defaults(func=run, output_is_folder=True)


def run(args):
    from ..exceptions import ConfigError, JobTableError

    check_fraction(args.quantile, "--quantile")
    if args.max_jobs is not None and args.max_jobs < 100:
        raise ConfigError(f"--max-jobs must be at least 100, got {args.max_jobs}")
    check_seed(args.seed)
    if args.machine_procs is not None:
        check_procs(args.machine_procs)
    progress = Progress("report", quiet=args.quiet)
    progress.settings(max_jobs=args.max_jobs or "all",
                      machine_procs=args.machine_procs or "the log's", quantile=args.quantile,
                      fairness=not args.no_fairness, seed=args.seed, output=args.output)
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    if not len(jobs):
        raise JobTableError(f"{args.trace}: the log has no jobs")
    jobs = with_machine_size(jobs, args.machine_procs)
    _, page = analyze_and_write(jobs, args.output, progress, command=args.command_line,
                                max_jobs=args.max_jobs,
                                quantile=args.quantile, fairness=not args.no_fairness,
                                random_state=args.seed)
    if not args.quiet and args.output != "-":
        print(displayable(page.resolve()))
    return 0

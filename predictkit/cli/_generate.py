"""``predictkit generate``: synthetic workloads, or synthetic estimates for a real log."""

import sys

from .._time import parse_duration
from ..exceptions import ConfigError
from ._common import add_output_options, read_trace_arg, write_table

MODELS = ("tsafrir", "fmodel", "phi", "x2", "shuffle", "sessions")


def register(subparsers):
    parser = subparsers.add_parser(
        "generate", help="write a synthetic workload, or replace a log's estimates",
        description=(
            "Without --estimates-for: generate a synthetic workload (Lublin & Feitelson "
            "2003 jobs with users, sessions and Tsafrir et al. 2005 estimates) and write "
            "it as SWF. With --estimates-for TRACE: replace the requested times of a real "
            "log with a model's estimates (SWF output drops the original requests; CSV "
            "output keeps them in orig_req_time)."),
    )
    parser.add_argument("--jobs", type=int, default=10_000, metavar="N",
                        help="number of synthetic jobs (default 10000)")
    parser.add_argument("--procs", type=int, default=128, metavar="P",
                        help="processors of the synthetic machine (default 128)")
    parser.add_argument("--tmax", default=None, metavar="DURATION",
                        help="maximal estimate, e.g. 18h (synthetic default 18h; with "
                             "--estimates-for, learned from the log when omitted)")
    parser.add_argument("--pmax", type=float, default=None, metavar="PERCENT",
                        help="percent of jobs estimating tmax (model default about 22)")
    parser.add_argument("--load", type=float, default=None,
                        help="target offered load of the synthetic workload (default: the "
                             "model's own arrival rate)")
    parser.add_argument("--seed", type=int, default=None, help="random seed")
    from ._common import add_log_argument
    add_log_argument(parser, dest="estimates_for", flag="--estimates-for",
                     help="the log whose estimates to replace")
    parser.add_argument("--model", choices=MODELS, default="tsafrir",
                        help="estimate model for --estimates-for: tsafrir (modal model fitted "
                             "to the log), fmodel, phi, x2 (doubled), shuffle, sessions "
                             "(modal model with session-aware assignment); default tsafrir")
    parser.add_argument("--f", type=float, default=1.0, dest="f",
                        help="f of the f-model (default 1)")
    parser.add_argument("--fit-modes", type=int, default=3, metavar="K",
                        help="popular estimates of the log the modal model keeps besides "
                             "tmax (0 = vanilla; default 3)")
    parser.add_argument("--truncate", action="store_true",
                        help="cap runtimes above tmax at tmax instead of stopping")
    add_output_options(parser, formats=("swf", "csv"))
    parser.set_defaults(func=run)


def _model(args):
    from ..workload import (DoubledEstimates, FModel, PhiModel, ShuffledEstimates,
                            TsafrirEstimates)

    if args.model in ("tsafrir", "sessions"):
        return TsafrirEstimates(
            t_max=args.tmax, p_max=args.pmax, n_fit_modes=args.fit_modes,
            assignment="sessions" if args.model == "sessions" else "shuffle",
            truncate=args.truncate, random_state=args.seed)
    if args.model == "fmodel":
        return FModel(f=args.f, random_state=args.seed)
    if args.model == "phi":
        kwargs = {"t_max": args.tmax} if args.tmax is not None else {}
        return PhiModel(random_state=args.seed, **kwargs)
    if args.model == "x2":
        return DoubledEstimates()
    return ShuffledEstimates(truncate=args.truncate, random_state=args.seed)


def _estimate(args, source):
    """Replace the requests of ``source``; the modal model learns from the known ones."""
    model = _model(args)
    if args.model in ("tsafrir", "sessions") and args.tmax is None:
        known = source["req_time"].notna() if "req_time" in source.columns else None
        if known is None or not known.any():
            raise ConfigError("the log has no requested times to learn t_max from; "
                              "give --tmax (e.g. --tmax 18h)")
        if not known.all() and not args.quiet:
            print(f"learning the estimate model from the {int(known.sum()):,} of "
                  f"{len(source):,} jobs that have a requested time", file=sys.stderr)
        model.fit(source[known])
    return model.transform(source)


def run(args):
    from ..io import write_swf
    from ..workload import make_workload

    if not args.output:
        raise ConfigError("give the output file with -o/--output (e.g. -o synth.swf)")
    if args.estimates_for is None:
        jobs = make_workload(args.jobs, n_procs=args.procs, random_state=args.seed,
                             t_max=args.tmax if args.tmax is not None else "18h",
                             p_max=args.pmax, load=args.load)
        comments = []
    else:
        if args.tmax is not None:
            parse_duration(args.tmax, name="--tmax")
        source = read_trace_arg(args.estimates_for)
        jobs = _estimate(args, source)
        comments = [f"requested times replaced by the {args.model} estimate model (predictkit)"]
    fmt = args.format or ("csv" if str(args.output).endswith((".csv", ".csv.gz")) else "swf")
    if fmt == "csv":
        write_table(jobs, args.output, "csv")
    else:
        write_swf(jobs, args.output, comments=comments)
    if not args.quiet:
        where = "standard output" if args.output == "-" else args.output
        print(f"wrote {len(jobs):,} jobs to {where}", file=sys.stderr)
    return 0

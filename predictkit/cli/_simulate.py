"""``predictkit simulate TRACE``: replay a log through a backfilling scheduler."""

import sys

import pandas as pd

from ..exceptions import ConfigError
from ._common import (add_output_options, print_json, read_trace_arg, result_stream,
                      write_table)

PREDICTORS = ("requested", "perfect", "tang", "usage-max", "recent-average")


def register(subparsers):
    parser = subparsers.add_parser(
        "simulate", help="simulate FCFS/EASY/conservative backfilling and print schedule metrics",
        description="Replay an SWF log through a backfilling scheduler (Leung et al. 2010; "
                    "Tang et al. 2013) with the chosen runtime estimates and print the "
                    "schedule metrics next to the same simulation with requested times. "
                    "Jobs without a runtime, width or (for request-based estimates) a "
                    "request are left out and counted on standard error.",
    )
    from ._common import add_log_argument
    add_log_argument(parser)
    parser.add_argument("--policy", default="easy",
                        choices=("easy", "fcfs", "conservative", "no_guarantee"))
    parser.add_argument("--priority", default="fcfs", choices=("fcfs", "sjf", "wfp", "fairshare"))
    parser.add_argument("--predictor", default="requested", choices=PREDICTORS,
                        help="runtime estimates: the request, the actual runtime, Tang's "
                             "walltime adjuster (user+group+request keys, 30-day window), "
                             "Klusacek's recent usage max, or the recent average")
    parser.add_argument("--quantile", type=float, default=0.85,
                        help="aggressiveness of --predictor tang (default 0.85)")
    parser.add_argument("--selective", action="store_true",
                        help="use predictions for waiting jobs only (Tang 5.2)")
    parser.add_argument("--on-underestimate", default="double",
                        choices=("double", "increments", "request"))
    parser.add_argument("--backfill-order", default="priority", choices=("priority", "sjf"))
    parser.add_argument("--n-procs", type=int, default=None,
                        help="machine size (default: the header's MaxProcs, else the widest job)")
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="simulate only the first N jobs")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


def estimate_source(name, quantile=0.85):
    """The estimate source named on the command line: a string the simulator knows, or a predictor."""
    if name in ("requested", "perfect"):
        return name
    from ..runtime import make_predictor

    return make_predictor(name, **({"quantile": quantile} if name == "tang" else {}))


def run(args):
    from ..simulate import simulate
    from ..simulate._trace import simulable_jobs

    jobs = read_trace_arg(args.trace)
    if args.max_jobs is not None:
        if args.max_jobs <= 0:
            raise ConfigError(f"--max-jobs must be positive, got {args.max_jobs}")
        attrs = dict(jobs.attrs)
        jobs = jobs.iloc[:args.max_jobs]
        jobs.attrs = attrs
    jobs, dropped = simulable_jobs(jobs, need_requests=args.predictor != "perfect")
    if dropped and not args.quiet:
        text = ", ".join(f"{n} with {reason}" for reason, n in dropped.items())
        print(f"predictkit simulate: left out {text}", file=sys.stderr)
    common = dict(n_procs=args.n_procs, policy=args.policy, priority=args.priority,
                  on_underestimate=args.on_underestimate, backfill_order=args.backfill_order)
    schedule = simulate(jobs, estimates=estimate_source(args.predictor, args.quantile),
                        selective=args.selective, **common)
    table = schedule.metrics().rename(columns={"value": args.predictor})
    if args.predictor != "requested" or args.selective:
        baseline = simulate(jobs, estimates="requested", **common).metrics()
        table.insert(1, "requested", baseline["value"].to_numpy())
    if args.output:
        write_table(schedule.jobs, args.output, args.format)
    if args.quiet:
        return 0
    if len(schedule.rejected):
        print(f"predictkit simulate: {len(schedule.rejected)} job(s) wider than the machine "
              "were not simulated", file=sys.stderr)
    stream = result_stream(args.output)
    if args.json:
        print_json({"params": schedule.params,
                    "metrics": table.set_index("metric").to_dict(orient="index")}, stream)
    else:
        with pd.option_context("display.width", 120, "display.max_rows", 100):
            print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"), file=stream)
    return 0

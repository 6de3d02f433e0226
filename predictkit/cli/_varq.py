"""``predictkit varq TRACE``: the VARQ simulation experiment (Tables 3-4 of Nurmi et al.)."""

import numpy as np

from .._time import parse_duration
from ..exceptions import ConfigError
from ..queue import varq_experiment
from ._common import (add_output_options, print_json, read_trace_arg, result_stream,
                      write_table)


def register(subparsers):
    parser = subparsers.add_parser(
        "varq", help="VARQ virtual-reservation experiment on a trace (simulated)",
        description="Turn a fraction of the jobs into VARQ requests (start deadline every "
                    "--period, requested success probability), plan them with VARQ on QBETS "
                    "bounds trained online, simulate the machine (EASY, FCFS) and report "
                    "predicted vs observed success and the allocation overhead (Nurmi et "
                    "al. 2008, sections 4.4-4.5, Tables 3-4).")
    from ._common import add_log_argument
    add_log_argument(parser)
    parser.add_argument("--fractions", default="0.1,0.5",
                        help="comma-separated shares of jobs that use VARQ (default 0.1,0.5)")
    parser.add_argument("--probabilities", default="0.5,0.75,0.95",
                        help="comma-separated success probabilities (default 0.5,0.75,0.95)")
    parser.add_argument("--period", default="6h", help="time between start deadlines (6h)")
    parser.add_argument("--start", default="30D",
                        help="requests start this long after the first submission (30D)")
    parser.add_argument("--days", default="7D", help="length of the request window (7D)")
    parser.add_argument("--step", type=float, default=30.0,
                        help="VARQ trajectory step in seconds (30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the job selection")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


def _unit_list(text, name):
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(f"--{name} must be comma-separated numbers, got {text!r}") from None
    if not values or any(not 0.0 < v <= 1.0 for v in values):
        raise ConfigError(f"--{name} values must be in (0, 1], got {text!r}")
    return values


def run(args):
    fractions = _unit_list(args.fractions, "fractions")
    probabilities = _unit_list(args.probabilities, "probabilities")
    period = parse_duration(args.period, name="--period")
    offset = parse_duration(args.start, name="--start")
    length = parse_duration(args.days, name="--days")
    if period <= 0 or length <= 0 or offset < 0:
        raise ConfigError("--period and --days must be > 0 and --start >= 0")
    if not args.step > 0:
        raise ConfigError(f"--step must be > 0, got {args.step!r}")
    jobs = read_trace_arg(args.trace)
    first = float(np.nanmin(jobs["submit_time"]))
    table = varq_experiment(jobs, fractions=fractions, probabilities=probabilities,
                            period=period, window=(first + offset, first + offset + length),
                            step=args.step, random_state=args.seed)
    if args.output:
        write_table(table, args.output, args.format)
    if args.quiet:
        return 0
    stream = result_stream(args.output)
    if args.json:
        print_json(table.to_dict(orient="records"), stream)
        return 0
    shown = table[["fraction", "probability", "count", "refused", "predicted", "observed",
                   "required_node_hours", "used_node_hours", "ratio"]]
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.2f}"), file=stream)
    return 0

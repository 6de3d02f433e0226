"""``predictkit varq TRACE``: the VARQ simulation experiment (Tables 3-4 of Nurmi et al.)."""

import numpy as np

from .._format import format_count
from .._summary import wider_than_machine, width_unit
from .._time import format_duration, parse_duration
from ..exceptions import ConfigError, JobTableError
from ..experiments import varq_experiment
from ..jobs import describe_cleaning
from ._checks import check_procs, check_seed, flag_names, refuse_repeats
from ._logs import add_log_argument, read_done, read_trace_arg
from ._machine import add_machine_procs_option, warn_busier_than_machine
from ._output import print_json, prints_table, result_stream, table_format, write_table
from ._parser import add_command, add_output_options
from ._progress import Progress
from ._tables import format_table


def register(subparsers):
    parser = add_command(
        subparsers, "varq", help="VARQ virtual-reservation experiment on a trace (simulated)",
        description="Turn a fraction of the jobs into VARQ requests (start deadline every "
                    "--period, requested success probability), plan them with VARQ on QBETS "
                    "bounds trained online, simulate the machine (EASY, FCFS) and report "
                    "predicted vs observed success and the allocation overhead (Nurmi et "
                    "al. 2008, sections 4.4-4.5, Tables 3-4).")
    add_log_argument(parser)
    parser.add_argument("--fractions", default="0.1,0.5",
                        help="comma-separated shares of jobs that use VARQ")
    parser.add_argument("--probabilities", default="0.5,0.75,0.95",
                        help="comma-separated success probabilities")
    parser.add_argument("--period", default="6h", help="time between start deadlines")
    parser.add_argument("--start", default="30D",
                        help="requests start this long after the first submission")
    parser.add_argument("--days", default="7D", help="length of the request window")
    parser.add_argument("--step", type=float, default=30.0,
                        help="VARQ trajectory step in seconds")
    add_machine_procs_option(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the job selection")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


def _unit_list(text, name):
    if any(not v.strip() for v in text.split(",")):
        raise ConfigError(f"--{name} has an empty item in {text!r}")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise ConfigError(f"--{name} must be comma-separated numbers, got {text!r}") from None
    if not values or any(not 0.0 < v <= 1.0 for v in values):
        raise ConfigError(f"--{name} values must be in (0, 1], got {text!r}")
    return refuse_repeats(values, f"--{name}")


_SHOWN = {"fraction": "fraction (of jobs)", "probability": "probability",
          "count": "accepted (jobs)", "refused": "refused (jobs)",
          "predicted": "predicted success", "observed": "observed success",
          "required_node_hours": "required ({unit}-hours)",
          "used_node_hours": "used ({unit}-hours)", "ratio": "used/required"}
"""Columns of the printed table, with their units (``unit``: what a job's width counts,
as the paper's node-hours are processor-hours on a log that counts processors)."""


def run(args):
    fractions = _unit_list(args.fractions, "fractions")
    probabilities = _unit_list(args.probabilities, "probabilities")
    period = parse_duration(args.period, name="--period")
    offset = parse_duration(args.start, name="--start")
    length = parse_duration(args.days, name="--days")
    if period <= 0:
        raise ConfigError(f"--period must be longer than 0, got {args.period!r}")
    if length <= 0:
        raise ConfigError(f"--days must be longer than 0, got {args.days!r}")
    if not 0 < args.step < float("inf"):
        raise ConfigError(f"--step must be > 0, got {args.step!r}")
    check_seed(args.seed)
    check_procs(args.machine_procs)
    fmt = table_format(args.output, args.format) if args.output else None
    progress = Progress("varq", quiet=args.quiet)
    progress.settings(fractions=fractions, probabilities=probabilities, period=args.period,
                      start=args.start, days=args.days, step=args.step, seed=args.seed,
                      machine_procs=args.machine_procs or "from the log")
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    warn_busier_than_machine(jobs, args.machine_procs)
    submit = jobs["submit_time"].to_numpy(dtype=float)
    if not np.isfinite(submit).any():
        raise JobTableError(f"{args.trace}: no job has a submit time; VARQ needs a log with jobs")
    first, last = float(np.nanmin(submit)), float(np.nanmax(submit))
    if first + offset > last:
        raise ConfigError(f"--start {args.start} (--days {args.days}) begins the request "
                          f"window after the last submission of {args.trace}, whose jobs "
                          f"span {format_duration(last - first)}: give a shorter --start")
    with flag_names(_FLAGS), progress.step(
            f"planned and simulated VARQ requests for {len(fractions) * len(probabilities)} "
            "(fraction, probability) pairs"):
        try:
            table = varq_experiment(jobs, fractions=fractions, probabilities=probabilities,
                                    period=period,
                                    window=(first + offset, first + offset + length),
                                    step=args.step, machine_procs=args.machine_procs,
                                    random_state=args.seed)
        except JobTableError as exc:
            raise JobTableError(f"{args.trace}: {exc}") from exc
    if describe_cleaning(table.attrs.get("cleaning", [])):
        progress.left_out(describe_cleaning(table.attrs['cleaning']))
    if table.attrs["wider_than_machine"]:
        wider = wider_than_machine(table.attrs["wider_than_machine"],
                                   table.attrs["machine_procs"], width_unit(jobs), verb="was")
        progress.warn(f"{wider} not simulated")
    if not (table["count"] + table["refused"]).any():
        start = first + offset
        in_window = int(((submit >= start) & (submit < start + length)).sum())
        progress.warn(f"no job became a VARQ request: of the "
                      f"{format_count(in_window, 'job')} submitted in the request window "
                      f"(--start {args.start}, --days {args.days}) none was drawn at --fractions "
                      "and planned; every row is empty (widen the window or raise --fractions)")
    _warn_all_refused(table, args.period, progress.warn)
    if args.output:
        write_table(table, args.output, fmt)
    if not args.json and not prints_table(args):
        return 0
    stream = result_stream(args.output)
    if args.json:
        print_json(table.to_dict(orient="records"), stream)
        return 0
    unit = width_unit(jobs)
    shown = table[list(_SHOWN)].rename(
        columns={name: label.format(unit=unit) for name, label in _SHOWN.items()})
    print(format_table(shown), file=stream)
    return 0


def _warn_all_refused(table, period, warn):
    """Say why, where every request drawn at some probabilities was refused."""
    refused_all = table[(table["count"] == 0) & (table["refused"] > 0)]
    if not len(refused_all):
        return
    probabilities = ", ".join(f"{p:g}" for p in refused_all["probability"].unique())
    highest = refused_all["highest_refused"].max()
    reached = ("QBETS gave none of them a bound" if np.isnan(highest) else
               f"the highest probability any of them reached was {highest:.3g}")
    mean_wait = refused_all["mean_wait_others_baseline"].iloc[0]
    warn(f"every request drawn was refused at probability {probabilities}: {reached}, as "
         f"each must start by the next deadline (every --period {period}) and the simulated "
         f"jobs wait {format_duration(mean_wait)} on average (a longer --period leaves "
         "more time)")


_FLAGS = {"fractions": "--fractions", "probabilities": "--probabilities", "period": "--period",
          "window": "--start/--days", "step": "--step", "random_state": "--seed",
          "machine_procs": "--machine-procs"}
"""Parameters of :func:`predictkit.experiments.varq_experiment` and the flags that set them."""

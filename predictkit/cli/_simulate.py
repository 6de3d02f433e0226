"""``predictkit simulate TRACE``: replay a log through a backfilling scheduler."""


import numpy as np
import pandas as pd

from .._format import format_count
from .._summary import wider_than_machine
from .._table import copy_attrs
from ..jobs import describe_cleaning
from .._time import parse_duration
from ..exceptions import ConfigError
from ..runtime._registry import ESTIMATE_NAMES, PERFECT
from ..runtime._walltime_adjuster import DEFAULT_KEYS as TANG_DEFAULT_KEYS
from ..runtime._walltime_adjuster import DEFAULT_QUANTILE as TANG_QUANTILE
from ..simulate import POLICIES, PRIORITIES
from ..simulate._policies import BACKFILL_ORDERS, refuse_blind_scheduler
from ._checks import (check_fraction, check_positive, check_procs, check_tang_quantile,
                      flag_names, refuse_inapplicable, tang_keys, warn_ungrouped)
from ._logs import add_log_argument, read_jobs_to_simulate
from ._machine import add_machine_procs_option, warn_busier_than_machine
from ._output import (output_format, print_json, prints_table, result_stream, write_swf_output,
                      write_table)
from ._parser import DeprecatedAlias, add_command, add_output_options
from ._progress import Progress
from ._tables import format_table

PREDICTORS = ESTIMATE_NAMES


def register(subparsers):
    parser = add_command(
        subparsers, "simulate", help="simulate FCFS/EASY/conservative backfilling and print schedule metrics",
        description="Replay an SWF log through a backfilling scheduler (Leung et al. 2010; "
                    "Tang et al. 2013) with the chosen runtime estimates and print the "
                    "schedule metrics next to the same simulation with requested times. "
                    "Jobs without a runtime, width or (for request-based estimates) a "
                    "request are left out and counted on standard error. -o writes the "
                    "simulated jobs: SWF (the log with the simulated waits, to chain into "
                    "'predictkit bounds'), CSV or JSON (every simulated column).",
    )
    add_log_argument(parser)
    parser.add_argument("--policy", default="easy",
                        choices=POLICIES,
                        help="backfilling policy")
    parser.add_argument("--priority", default="fcfs", choices=PRIORITIES,
                        help="queue order")
    parser.add_argument("--reservation-depth", type=int, default=None, metavar="K",
                        help="with --policy easy: reservations for the first K blocked jobs "
                             "at each pass (default 1; a depth beyond the queue length is "
                             "Leung's conservative backfilling with dynamic reservations)")
    parser.add_argument("--starvation-after", default=None, metavar="DURATION",
                        help="with --policy no_guarantee: CPlant's FCFS starvation queue, "
                             "entered after waiting DURATION (e.g. 24h), whose head gets a "
                             "reservation (Leung et al. 2010)")
    parser.add_argument("--starvation-bar-heavy", action="store_true",
                        help="with --starvation-after: heavy users (decayed fairshare usage "
                             "above the mean of the users waiting) do not enter the "
                             "starvation queue")
    parser.add_argument("--max-runtime", default=None, metavar="DURATION",
                        help="split longer jobs into chained pieces of at most DURATION "
                             "(e.g. 72h; Leung et al. V.A; none: no limit, the default)")
    parser.add_argument("--predictor", default="requested", choices=PREDICTORS,
                        help="runtime estimates: the request, the actual runtime, Tang's "
                             "walltime adjuster (user+group+request keys, 30-day window), "
                             "Klusacek's recent usage max, the recent average, or the learned "
                             "predictor (gradient boosting held to a 2%% bad-estimate budget)")
    parser.add_argument("--quantile", type=float, default=None,
                        help=f"aggressiveness of --predictor tang, in [0.5, 1] (default: "
                             f"{TANG_QUANTILE})")
    parser.add_argument("--max-bad-share", type=float, default=None, metavar="SHARE",
                        help="bad-estimate budget of --predictor learned, in (0, 1) "
                             "(default: 0.02)")
    parser.add_argument("--selective", action="store_true",
                        help="use predictions for waiting jobs only (Tang 5.2)")
    parser.add_argument("--on-underestimate", default="double",
                        choices=("double", "increments", "request"),
                        help="what a job that outlives its estimate gets")
    parser.add_argument("--backfill-order", default=None, choices=BACKFILL_ORDERS,
                        help="order in which waiting jobs are tried for backfilling, with "
                             "--policy easy or no_guarantee (default: priority)")
    add_machine_procs_option(parser)
    for old in ("--n-procs", "--procs"):
        parser.add_argument(old, type=int, dest="machine_procs", action=DeprecatedAlias,
                            new="--machine-procs")
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="simulate only the first N jobs of the log, counted before jobs "
                             "that cannot be simulated are left out (default: all)")
    parser.add_argument("--fairness", action="store_true",
                        help="add Leung et al.'s fairness metrics: the share of jobs starting "
                             "after their fair start time and the average miss (slower)")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    add_output_options(parser, formats=("swf", "csv", "json"), fallback="swf")
    parser.set_defaults(func=run)


def estimate_source(name, quantile=TANG_QUANTILE, *, keys=None, max_bad_share=None):
    """The estimate source named on the command line: a string the simulator knows, or a predictor.

    ``keys`` are Tang's similarity keys (default: the adjuster's own);
    ``max_bad_share`` the learned predictor's budget (default: its own).
    """
    if name in ("requested", PERFECT):
        return name
    from ..runtime import make_predictor

    if name == "tang":
        return make_predictor(name, quantile=quantile, **({"keys": keys} if keys else {}))
    if name == "learned" and max_bad_share is not None:
        return make_predictor(name, max_bad_share=max_bad_share)
    return make_predictor(name)


_HOURS = ("mean_wait", "weighted_wait", "mean_response", "makespan",
          "mean_wait_prediction_error", "mean_fair_start_miss")
"""Metrics in seconds that the table shows in hours (besides the wait percentiles)."""


def metric_label(name):
    """A schedule metric's name with its unit, as the table shows it."""
    if name in _HOURS or name.endswith(("_wait", "_response")):
        return f"{name} (h)"
    if name in ("utilization", "backfill_ratio", "loss_of_capacity"):
        return f"{name} (fraction)"
    if name == "n_jobs":
        return "n_jobs (jobs)"
    if name.endswith("_percent"):
        return f"{name} (%)"
    if "slowdown" in name:
        return f"{name} (ratio)"
    return name


def _shown(table):
    """The metrics table with its unit in each label and seconds turned into hours."""
    shown = table.copy()
    hours = shown["metric"].map(lambda m: metric_label(m).endswith("(h)")).to_numpy()
    counts = (shown["metric"] == "n_jobs").to_numpy()
    for column in shown.columns[1:]:
        values = shown[column].to_numpy(dtype=float)
        values = np.where(hours, values / 3600.0, values)
        shown[column] = pd.Series([int(v) if count and np.isfinite(v) else float(v)
                                   for v, count in zip(values, counts)], dtype=object)
    shown["metric"] = shown["metric"].map(metric_label)
    return shown


def _check_args(args):
    """Refuse bad values before any work, each naming its flag."""
    check_positive(args.max_jobs, "--max-jobs")
    check_procs(args.machine_procs)
    _check_policy_flags(args)
    _check_predictor_flags(args)
    if args.predictor != "requested":  # --selective alone is refused above
        with flag_names(_FLAGS):
            refuse_blind_scheduler(args.policy, args.priority, [args.backfill_order],
                                   args.starvation_after, args.reservation_depth,
                                   refused=f"--predictor {args.predictor}")
    if args.predictor == "tang":
        check_tang_quantile(args.quantile, "--quantile")
    if args.output:
        fmt = output_format(args.output, args.format, ("swf", "csv", "json"), default="swf")
        if fmt == "swf" and args.max_runtime is not None:
            raise ConfigError(f"-o {args.output}: --max-runtime runs jobs as chained pieces, "
                              f"which an SWF log of one line per job cannot hold (its waits "
                              f"and runtimes would overlap on the machine); write .csv or "
                              f".json, whose rows give each job's number of pieces "
                              f"(n_pieces), its first piece's wait and its last piece's end")
        return fmt
    return None


def _check_predictor_flags(args):
    """The flags that apply to some predictors only (then set their defaults)."""
    refuse_inapplicable(args, [("quantile", "--quantile", ("tang",)),
                               ("max_bad_share", "--max-bad-share", ("learned",))],
                        args.predictor, "--predictor")
    if args.max_bad_share is not None:
        check_fraction(args.max_bad_share, "--max-bad-share")
    if args.selective and args.predictor == "requested":
        raise ConfigError("--selective uses predictions for waiting jobs and requests for "
                          "running ones; with --predictor requested there is nothing to "
                          "select (give another --predictor)")
    if args.quantile is None:
        args.quantile = TANG_QUANTILE


def _check_policy_flags(args):
    """The flags that apply to one policy only, and their durations."""
    from ..simulate._policies import policies_taking

    refuse_inapplicable(args, [(option, f"--{option.replace('_', '-')}",
                                policies_taking(option))
                               for option in ("backfill_order", "reservation_depth",
                                              "starvation_after")],
                        args.policy, "--policy")
    if args.backfill_order is None:
        args.backfill_order = "priority"
    if args.reservation_depth is not None and args.reservation_depth < 0:
        raise ConfigError(f"--reservation-depth must be a non-negative integer, got "
                          f"{args.reservation_depth}")
    if args.starvation_bar_heavy and args.starvation_after is None:
        raise ConfigError("--starvation-bar-heavy needs --starvation-after (it bars heavy "
                          "users from the starvation queue)")
    if args.starvation_after is not None:
        parse_duration(args.starvation_after, name="--starvation-after")
    if args.max_runtime is not None:
        limit = parse_duration(args.max_runtime, name="--max-runtime", allow_none=True)
        if limit is None:  # "none", "all" or "inf", as simulate(max_runtime=...) takes them
            args.max_runtime = None
        elif limit <= 0:
            raise ConfigError(f"--max-runtime must be a positive duration, got "
                              f"{args.max_runtime!r}")


def run(args):
    from ..simulate import simulate

    fmt = _check_args(args)
    progress = Progress("simulate", quiet=args.quiet)
    settings = {"policy": args.policy, "priority": args.priority, "predictor": args.predictor}
    if args.predictor == "tang":
        settings["quantile"] = args.quantile
    if args.max_bad_share is not None:
        settings["max_bad_share"] = args.max_bad_share
    for flag in ("reservation_depth", "starvation_after", "max_runtime"):
        if getattr(args, flag) is not None:
            settings[flag] = getattr(args, flag)
    if args.starvation_bar_heavy:
        settings["starvation_bar_heavy"] = True
    progress.settings(**settings, selective=args.selective,
                      on_underestimate=args.on_underestimate, backfill_order=args.backfill_order,
                      machine_procs=args.machine_procs or "from the log", max_jobs=args.max_jobs or "all")
    jobs = read_jobs_to_simulate(args, progress, require_request=args.predictor != PERFECT,
                                 needs="a submit time, a runtime, a width and, unless --predictor perfect, "
                                       "a request")
    warn_busier_than_machine(jobs, args.machine_procs, kept=True)
    common = dict(machine_procs=args.machine_procs, policy=args.policy, priority=args.priority,
                  on_underestimate=args.on_underestimate, backfill_order=args.backfill_order,
                  reservation_depth=args.reservation_depth, max_runtime=args.max_runtime,
                  starvation_after=args.starvation_after,
                  starvation_bar_heavy=args.starvation_bar_heavy)
    keys = None
    if args.predictor == "tang":
        keys = tang_keys(TANG_DEFAULT_KEYS, jobs, args.trace, given=False, note=progress.say)
    estimates = estimate_source(args.predictor, args.quantile, keys=keys,
                                max_bad_share=args.max_bad_share)
    if not isinstance(estimates, str):
        warn_ungrouped(estimates, jobs, args.trace, args.predictor, progress.warn)
    with flag_names(_FLAGS), progress.step(
            lambda: f"simulated {format_count(len(schedule.jobs), 'job')} with "
                    f"{args.predictor} estimates"
                    + (f" ({_killed(schedule)})" if schedule.jobs["killed"].any() else "")):
        schedule = simulate(jobs, estimates=estimates, selective=args.selective, **common)
    if len(schedule.rejected):
        wider = wider_than_machine(len(schedule.rejected), schedule.machine_procs, verb="was")
        progress.warn(f"{wider} not simulated")
    table = schedule.metrics(fairness=args.fairness).rename(columns={"value": args.predictor})
    unrequested = int(jobs["req_time"].isna().sum())
    if unrequested:  # only --predictor perfect simulates jobs without a request
        progress.say(f"no baseline with requested estimates: "
                     f"{format_count(unrequested, 'job')} without a request")
    elif args.predictor != "requested" or args.selective:
        with flag_names(_FLAGS), progress.step(
                f"simulated {format_count(len(schedule.jobs), 'job')} with requested estimates "
                f"(baseline)"):
            baseline = simulate(jobs, estimates="requested", **common).metrics(
                fairness=args.fairness)
        table.insert(1, "requested", baseline["value"].to_numpy())
    if args.output:
        with progress.step(f"wrote {format_count(len(schedule.jobs), 'simulated job')} to "
                           f"{args.output}"):
            _write(schedule, args, fmt)
    if not args.json and not prints_table(args):
        return 0
    stream = result_stream(args.output)
    if args.json:
        print_json({"params": schedule.params,
                    "metrics": table.set_index("metric").to_dict(orient="index")}, stream)
    else:
        print(format_table(_shown(table)), file=stream)
    return 0


_FLAGS = {"machine_procs": "--machine-procs", "policy": "--policy", "priority": "--priority",
          "on_underestimate": "--on-underestimate", "backfill_order": "--backfill-order",
          "quantile": "--quantile", "reservation_depth": "--reservation-depth",
          "starvation_after": "--starvation-after",
          "starvation_bar_heavy": "--starvation-bar-heavy", "max_runtime": "--max-runtime"}
"""Parameters of :func:`predictkit.simulate.simulate` and the flags that set them."""


def _killed(schedule):
    """``N jobs killed at the requested time``: the jobs that outlived their request."""
    n_killed = int(schedule.jobs["killed"].sum())
    return f"{format_count(n_killed, 'job')} killed at the requested time"


def schedule_as_log(schedule):
    """The simulated jobs as a log: the simulated waits, and runtimes cut where jobs were killed.

    A job killed at its request gets the time it ran and SWF's status 0
    (failed), whatever status the log gave it. Everything else is the
    input's, its header lines too (with the machine size simulated). Jobs
    wider than the machine were not simulated and are not in it.
    """
    jobs = schedule.jobs.copy()
    run = jobs["run_time"].to_numpy(dtype=float)
    held = jobs["sim_run_time"].to_numpy(dtype=float)
    killed = jobs["killed"].to_numpy(dtype=bool)
    jobs["run_time"] = np.where(killed, held, run)
    if "status" in jobs.columns:
        jobs.loc[killed, "status"] = 0
    jobs.attrs = copy_attrs(schedule.jobs)
    jobs.attrs["max_procs"] = schedule.machine_procs
    return jobs


def _write(schedule, args, fmt):
    if fmt != "swf":
        write_table(schedule.jobs, args.output, fmt)
        return
    p = schedule.params
    comments = [
        f"wait_time holds the waits simulated by predictkit: policy={p['policy']} "
        f"priority={p['priority']} estimates={args.predictor} selective={p['selective']} "
        + "".join(f"{key}={p[key]} " for key in ("reservation_depth", "max_runtime",
                                                 "starvation_after") if p.get(key) is not None)
        + ("starvation_bar_heavy=True " if p.get("starvation_bar_heavy") else "") +
        f"machine_procs={p['machine_procs']}",
    ]
    if schedule.jobs["killed"].any():
        comments.append(f"{_killed(schedule)}: run_time holds the time run, status 0 (failed)")
    cleaned = describe_cleaning(schedule.jobs)
    if cleaned:
        comments.append(f"left out of the log before simulating: {cleaned}")
    if len(schedule.rejected):
        wider = wider_than_machine(len(schedule.rejected), p["machine_procs"], verb="was")
        comments.append(f"{wider} not simulated and left out")
    log = schedule_as_log(schedule)
    said = {log.attrs.get(key) for key in ("max_jobs", "max_records")} - {None, len(log)}
    if said:
        comments.append(f"{format_count(len(log), 'job')} simulated and written here; the "
                        f"header above describes the log they were read from")
    write_swf_output(log, args.output, comments=comments)



"""``predictkit bounds TRACE``: wait bounds per job (QBETS or WaitPredictor), and QBETS's per class."""

import re

import numpy as np
import pandas as pd

from .._format import format_count, format_fixed, format_given
from .._table import cancelled_before_running
from ..exceptions import ConfigError
from ..metrics import bound_summary
from ..queue._replay import make_wait_model, replay_wait_bounds, sized_rows
from ._checks import check_fraction, check_procs, check_seed, refuse_without_waits
from ._logs import add_log_argument, cancelled_note, read_done, read_trace_arg
from ._output import print_json, prints_table, result_stream, table_format, write_table
from ._parser import add_command, add_output_options
from ._progress import Progress
from ._tables import format_table


def register(subparsers):
    parser = add_command(
        subparsers, "bounds", help="upper bounds on queue waits (QBETS or WaitPredictor), per job online",
        description="Replay the trace online: each job gets, at its submission, an upper "
                    "bound on its wait from what is known then. --method qbets (default): "
                    "QBETS (Nurmi et al. 2008, section 2.3), from the waits of jobs already "
                    "started; also prints the bound of each job class at the end of the "
                    "trace ('now'). --method wait: WaitPredictor, a forward simulation of the "
                    "queue each job joins calibrated online on the waits already seen. "
                    "Prints the correctness/tightness of the per-job bounds; -o writes the "
                    "per-job bounds (CSV or JSON).")
    add_log_argument(parser)
    parser.add_argument("--method", choices=("qbets", "wait"), default="qbets",
                        help="qbets: QBETS; wait: WaitPredictor (forward simulation of the "
                             "queue, calibrated online)")
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="quantile of the wait to bound, in (0, 1)")
    parser.add_argument("--confidence", type=float, default=None,
                        help="QBETS only: confidence of the bound, in (0, 1) (default 0.95)")
    parser.add_argument("--changepoint", choices=("runs", "ruptures", "none"), default=None,
                        help="QBETS only: history trimming rule (default runs)")
    parser.add_argument("--clustering", choices=("auto", "bic", "none"), default=None,
                        help="QBETS only: job classes by requested nodes and time (default auto)")
    parser.add_argument("--index", choices=("textbook", "reference"), default=None,
                        help="QBETS only: order-statistic rule (default textbook)")
    parser.add_argument("--seed", type=int, default=None,
                        help="QBETS only: random state of the job classes (default 0, fixed "
                             "so that two runs agree; QBETS(random_state=None) in Python draws "
                             "fresh ones)")
    parser.add_argument("--capacity", type=int, default=None,
                        help="wait only: processors of the machine (default: the log header's "
                             "MaxProcs, else learned online)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


_QBETS_DEFAULTS = {"confidence": 0.95, "changepoint": "runs", "clustering": "auto",
                   "index": "textbook", "seed": 0}


def _check_method_flags(args):
    """Refuse flags of the other method; fill in the defaults of this one."""
    if args.method == "wait":
        given = [f"--{name}" for name in _QBETS_DEFAULTS if getattr(args, name) is not None]
        if given:
            what = "is a QBETS option" if len(given) == 1 else "are QBETS options"
            raise ConfigError(f"{', '.join(given)} {what}, not used by --method wait")
        check_procs(args.capacity, "--capacity")
        return
    if args.capacity is not None:
        raise ConfigError("--capacity is a --method wait option, not used by QBETS")
    for name, default in _QBETS_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    check_fraction(args.confidence, "--confidence")
    check_seed(args.seed)


def run(args):
    check_fraction(args.quantile, "--quantile")
    _check_method_flags(args)
    if args.output:
        table_format(args.output, args.format)  # refuse -o x.swf before reading
    progress = Progress("bounds", quiet=args.quiet)
    if args.method == "wait":
        progress.settings(method="wait", quantile=args.quantile,
                          capacity=args.capacity or "header-or-learned")
    else:
        progress.settings(quantile=args.quantile, confidence=args.confidence,
                          changepoint=args.changepoint, clustering=args.clustering,
                          index=args.index, seed=args.seed)
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    usable = refuse_without_waits(jobs, args.trace)
    if not usable.all():
        progress.left_out(f"{format_count(int((~usable).sum()), 'job')} without a known wait "
                          "or submit time")
    left_out = {"n_skipped_unknown_wait": int((~usable).sum())}
    if args.method == "wait":
        unsized = usable & ~sized_rows(jobs)
        if unsized.any():
            first = jobs["job_id"].to_numpy()[np.flatnonzero(unsized)[0]]
            progress.left_out(f"{format_count(int(unsized.sum()), 'job')} without a width "
                              "(n_procs or req_procs unknown or 0), which the simulated queue "
                              f"cannot place (first: job_id {first:g})")
        left_out["n_skipped_no_width"] = int(unsized.sum())
        usable = usable & ~unsized
    cancelled = int((usable & cancelled_before_running(jobs)).sum())
    if cancelled:
        progress.say(cancelled_note(cancelled))
    left_out["n_cancelled_before_running"] = cancelled
    capacity = args.capacity or jobs.attrs.get("max_procs")
    if args.method == "wait":
        return _run_wait(jobs, args, progress, usable, left_out, capacity)
    model = make_wait_model("qbets", quantile=args.quantile, confidence=args.confidence,
                            changepoint=args.changepoint, clustering=args.clustering,
                            index=args.index, random_state=args.seed)
    with progress.step(f"bounded the waits of {format_count(int(usable.sum()), 'job')} online"):
        _, bounds = replay_wait_bounds(model, jobs)
    jobs = jobs[usable].reset_index(drop=True)
    waits = jobs["wait_time"].to_numpy()
    # the state at the end of the trace: every wait, in the order they became known
    submit = jobs["submit_time"].to_numpy()
    order = np.lexsort((np.arange(len(jobs)), submit, submit + waits))
    with progress.step("fitted the classes at the end of the log"):
        model.fit(jobs.iloc[order])
    classes = model.class_bounds()
    summary = bound_summary(waits, bounds, quantile=args.quantile)
    summary.update(left_out)
    if args.output:
        _write(jobs, bounds, args)
    if not args.json and not prints_table(args):
        return 0
    stream = result_stream(args.output)
    if args.json:
        print_json({"settings": _settings(args), "summary": summary,
                    "classes": classes.to_dict(orient="records")}, stream)
        return 0
    print(f"QBETS q={format_given(args.quantile)} c={format_given(args.confidence)}: bound "
          f"per class now (n/a = too little history)", file=stream)
    shown = classes.copy()
    for column in ("nodes", "requested_time"):
        shown[column] = [_numbers_in(text) for text in shown[column].astype(str)]
    shown["bound"] = shown["bound"] / 3600.0
    shown = shown.rename(columns={"nodes": "processors (requested)",
                                  "requested_time": "requested_time (s)",
                                  "n_history": "history (jobs)", "bound": "bound (h)"})
    print(format_table(shown), file=stream)
    _print_summary(summary, stream)
    return 0


def _run_wait(jobs, args, progress, usable, left_out, capacity):
    model = make_wait_model("wait", quantile=args.quantile, capacity=capacity)
    with progress.step(f"bounded the waits of {format_count(int(usable.sum()), 'job')} online"):
        _, bounds = replay_wait_bounds(model, jobs)
    jobs = jobs[usable].reset_index(drop=True)
    waits = jobs["wait_time"].to_numpy()
    summary = bound_summary(waits, bounds, quantile=args.quantile)
    summary.update(left_out)
    summary["capacity"] = capacity
    if args.output:
        _write(jobs, bounds, args)
    if not args.json and not prints_table(args):
        return 0
    stream = result_stream(args.output)
    if args.json:
        print_json({"settings": _settings(args), "summary": summary}, stream)
        return 0
    where = (f"{format_fixed(capacity)} processors" if capacity
             else "capacity learned online")
    print(f"WaitPredictor q={format_given(args.quantile)} ({where})", file=stream)
    _print_summary(summary, stream)
    return 0


def _settings(args):
    """The settings of the run, for the JSON summary (times in seconds)."""
    names = ("quantile", "capacity") if args.method == "wait" else (
        "quantile", *_QBETS_DEFAULTS)
    return {"method": args.method, **{name: getattr(args, name) for name in names}}


def _print_summary(summary, stream):
    if summary["n_bounded"] == 0:
        print(f"\nper-job bounds: none of the {format_count(summary['n_jobs'], 'job')} got one "
              "(too little history before each)", file=stream)
        return
    if np.isnan(summary["median_ratio"]):
        ratios = "no bounded job waited more than 60 s"
    else:
        ratios = (f"bound/actual median {format_fixed(summary['median_ratio'])}, mean "
                  f"{format_fixed(summary['mean_ratio'])} (jobs waiting > 60 s)")
    print(f"\nper-job bounds: {summary['n_bounded']:,} of {format_count(summary['n_jobs'], 'job')} "
          f"got one; correct {format_fixed(summary['correctness'])} (95% CI "
          f"{format_fixed(summary['correctness_low'])}-"
          f"{format_fixed(summary['correctness_high'])}); {ratios}", file=stream)


def _numbers_in(text):
    """A class description (``~4.7e+03``, ``[16, 64)``) with its numbers in the table format."""
    def number(match):
        value = float(match.group())
        return format_fixed(int(value) if value.is_integer() else value)

    return re.sub(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", number, text)


def _write(jobs, bounds, args):
    out = pd.DataFrame({"job_id": jobs["job_id"].to_numpy(),
                        "submit_time": jobs["submit_time"].to_numpy(),
                        "wait_time": jobs["wait_time"].to_numpy(), "bound": bounds})
    write_table(out, args.output, args.format)

"""``predictkit predict TRACE``: adjusted runtime estimates by online replay, and their accuracy."""

import numpy as np

from .._format import format_count, format_fixed, format_given
from .._table import cancelled_before_running, known_time, rows_where
from ..exceptions import ConfigError, JobTableError
from ..metrics import (adjustment_outcomes, estimate_accuracy, mean_absolute_error,
                       underestimation_rate)
from ..model_selection import replay
from .._time import parse_duration
from ..runtime._registry import PREDICTORS, make_predictor
from ..runtime._walltime_adjuster import _keys
from ._checks import (check_count, check_fraction, check_tang_quantile, flag_names, os_errors,
                      refuse_inapplicable, tang_keys, warn_ungrouped)
from ._logs import add_log_argument, read_done, read_trace_arg, source_name
from ._output import output_format, print_json, prints_table, result_stream, write_table
from ._parser import add_command, add_quiet_option, path_text
from ._progress import Progress

def register(subparsers):
    parser = add_command(
        subparsers, "predict", help="replace requested times by predicted runtimes (online, no peeking)",
        description=(
            "Predict each job's runtime from the jobs that had ended before its submission "
            "(online replay), write the trace with the predictions in the requested-time "
            "field, and print the accuracy (Tang et al. 2013 eq. 3) and the NA/OE/UE/BE "
            "outcome shares (section 4.2.2) against the user requests. SWF output holds "
            "only the 18 SWF fields, so the original requests are not in it (the header "
            "says how it was made; predictions are rounded to whole seconds); CSV and "
            "JSON output keep them in 'requested_time'."),
    )
    add_log_argument(parser)
    parser.add_argument("--method", default="tang",
                        choices=tuple(PREDICTORS),
                        help="tang: WalltimeAdjuster (Tang et al. 2013); usage-max: "
                             "RecentUsageMax (Klusacek & Soysal 2019); recent-average: "
                             "RecentAverage (Tsafrir et al. 2007); learned: LearnedRuntime, "
                             "gradient boosting on the user's history held to a bad-estimate "
                             "budget; requested: the request (default: %(default)s)")
    parser.add_argument("--keys", default=None,
                        help="tang: similarity keys, comma-separated: user, group (project), "
                             "request, or column names (default: user,group,request, leaving "
                             "out a key the log gives for no job)")
    parser.add_argument("--window", default=None,
                        help="tang: history window such as 30D, or 'all' (default: 30D)")
    parser.add_argument("--quantile", default=None,
                        help="tang: percentile of run/request in [0.5, 1] or 'mean' "
                             "(default: 0.85)")
    parser.add_argument("--floor", default=None,
                        help="tang: lower bound of the adjustment factor, or 'none' "
                             "(default: 0.5)")
    parser.add_argument("--min-jobs", type=int, default=None,
                        help="tang: fewest similar jobs needed to adjust (default: 10)")
    parser.add_argument("--n-recent", type=int, default=None,
                        help="usage-max / recent-average: number of recent jobs "
                             "(default: 5 / 2)")
    parser.add_argument("--max-bad-share", type=float, default=None,
                        help="learned: share of bad estimates the predictor holds "
                             "(default: 0.02)")
    parser.add_argument("--assume-no-wait", action="store_true",
                        help="for logs without wait times: treat each job as ending at "
                             "submit + run (otherwise such logs are refused)")
    parser.add_argument("--bad-threshold", type=float, default=1800.0,
                        help="underestimate (s) counted as a bad estimate")
    parser.add_argument("-o", "--output", metavar="PATH", type=path_text,
                        help="write the adjusted trace here ('-' for standard output)")
    parser.add_argument("--format", choices=("swf", "csv", "json"), default=None,
                        help="output format (default: from the file extension .swf, .csv or "
                             ".json; swf for '-', a FIFO or a device)")
    parser.add_argument("--json", action="store_true",
                        help="print the accuracy summary as JSON")
    add_quiet_option(parser)
    parser.set_defaults(func=run)


def build_estimator(args):
    """The estimator the options describe."""
    if args.method == "requested":
        return make_predictor("requested")
    if args.method in ("usage-max", "recent-average"):
        params = {} if args.n_recent is None else {"n_recent": args.n_recent}
        return make_predictor(args.method, **params)
    if args.method == "learned":
        return make_predictor("learned", max_bad_share=args.max_bad_share,
                              bad_threshold=args.bad_threshold)
    if args.method != "tang":  # a registered predictor without options of its own here
        return make_predictor(args.method)
    quantile = args.quantile
    if quantile != "mean":
        try:
            quantile = float(quantile)
        except ValueError:
            raise ConfigError(f"--quantile must be a number or 'mean', got {quantile!r}") from None
        check_tang_quantile(quantile, "--quantile")
    floor = None if args.floor.lower() == "none" else _number(args.floor, "--floor")
    if floor is not None and not 0 <= floor <= 1:
        raise ConfigError(f"--floor must be in [0, 1] or 'none', got {floor}")
    if args.min_jobs < 1:
        raise ConfigError(f"--min-jobs must be at least 1, got {args.min_jobs}")
    return make_predictor("tang", keys=args.keys, window=args.window, quantile=quantile,
                          min_jobs=args.min_jobs, floor=floor)


def _number(text, name):
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {text!r}") from None


def summarize_predictions(run, requested, predicted, *, bad_threshold=1800.0, never_ran=None):
    """Accuracy and outcome shares of predictions vs requests on the scorable jobs.

    On a log without any request the predictions are scored alone, on the jobs
    whose runtime and prediction are known (``requests`` is False and the
    requests' columns and the outcome shares, which compare with them, are left out).
    Jobs flagged in ``never_ran`` (cancelled before they ran: their runtime of
    0 is no runtime) are not scored; ``n_cancelled_before_running`` counts those
    that would have been.
    """
    has_requests = bool(np.isfinite(requested).any())
    ok = np.isfinite(run) & np.isfinite(predicted)
    if has_requests:
        ok &= np.isfinite(requested)
    summary = {"n_jobs": int(run.size)}
    if never_ran is not None and (never_ran & ok).any():
        summary["n_cancelled_before_running"] = int((never_ran & ok).sum())
        ok &= ~never_ran
    summary.update(n_scored=int(ok.sum()), requests=has_requests)
    if not ok.any():
        return summary
    if not has_requests:
        run, predicted = run[ok], predicted[ok]
        summary["accuracy_predicted"] = estimate_accuracy(run, predicted)
        summary["underestimation_predicted"] = underestimation_rate(run, predicted)
        summary["mae_predicted"] = mean_absolute_error(run, predicted)
        return summary
    run, requested, predicted = run[ok], requested[ok], predicted[ok]
    summary["accuracy_requested"] = estimate_accuracy(run, requested)
    summary["accuracy_predicted"] = estimate_accuracy(run, predicted)
    summary["underestimation_requested"] = underestimation_rate(run, requested)
    summary["underestimation_predicted"] = underestimation_rate(run, predicted)
    summary["mae_requested"] = mean_absolute_error(run, requested)
    summary["mae_predicted"] = mean_absolute_error(run, predicted)
    summary["outcomes"] = adjustment_outcomes(run, requested, predicted,
                                              bad_threshold=bad_threshold)
    return summary


_METHOD_OPTIONS = (
    ("keys", "--keys", ("tang",)),
    ("window", "--window", ("tang",)),
    ("quantile", "--quantile", ("tang",)),
    ("floor", "--floor", ("tang",)),
    ("min_jobs", "--min-jobs", ("tang",)),
    ("n_recent", "--n-recent", ("usage-max", "recent-average")),
    ("max_bad_share", "--max-bad-share", ("learned",)),
)
"""Options that set one predictor's parameters, and the methods that use them."""

_METHOD_DEFAULTS = {"keys": "user,group,request", "window": "30D", "quantile": "0.85",
                    "floor": "0.5", "min_jobs": 10, "max_bad_share": 0.02}


def _method_options(args):
    """Refuse an option the chosen method would ignore; then set the defaults."""
    refuse_inapplicable(args, _METHOD_OPTIONS, args.method, "--method")
    args.keys_given = args.keys is not None
    for dest, default in _METHOD_DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)


def _check_args(args):
    """Refuse bad values before any work, each naming its flag."""
    _method_options(args)
    check_count(args.n_recent, "--n-recent")
    check_count(args.min_jobs, "--min-jobs")
    check_fraction(args.max_bad_share, "--max-bad-share")
    if not 0 <= args.bad_threshold < float("inf"):
        raise ConfigError(f"--bad-threshold must be a number of seconds >= 0, "
                          f"got {format_given(args.bad_threshold)}")
    if args.method == "tang":
        window = parse_duration(args.window, name="--window", allow_none=True)
        if window is not None and not window > 0:
            raise ConfigError(f"--window must be a positive duration or 'all', got "
                              f"{args.window!r} (a window of 0 holds no history)")
    with flag_names(_FLAGS):
        if args.method == "tang" and not _keys(args.keys):
            raise ConfigError(f"--keys must name at least one key, got {args.keys!r}")
        return build_estimator(args)


_FLAGS = {"keys": "--keys", "window": "--window", "quantile": "--quantile", "floor": "--floor",
          "min_jobs": "--min-jobs", "n_recent": "--n-recent", "bad_threshold": "--bad-threshold",
          "max_bad_share": "--max-bad-share"}
"""Parameters of the predictors and the flags that set them."""


def run(args):
    estimator = _check_args(args)
    if args.output:
        args.format = _output_format(args)
    progress = Progress("predict", quiet=args.quiet)
    settings = {"method": args.method}
    if args.method == "tang":
        settings.update(keys=args.keys, window=args.window, quantile=args.quantile,
                        floor=args.floor, min_jobs=args.min_jobs)
    elif args.method == "learned":
        settings["max_bad_share"] = args.max_bad_share
    elif args.method != "requested":
        settings["n_recent"] = args.n_recent if args.n_recent is not None else "default"
    settings.update(assume_no_wait=args.assume_no_wait, bad_threshold=args.bad_threshold)
    progress.settings(**settings)
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    if args.method == "tang":
        keys = tang_keys(args.keys, jobs, args.trace, given=args.keys_given, note=progress.say)
        estimator.set_params(keys=keys)
    warn_ungrouped(estimator, jobs, args.trace, args.method, progress.warn)
    y = jobs["run_time"].to_numpy(dtype=float)
    placed = jobs["submit_time"].notna().to_numpy()
    if not placed.all():
        progress.warn(f"{format_count(int((~placed).sum()), 'job')} without a submit time "
                      f"(first at row {int(np.argmax(~placed))}) cannot be placed in the "
                      "online history: not predicted (their prediction is written as unknown)")
    history = rows_where(jobs, placed)
    known = None
    no_wait = np.isnan(history["wait_time"].to_numpy(dtype=float)) & np.isfinite(y[placed])
    needs_history = args.method != "requested"  # the request is known at submission
    if no_wait.any() and not args.assume_no_wait and needs_history:
        raise ConfigError(
            f"{int(no_wait.sum()):,} job(s) have no wait time, so their end time (when "
            "their runtime becomes known) is unknown; rerun with --assume-no-wait to "
            "treat them as ending at submit + run")
    if args.assume_no_wait and not no_wait.any():
        progress.say("--assume-no-wait: every job has a wait time, so nothing is assumed")
    if args.assume_no_wait or (no_wait.any() and not needs_history):
        known = known_time(history, y=y[placed], assume_no_wait=True)
    predicted = np.full(len(jobs), np.nan)
    with flag_names(_FLAGS), progress.step(f"predicted the runtimes of "
                                           f"{format_count(int(placed.sum()), 'job')} online"):
        predicted[placed] = replay(estimator, history, y[placed], known_time=known)
    requested = jobs["req_time"].to_numpy(dtype=float)
    if len(jobs) and not np.isfinite(predicted).any():
        why = (f"no job has a requested time, which {args.method} predictions start from"
               if not (requested > 0).any() else "the log gives it nothing to predict from")
        raise JobTableError(f"{source_name(args.trace)}: no job got a predicted runtime: "
                            f"{why}")
    summary = summarize_predictions(y, requested, predicted, bad_threshold=args.bad_threshold,
                                    never_ran=cancelled_before_running(jobs))
    summary["method"] = repr(estimator)
    if args.output:
        with progress.step(f"wrote {format_count(len(jobs), 'job')} to {args.output}"), \
                os_errors("-o", args.output):
            _write(jobs, requested, predicted, estimator, args)
    if args.json:
        print_json(summary, result_stream(args.output))
    elif prints_table(args):
        _print_table(summary, result_stream(args.output))
    return 0


def _write(jobs, requested, predicted, estimator, args):
    out = jobs.copy()
    out["req_time"] = predicted
    fmt = _output_format(args)
    if fmt == "swf":
        from ..io import write_swf

        # SWF fields are whole seconds
        out["req_time"] = np.round(predicted)
        note = (f"req_time holds runtimes predicted online by predictkit {estimator!r}; "
                "rounded to whole seconds; the original requests are in the input trace "
                "(same job order)")
        write_swf(out, args.output, comments=[note])
        return
    out.insert(list(out.columns).index("req_time") + 1, "requested_time", requested)
    write_table(out, args.output, fmt)


def _output_format(args):
    """``--format``, else the extension of ``-o``; SWF for ``-``, a FIFO or a device."""
    from .._atomic import is_stream

    return output_format(args.output, args.format, ("swf", "csv", "json"),
                         default="swf" if is_stream(args.output) else None)


def _print_table(summary, stream):
    print(f"method: {summary['method']}", file=stream)
    known = "runtime and request known" if summary["requests"] else \
        "runtime and prediction known; the log gives no requests to compare with"
    print(f"jobs: {summary['n_jobs']:,}  scored ({known}): {summary['n_scored']:,}",
          file=stream)
    if summary.get("n_cancelled_before_running"):
        print(f"not scored: {format_count(summary['n_cancelled_before_running'], 'job')} "
              "cancelled before they ran (a runtime of 0 that is no runtime)", file=stream)
    if "accuracy_predicted" not in summary:
        return
    columns = ("requested", "predicted") if summary["requests"] else ("predicted",)
    print(f"{'':28}" + "".join(f"{column:>12}" for column in columns), file=stream)
    rows = [("accuracy (Tang eq. 3)", "accuracy", 1.0),
            ("underestimated (fraction)", "underestimation", 1.0),
            ("mean absolute error (h)", "mae", 3600.0)]
    for label, key, unit in rows:
        print(f"{label:28}" + "".join(
            f"{format_fixed(summary[f'{key}_{column}'] / unit):>12}" for column in columns),
            file=stream)
    if "outcomes" not in summary:
        return
    shares = summary["outcomes"]
    print("outcomes (fraction of jobs): "
          + "  ".join(f"{k} {format_fixed(v)}" for k, v in shares.items()), file=stream)

"""``predictkit select TRACE``: choose a runtime predictor by the schedule of past months."""

import numpy as np

from .._format import format_count, format_given
from .._summary import wider_than_machine
from .._time import format_duration, parse_duration
from ..exceptions import ConfigError
from ..model_selection import EASY_PLUS_PLUS, schedule_candidates, select_by_schedule
from ..model_selection._schedule_criteria import SCHEDULE_CRITERIA
from ..model_selection._schedule_search import RECENT_COUNTS, SCHEDULE_METRICS, TANG_KEYS
from ..simulate._policies import refuse_blind_scheduler
from ..simulate import POLICIES, PRIORITIES
from ._checks import (check_count, check_positive, check_procs, check_tang_quantile,
                      flag_names, refuse_inapplicable, refuse_repeats, unusable_tang_keys)
from ._logs import add_log_argument, read_jobs_to_simulate
from ._machine import add_machine_procs_option, warn_busier_than_machine
from ._output import print_json, prints_table, result_stream, table_format, write_table
from ._parser import add_command, add_output_options
from ._progress import Progress
from ._tables import format_table

PREDICTOR_CHOICES = ("requested", "tang", "usage-max", "recent-average", "learned")
DEFAULT_PREDICTORS = PREDICTOR_CHOICES[:-1]
"""The learned candidates are asked for by name: they fit models, much slower than the rest."""
BUDGETS = (0.02,)
QUANTILES = (0.7, 0.85, 0.95)

_FLAGS = {"test_periods": "--test-periods", "warmup_periods": "--warmup-periods",
          "machine_procs": "--machine-procs", "policy": "--policy",
          "priority": "--priority", "metric": "--metric", "quantile": "--quantiles",
          "keys": "--keys", "criterion": "--criterion", "half_life": "--half-life",
          "recent": "--recent"}
"""Parameters of :func:`~predictkit.model_selection.select_by_schedule` and their flags."""


def register(subparsers):
    parser = add_command(
        subparsers, "select",
        help="choose a runtime predictor by the schedule it gives on past months",
        description=(
            "Scheduling-level model selection. Every candidate (requested times, Tang's "
            "walltime adjuster for each key and quantile, recent usage max, recent average; "
            "each regular and selective, and with EASY++'s increments and shortest-first "
            "backfilling) is simulated online on the jobs submitted before the split, and "
            "on the whole log. The one with the lowest mean metric over the past periods "
            "in the first run (after the warm-up; --criterion for other ways of combining "
            "them) is chosen, and its score on the last --test-periods periods in the "
            "second run is printed next to EASY++'s on the same periods. The choice reads "
            "nothing after the split. -o writes every candidate's scores (CSV or JSON)."))
    add_log_argument(parser)
    parser.add_argument("--test-periods", type=int, default=3, metavar="N",
                        help="periods at the end of the log held out as the following months")
    parser.add_argument("--period", default="30D",
                        help="length of one period (a duration: 30D, 12h, or seconds)")
    parser.add_argument("--warmup-periods", type=int, default=1, metavar="N",
                        help="first periods simulated but not scored")
    parser.add_argument("--policy", default="easy", choices=POLICIES, help="backfilling policy")
    parser.add_argument("--priority", default="fcfs", choices=PRIORITIES, help="queue order")
    parser.add_argument("--metric", default="bounded_slowdown", choices=tuple(SCHEDULE_METRICS),
                        help="per-job metric whose mean is minimised")
    parser.add_argument("--predictors", nargs="+", default=None,
                        choices=PREDICTOR_CHOICES, metavar="NAME",
                        help=f"candidate predictors, among {', '.join(PREDICTOR_CHOICES)} "
                             f"(default: {' '.join(DEFAULT_PREDICTORS)}; learned, the "
                             "gradient-boosting predictor held to a bad-estimate budget, "
                             "is slower than all the others together)")
    parser.add_argument("--keys", nargs="+", default=None, metavar="KEYS",
                        help="similarity keys of the tang candidates, each comma-separated "
                             f"(default: Tang's four, {' '.join(TANG_KEYS)})")
    parser.add_argument("--quantiles", nargs="+", type=float, default=None,
                        metavar="Q", help="quantiles of the tang candidates, in [0.5, 1] "
                                          "(default: 0.7 0.85 0.95)")
    parser.add_argument("--recent", nargs="+", type=int, default=None, metavar="N",
                        help="runtimes averaged by the recent-average candidates "
                             f"(default: {' '.join(map(str, RECENT_COUNTS))})")
    parser.add_argument("--budgets", nargs="+", type=float, default=None, metavar="SHARE",
                        help="bad-estimate budgets (max_bad_share, in (0, 1)) of the learned "
                             f"candidates (default: {' '.join(map(str, BUDGETS))})")
    parser.add_argument("--criterion", default="mean", choices=SCHEDULE_CRITERIA,
                        help="how the past periods' scores combine: their mean, the mean over "
                             "the past jobs, a mean weighting recent periods more, or the mean "
                             "rank across periods")
    parser.add_argument("--half-life", type=float, default=None, metavar="PERIODS",
                        help="for --criterion recent: the age in periods that halves a "
                             "period's weight (default: 3)")
    parser.add_argument("--no-easy-pp-style", action="store_true",
                        help="leave out the candidates using EASY++'s increments and "
                             "shortest-first backfilling")
    add_machine_procs_option(parser)
    parser.add_argument("--max-jobs", type=int, default=None,
                        help="use only the first N jobs of the log, counted before jobs that "
                             "cannot be simulated are left out (default: all)")
    parser.add_argument("--top", type=int, default=10, metavar="N",
                        help="candidates shown, best cross-validation score first")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


_CANDIDATE_OPTIONS = (
    ("keys", "--keys", ("tang",)),
    ("quantiles", "--quantiles", ("tang",)),
    ("recent", "--recent", ("recent-average",)),
    ("budgets", "--budgets", ("learned",)),
)
"""Options that set one predictor's candidates, and the predictors that use them."""


def _check_args(args):
    """Refuse bad values before any work, each naming its flag; fill list defaults."""
    args.predictors = refuse_repeats(args.predictors or list(DEFAULT_PREDICTORS), "--predictors",
                                     "a predictor")
    refuse_inapplicable(args, _CANDIDATE_OPTIONS, args.predictors, "--predictors")
    args.keys_given = args.keys is not None
    args.keys = args.keys or list(TANG_KEYS)
    args.quantiles = args.quantiles or list(QUANTILES)
    args.recent = args.recent or list(RECENT_COUNTS)
    args.budgets = args.budgets or list(BUDGETS)
    for share in args.budgets:
        if not 0 < share < 1:  # also refuses NaN
            raise ConfigError(f"--budgets must be shares in (0, 1), got {format_given(share)}")
    refuse_repeats(args.budgets, "--budgets")
    for n in args.recent:
        if n < 1:
            raise ConfigError(f"--recent must be whole numbers from 1, got {n}")
    refuse_repeats(args.recent, "--recent")
    if args.half_life is not None and args.criterion != "recent":
        raise ConfigError(f"--half-life applies to --criterion recent only, not --criterion "
                          f"{args.criterion}")
    if args.half_life is None:
        args.half_life = 3.0
    if not args.half_life > 0 or args.half_life == float("inf"):  # also refuses NaN
        raise ConfigError(f"--half-life must be a positive number of periods, got "
                          f"{format_given(args.half_life)}")
    check_positive(args.max_jobs, "--max-jobs")
    check_procs(args.machine_procs)
    check_count(args.test_periods, "--test-periods")
    check_count(args.warmup_periods, "--warmup-periods", low=0)
    check_count(args.top, "--top")
    if not parse_duration(args.period, name="--period") > 0:
        raise ConfigError(f"--period must be positive, got {args.period}")
    for q in args.quantiles:
        check_tang_quantile(q, "--quantiles")
    refuse_repeats(args.quantiles, "--quantiles")
    refuse_repeats(args.keys, "--keys", "a key set")
    if args.output:
        return table_format(args.output, args.format)
    return None


def candidates_of(args):
    """The candidates the flags ask for (built-in set, filtered)."""
    with flag_names(_FLAGS):
        every = schedule_candidates(keys=tuple(args.keys), quantiles=tuple(args.quantiles),
                                    easy_pp_style=not args.no_easy_pp_style,
                                    recent=tuple(args.recent),
                                    learned=tuple(args.budgets) if "learned" in args.predictors
                                    else ())
        for candidate in every:
            candidate.estimates()  # a bad --keys value fails here, before any work
    return [c for c in every if c.predictor in args.predictors]


def _usable(candidates, jobs, args, say):
    """The candidates whose Tang keys group jobs of the log (before any simulation).

    A key set the user gave that groups no job is refused; default key sets
    that group none are left out, and ``say`` tells which.
    """
    kept, left_out = [], {}
    for candidate in candidates:
        if candidate.predictor == "tang":
            keys = dict(candidate.params)["keys"]
            unusable = unusable_tang_keys(keys, jobs, args.trace, given=args.keys_given)
            if unusable:
                left_out[keys] = ", ".join(unusable)
                continue
        kept.append(candidate)
    if left_out:
        say(f"left out the Tang candidates with keys {' and '.join(left_out)}: {args.trace} "
            f"gives {', '.join(dict.fromkeys(left_out.values()))} for no job")
    return kept


def run(args):

    fmt = _check_args(args)
    candidates = candidates_of(args)
    with flag_names(_FLAGS):
        refuse_blind_scheduler(args.policy, args.priority,
                               [c.backfill_order for c in candidates],
                               backfill_advice="--policy no_guarantee with the EASY++-style "
                                               "candidates (they backfill shortest first)")
    progress = Progress("select", quiet=args.quiet)
    progress.settings(policy=args.policy, priority=args.priority, metric=args.metric,
                      criterion=args.criterion,
                      period=args.period, test_periods=args.test_periods,
                      warmup_periods=args.warmup_periods, candidates=len(candidates),
                      machine_procs=args.machine_procs or "from the log",
                      max_jobs=args.max_jobs or "all")
    jobs = read_jobs_to_simulate(args, progress, require_request=True,
                                 needs="a submit time, a runtime, a width and a request")
    warn_busier_than_machine(jobs, args.machine_procs, kept=True)

    candidates = _usable(candidates, jobs, args, progress.say)

    def each(k, n, candidate, seconds):
        progress.finished(f"simulated {candidate.name} ({k}/{n})", seconds)

    with flag_names(_FLAGS):
        found = select_by_schedule(
            jobs, candidates, test_periods=args.test_periods, period=args.period,
            warmup_periods=args.warmup_periods, policy=args.policy, priority=args.priority,
            metric=args.metric, machine_procs=args.machine_procs, baseline=EASY_PLUS_PLUS,
            progress=each, criterion=args.criterion, half_life=args.half_life)
    n_rejected = len(found.rejected)
    progress.say(f"simulated {format_count(len(jobs) - n_rejected, 'job')} with each candidate")
    if n_rejected:
        progress.warn(f"{wider_than_machine(n_rejected, found.machine_procs, verb='was')} not "
                      f"simulated and {'is' if n_rejected == 1 else 'are'} not scored")
    table = found.table.sort_values(["is_baseline", "cv_score"], kind="stable")
    if args.output:
        write_table(table, args.output, fmt)
    if not args.json and not prints_table(args):
        return 0
    stream = result_stream(args.output)
    chosen, base = found.chosen_test_score, found.baseline_test_score
    change = (chosen - base) / base if base > 0 else np.nan
    if args.json:
        print_json({"chosen": found.chosen.name, "metric": args.metric,
                    "criterion": args.criterion,
                    "split_time": found.split_time, "test_score": chosen,
                    "easy_pp_test_score": base, "relative_change_vs_easy_pp": change,
                    "candidates": table.to_dict(orient="records")}, stream)
        return 0
    shown = table[~table["is_baseline"]].head(args.top)
    unit = " (s)" if args.metric in ("wait", "response") else ""
    shown = shown[["candidate", "cv_score", "test_score"]].rename(columns={
        "cv_score": (f"past mean {args.metric}{unit}" if args.criterion == "mean" else
                     f"past {args.metric} ({args.criterion})"),
        "test_score": f"following {args.metric}{unit}"})
    print(format_table(shown.reset_index(drop=True)), file=stream)
    print(f"chosen on the past periods: {found.chosen.name}", file=stream)
    into = format_duration(found.split_time - float(jobs["submit_time"].min()))
    print(f"mean {args.metric}{unit} on the last {format_count(args.test_periods, 'period')} "
          f"(jobs submitted from {into} into the log on): chosen {chosen:,.2f}, "
          f"EASY++ {base:,.2f} "
          f"({change:+.1%})", file=stream)
    return 0

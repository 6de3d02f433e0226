"""``predictkit walltime LOG --user NAME --time T``: what walltime should I request?

Each built-in runtime predictor (and a few quantiles of Tang et al.'s
walltime adjustment) is replayed online over the whole log, exactly as a
scheduler would have used it (:func:`predictkit.model_selection.replay`, no
peeking), and scored on the user's past jobs (the site's, when the user has
few): the most accurate one (Tang et al. 2013, eq. 3) among those that
underestimated at most ``--max-risk`` of those jobs is chosen, and its
prediction for the new request, from all the history up to the end of the
log, is the advice.
"""

import math
import sys

import numpy as np
import pandas as pd

from .._format import format_count, format_given
from .._table import cancelled_before_running, known_time, rows_where
from ..exceptions import ConfigError, JobTableError
from ..io._slurm_fields import format_slurm_duration
from ..metrics import estimate_accuracy
from ..model_selection import replay
from ..runtime import make_predictor
from ..runtime._registry import REGISTRY
from ._logs import add_log_argument, read_done, read_trace_arg
from ._output import print_json
from ._parser import add_command, add_quiet_option
from ._progress import Progress
from ._questions import (add_request_options, job_request, log_end, name_of, resolve_name,
                         width_in_log_unit)
from ._tables import fill

_DESCRIPTIONS = {
    "requested": "the request itself",
    "tang": "WalltimeAdjuster as in Tang et al. 2013: request x 85th percentile of run/request "
            "of the jobs with the same user, account and request in the last 30 days",
    "usage-max": "RecentUsageMax (Klusacek & Soysal 2019): request x the largest run/request "
                 "of the user's last 5 jobs",
    "recent-average": "RecentAverage (Tsafrir et al. 2007): mean runtime of the user's last 2 "
                      "jobs, at most the request",
}
"""How the advice describes each registered predictor (else its registry summary)."""


def _candidates():
    for name, entry in REGISTRY.items():
        yield name, name, {}, _DESCRIPTIONS.get(name, entry.summary)
        if name == "tang":
            for q in (0.8, 0.9, 0.95, 1.0):
                yield (f"tang-user-q{round(q * 100)}", "tang",
                       {"keys": "user", "window": "all", "quantile": q, "floor": None},
                       f"request x {'largest' if q == 1 else f'{round(q * 100)}th percentile of'} "
                       f"run/request over the user's past jobs")


CANDIDATES = tuple(_candidates())
"""``(name, predictor, parameters, what it does)`` of each predictor compared."""


def register(subparsers):
    parser = add_command(
        subparsers,
        "walltime", help="what walltime should I request? (best predictor on my history)",
        description=(
            "Compare the built-in runtime predictors on the user's past jobs in the log "
            "(each replayed online, as a scheduler would have used it), choose the most "
            "accurate one among those that underestimated at most --max-risk of them, "
            "and print its walltime for the new request with that risk."))
    add_log_argument(parser, help="the site's job history")
    parser.add_argument("--user", required=True, metavar="NAME",
                        help="the user asking (a sacct user name, or an SWF user number)")
    add_request_options(parser, procs_required=False, script_also_gives="--account")
    parser.add_argument("--account", metavar="NAME",
                        help="the account the job is charged to (default: the --script's "
                             "#SBATCH --account, else the user's latest one)")
    parser.add_argument("--max-risk", type=float, default=0.05,
                        help="largest acceptable share of past jobs the advice would have "
                             "cut short, in [0, 1) (default: %(default)s)")
    parser.add_argument("--min-history", type=int, default=20,
                        help="fewest past jobs of the user to judge on them alone; with "
                             "fewer, the site's jobs are used (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    add_quiet_option(parser, "the answer still goes to standard output")
    parser.set_defaults(func=run)


def run(args):
    if not 0.0 <= args.max_risk < 1.0:
        raise ConfigError(f"--max-risk must be in [0, 1), got {args.max_risk}")
    if args.min_history < 1:
        raise ConfigError(f"--min-history must be at least 1, got {args.min_history}")
    req_time, procs, script = job_request(args, need_procs=False)
    progress = Progress("walltime", quiet=args.quiet)
    progress.settings(user=args.user, time=format_slurm_duration(req_time),
                      max_risk=args.max_risk, min_history=args.min_history)
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    procs, unit_note = width_in_log_unit(jobs, args, procs, script)
    with progress.step(f"compared {len(CANDIDATES)} predictors"):
        answer = recommend_walltime(jobs, user=args.user, req_time=req_time, procs=procs,
                                    account=args.account or script.get("account"),
                                    account_flag=(
                                        "--account" if args.account or not script.get("account")
                                        else f"{args.script}: #SBATCH --account"),
                                    max_risk=args.max_risk, min_history=args.min_history)
    if unit_note:
        answer["notes"].insert(0, unit_note)
    if args.json:
        print_json(answer)
    else:
        print_answer(answer, sys.stdout)
    return 0


def recommend_walltime(jobs, *, user, req_time, procs=None, account=None, max_risk=0.05,
                       min_history=20, account_flag="--account"):
    """Score every candidate on the user's past jobs and advise a walltime for ``req_time``.

    ``account_flag`` names where the account came from in errors.

    Returns a dictionary: the request, who was judged (``judged_on``,
    ``n_judged``), the ``table`` of candidates (accuracy, share and count of
    underestimated jobs, advice for this request) and the ``chosen`` one with
    its ``advice`` (seconds, rounded up to whole minutes as Slurm counts).
    """
    notes = []
    unplaced = jobs["submit_time"].isna().to_numpy()
    if unplaced.any():
        # without a submit time a job has no place in the online history
        notes.append(f"{format_count(int(unplaced.sum()), 'job')} without a submit time: left out")
        jobs = rows_where(jobs, ~unplaced)
    jobs = jobs.sort_values("submit_time", kind="stable").reset_index(drop=True)
    user_id = resolve_name(jobs, user, "user_id", "--user")
    run_time = jobs["run_time"].to_numpy(dtype=float)
    wait = jobs["wait_time"].to_numpy(dtype=float)
    submit = jobs["submit_time"].to_numpy(dtype=float)
    no_wait = np.isfinite(run_time) & np.isnan(wait)
    if no_wait.any():
        notes.append(f"{format_count(int(no_wait.sum()), 'job')} without a wait time: taken as "
                     "ending at submit + run")
    known = known_time(jobs, y=run_time, assume_no_wait=True)
    requested = jobs["req_time"].to_numpy(dtype=float)
    never_ran = cancelled_before_running(jobs)
    if never_ran.any():
        notes.append(f"{format_count(int(never_ran.sum()), 'job')} cancelled before they ran: "
                     "not judged and not learned from (a runtime of 0 that is no runtime)")
    scorable = np.isfinite(run_time) & np.isfinite(requested) & (requested > 0) & ~never_ran
    mine = jobs["user_id"].to_numpy() == user_id
    judged = scorable & mine
    judged_on = f"user {user}'s {int(judged.sum()):,} past jobs"
    if judged.sum() < min_history:
        notes.append(f"user {user} has {format_count(int(judged.sum()), 'past job')} with a "
                     f"runtime and a request (fewer than --min-history {min_history}): the "
                     "predictors are judged on the site's jobs")
        judged = scorable
        judged_on = f"the site's {int(judged.sum()):,} past jobs"
    if not judged.any():
        raise JobTableError("no past job has both a runtime and a requested time: nothing "
                            "to judge the predictors on")
    shortest, longest = requested[judged].min(), requested[judged].max()
    if not shortest <= req_time <= longest:
        span = (f"all {format_slurm_duration(shortest)}" if shortest == longest else
                f"{format_slurm_duration(shortest)} to {format_slurm_duration(longest)}")
        notes.append(f"the request ({format_slurm_duration(req_time)}) is "
                     f"{'longer' if req_time > longest else 'shorter'} than any request of "
                     f"{judged_on} ({span}): how the predictors scored there says little "
                     "about it")
    now = log_end(jobs.assign(start_time=submit + wait, end_time=known))
    query = _query(jobs, mine, user_id, now, req_time, procs, account, account_flag)
    if account is None:
        account = name_of(jobs, float(query["group_id"].iloc[0]), "group_id")
    if procs is None and np.isfinite(query["req_procs"].iloc[0]):
        procs = int(query["req_procs"].iloc[0])
    rows = []
    for name, predictor, params, what in CANDIDATES:
        estimator = make_predictor(predictor, **params)
        predicted = replay(estimator, jobs, run_time, known_time=known)
        ok = judged & np.isfinite(predicted)
        run, guess = run_time[ok], predicted[ok]
        done = np.isfinite(run_time) & (known <= now)
        order = np.lexsort((np.arange(int(done.sum())), submit[done], known[done]))
        fitted = make_predictor(predictor, **params).fit(
            jobs[done].iloc[order].assign(end_time=known[done][order]),
            run_time[done][order])
        advice = float(fitted.predict(query)[0])
        # a job that ran until its limit was cut short by it (Slurm's TIMEOUT jobs
        # often report an Elapsed equal to their Timelimit)
        cut = guess <= run
        rows.append({"predictor": name, "accuracy": estimate_accuracy(run, guess),
                     "underestimated": float(cut.mean()),
                     "n_underestimated": int(cut.sum()), "n_judged": int(ok.sum()),
                     "advice": _round_up(min(advice, req_time)), "what": what})
    table = pd.DataFrame(rows)
    risk_requested = float(table.loc[table["predictor"] == "requested",
                                     "underestimated"].iloc[0])
    limit = max(max_risk, risk_requested)
    if risk_requested > max_risk:
        notes.append(f"the requests themselves ran out for {risk_requested:.1%} of the "
                     f"jobs judged (above --max-risk {format_given(max_risk)}): only "
                     f"predictors no riskier than the requests are considered")
    eligible = table[table["underestimated"] <= limit + 1e-12]
    best = eligible.sort_values(["accuracy", "underestimated"], ascending=[False, True],
                                kind="stable").iloc[0]
    return {"user": user, "req_time": float(req_time), "procs": procs, "account": account,
            "judged_on": judged_on, "max_risk": max_risk, "risk_limit": limit,
            "chosen": best["predictor"],
            "chosen_what": best["what"], "advice": float(best["advice"]),
            "risk": float(best["underestimated"]),
            "n_underestimated": int(best["n_underestimated"]),
            "n_judged": int(best["n_judged"]), "accuracy": float(best["accuracy"]),
            "accuracy_requested": float(table.loc[table["predictor"] == "requested",
                                                  "accuracy"].iloc[0]),
            "table": table.drop(columns="what").to_dict(orient="records"), "notes": notes}


def _query(jobs, mine, user_id, now, req_time, procs, account, account_flag):
    """The new job, as the predictors see it: submitted at the end of the log."""
    if account is not None:
        group = resolve_name(jobs, account, "group_id", account_flag)
    else:
        groups = jobs.loc[mine, "group_id"].dropna()
        group = float(groups.iloc[-1]) if len(groups) else math.nan
    if procs is None:
        sizes = jobs.loc[mine, "req_procs"].dropna()
        procs = float(sizes.iloc[-1]) if len(sizes) else math.nan
    return pd.DataFrame({"submit_time": [now], "req_time": [float(req_time)],
                         "user_id": [user_id], "group_id": [group],
                         "req_procs": [float(procs)], "n_procs": [float(procs)]})


def _round_up(seconds):
    """Whole minutes, at least one: Slurm's time limits count minutes."""
    if not np.isfinite(seconds):
        return math.nan
    return float(max(60, math.ceil(seconds / 60.0) * 60))


def _above_max_risk(answer):
    """Why the risk limit is above ``--max-risk``, when it is (the requests' own share)."""
    if answer["risk_limit"] <= answer["max_risk"]:
        return ""
    return (f" (as often as the requests themselves, above --max-risk "
            f"{format_given(answer['max_risk'])})")


def _limit_digits(answer):
    """The decimals of the risk limit: as many as ``--max-risk`` was given with (5.0%,
    12.22%; at most four), one where the limit is the requests' own share."""
    limit = answer["risk_limit"]
    if limit > answer["max_risk"]:
        return 1
    return next(digits for digits in range(1, 5)
                if round(limit * 100, digits) == round(limit * 100, 4))


def _share(share, limit, digits=1):
    """``share`` as a percentage with ``digits`` decimals (the ``limit``'s), or as many
    more (up to four) as it takes to tell it from the ``limit`` it is judged against
    (5.04% is not 5.0%)."""
    for digits in range(digits, 5):
        text = f"{share:.{digits}%}"
        if share == limit or text != f"{limit:.{digits}%}":
            break
    return text


def print_answer(answer, stream):
    """Print :func:`recommend_walltime`'s answer: a sentence, the table, notes."""
    advice, request = answer["advice"], answer["req_time"]
    digits = _limit_digits(answer)
    one_in = f", about 1 job in {round(1 / answer['risk'])}" if answer["risk"] > 0 else ""
    first = (f"Request --time={format_slurm_duration(advice)} instead of "
             f"{format_slurm_duration(request)}." if advice < request else
             f"Keep --time={format_slurm_duration(request)}.")
    sentence = (
        f"{first} Chosen: {answer['chosen']} ({answer['chosen_what']}), the most accurate "
        f"predictor that cut short at most {answer['risk_limit']:.{digits}%} of "
        f"{answer['judged_on']}{_above_max_risk(answer)}: it would have cut short "
        f"{_share(answer['risk'], answer['risk_limit'], digits)} of them "
        f"({answer['n_underestimated']:,} of {answer['n_judged']:,}{one_in}), with mean "
        f"accuracy {answer['accuracy']:.2f} (1 is exact) against "
        f"{answer['accuracy_requested']:.2f} for the requests.")
    print(fill(sentence, width=88), file=stream)
    table = pd.DataFrame(answer["table"])
    shown = pd.DataFrame({
        "predictor": table["predictor"],
        "accuracy": table["accuracy"].map(lambda v: f"{v:.3f}"),
        "cut short": [f"{_share(s, answer['risk_limit'], digits)} ({n:,})"
                      for s, n in zip(table["underestimated"], table["n_underestimated"])],
        "advice for this request": table["advice"].map(format_slurm_duration),
    })
    print("", file=stream)
    print(shown.to_string(index=False), file=stream)
    for note in answer["notes"]:
        print(fill(f"note: {note}", width=88, subsequent_indent="  "), file=stream)

"""Choose a runtime predictor by its schedule on past months; score it on the following ones.

Every candidate (a predictor, its settings and how the scheduler uses its
estimates) is simulated twice, online (the predictor sees exactly the jobs
that completed in the simulation before each submission): on the jobs
submitted before the split, for the past months' scores, and on the whole
job table, for the following months'. The first run is the log as a site
had it at the split, its waiting jobs served with nobody arriving after
them: the choice reads nothing of the following months. (One run of the
whole table would not do: a job still waiting at the split can be passed
by jobs submitted after it, so its past score would depend on them.)
"""

import dataclasses
import warnings
from numbers import Real
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._summary import WIDEST_OF_LOG
from .._table import validate_jobs
from .._time import parse_duration
from .._validation import short_repr
from ..exceptions import ConfigError, JobTableError
from ._schedule_criteria import SCHEDULE_CRITERIA, cross_validation_scores
from ._schedule_scorer import check_simulate_kwargs

__all__ = ["ScheduleCandidate", "EASY_PLUS_PLUS", "schedule_candidates", "select_by_schedule",
           "ScheduleSelection", "SCHEDULE_METRICS", "SCHEDULE_CRITERIA"]


@dataclasses.dataclass(frozen=True)
class ScheduleCandidate:
    """One way to feed runtime estimates to a scheduler.

    Parameters
    ----------
    predictor : str
        A name of :func:`predictkit.runtime.make_predictor`, or
        ``"requested"`` (the user's request).
    params : tuple of (str, value) pairs, default ()
        Parameters of the predictor (as :func:`~predictkit.runtime.make_predictor`
        takes them, e.g. ``(("keys", "user"), ("quantile", 0.85))``).
    selective : bool, default False
        Predictions for waiting jobs only (Tang et al. 2013 section 5.2).
    on_underestimate : {"double", "increments", "request"}, default "double"
    backfill_order : {"priority", "sjf"}, default "priority"
        ``"increments"`` with ``"sjf"`` is the EASY++ way of using estimates
        (Tsafrir, Etsion & Feitelson 2007).
    """

    predictor: str
    params: tuple = ()
    selective: bool = False
    on_underestimate: str = "double"
    backfill_order: str = "priority"

    def __post_init__(self):
        params = self.params
        if not isinstance(params, tuple) or not all(
                isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)
                for pair in params):
            hint = (" (from a dict: tuple(params.items()))" if isinstance(params, dict)
                    else "")
            raise ConfigError(f"ScheduleCandidate params must be a tuple of (name, value) pairs "
                              f"such as (('quantile', 0.85),){hint}, got {short_repr(params)}")
        if not isinstance(self.selective, bool):
            raise ConfigError(f"ScheduleCandidate selective must be True or False, got "
                              f"{short_repr(self.selective)}")
        from ..simulate._estimates import UNDERESTIMATE_RULES
        from ..simulate._policies import BACKFILL_ORDERS

        for name, allowed in (("on_underestimate", tuple(UNDERESTIMATE_RULES)),
                              ("backfill_order", BACKFILL_ORDERS)):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"ScheduleCandidate {name} must be one of "
                                  f"{', '.join(map(repr, allowed))}, got "
                                  f"{short_repr(getattr(self, name))}")

    @property
    def name(self):
        """A short readable label: ``tang keys=user quantile=0.85 selective +inc+sjf``."""
        parts = [self.predictor, *(f"{k}={v}" for k, v in self.params)]
        if self.selective:
            parts.append("selective")
        if self.on_underestimate != "double":
            parts.append(f"+{self.on_underestimate}")
        if self.backfill_order != "priority":
            parts.append(f"+{self.backfill_order}-backfill")
        return " ".join(parts)

    def estimates(self):
        """What :func:`~predictkit.simulate.simulate` takes as ``estimates=``."""
        if self.predictor == "requested" and not self.params:
            return "requested"
        from ..runtime import make_predictor

        return make_predictor(self.predictor, **dict(self.params))

    def simulate_kwargs(self):
        """The :func:`~predictkit.simulate.simulate` arguments of this candidate."""
        return dict(estimates=self.estimates(), selective=self.selective,
                    on_underestimate=self.on_underestimate, backfill_order=self.backfill_order)


EASY_PLUS_PLUS = ScheduleCandidate("recent-average", (("n_recent", 2),),
                                   on_underestimate="increments", backfill_order="sjf")
"""EASY++ (Tsafrir, Etsion & Feitelson 2007): the average of the user's two
last runtimes, increments on underestimation, shortest-first backfilling."""

TANG_KEYS = ("user", "group", "user,group", "user,group,request")
"""Tang et al. (2013) section 4.2.2: the four similarity keys."""

RECENT_COUNTS = (1, 2, 3)
"""Runtimes averaged by the built-in recent-average candidates (EASY++: 2)."""


def schedule_candidates(*, keys=TANG_KEYS, quantiles=(0.7, 0.85, 0.95), easy_pp_style=True,
                        recent=RECENT_COUNTS, learned=()):
    """The built-in candidate set: every built-in predictor, selective or not.

    Requested times; EASY++; Tang's walltime adjuster for each key and
    quantile (30-day window); Klusacek's recent usage max; the recent
    average of the user's last one, two and three runtimes -- each used
    regularly and selectively, and (with ``easy_pp_style``) also with
    EASY++'s increments and shortest-first backfilling: 66 by default.
    Perfect estimates are not a candidate: no scheduler has them.

    Parameters
    ----------
    keys : sequence of str, default Tang's four
        Similarity keys of the walltime adjuster (short names).
    quantiles : sequence of float, default (0.7, 0.85, 0.95)
    easy_pp_style : bool, default True
    recent : sequence of int, default (1, 2, 3)
        How many of the user's last runtimes the recent-average candidates
        average. EASY++ fixes two; how far back a user's runs still say
        something about the next one is a setting of the site's workload,
        like Tang's quantile, so the neighbours of two are candidates too
        (``recent=(2,)`` gives the 58 candidates of earlier versions).
    learned : sequence of float, default ()
        Bad-estimate budgets (``max_bad_share``) of learned candidates
        (:class:`~predictkit.runtime.LearnedRuntime`), none by default: each
        of their simulations fits gradient-boosting models, slower than all
        the others together on a large log.

    Returns
    -------
    list of ScheduleCandidate
        No two alike; requested times first.

    Raises
    ------
    ConfigError
        For a ``recent`` count that is not a whole number >= 1, or a
        ``learned`` budget outside (0, 1).
    """
    predictors = [("tang", (("keys", k), ("quantile", float(q)))) for k in keys
                  for q in quantiles]
    predictors += [("usage-max", ())]
    for n in recent:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ConfigError(f"recent must hold whole numbers >= 1, got {n!r}")
    predictors += [("recent-average", (("n_recent", int(n)),)) for n in recent]
    for budget in learned:
        if isinstance(budget, bool) or not isinstance(budget, Real) or not 0 < budget < 1:
            raise ConfigError(f"learned must hold budgets in (0, 1), got {budget!r}")
    predictors += [("learned", (("max_bad_share", float(b)),)) for b in learned]
    styles = [("double", "priority")] + ([("increments", "sjf")] if easy_pp_style else [])
    out = [ScheduleCandidate("requested")]
    if easy_pp_style:
        out.append(ScheduleCandidate("requested", on_underestimate="increments",
                                     backfill_order="sjf"))
    for name, params in predictors:
        for selective in (False, True):
            for under, order in styles:
                out.append(ScheduleCandidate(name, params, selective, under, order))
    seen, unique = set(), []
    for candidate in out:
        if candidate not in seen:
            seen.add(candidate)
            unique.append(candidate)
    return unique


def _bounded_slowdown(submit, start, end, run):
    from ..metrics._schedule import BOUNDED_SLOWDOWN_THRESHOLD, per_job_slowdown

    return per_job_slowdown(end - submit, run, BOUNDED_SLOWDOWN_THRESHOLD)


def _slowdown(submit, start, end, run):
    from ..metrics._schedule import SLOWDOWN_FLOOR, per_job_slowdown

    return per_job_slowdown(end - submit, run, SLOWDOWN_FLOOR)


MAX_PERIODS = 2_000
"""Most periods a selection splits the jobs into (a year of days, three months of hours)."""

SCHEDULE_METRICS = {
    "bounded_slowdown": _bounded_slowdown,
    "slowdown": _slowdown,
    "wait": lambda submit, start, end, run: start - submit,
    "response": lambda submit, start, end, run: end - submit,
}
"""Per-job metrics a selection can minimise (their mean over a period is the score), of
each job's submit, start and end instants and its run time (``sim_run_time``: a job split
by ``max_runtime`` ran for less than its span), as :func:`~predictkit.metrics.schedule_metrics`
computes them."""


class ScheduleSelection(NamedTuple):
    """What :func:`select_by_schedule` found.

    Attributes
    ----------
    table : DataFrame
        One row per candidate (and the baseline, ``is_baseline``): ``candidate``
        (its name), ``predictor``, ``params``, ``selective``,
        ``on_underestimate``, ``backfill_order``, ``cv_score`` (the fold
        scores combined by the criterion: lower is better), ``fold_<k>`` (the
        mean metric over the jobs submitted in past period ``k``),
        ``test_score`` (the mean metric over the jobs submitted in the
        following months), ``chosen``, and ``seconds`` (simulation time).
    chosen : ScheduleCandidate
        The candidate with the lowest ``cv_score`` (ties: the earlier one).
    baseline : ScheduleCandidate or None
    split_time : float
        Submit time where the following months begin.
    metric : str
    criterion : str
        How the fold scores were combined (see :data:`SCHEDULE_CRITERIA`).
    fold_jobs : dict
        ``fold_<k>``: the number of jobs scored in past period ``k``.
    rejected : DataFrame or None
        The jobs wider than the machine, which no run simulated (none are
        scored); None when built by hand.
    machine_procs : int or None
        The machine the runs simulated.
    """

    table: pd.DataFrame
    chosen: ScheduleCandidate
    baseline: object
    split_time: float
    metric: str
    criterion: str = "mean"
    fold_jobs: dict = {}
    rejected: object = None
    machine_procs: object = None

    @property
    def chosen_test_score(self):
        """The chosen candidate's score on the following months."""
        return float(self.table.loc[self.table["chosen"], "test_score"].iloc[0])

    @property
    def baseline_test_score(self):
        """The baseline's score on the following months (NaN without a baseline)."""
        rows = self.table[self.table["is_baseline"]]
        return float(rows["test_score"].iloc[0]) if len(rows) else float("nan")


def _check_candidates(candidates):
    candidates = list(candidates)
    if not candidates:
        raise ConfigError("candidates is empty: give at least one ScheduleCandidate")
    for k, c in enumerate(candidates):
        if not isinstance(c, ScheduleCandidate):
            raise ConfigError(f"candidates[{k}] must be a ScheduleCandidate, got {c!r}")
        if not isinstance(c.predictor, str):  # an estimator or its class, not a name
            raise ConfigError(
                f"candidates[{k}].predictor must be a predictor name such as 'recent-average' "
                f"(see predictkit.runtime.make_predictor), not {short_repr(c.predictor)}; a "
                "candidate names its predictor so that each simulation builds a fresh one")
        c.estimates()  # an unknown predictor or parameter fails here, before any simulation
    return candidates


def select_by_schedule(jobs, candidates=None, *, test_periods=3, period="30D", warmup_periods=1,
                       policy="easy", priority="fcfs", metric="bounded_slowdown",
                       machine_procs=None, baseline=EASY_PLUS_PLUS, progress=None,
                       criterion="mean", half_life=3.0, **simulate_kwargs):
    """Pick the candidate with the best schedule on past months; score it on the following ones.

    The submit times are cut into periods of ``period`` from the first
    submission (as :class:`~predictkit.model_selection.TraceSplit` does); the
    last ``test_periods`` are the following months. Each candidate is
    simulated over the whole table (online, exact: its predictor sees the jobs
    completed in the simulation before each submission, never a later one).
    Its score on a past period after the first ``warmup_periods`` (when the
    machine and the predictor's history fill up) is the metric's mean over
    the jobs submitted in that period, in a simulation of the jobs submitted
    before the split only (the log as it stood then: the jobs still waiting
    at the split are served with nobody arriving after them); its
    cross-validation score combines those period scores by ``criterion``
    (by default their mean). The chosen candidate is the one with the
    lowest score (ties: the earlier one); its score on the following months
    is the metric's mean over the jobs submitted in them, in a simulation of
    the whole table. So the choice depends only on the jobs submitted before
    the split (the test suite checks it).

    Parameters
    ----------
    jobs : DataFrame
        A job table :func:`~predictkit.simulate.simulate` accepts (clean it
        first with ``clean_jobs(jobs, for_simulation=True, require_request=True)``).
    candidates : list of ScheduleCandidate, optional
        Default: :func:`schedule_candidates`. Each names its predictor
        (``"recent-average"``); an estimator or estimator class there is a
        :class:`~predictkit.exceptions.ConfigError`.
    test_periods : int, default 3
        Periods at the end of the log held out as the following months.
    period : duration, default "30D"
    warmup_periods : int, default 1
        Past periods simulated but not scored.
    policy, priority : str
        Scheduler of every simulation (see :func:`~predictkit.simulate.simulate`).
    metric : {"bounded_slowdown", "slowdown", "wait", "response"}
        Per-job metric whose mean is minimised.
    machine_procs : int, optional
        Machine size (default: the log's ``max_procs``, else the widest job:
        of the jobs before the split for the past periods' runs, so that the
        choice reads nothing after it, and of the whole table for the
        following months', with a warning when the two differ).
    baseline : ScheduleCandidate or None, default EASY_PLUS_PLUS
        Simulated and scored the same way for comparison; never chosen
        (unless it is also among ``candidates``).
    progress : callable, optional
        Called with ``(k, n, candidate, seconds)`` after each simulation.
    criterion : {"mean", "jobs", "recent", "rank"}, default "mean"
        How the past periods' scores make the cross-validation score (see
        :func:`~predictkit.model_selection.cross_validation_scores`): their
        mean; the mean over the past jobs; a mean weighting recent periods
        more (``half_life``); or the mean rank of the candidate across the
        periods. The mean is the default: it assumes least (each month one
        equal vote, on its own size of slowdown), and on the 11 shared logs
        with requests no other criterion beat EASY++ on more of them; the
        mean rank did as well, and cut the mean slowdown a little more
        through one log, too little to trade the mean's use of how much
        better a candidate was, and its independence of the other
        candidates, for it (``docs/results/scheduling.md``).
    half_life : float, default 3.0
        For ``criterion="recent"``: the age, in periods, that halves a
        period's weight (the last past period has age 0).
    **simulate_kwargs
        Further :func:`~predictkit.simulate.simulate` arguments shared by all
        runs (``max_runtime``, ``fairshare_decay`` ...).

    Returns
    -------
    ScheduleSelection

    Raises
    ------
    ConfigError
        For an unknown metric or criterion, a bad ``half_life``, bad
        candidates, too few periods or more than ``MAX_PERIODS``, no job
        submitted in the past periods that are scored, or
        ``simulate_kwargs`` that a candidate sets itself.
    JobTableError
        For a ``submit_time`` that is missing, not a number or infinite
        (naming the first such row), and what
        :func:`~predictkit.simulate.simulate` refuses.
    """
    import time

    from ..simulate import simulate

    if metric not in SCHEDULE_METRICS:
        raise ConfigError(f"metric must be one of {', '.join(SCHEDULE_METRICS)}, got {metric!r}")
    cross_validation_scores([[1.0]], criterion=criterion, job_counts=[1],
                            half_life=half_life)  # a bad criterion or half_life fails here
    owned = {"estimates", "selective", "on_underestimate", "backfill_order"} & set(simulate_kwargs)
    if owned:
        raise ConfigError(f"{', '.join(sorted(owned))} is set by each candidate, not for all runs")
    check_simulate_kwargs(simulate_kwargs, "select_by_schedule")
    for name, value, low in (("test_periods", test_periods, 1),
                             ("warmup_periods", warmup_periods, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ConfigError(f"{name} must be a whole number >= {low}, got {value!r}")
    period_s = parse_duration(period, name="period")
    if not period_s > 0:
        raise ConfigError(f"period must be positive, got {period!r}")
    candidates = _check_candidates(schedule_candidates() if candidates is None else candidates)
    if baseline is not None:
        _check_candidates([baseline])
    from ..simulate._policies import refuse_blind_scheduler

    refuse_blind_scheduler(policy, priority, [c.backfill_order for c in candidates],
                           simulate_kwargs.get("starvation_after"),
                           simulate_kwargs.get("reservation_depth"))
    if not isinstance(jobs, pd.DataFrame) or "submit_time" not in jobs.columns or not len(jobs):
        raise JobTableError("jobs must be a non-empty job table with submit_time")
    validate_jobs(jobs, required=("submit_time",), check_values=False, columns=("submit_time",),
                  name="jobs")
    submit = jobs["submit_time"].to_numpy(dtype=float)
    t0 = float(submit.min())
    n_periods = int(np.floor((submit.max() - t0) / period_s)) + 1
    if n_periods > MAX_PERIODS:
        raise ConfigError(f"period {period} splits the jobs into {n_periods:,} periods; at most "
                          f"{MAX_PERIODS:,} are scored (each is a column of the result): give "
                          "a longer period")
    split_index = n_periods - test_periods
    split_time = t0 + split_index * period_s
    folds = list(range(warmup_periods, split_index))
    if not folds:
        raise ConfigError(
            f"the jobs span {n_periods} period(s) of {period}: too few for {warmup_periods} "
            f"warm-up period(s), at least one scored past period and {test_periods} following "
            f"period(s); lower test_periods or warmup_periods, or shorten the period")
    submitted = np.floor((submit - t0) / period_s)
    if not np.isin(submitted, folds).any():
        raise ConfigError(
            f"no job was submitted in the past period(s) {folds[0]} to {folds[-1]} of {period} "
            "that would be scored (the log has a gap there): nothing to choose by; lower "
            "warmup_periods or test_periods, or lengthen the period")
    runs = [(c, False) for c in candidates]
    if baseline is not None:
        runs.append((baseline, True))
    past_jobs = jobs[submit < split_time]
    # a table of a log's first jobs names the whole log's widest job for its machine: the
    # past runs take what was known before the split
    past_jobs.attrs = {k: v for k, v in jobs.attrs.items() if k != WIDEST_OF_LOG}
    rows, fold_jobs, schedule = [], None, None
    for k, (candidate, is_baseline) in enumerate(runs):
        began = time.perf_counter()
        settings = dict(policy=policy, priority=priority, **candidate.simulate_kwargs(),
                        **simulate_kwargs)
        schedule = simulate(jobs, machine_procs=machine_procs, **settings)
        # without a size, the past run's machine is the past jobs' (attrs, else the widest
        # of them): the widest job of the whole table may come after the split
        past = simulate(past_jobs, machine_procs=machine_procs, **settings)
        seconds = time.perf_counter() - began
        row, counts = _score(past, schedule, candidate, is_baseline, metric, (t0, period_s),
                             folds, split_index, seconds)
        rows.append(row)
        fold_jobs = counts if fold_jobs is None else fold_jobs
        if progress is not None:
            progress(k + 1, len(runs), candidate, seconds)
    if past.machine_procs != schedule.machine_procs:  # neither given nor in the header
        warnings.warn(
            f"select_by_schedule: no machine size is known (machine_procs, or the log's "
            f"header), so the runs of the past months simulate the widest job before the "
            f"split ({past.machine_procs:,} processors) and those of the whole table its widest "
            f"({schedule.machine_procs:,}); give machine_procs to simulate the machine",
            UserWarning, stacklevel=2)
    table = pd.DataFrame(rows)
    _combine(table, fold_jobs, criterion=criterion, half_life=half_life)
    scored = table[~table["is_baseline"]]
    if scored["cv_score"].isna().all():
        raise JobTableError(
            f"no job of the past period(s) {folds[0]} to {folds[-1]} was simulated (all are "
            "wider than the machine): nothing to choose by")
    best = int(scored["cv_score"].to_numpy().argmin())
    table["chosen"] = False
    table.loc[scored.index[best], "chosen"] = True
    return ScheduleSelection(table, candidates[best], baseline, float(split_time), metric,
                             criterion, fold_jobs, schedule.rejected, schedule.machine_procs)


def _combine(table, fold_jobs, *, criterion, half_life):
    """Fill ``cv_score``: the candidates' fold scores combined by the criterion.

    The candidates are compared among themselves only (a rank never counts
    the baseline); the baseline is scored as if it were one more candidate.
    """
    folds = list(fold_jobs)
    scores = table[folds].to_numpy(dtype=float)
    counts = np.array([fold_jobs[f] for f in folds], dtype=float)
    is_baseline = table["is_baseline"].to_numpy()
    cv = np.full(len(table), np.nan)
    combine = dict(criterion=criterion, job_counts=counts, half_life=half_life)
    cv[~is_baseline] = cross_validation_scores(scores[~is_baseline], **combine)
    for k in np.flatnonzero(is_baseline):
        with_it = np.vstack([scores[~is_baseline], scores[k]])
        cv[k] = cross_validation_scores(with_it, **combine)[-1]
    table["cv_score"] = cv


def _score(past, schedule, candidate, is_baseline, metric, cut, folds, split_index, seconds):
    """A candidate's row: the past periods' scores from ``past`` (the run of the jobs
    before the split), the following months' from ``schedule`` (the whole table)."""

    from ..metrics._schedule_table import _times

    def periods_and_values(run):
        submit, start, end, ran = _times(run.jobs)
        values = SCHEDULE_METRICS[metric](submit, start, end, ran)
        return np.floor((submit - t0) / period_s), values

    t0, period_s = cut
    period, values = periods_and_values(past)
    fold_scores, counts = {}, {}
    for fold in folds:
        mask = period == fold
        fold_scores[f"fold_{fold}"] = float(values[mask].mean()) if mask.any() else np.nan
        counts[f"fold_{fold}"] = int(mask.sum())
    period, values = periods_and_values(schedule)
    test = period >= split_index
    return dict(candidate=candidate.name, predictor=candidate.predictor,
                params=", ".join(f"{k}={v}" for k, v in candidate.params),
                selective=candidate.selective, on_underestimate=candidate.on_underestimate,
                backfill_order=candidate.backfill_order,
                cv_score=np.nan, **fold_scores,
                test_score=float(values[test].mean()) if test.any() else np.nan,
                is_baseline=is_baseline, seconds=seconds), counts

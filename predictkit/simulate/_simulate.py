"""The public :func:`simulate`: prepare the jobs, drive the compiled event loop
(asking a runtime predictor at submissions), build the :class:`Schedule`."""

import copy
import warnings

import numpy as np
import pandas as pd

from .._deprecation import NOT_PASSED, UNSET, renamed_argument
from .._summary import machine_size
from .._format import format_count
from .._time import parse_duration
from .._validation import (FAIRSHARE_DECAY, FAIRSHARE_FACTOR, Duration, HasMethods,
                           NumericArray, RegisteredName, StrOptions, WholeNumber,
                           invalid_parameter, python_scalar, validate_params)
from ..exceptions import ConfigError, JobTableError, SimulationError
from .._table import (MAX_EXACT, _raise_rows, check_aligned, check_unique_columns, job_width,
                      predictions_of, submission_order, user_accounts, validate_jobs,
                      with_numeric_columns)
from ..runtime._protocol import (HistoryPipeline, PartialFitAdapter, as_online_predictor,
                                 history_pipeline)
from . import _engine as eng
from . import _learned
from . import _online_predictors as online_predictors
from ._estimates import (
    UNDERESTIMATE_RULES,
    finish_estimates,
    resolve_underestimate,
    static_estimates,
)
from ._policies import BACKFILL_ORDERS, REGISTRY, resolve_policy
from ._priorities import PRIORITIES, callable_keys, resolve_priority
from ._priorities import REGISTRY as PRIORITY_REGISTRY
from ._schedule import Schedule

__all__ = ["simulate"]

_BATCH = 4096


@validate_params({
    "machine_procs": [WholeNumber(1), None],
    "n_procs": [WholeNumber(1), None, NOT_PASSED],
    "policy": [RegisteredName(REGISTRY)],
    "reservation_depth": [WholeNumber(0, integral=True), None],
    "priority": [StrOptions(set(PRIORITIES)), callable],
    "fairshare_decay": [FAIRSHARE_DECAY],
    "fairshare_factor": [FAIRSHARE_FACTOR],
    "estimates": [StrOptions({"requested", "perfect"}), NumericArray(),
                  HasMethods(["start", "observe", "predict_for"]),
                  HasMethods(["partial_fit", "predict"]), HistoryPipeline()],
    "selective": ["boolean"],
    "on_underestimate": [StrOptions(set(UNDERESTIMATE_RULES))],
    "backfill_order": [StrOptions(set(BACKFILL_ORDERS))],
    "kill_at_request": ["boolean"],
    "max_runtime": [Duration(positive=True, unlimited=True), None],
    "predictor_refresh": [Duration(unlimited=True), None],
    "starvation_after": [Duration(), None],
    "starvation_bar_heavy": ["boolean"],
})
def simulate(jobs, *, machine_procs=None, policy="easy", reservation_depth=None, priority="fcfs",
             fairshare_decay="24h", fairshare_factor=0.5, estimates="requested",
             selective=False, on_underestimate="double", backfill_order="priority",
             kill_at_request=True, max_runtime=None, predictor_refresh=None,
             starvation_after=None, starvation_bar_heavy=False, n_procs=UNSET):
    """Replay a job table through a backfilling scheduler.

    Event-driven simulation of one space-shared machine of ``machine_procs``
    processors (Leung et al. 2010 sections I-III; EASY as in Tsafrir et al.
    2005 section 1; conservative backfilling with schedule compression as in
    Klusacek & Soysal 2019 section 3.1). At each instant, completions are
    handled first, then arrivals, then jobs outliving their estimate, then
    one scheduling pass. Ties in priority go to the earlier submission, then
    the smaller ``job_id``. The result is deterministic.

    Parameters
    ----------
    jobs : DataFrame
        Job table sorted by ``submit_time``; needs ``submit_time``,
        ``run_time`` and a width (``n_procs``, or ``req_procs`` where
        ``n_procs`` is missing), and ``req_time`` for request-based estimates.
    machine_procs : int, optional
        Machine size in processors. Default: ``jobs.attrs["max_procs"]``, else
        the widest job. Jobs wider than the machine are not simulated; they
        are listed in :attr:`Schedule.rejected` (when every job is, the
        schedule has none, and its metrics refuse it saying so: the callers
        that simulate part of a log, such as a fold, handle that case).
    policy : {"easy", "fcfs", "conservative", "no_guarantee"}
    reservation_depth : int, optional
        With ``policy="easy"``: how many blocked jobs get a reservation at
        each pass (default 1; 0 is no-guarantee backfilling). A depth at
        least the queue length rebuilds a reservation for every waiting job
        at each pass: Leung's conservative backfilling with dynamic
        reservations (section V.D).
    priority : {"fcfs", "sjf", "wfp", "fairshare"} or callable
        Queue order. ``"sjf"`` sorts by the estimate in use; ``"wfp"`` is
        Tang et al. eq. 5, ``(wait / estimate)**3 * width``, re-evaluated at
        every pass; ``"fairshare"`` serves first the user with the least
        decayed processor-seconds (charged when a job completes, multiplied by
        ``fairshare_factor`` at every multiple of ``fairshare_decay``; Leung
        II.A give the daily decay, the factor is ours). A callable gets the job
        table (simulated jobs, submit order, labelled 0 to n - 1) and returns
        one static score per job, higher first (a Series is taken by its
        labels, as pandas assigns a column).
    fairshare_decay : duration, default "24h"
    fairshare_factor : float, default 0.5
    estimates : "requested", "perfect", array-like or runtime predictor
        Runtime estimates the scheduler plans with (see
        :mod:`predictkit.simulate._estimates`). An array holds one per row
        of ``jobs``, by position (a Series must carry ``jobs``'s index). A predictor (a
        :class:`~predictkit.runtime.OnlinePredictor`, or anything with
        ``partial_fit`` and ``predict``; a copy is used) is asked at each
        submission - all jobs submitted at the same instant in one call - and
        is told each completed job in simulated time: it sees exactly the
        jobs that ended by the submission (equality counts), with their
        simulated start and end times and runtimes (through ``partial_fit``:
        their ``wait_time``, ``start_time``, ``end_time`` and ``run_time``).
        The jobs to predict have their outcome columns (``wait_time``,
        ``run_time``, ``status``, ...) blanked. Predictions
        may be requested ahead for later submissions, and are used only when
        no job completed in between, so results equal one call per instant.
        Missing or infinite predictions fall back to the request (every
        estimate is capped at it), and predictions below one second,
        negative ones included (a regressor's), plan one second, the floor
        of every estimate; a result that is not one number per job raises a
        ``SimulationError`` naming the predictor. A fitted pipeline
        whose first step is :class:`~predictkit.runtime.HistoryFeatures` is
        a predictor too: completed jobs enter that step's history, the later
        steps are never refitted; it is driven in compiled code with the
        same predictions (``docs/simulate.md``, "A learned predictor").
    selective : bool, default False
        Use the estimate for waiting jobs only and the request for running
        jobs (Tang et al. 2013 section 5.2).
    on_underestimate : {"double", "increments", "request"}
        New estimate for a running job that reaches its estimate: doubled
        (Klusacek & Soysal), increased by 1 min, 5 min, 15 min, 30 min, 1 h,
        2 h, 5 h, 10 h, 20 h, 50 h, 100 h in turn (Tsafrir, Etsion &
        Feitelson 2007), or the request; always capped at the request.
    backfill_order : {"priority", "sjf"}
        Order in which waiting jobs are tried for backfilling; ``"sjf"`` with
        predictions and ``"increments"`` is EASY++. Policies that do not
        backfill (``"fcfs"``, ``"conservative"``) ignore it.
    kill_at_request : bool, default True
        Jobs run ``min(run_time, req_time)``.
    max_runtime : duration, optional
        Split longer jobs into chained pieces of at most this length, each
        submitted when the previous one ends (Leung et al. section V.A);
        estimates are capped at it too.
    starvation_after : duration, optional
        With ``policy="no_guarantee"``: the CPlant scheduler (Leung et al.
        sections II.A, V.E). A job that has waited this long enters an FCFS
        starvation queue, which is served first and whose head gets a
        reservation; the other jobs start, in ``priority`` order, whenever
        they fit and do not delay it. ``"24h"`` is cplant24, ``"72h"``
        cplant72. Default: no starvation queue.
    starvation_bar_heavy : bool, default False
        With ``starvation_after``: jobs of heavy users do not enter the
        starvation queue (section V.B, the ``.fair`` policies). A user is
        heavy while their decayed fairshare usage is above the mean usage of
        the users with a job waiting; a barred job enters once its user is
        no longer heavy. Usage decays by ``fairshare_decay`` and
        ``fairshare_factor`` whatever the priority.
    predictor_refresh : duration, optional
        Trade exactness for speed with slow predictors: feed the completed
        jobs and predict all submissions of the next ``predictor_refresh``
        at once, so a prediction may miss jobs that completed since the
        batch began (it never sees later ones). Default: exact.
    n_procs : int, optional
        Deprecated name of ``machine_procs`` (``n_procs`` is also the job
        table's column of allocated processors); warns, removed in 0.3.

    Returns
    -------
    Schedule

    Raises
    ------
    InvalidParameterError
        For an invalid parameter (a ``ConfigError`` and ``ValueError``), naming it;
        checked before any job is read.
    JobTableError, SimulationError
        On missing columns or values, negative times, unsorted submissions,
        non-positive widths or (with ``kill_at_request``) a req_time of 0.
    """
    machine_procs = renamed_argument("simulate", "n_procs", "machine_procs", n_procs,
                                     machine_procs, stacklevel=5)
    if reservation_depth is not None and not REGISTRY[policy].takes_reservation_depth:
        raise invalid_parameter(
            "reservation_depth", "simulate",
            f"None with policy={policy!r} (it applies to policy='easy' only: conservative "
            "reserves for every job, fcfs and no_guarantee for none)", reservation_depth)
    starve = parse_duration(python_scalar(starvation_after), name="starvation_after",
                            allow_none=True)
    if starve is None and starvation_bar_heavy:
        raise invalid_parameter(
            "starvation_bar_heavy", "simulate",
            "False without starvation_after (it bars heavy users from the starvation queue, "
            "which only exists with starvation_after)", starvation_bar_heavy)
    if starve is not None and not REGISTRY[policy].takes_starvation_after:
        raise invalid_parameter(
            "starvation_after", "simulate",
            f"None with policy={policy!r} (the starvation queue is part of CPlant's "
            "no-guarantee backfilling: policy='no_guarantee')", starvation_after)
    run, depth, reported_depth = resolve_policy(policy, reservation_depth, starve)
    prio, period, factor, prio_kind = resolve_priority(priority, fairshare_decay, fairshare_factor)
    under = resolve_underestimate(on_underestimate)
    split = parse_duration(python_scalar(max_runtime), name="max_runtime", allow_none=True)
    refresh = parse_duration(python_scalar(predictor_refresh), name="predictor_refresh",
                             allow_none=True)
    learned = _learned_pipeline(estimates, refresh)
    prep = _prepare(jobs, machine_procs, kill_at_request)
    if prep["n_unknown_user"] and (prio_kind == "fairshare" or starvation_bar_heavy):
        one = prep["n_unknown_user"] == 1
        warnings.warn(
            f"simulate: {format_count(prep['n_unknown_user'], 'job')} without a user_id "
            f"{'is' if one else 'are each'} charged to an account of "
            f"{'its' if one else 'their'} own (by "
            f"{'fairshare' if prio_kind == 'fairshare' else 'starvation_bar_heavy'}), "
            "as no user's usage is known to be theirs", UserWarning, stacklevel=3)
    predictor = as_online_predictor(copy.deepcopy(estimates)) \
        if learned is None and not isinstance(estimates, str) and _is_predictor(estimates) \
        else None
    kept, req, dur = prep["kept"], prep["req"], prep["dur"]
    n = len(kept)
    if selective and not np.isfinite(req).all():
        raise SimulationError("selective=True needs req_time for every job (running jobs use it)")
    kind = None if predictor is None else online_predictors.compiled_kind(predictor, refresh)
    if predictor is None and learned is None:
        check_aligned(estimates, jobs, "estimates", table="jobs")
        est = static_estimates(estimates, req=req, dur=dur, keep=prep["positions"],
                               n_input=len(jobs))
        est = finish_estimates(est, req)
    else:
        est = np.full(n, np.nan)
    keys = np.zeros(n)
    if prio_kind == "callable":
        keys = callable_keys(priority, kept)

    pieces = _Pieces(dur, req, split)
    submit = np.concatenate([prep["submit"], np.full(pieces.extra, np.nan)])
    width = np.concatenate([prep["width"], prep["width"][pieces.parent]])
    user = np.concatenate([prep["user"], prep["user"][pieces.parent]])
    sjf = prio_kind in PRIORITY_REGISTRY and PRIORITY_REGISTRY[prio_kind].key_is_estimate
    compiled = None
    if kind == online_predictors.KIND_STATIC:
        est = finish_estimates(online_predictors.static_predictions(predictor, kept,
                                                                    pieces.req[:n]), req)
    elif kind is not None:
        compiled = online_predictors.build_state(
            predictor, kind, kept, total=np.bincount(pieces.all_parent, weights=pieces.dur,
                                                     minlength=n),
            full_request=req, pieces=pieces, selective=selective, sjf=sjf)
    state = eng.new_state(
        submit=submit, duration=pieces.dur, width=width, request=pieces.req, user=user,
        successor=pieces.succ, n_users=prep["n_users"], free=prep["machine"],
        predictor=compiled)
    state.jobs.priority_key[n:] = keys[pieces.parent]
    state.jobs.priority_key[:n] = keys
    fill = _Filler(state, pieces, selective, sjf)
    if (predictor is None and learned is None) or kind == online_predictors.KIND_STATIC:
        fill(np.arange(n), est, eng.ESTIMATE_FINAL)
    online = (predictor is not None and kind is None) or learned is not None
    if online:
        state.jobs.estimate_history[:] = eng.NO_ESTIMATE_YET
        feeder = _Feeder(predictor, kept, state, pieces, refresh) if learned is None \
            else _learned.LearnedFeeder(learned, kept, state, pieces)
    settings = eng.Settings(
        n_jobs=int(n), priority=int(prio), underestimate=int(under),
        fairshare_period=float(period), fairshare_factor=float(factor), online=bool(online),
        reservation_depth=int(depth), backfill_sjf=backfill_order == "sjf",
        starvation_after=np.inf if starve is None else float(starve),
        starvation_bar_heavy=bool(starvation_bar_heavy))
    while (status := run(state, settings)) == eng.NEED_ESTIMATES:
        position, values, history = feeder.next_batch()
        fill(position, finish_estimates(values, req[position]), history)
    if status == eng.NO_ESTIMATE:
        raise online_predictors.no_estimate_error(predictor)
    return Schedule._from_simulation(prep, state, pieces, dict(
        machine_procs=prep["machine"], policy=policy, reservation_depth=reported_depth,
        priority=prio_kind, estimates=_describe(estimates), selective=bool(selective),
        on_underestimate=on_underestimate, backfill_order=backfill_order,
        kill_at_request=bool(kill_at_request), max_runtime=split, predictor_refresh=refresh,
        fairshare_decay=period, fairshare_factor=factor, starvation_after=starve,
        starvation_bar_heavy=bool(starvation_bar_heavy)))


def _describe(estimates):
    if isinstance(estimates, str):
        return estimates
    if _is_predictor(estimates):
        return type(estimates).__name__
    return "array"


def _is_predictor(obj):
    """Whether ``obj`` is a runtime predictor (not a string or an array of estimates)."""
    return all(hasattr(obj, name) for name in ("start", "observe", "predict_for")) or \
        all(hasattr(obj, name) for name in ("partial_fit", "predict")) or history_pipeline(obj)


def _learned_pipeline(estimates, refresh):
    """``estimates`` if it is a pipeline on ``HistoryFeatures`` for the fast exact path, else None.

    Raises for such a pipeline that is not fitted: it is fitted on past jobs,
    never inside the simulation.
    """
    if isinstance(estimates, str) or not history_pipeline(estimates):
        return None
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimates)
        check_is_fitted(estimates.steps[0][1], "history_")
    except NotFittedError:
        raise invalid_parameter(
            "estimates", "simulate", "a fitted pipeline (fit it on past jobs first: "
            "pipeline.fit(past_jobs, past_jobs['run_time']))", estimates) from None
    if refresh is not None or not _learned.fast_path_applies(estimates):
        return None
    return estimates


def _refuse_times_past_exact_seconds(submit, duration):
    """Refuse a log whose schedule could reach ``MAX_EXACT`` (2**53) seconds.

    Every job has started by the last submission plus the work of all jobs
    (one job at a time); past 2**53 seconds a start or an end would be
    rounded to an even number of seconds without a word.
    """
    if not len(submit):
        return
    latest = float(submit.max()) + float(duration.sum())
    if latest >= MAX_EXACT:
        raise JobTableError(
            f"jobs: the schedule could run until {latest:,.0f} s, past 2**53 s, beyond which "
            "times in seconds are not exact; shift the log's times earlier (subtract its "
            "first submit time)")


def _prepare(jobs, machine_procs, kill_at_request):
    if isinstance(jobs, pd.DataFrame):
        check_unique_columns(jobs, "jobs")
    if isinstance(jobs, pd.DataFrame) and "run_time" in jobs.columns and jobs["run_time"].isna().any():
        bad = int(np.argmax(jobs["run_time"].isna().to_numpy()))
        raise JobTableError(
            f"jobs: {int(jobs['run_time'].isna().sum()):,} job(s) have no run_time (first at row "
            f"{bad}, job_id {jobs['job_id'].iloc[bad] if 'job_id' in jobs else bad}); a "
            "simulation cannot replay them: drop them first with "
            "predictkit.clean_jobs(jobs, for_simulation=True), which reports what it removed")
    validate_jobs(jobs, required=("submit_time", "run_time"), sorted_by="submit_time",
                  name="jobs")
    jobs = with_numeric_columns(jobs, "jobs")
    if len(jobs) == 0:
        raise JobTableError("jobs: the job table is empty; there is nothing to simulate")
    submit = jobs["submit_time"].to_numpy(dtype=float)
    if (submit < 0).any():
        bad = int(np.argmax(submit < 0))
        raise JobTableError(
            f"jobs: column 'submit_time' has negative values ({int((submit < 0).sum())} row(s); "
            f"first at row {bad}, job_id {jobs['job_id'].iloc[bad]})")
    has_width = "n_procs" in jobs.columns or "req_procs" in jobs.columns
    width = job_width(jobs) if has_width else np.full(len(jobs), np.nan)
    if np.isnan(width).any():
        bad = int(np.argmax(np.isnan(width)))
        raise JobTableError(
            f"jobs: {int(np.isnan(width).sum()):,} job(s) have neither n_procs nor req_procs "
            f"(first at row {bad}, job_id {jobs['job_id'].iloc[bad]}); drop them first with "
            "predictkit.clean_jobs(jobs, for_simulation=True), which reports what it removed")
    if (width != np.round(width)).any():
        _raise_rows(jobs, width != np.round(width), "jobs: processor counts must be whole "
                    "numbers")
    width = width.astype(np.int64)
    request = _column(jobs, "req_time")
    no_time = request == 0
    if kill_at_request and no_time.any():
        _raise_rows(jobs, no_time,
                    "jobs: req_time is 0 (a request of no time, which the scheduler would "
                    "kill at its start); drop such jobs first with predictkit.clean_jobs(jobs, "
                    "for_simulation=True), or give NaN for no request")
    if machine_procs is None:
        machine = int(machine_size(jobs)[0])  # the header's, else the widest job
    else:
        if (isinstance(machine_procs, bool) or not float(machine_procs).is_integer()
                or machine_procs <= 0):
            raise ConfigError(f"machine_procs must be a positive integer, got {machine_procs!r}")
        machine = int(machine_procs)
    if machine <= 0:
        raise SimulationError(f"machine size must be positive, got {machine}")
    too_wide = width > machine
    job_id = _column(jobs, "job_id") if "job_id" in jobs.columns else None
    candidates = np.flatnonzero(~too_wide)
    positions = candidates[submission_order(
        submit[candidates], None if job_id is None else job_id[candidates])]
    kept = jobs.iloc[positions].reset_index(drop=True)
    dur, req = simulated_runtimes(jobs["run_time"].to_numpy(dtype=float)[positions],
                                  request[positions], kill_at_request)
    _refuse_times_past_exact_seconds(submit[positions], dur)
    codes, n_users, n_unknown = user_accounts(_column(jobs, "user_id")[positions])
    return dict(
        jobs=jobs, kept=kept, positions=positions, rejected_mask=too_wide, machine=machine,
        submit=submit[positions].copy(), width=width[positions].copy(), req=req, dur=dur,
        user=codes, n_users=n_users, n_unknown_user=n_unknown)


def simulated_runtimes(run, request, kill_at_request=True):
    """The runtimes a simulation replays and the requests it plans with.

    Returns
    -------
    dur, request : ndarray
        ``min(run, request)`` with ``kill_at_request`` (else ``run``), and the
        requests with ``inf`` where unknown (no limit).
    """
    request = np.where(np.isnan(request), np.inf, request)
    return (np.minimum(run, request) if kill_at_request else run), request


def _column(jobs, name):
    if name in jobs.columns:
        return jobs[name].to_numpy(dtype=float)
    return np.full(len(jobs), np.nan)


MAX_PIECES = 10_000_000
"""Jobs and pieces a ``max_runtime`` may make in all (the simulation state grows
with each)."""


def piece_counts(dur, limit):
    """How many chained pieces of at most ``limit`` seconds each job runs in (Leung V.A).

    Parameters
    ----------
    dur : ndarray
        The simulated runtimes (after ``kill_at_request``).
    limit : float
        ``max_runtime`` in seconds.

    Returns
    -------
    ndarray of int64
        At least 1 per job.

    Raises
    ------
    ConfigError
        When the pieces would number more than :data:`MAX_PIECES` in all,
        naming the longest job's row among ``dur``.
    """
    with np.errstate(over="ignore"):
        wanted = np.maximum(np.ceil(dur / limit), 1.0)
    if wanted.sum() > MAX_PIECES:
        longest = int(np.argmax(wanted))
        raise ConfigError(
            f"max_runtime={limit:g} s cuts the jobs into {_piece_count(wanted.sum())} pieces "
            f"(more than {MAX_PIECES:,}; the longest job, at row {longest}, into "
            f"{_piece_count(wanted[longest])}): give a longer max_runtime")
    return wanted.astype(np.int64)


def _piece_count(count):
    """A count of pieces for messages: in full up to 10**15, then in powers of ten."""
    if count < 1e15:
        return f"{count:,.0f}"
    return "more than 1e308" if np.isinf(count) else f"about {count:.1e}"


class _Pieces:
    """Chained pieces of jobs longer than ``max_runtime`` (Leung V.A).

    Piece ``k`` of a job runs ``min(limit, remaining)``; its request is the
    part of the request left, at most ``limit``. The first piece keeps the
    job's index; later ones are appended after all jobs.
    """

    def __init__(self, dur, req, limit):
        n = len(dur)
        self.n = n
        self.limit = limit
        counts = np.ones(n, dtype=np.int64) if limit is None else piece_counts(dur, limit)
        extra_counts = counts - 1
        self.extra = int(extra_counts.sum())
        self.parent = np.repeat(np.arange(n), extra_counts)
        rank = np.arange(self.extra) - np.repeat(np.cumsum(extra_counts) - extra_counts,
                                                 extra_counts) + 1
        self.rank = rank
        all_parent = np.concatenate([np.arange(n), self.parent])
        all_rank = np.concatenate([np.zeros(n, dtype=np.int64), rank])
        self.all_parent = all_parent
        self.all_rank = all_rank
        succ = np.full(n + self.extra, -1, dtype=np.int64)
        if self.extra:
            index = np.arange(n, n + self.extra)
            first = rank == 1
            succ[self.parent[first]] = index[first]
            succ[index[~first] - 1] = index[~first]
        self.succ = succ
        if limit is None:
            self.dur = dur.copy()
            self.req = req.copy()
        else:
            offset = all_rank * limit
            self.dur = np.minimum(dur[all_parent] - offset, limit)
            self.req = np.clip(req[all_parent] - offset, 0.0, limit)

    def piece_estimates(self, parents, values):
        """Estimates of all pieces of ``parents`` from the jobs' estimates."""
        if self.limit is None:
            return parents, values
        mask = np.isin(self.parent, parents)
        lookup = np.full(self.n, np.nan)
        lookup[parents] = values
        first = np.minimum(values, self.limit)
        later = np.flatnonzero(mask) + self.n
        later_values = np.clip(lookup[self.parent[mask]] - self.rank[mask] * self.limit,
                               0.0, self.limit)
        return np.concatenate([parents, later]), np.concatenate([first, later_values])


class _Filler:
    """Write estimates (and what derives from them) into the engine state."""

    def __init__(self, state, pieces, selective, sjf):
        self.state = state
        self.pieces = pieces
        self.selective = selective
        self.sjf = sjf

    def __call__(self, positions, values, history):
        index, est = self.pieces.piece_estimates(positions, values)
        jobs = self.state.jobs
        est = np.maximum(np.minimum(est, jobs.request[index]), 1.0)
        jobs.estimate[index] = est
        jobs.estimate_at_start[index] = np.maximum(jobs.request[index], 1.0) if self.selective \
            else est
        if np.ndim(history):
            history = np.concatenate([history, np.full(len(index) - len(history),
                                                         eng.ESTIMATE_FINAL)])
        jobs.estimate_history[index] = history
        if self.sjf:
            jobs.priority_key[index] = est


class _Feeder:
    """Drive an :class:`~predictkit.runtime.OnlinePredictor` in simulated time."""

    def __init__(self, predictor, kept, state, pieces, refresh):
        self.refresh = refresh
        self.predictor = predictor
        self.state = state
        self.pieces = pieces
        self.fed = 0
        self.n = len(kept)
        self.total = np.bincount(pieces.all_parent, weights=pieces.dur, minlength=self.n)
        predictor.start(kept)

    def next_batch(self):
        s = self.state
        counters = s.counters[0]
        now = float(counters["now"])
        ndone = int(counters["n_done"])
        if ndone > self.fed:
            self._feed(s.completed[self.fed:ndone])
            self.fed = ndone
        first = int(counters["next_arrival"])
        horizon = s.completions.times[0] if s.completions.length[0] > 0 \
            else s.jobs.submit[first]
        if self.refresh is not None:
            horizon = now + self.refresh
        submit = s.jobs.submit[:self.n]
        last = int(np.searchsorted(submit, max(horizon, now), side="left"))
        if self.refresh is None and last > first:
            # a job arriving before the horizon may end before it, and every estimate
            # asked after its submission would be asked again: stop at its earliest end
            ends = submit[first:last] + s.jobs.duration[first:last]
            horizon = min(horizon, float(ends.min()))
            last = int(np.searchsorted(submit, max(horizon, now), side="left"))
        same = int(np.searchsorted(submit, now, side="right"))
        last = max(same, min(last, first + (_BATCH if self.refresh is None else len(submit))))
        if last > same:
            # never split an instant across batches
            last = int(np.searchsorted(submit, submit[last - 1], side="right"))
        positions = np.arange(first, last)
        history = ndone if self.refresh is None else -2
        returned = self.predictor.predict_for(positions)
        adapted = self.predictor.estimator if isinstance(self.predictor, PartialFitAdapter) \
            else None
        name = type(self.predictor if adapted is None else adapted).__name__
        if adapted is not None:
            name = getattr(self.predictor, "name", name)  # what it adapts, e.g. a Pipeline
        method = f"{name}.{'predict_for' if adapted is None else 'predict'}"
        values = predictions_of(returned, len(positions), method, SimulationError)
        request = s.jobs.request[positions]
        values = np.where(np.isfinite(values), values, request)
        missing = ~np.isfinite(values)
        if missing.any():
            bad = int(np.argmax(missing))
            if submit[positions[bad]] == now:
                raise SimulationError(f"{name} gave no estimate for a job without a request")
            # a later submission: asked again at its own, when the history may hold more
            keep = int(np.searchsorted(submit[positions], submit[positions[bad]], side="left"))
            positions, values = positions[:keep], values[:keep]
        return positions, values, history

    def _feed(self, done):
        # a job split into pieces enters the history when its last piece ends
        table = self.state.jobs
        done = np.asarray(done)
        done = done[table.successor[done] < 0]
        jobs = self.pieces.all_parent[done]
        if len(jobs) == 0:
            return
        self.predictor.observe(jobs, table.start[jobs], table.end[done], self.total[jobs])

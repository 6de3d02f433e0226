"""WaitPredictor: wait forecasts from the queue a job joins, with calibrated bounds.

At each submission the known state of the machine -- the jobs running, with
their elapsed times, requests and predicted runtimes, and the queue ahead,
with theirs -- is simulated forward (:mod:`._forward`, what Slurm's
``squeue --start`` does with requested times; Klusacek & Soysal 2019,
section 4.1 measure the same forecast inside a simulator). The forecast is
then calibrated online on the waits of the jobs already started
(:mod:`._conformal`): a per-class conformal quantile of the log ratio of
wait to forecast, with and without an online shift that keeps the share of
misses at ``1 - q``. These two bounds and QBETS's history-only bound are
experts: per forecast band, the one with the smallest recent pinball loss
gives the bound, and a final online step on that bound keeps coverage
(:mod:`._aggregate`).
"""

import contextlib
import heapq
import math
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from .._table import (WIDTH_COLUMNS, _raise_rows, check_target, job_width, requested_width,
                      said_starts, validate_jobs)
from .._validation import (HasMethods, Interval, ParamsValidatedMixin, StrOptions, check_fitted,
                           finite_time, python_scalar, seconds_per_job)
from .._summary import wider_than_machine
from ..exceptions import InvalidParameterError, JobTableError
from ._aggregate import ExpertAggregator
from ._conformal import ConformalCalibrator, job_class, score
from ._forward import forecast_wait, replay_forecasts
from ._qbets import QBETS, warn_submitted_after

__all__ = ["WaitPredictor"]


class WaitPredictor(ParamsValidatedMixin, BaseEstimator):
    """Forecasts and upper bounds on queue waits from the queue each job joins.

    For a job submitted at ``t``, the running jobs (from the waits already
    known, each with its elapsed time, request and predicted runtime) and the
    queued jobs ahead of it (from :meth:`observe_queue`) are simulated forward
    with conservative backfilling on the predicted runtimes
    (:func:`predictkit.queue._forward.forecast_wait`); the new job's start in
    that plan is the forecast ``F``. Three bounds at ``q`` are made (experts):
    ``(F + 60) exp(s) - 60``, ``s`` a conformal quantile of the scores
    ``log((w + 60) / (F + 60))`` of recent jobs of the same class (forecast
    band, room for the job alone, width, short request, the last score of
    the job's user), as it is and shifted online (Gibbs & Candes 2021;
    Angelopoulos et al. 2023) so that the share of jobs waiting longer than
    it stays at ``1 - q`` (see :mod:`predictkit.queue._conformal`); and
    :class:`QBETS`'s bound from the history of waits alone. Per forecast
    band, the expert with the smallest discounted pinball loss on the
    recent waits gives the bound, raised online toward QBETS's (never
    lowered below the chosen bound, never raised past QBETS's) by the
    misses of the final bounds of the band (projected quantile tracking,
    see :mod:`predictkit.queue._aggregate`). With
    ``quantile=0.5`` the bound is the point forecast.

    Parameters
    ----------
    quantile : float in (0, 1), default=0.95
        The quantile ``q`` of the wait to bound.
    runtime : runtime predictor or None, default=None
        An online predictkit runtime predictor (``target_known_at = "end"``)
        that predicts the runtime of every queued and running job from the
        jobs ended before its submission; ``None`` is
        :class:`predictkit.runtime.RecentAverage` (Tsafrir et al. 2007).
        ``"request"`` uses the requested times (Slurm's forecast).
    capacity : float or None, default=None
        Processors of the machine; ``None`` learns it online (the largest
        number of processors in use at a submission, or asked by one job).
        A job asking for more than a given capacity is forecast as if it
        asked for all of it, with a warning counting such jobs.
    window : int, default=1000
        Recent scores kept per class; at least ``q / (1 - q)`` (999 at
        ``quantile=0.999``), the fewest whose quantile bounds a wait at ``q``.
    step : float, default=0.05
        Step ``eta`` (log units) of the online shift of the shifted
        forecast expert (see :mod:`predictkit.queue._conformal`): each miss
        multiplies its bounds by ``exp(eta q*)``, each hit by
        ``exp(-eta (1 - q*))``.
    final_step : float, default=0.01
        Step (log units) of the final online raise of the chosen bound (see
        :mod:`predictkit.queue._aggregate`).
    memory : int, default=1000
        The experts' pinball losses are discounted by ``1 - 1 / memory``
        per job of the band.
    max_queue : int, default=512
        Queued jobs placed ahead of a new job in the forward simulation, at
        most (the earliest submitted).

    Attributes
    ----------
    n_seen_ : int
        Waits added so far.
    n_scored_ : int
        Waits with a forecast, used for calibration.
    capacity_ : float
        The capacity used for the last forecast.
    shift_ : dict
        The online shift of the shifted forecast expert per forecast band
        now (log units).
    final_shift_ : dict
        The final raise of the chosen bound per forecast band now (log
        units).

    Notes
    -----
    Same protocol as :class:`QBETS`: :meth:`partial_fit` adds jobs when they
    start (their waits), :meth:`observe_queue` tells the queue at ``now``,
    :meth:`predict` bounds the jobs submitted now. Jobs are identified by
    their row label (the index of the job table) across calls: a label
    repeated in a table, given to jobs with different submit times or
    started twice is a :class:`~predictkit.exceptions.JobTableError`, as
    are widths (``n_procs``, ``req_procs``) that are not whole numbers > 0
    or both unknown, and negative times. A started
    job's ``run_time`` is used only once ``start + run_time`` has passed
    (to end it and teach the runtime predictor); until then it runs on its
    predicted runtime. Only jobs predicted before their wait was known are
    calibrated on. ``model_selection.replay`` uses a one-pass replay that
    gives the same numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from predictkit.datasets import make_workload
    >>> from predictkit.model_selection import replay
    >>> from predictkit.queue import WaitPredictor
    >>> from predictkit.simulate import simulate
    >>> jobs = simulate(make_workload(n_jobs=5000, random_state=0), policy="easy").jobs
    >>> waits = jobs["wait_time"].to_numpy()
    >>> bounds = replay(WaitPredictor(quantile=0.9, capacity=128), jobs, waits)
    >>> has = ~np.isnan(bounds)                  # the first jobs get no bound
    >>> bool(np.mean(waits[has] <= bounds[has]) >= 0.9)
    True
    """

    target_known_at = "start"

    records_queries = True
    """Each prediction records the jobs asked, by row label, and moves the estimator's
    clock to their submission: what-if questions (:class:`~predictkit.queue.VARQ`'s
    candidate submissions) are asked of a copy."""

    _parameter_constraints = {
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "runtime": [None, StrOptions({"request"}), HasMethods(["fit", "predict"])],
        "capacity": [Interval(Real, 0, None, closed="neither"), None],
        "window": [Interval(Integral, 10, None, closed="left")],
        "step": [Interval(Real, 0, 1, closed="left")],
        "final_step": [Interval(Real, 0, 1, closed="left")],
        "memory": [Interval(Integral, 1, None, closed="left")],
        "max_queue": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, quantile=0.95, runtime=None, capacity=None, window=1000,
                 step=0.05, final_step=0.01, memory=1000, max_queue=512):
        self.quantile = quantile
        self.runtime = runtime
        self.capacity = capacity
        self.window = window
        self.step = step
        self.final_step = final_step
        self.memory = memory
        self.max_queue = max_queue

    # -- construction -------------------------------------------------------

    def _reset(self):
        self._validate_params()
        if not (self.runtime is None or isinstance(self.runtime, str)
                or getattr(self.runtime, "target_known_at", None) == "end"):
            raise InvalidParameterError(
                "The 'runtime' parameter of WaitPredictor must be an online runtime "
                f"predictor (target_known_at = 'end'); got {type(self.runtime).__name__}",
                parameter="runtime", owner="WaitPredictor")
        needed = math.ceil(float(self.quantile) / (1.0 - float(self.quantile)) - 1e-9)
        if int(self.window) < needed:
            raise InvalidParameterError(
                f"The 'window' parameter of WaitPredictor must hold at least {needed:,} scores "
                f"at quantile {self.quantile}: n scores bound the wait at level q only when "
                f"q (n + 1) <= n; got {self.window}", parameter="window", owner="WaitPredictor")
        self._calibrator = ConformalCalibrator(
            float(self.quantile), window=int(self.window), step=float(self.step),
            min_scores=_min_scores(float(self.quantile)))
        self._aggregator = ExpertAggregator(float(self.quantile), n_experts=3,
                                            memory=int(self.memory), step=float(self.final_step),
                                            anchor=2)
        self._history = _history_expert(float(self.quantile))
        self._runtime_model = None
        self._jobs = {}  # label -> dict of what is known about the job
        self._started = []  # labels of started jobs, in the order added
        self._ended_fed = set()
        self._pending = set()  # started, not predicted yet
        self._user_score = {}  # user -> score of the user's job that started last
        self._outcomes = []  # (known time, missed, label, kind) not applied yet
        self._queue = None
        self._cap = 0.0 if self.capacity is None else float(self.capacity)
        self.n_seen_ = 0
        self.n_scored_ = 0

    def _runtime_predictor(self):
        if self.runtime is None:
            from ..runtime import RecentAverage
            return RecentAverage()
        return clone(self.runtime)

    # -- protocol -----------------------------------------------------------

    def fit(self, X, y=None):
        """Reset and add the jobs ``X`` with waits ``y`` as started (see :meth:`partial_fit`)."""
        self._reset()
        return self.partial_fit(X, y)

    def partial_fit(self, X, y=None):
        """Add jobs that have started, with their waits, in the order they started.

        Parameters
        ----------
        X : DataFrame
            Started jobs: ``submit_time``, ``req_procs``/``n_procs``,
            ``req_time``, ``run_time`` (``NaN`` if unknown) and the columns
            the runtime predictor reads.
        y : array-like, optional
            Their waits (default ``X["wait_time"]``).
        """
        if not hasattr(self, "_calibrator"):
            self._reset()
        table = _check_table(X, "partial_fit")
        self._check_labels(table, "partial_fit", starting=True)
        waits = _waits(table, y)
        submit = table["submit_time"].to_numpy(dtype=np.float64)
        run_time = _column(table, "run_time")
        request = _column(table, "req_time")
        width = job_width(table) if len(table) else np.zeros(0)
        procs = requested_width(table) if len(table) else np.zeros(0)
        for pos, label in enumerate(table.index.tolist()):
            job = self._jobs.setdefault(label, {})
            start = submit[pos] + waits[pos]
            end = start + (run_time[pos] if run_time[pos] == run_time[pos] else
                           request[pos] if request[pos] == request[pos] else math.inf)
            job.update(label=label, submit=submit[pos], start=start, end=end, wait=waits[pos],
                       width=width[pos], procs=procs[pos], request=request[pos],
                       run_time=run_time[pos], row=table.iloc[[pos]])
            self._started.append(label)
            self.n_seen_ += 1
            if "forecast" in job:
                self._score(job)
            else:
                self._pending.add(label)
        self._history.partial_fit(table, waits)
        self._queue = None
        return self

    def _check_labels(self, table, where, *, starting=False):
        """Refuse a row label that names another job than in an earlier call.

        A label names one job across calls: its submit time never changes,
        and it starts (:meth:`partial_fit`) once.
        """
        for label, submit in zip(table.index.tolist(), table["submit_time"].tolist()):
            job = self._jobs.get(label)
            if job is None:
                continue
            if starting and "start" in job:
                problem = "names a job that has started already (in an earlier partial_fit)"
            elif job.get("submit", submit) != submit:
                problem = (f"names two jobs (one submitted at {float(job['submit'])!r}, this "
                           f"one at {float(submit)!r})")
            else:
                continue
            raise JobTableError(f"WaitPredictor.{where}: row label {python_scalar(label)!r} "
                                f"{problem}; jobs are identified by their row label across "
                                "calls, so each needs its own (a table built anew labels its "
                                "rows 0, 1, ... again: label jobs by their id, e.g. "
                                "X.set_index('job_id', drop=False))")

    def _score(self, job):
        value = score(job["wait"], job["forecast"])
        self._calibrator.add(job["class"], value)
        self._aggregator.add(job["class"][:1], job["experts"], job["wait"])
        if job["user"] == job["user"]:
            self._user_score[job["user"]] = value
        self.n_scored_ += 1
        told = job.setdefault("told", [False, False])
        for kind, key in enumerate(("shifted", "bound")):
            b = job[key]
            if b == b and not told[kind]:
                told[kind] = True
                missed = job["wait"] > b
                when = job["submit"] + b if missed else job["start"]
                self._outcomes.append((when, int(missed), job["label"], kind))

    def observe_queue(self, X, now):
        """Tell the estimator which jobs are waiting at ``now`` (the queue a new job joins).

        Parameters
        ----------
        X : DataFrame
            The waiting jobs (``submit_time``, widths, requests, and the
            columns the runtime predictor reads); jobs submitted at ``now``
            are ignored (they have not waited yet), jobs submitted after it
            left out with a warning. A job waits at ``now`` when it was submitted
            before ``now`` and has not started by then (it starts at
            ``now`` or later).
        now : float
            The time the queue is observed at.

        Raises
        ------
        JobTableError
            For a job submitted before ``now`` that has started by ``now``,
            so is not waiting, naming it: one added by :meth:`partial_fit`
            with a start at or before ``now``, or a row whose own start
            (``start_time``, else ``submit_time + wait_time``, where known)
            is at or before ``now``. Also for the table problems of
            :meth:`partial_fit`.
        InvalidParameterError
            For a ``now`` that is not a finite time.
        """
        check_fitted(self, "n_seen_")
        table = _check_table(X, "observe_queue")
        self._check_labels(table, "observe_queue")
        now = finite_time(now, "now", "WaitPredictor.observe_queue")
        submit = table["submit_time"].to_numpy(dtype=np.float64)
        self._check_waiting(table, submit, now)
        warn_submitted_after(submit, now, "WaitPredictor.observe_queue")
        keep = np.flatnonzero(submit < now)
        keep = keep[np.argsort(submit[keep], kind="stable")]
        self._queue = (now, table.iloc[keep])
        self._history.observe_queue(self._queue[1], now)
        return self

    def _check_waiting(self, table, submit, now):
        """Refuse a job of the queue at ``now`` that has started by then (it is not waiting)."""
        said = said_starts(table, "WaitPredictor.observe_queue: job table")
        labels = table.index.tolist()
        for pos in np.flatnonzero(submit < now).tolist():
            start = self._jobs.get(labels[pos], {}).get("start", math.nan)
            told = "partial_fit added it"
            if not start <= now:
                start, told = said[pos], "its row says so"
            if start <= now:
                job = (f", job_id {table['job_id'].iloc[pos]}" if "job_id" in table.columns
                       else "")
                raise JobTableError(
                    f"WaitPredictor.observe_queue: the job at row label {labels[pos]!r}{job} "
                    f"started at {float(start)!r} ({told}), not after now={now!r}, so it is not "
                    "waiting; give only the jobs submitted before now that have not started")

    # -- prediction ---------------------------------------------------------

    def _feed_ended(self, now):
        """Teach the runtime predictor the jobs ended by ``now`` (end order)."""
        done = [label for label in self._started
                if label not in self._ended_fed and self._jobs[label]["run_time"] ==
                self._jobs[label]["run_time"] and self._jobs[label]["end"] <= now]
        if not done:
            return
        if self._runtime_model is None:
            self._runtime_model = self._runtime_predictor() if self.runtime != "request" else None
        if self._runtime_model is None:
            return
        done.sort(key=lambda label: (self._jobs[label]["end"], self._jobs[label]["submit"],
                                     label))
        rows = pd.concat([self._jobs[label]["row"] for label in done])
        rows = rows.assign(end_time=[self._jobs[label]["end"] for label in done])
        self._runtime_model.partial_fit(rows, [self._jobs[label]["run_time"] for label in done])
        self._ended_fed.update(done)

    def _predict_runtime(self, rows, request, now):
        if self.runtime == "request":
            return np.asarray(request, dtype=np.float64)
        self._feed_ended(now)
        if self._runtime_model is None:
            self._runtime_model = self._runtime_predictor()
            self._runtime_model.partial_fit(rows.iloc[:0], np.zeros(0))
        return np.asarray(self._runtime_model.predict(rows), dtype=np.float64)

    def _forecast(self, table, where):
        """Forecast, class and bound of each job of ``table`` (submitted now)."""
        self._check_labels(table, where)
        submit = table["submit_time"].to_numpy(dtype=np.float64)
        procs = requested_width(table)
        self._warn_wider(procs)
        request = _column(table, "req_time")
        users = _users(table)
        labels = table.index.tolist()
        batch = set(labels)
        out = np.full(len(table), np.nan)
        with self._wider_said():
            history = (self._history.predict(table) if hasattr(self._history, "n_seen_")
                       else np.full(len(table), np.nan))
        for now in np.unique(submit).tolist():
            rows = np.flatnonzero(submit == now)
            runtime = self._predict_runtime(table.iloc[rows], request[rows], now)
            for r, rt in zip(rows.tolist(), runtime.tolist()):
                job = self._jobs.setdefault(labels[r], {})
                job.setdefault("runtime", rt)
            self._settle(now)
            running = [self._jobs[label] for label in self._started
                       if label not in batch and self._jobs[label]["start"] <= now
                       < self._jobs[label]["end"]]
            unknown = [job for job in running if "runtime" not in job]
            if unknown:  # started without being predicted here (e.g. fit on a table)
                rows_unknown = pd.concat([job["row"] for job in unknown])
                for job, rt in zip(unknown, self._predict_runtime(
                        rows_unknown, [job["request"] for job in unknown], now).tolist()):
                    job["runtime"] = rt
            queue = self._queued_jobs(now, batch)[:int(self.max_queue)]
            used = sum(job["width"] for job in running)
            if self.capacity is None:
                self._cap = max(self._cap, used, max((j["procs"] for j in queue), default=0.0),
                                float(np.max(procs[rows])))
            run = [np.array([job[key] for job in running], dtype=np.float64)
                   for key in ("start", "width", "runtime", "request")]
            que = [np.array([job[key] for job in queue], dtype=np.float64)
                   for key in ("procs", "runtime", "request")]
            for r in rows.tolist():
                job = self._jobs[labels[r]]
                f, alone = forecast_wait(now, self._cap, *run, *que, procs[r], job["runtime"],
                                         request[r], int(self.max_queue))
                f = float(f)
                user = users[r]
                job.update(submit=now, forecast=f, procs=procs[r], request=request[r], user=user,
                           **{"class": job_class(f, float(alone), procs[r], self._cap,
                                                   request[r],
                                                   self._user_score.get(user, math.nan))})
                queued = self._class_queue(now, job["class"], batch)
                job["shifted"] = self._calibrator.bound(
                    job["class"], f, self._calibrator.shift(job["class"]), queued)
                job["experts"] = [job["shifted"],
                                  self._calibrator.bound(job["class"], f, 0.0, queued),
                                  float(history[r])]
                job["bound"] = self._aggregator.bound(job["class"][:1], job["experts"])
                out[r] = job["bound"]
            for r in rows.tolist():
                if labels[r] in self._pending:
                    self._pending.discard(labels[r])
                    self._score(self._jobs[labels[r]])
        self.capacity_ = self._cap
        self.shift_ = dict(self._calibrator.delta)
        self.final_shift_ = dict(self._aggregator.delta)
        return out

    @contextlib.contextmanager
    def _wider_said(self):
        """Silence the history's warning of jobs wider than its machine where
        :meth:`_warn_wider` has said it of ``capacity``."""
        with warnings.catch_warnings():
            if self.capacity is not None:
                warnings.filterwarnings("ignore", message="QBETS: .* wider than the machine",
                                        category=UserWarning)
            yield

    def _warn_wider(self, procs):
        """Warn about jobs asking for more processors than a given capacity."""
        if self.capacity is None:
            return
        wider = int(np.sum(procs > self.capacity))
        if wider:
            warnings.warn(f"WaitPredictor: {wider_than_machine(wider, self.capacity)} forecast "
                          "as asking for the whole machine; is capacity the machine's size?",
                          UserWarning, stacklevel=4)

    def _settle(self, now):
        """Count the misses known at ``now`` (queued jobs older than their bound), apply outcomes."""
        if self._queue is None:
            self._apply_outcomes()
            return
        for label in self._queue[1].index.tolist():
            job = self._jobs.get(label)
            if job is None or "bound" not in job:
                continue
            told = job.setdefault("told", [False, False])
            for kind, key in enumerate(("shifted", "bound")):
                b = job[key]
                if b == b and not told[kind] and job["submit"] + b < now:
                    told[kind] = True
                    self._outcomes.append((job["submit"] + b, 1, label, kind))
        self._apply_outcomes()

    def _apply_outcomes(self):
        """Move the shifts by the outcomes learnt since the last prediction, in known order.

        Kind 0 is an outcome of the shifted forecast expert (its own shift),
        kind 1 one of the final bound (the aggregator's raise).
        """
        for _, missed, label, kind in sorted(self._outcomes):
            klass = self._jobs[label]["class"]
            if kind == 0:
                self._calibrator.outcome(klass, bool(missed))
            else:
                self._aggregator.outcome(klass[:1], bool(missed))
        self._outcomes = []

    def _class_queue(self, now, label, batch):
        """``(now, submit, forecast)`` of the queued jobs of class ``label`` (see the calibrator)."""
        if self._queue is None or self._queue[0] != now:
            return None
        jobs = [self._jobs.get(key, {}) for key in self._queue[1].index.tolist()
                if key not in batch]
        jobs = [job for job in jobs if job.get("class") == label]
        return (now, np.array([job["submit"] for job in jobs], dtype=np.float64),
                np.array([job["forecast"] for job in jobs], dtype=np.float64))

    def _queued_jobs(self, now, batch):
        if self._queue is None or self._queue[0] != now:
            return []
        table = self._queue[1]
        request = _column(table, "req_time")
        procs = requested_width(table) if len(table) else np.zeros(0)
        out = []
        missing = [pos for pos, label in enumerate(table.index.tolist())
                   if "runtime" not in self._jobs.get(label, {})]
        if missing:
            runtime = self._predict_runtime(table.iloc[missing], request[missing], now)
            for pos, rt in zip(missing, runtime.tolist()):
                self._jobs.setdefault(table.index[pos], {})["runtime"] = rt
        for pos, label in enumerate(table.index.tolist()):
            if label in batch:
                continue
            job = self._jobs[label]
            job.setdefault("procs", procs[pos])
            job.setdefault("request", request[pos])
            out.append(job)
        return out

    def predict(self, X):
        """Upper bound (seconds) at ``quantile`` on the wait of each job submitted now.

        Returns
        -------
        ndarray of float64
            ``NaN`` until enough waits have been calibrated on; ``inf`` where
            the scores kept cannot yet bound the wait at the level the
            calibration aims at (``n`` scores reach a level ``q`` only when
            ``q (n + 1) <= n``; that level follows the misses online, so at a
            quantile near 1 it may exceed what ``window`` scores reach) and no
            other expert gives a bound.
        """
        check_fitted(self, "n_seen_")
        return self._forecast(_check_table(X, "predict"), "predict")

    def start_probability(self, X, within=None):
        """Probability that each job starts within ``within`` seconds of its submission.

        The share of the recent scores of the job's class at or under the
        score a wait of ``within`` would have; before any window has scores,
        the probability of the QBETS expert on the waits seen, as
        :meth:`predict` then falls back on its bound (``NaN`` without either).
        """
        check_fitted(self, "n_seen_")
        table = _check_table(X, "start_probability")
        within = seconds_per_job(within, len(table), "within",
                                 "WaitPredictor.start_probability")
        self._forecast(table, "start_probability")
        out = np.full(len(table), np.nan)
        for r, label in enumerate(table.index.tolist()):
            job = self._jobs[label]
            out[r] = self._calibrator.probability(job["class"], job["forecast"], within[r])
        unscored = np.isnan(out)
        if unscored.any() and hasattr(self._history, "n_seen_"):
            with self._wider_said():
                out[unscored] = self._history.start_probability(table[unscored],
                                                                within[unscored])
        return out

    def forecast(self, X):
        """The forward-simulation forecast (seconds) of each job, uncalibrated."""
        check_fitted(self, "n_seen_")
        table = _check_table(X, "forecast")
        self._forecast(table, "forecast")
        return np.array([self._jobs[label]["forecast"] for label in table.index.tolist()])

    # -- fast online replay -------------------------------------------------

    def _replay(self, X, y, known):
        """Online bounds of every job, equal to ``model_selection.replay``'s reference."""
        self._reset()
        table = _check_table(X, "replay")
        waits = np.asarray(y, dtype=np.float64)
        submit = table["submit_time"].to_numpy(dtype=np.float64)
        # replay's clock puts a start at the submission just after it; the
        # forecasts need the true start (calibrate_replay scores such a job
        # right after its batch, as the clock does)
        start = np.asarray(known, dtype=np.float64)
        start = np.where(start == np.nextafter(submit, np.inf), submit, start)
        run_time = _column(table, "run_time")
        request = _column(table, "req_time")
        end = start + np.where(np.isfinite(run_time), run_time,
                               np.where(np.isfinite(request), request, np.inf))
        runtime = self._replay_runtimes(table, run_time, start, request)
        self._warn_wider(requested_width(table))
        forecast, alone, caps = replay_forecasts(submit, start, end, requested_width(table),
                                          job_width(table), runtime, request,
                                          capacity=self.capacity, max_queue=self.max_queue)
        history = self._history._replay(table, waits, np.asarray(known, dtype=np.float64))
        out = calibrate_replay(self._calibrator, self._aggregator, submit, start, waits,
                               forecast, alone, requested_width(table), request, caps,
                               _users(table), history)
        self.n_seen_ = int(np.isfinite(start).sum())
        self.n_scored_ = self.n_seen_
        self.capacity_ = float(caps[-1]) if len(caps) else self._cap
        self.shift_ = dict(self._calibrator.delta)
        self.final_shift_ = dict(self._aggregator.delta)
        return out

    def _replay_runtimes(self, table, run_time, start, request):
        if self.runtime == "request":
            return request
        from ..model_selection import replay
        ended = start + run_time
        return replay(self._runtime_predictor(), table, run_time, known_time=ended)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags


def calibrate_replay(calibrator, aggregator, submit, start, waits, forecast, alone, procs,
                     request, caps, users, history):
    """The calibrated bound of every job, in one pass over the submissions.

    Before the jobs submitted at ``t`` are bounded: the scores (and the
    experts' losses) of the jobs predicted earlier that started at or
    before ``t`` are added (start order, ties by submission then row), and
    every outcome known by ``t`` (a hit at the start, a miss once
    ``submit + bound < t``) updates the online shift of the shifted expert
    (its own bound's outcomes) or the final raise (the final bound's).
    Scores of jobs starting at their own submission are added right after
    their batch. ``history`` holds QBETS's bound of every job.
    """
    n = len(submit)
    out = np.full(n, np.nan)
    rows = np.arange(n)
    by_submit = np.lexsort((rows, submit))
    has_start = np.isfinite(start)
    started_rows = rows[has_start]
    by_start = started_rows[np.lexsort((started_rows, submit[has_start], start[has_start]))]
    submit_l, start_l, wait_l = submit.tolist(), start.tolist(), waits.tolist()
    forecast_l, procs_l, caps_l = forecast.tolist(), procs.tolist(), caps.tolist()
    alone_l, request_l, users_l = alone.tolist(), request.tolist(), users.tolist()
    history_l = np.asarray(history, dtype=np.float64).tolist()
    last_score = {}
    label = [0] * n
    experts = [None] * n
    predicted = [False] * n
    told = []  # (known time, missed, row, kind): a hit is known at its start, a miss once past
    queues = {}  # class label -> _ClassQueue of its queued jobs
    add, bound, outcome, level = (calibrator.add, calibrator.bound, calibrator.outcome,
                                  calibrator.shift)
    charge, combine, final = aggregator.add, aggregator.bound, aggregator.outcome
    i_start = 0
    n_started = len(by_start)
    by_start = by_start.tolist()
    order = by_submit.tolist()
    pos = 0
    while pos < n:
        t = submit_l[order[pos]]
        stop = pos
        while stop < n and submit_l[order[stop]] == t:
            stop += 1
        while i_start < n_started and start_l[by_start[i_start]] <= t:
            j = by_start[i_start]
            i_start += 1
            if predicted[j] and start_l[j] > submit_l[j]:
                queues[label[j]].remove(j)
            if predicted[j]:
                value = score(wait_l[j], forecast_l[j])
                add(label[j], value)
                charge(label[j][:1], experts[j], wait_l[j])
                if users_l[j] == users_l[j]:
                    last_score[users_l[j]] = value
        while told and (told[0][0] < t or (told[0][0] == t and not told[0][1])):
            _, missed, row, kind = heapq.heappop(told)
            if kind == 0:
                outcome(label[row], bool(missed))
            else:
                final(label[row][:1], bool(missed))
        batch = order[pos:stop]
        for j in batch:
            f = forecast_l[j]
            label[j] = job_class(f, alone_l[j], procs_l[j], caps_l[j], request_l[j],
                                 last_score.get(users_l[j], math.nan))
            queue = queues.get(label[j])
            queued = None if queue is None else queue.arrays(t)
            shifted = bound(label[j], f, level(label[j]), queued)
            experts[j] = [shifted, bound(label[j], f, 0.0, queued), history_l[j]]
            b = combine(label[j][:1], experts[j])
            out[j] = b
            predicted[j] = True
            if has_start[j]:
                for kind, value in ((0, shifted), (1, b)):
                    if value != value:
                        continue
                    if wait_l[j] > value:
                        heapq.heappush(told, (submit_l[j] + value, 1, j, kind))
                    else:
                        heapq.heappush(told, (start_l[j], 0, j, kind))
        for j in batch:
            if has_start[j] and start_l[j] > t:
                queue = queues.get(label[j])
                if queue is None:
                    queue = queues[label[j]] = _ClassQueue(n)
                queue.add(j, submit_l[j], forecast_l[j])
            if start_l[j] <= t:
                value = score(wait_l[j], forecast_l[j])
                add(label[j], value)
                charge(label[j][:1], experts[j], wait_l[j])
                if users_l[j] == users_l[j]:
                    last_score[users_l[j]] = value
        pos = stop
    return out


class _ClassQueue:
    """The queued jobs of one class: submit times and forecasts in compact arrays."""

    def __init__(self, n):
        self.submit = np.empty(16)
        self.forecast = np.empty(16)
        self.rows = []
        self.slot = {}

    def add(self, row, submit, forecast):
        m = len(self.rows)
        if m == len(self.submit):
            self.submit = np.resize(self.submit, 2 * m)
            self.forecast = np.resize(self.forecast, 2 * m)
        self.submit[m] = submit
        self.forecast[m] = forecast
        self.slot[row] = m
        self.rows.append(row)

    def remove(self, row):
        m = self.slot.pop(row)
        last = self.rows.pop()
        if last != row:
            self.rows[m] = last
            self.slot[last] = m
            end = len(self.rows)
            self.submit[m] = self.submit[end]
            self.forecast[m] = self.forecast[end]

    def arrays(self, now):
        m = len(self.rows)
        return now, self.submit[:m], self.forecast[:m]


def _users(table):
    """The user of each job (NaN where unknown: such jobs have no user evidence)."""
    users = _column(table, "user_id")
    return np.where(np.isfinite(users) & (users >= 0), users, np.nan)


def _history_expert(quantile):
    """QBETS at ``quantile`` (its defaults, seeded): the history-only expert."""
    return QBETS(quantile=quantile, random_state=0)


def _min_scores(quantile):
    """Scores a class needs before its own quantile is used: ``1 / (1 - q)`` rounded up, >= 20."""
    return max(20, math.ceil(1.0 / (1.0 - quantile)), math.ceil(1.0 / quantile))


def _check_table(X, where):
    """``X`` if WaitPredictor can read it, else a JobTableError naming the problem and row.

    The columns it reads hold numbers (none infinite nor beyond float64's
    exact range, no negative time), every job has a submit time and a width
    (``n_procs`` or ``req_procs``: whole numbers > 0 where known), and no two
    rows share a label (labels identify jobs).
    """
    owner = f"WaitPredictor.{where}"
    if not isinstance(X, pd.DataFrame):
        raise JobTableError(f"{owner} needs a job table (pandas DataFrame), "
                            f"got {type(X).__name__}")
    if "submit_time" not in X.columns:
        raise JobTableError(f"{owner}: job table lacks submit_time")
    if "req_procs" not in X.columns and "n_procs" not in X.columns:
        raise JobTableError(f"{owner}: job table lacks both req_procs and n_procs")
    if "req_time" not in X.columns:
        raise JobTableError(f"{owner}: job table lacks req_time (the requested time: the "
                            "forecast and the QBETS expert's job classes read it)")
    validate_jobs(X, required=("submit_time",), whole=WIDTH_COLUMNS, columns=_READ_COLUMNS,
                  name=f"{owner}: job table")
    no_width = np.isnan(job_width(X))
    if no_width.any():
        _raise_rows(X, no_width, f"{owner}: job table: jobs without n_procs nor req_procs "
                    "(a job's width)")
    missing = np.asarray(X.index.isna()) if X.index.nlevels == 1 else np.zeros(len(X), bool)
    if missing.any():
        first = int(np.argmax(missing))
        raise JobTableError(f"{owner}: row {first} has no row label "
                            f"({python_scalar(X.index[first])!r}); jobs are identified by "
                            "their row label, so each needs one (e.g. "
                            "X.reset_index(drop=True))")
    if not X.index.is_unique:
        labels = X.index.tolist()
        second = int(np.argmax(X.index.duplicated()))
        first = labels.index(labels[second])
        raise JobTableError(f"{owner}: row label {python_scalar(labels[second])!r} is repeated "
                            f"(rows {first} and {second}); jobs are identified by their row "
                            "label, so each needs its own (e.g. X.reset_index(drop=True))")
    return X


_READ_COLUMNS = ("job_id", "submit_time", "wait_time", "run_time", "n_procs", "req_procs",
                 "req_time", "user_id")
"""The SWF columns WaitPredictor reads (the job id only to name a bad row)."""


def _column(table, name):
    if name in table.columns:
        return table[name].to_numpy(dtype=np.float64)
    return np.full(len(table), np.nan)


def _waits(table, y):
    if y is None:
        if "wait_time" not in table.columns:
            raise JobTableError("WaitPredictor: no y given and the job table lacks 'wait_time'")
        return check_target(table["wait_time"], table, what="waits", name="column 'wait_time'",
                            owner="WaitPredictor")
    return check_target(y, table, what="waits", owner="WaitPredictor")

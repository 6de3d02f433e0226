"""Drive a learned predictor (a pipeline on ``HistoryFeatures``) inside a simulation.

The fast, exact counterpart of driving the pipeline through
:class:`~predictkit.runtime._protocol.PartialFitAdapter` (the reference
path, still used with ``predictor_refresh`` or for pipelines it cannot
reproduce). The users' histories live in a compiled
:class:`~predictkit.runtime._history_state.HistoryState`, updated at each
completion; the features of a job are computed in compiled code and the
fitted later steps of the pipeline (the regressor) are called on a matrix.

When the regressor is called
----------------------------
A job's features depend only on its own user's jobs that completed by its
submit time ``s``. When the simulation stops at instant ``t`` for
estimates, every job of the next ``LOOKAHEAD`` submissions gets its
features computed as they will be at its submission if no job of its user
completes before then other than those the simulator already knows will:

* jobs of the user running now, whose end is known (start + duration);
  they enter as extra history entries (:func:`features_ahead`);
* history entries fitted before the simulation and known by ``s``.

The features are *final* - nothing can change them any more - when every
other unfinished job of the user submitted before ``s`` provably ends after
``s``: running ones by their known end, waiting ones because ``t`` plus
their duration is later than ``s``, ones not yet submitted because their
submit time plus their duration is. Final estimates are handed to the engine
for good (``estimate_history = ESTIMATE_FINAL``). The others are used only if no job
completes before their submission (``estimate_history = n_done``);
otherwise the engine stops at their submission and their features are
computed again: if they did not change, the prediction stands, else it is
made again. The regressor is called only at a stop where a job submitted
at that very instant needs a new prediction, on every job of the window
whose features changed. Each prediction the engine uses is therefore the
regressor applied to the job's features at its submission: the reference
path's prediction (bit for bit when the later steps treat each row of a
matrix on its own, as trees and scalers do).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._table import predictions_of
from ..exceptions import SimulationError
from ..runtime._base import check_jobs
from ..runtime._history_features import HistoryFeatures, submission_columns
from ..runtime._history_state import HistoryState, features_ahead, history_order, insert_entry
from ..runtime._kernels import user_column_count
from ._engine import ESTIMATE_FINAL, NO_ESTIMATE_YET
from .._reference_path import compiled_paths_on

__all__ = ["LearnedFeeder", "fast_path_applies", "LOOKAHEAD"]

LOOKAHEAD = 32
"""Submissions whose features are computed at each stop (more: fewer
regressor calls, more rows per call)."""


def fast_path_applies(pipeline):
    """Whether :class:`LearnedFeeder` reproduces ``pipeline.predict`` exactly.

    It does for a plain ``HistoryFeatures`` first step (not a subclass, with
    array output: later steps see the same matrix).
    """
    if not compiled_paths_on():
        return False
    from sklearn import get_config

    step = pipeline.steps[0][1]
    output = getattr(step, "_sklearn_output_config", {}).get("transform")
    if output is None:
        output = get_config().get("transform_output", "default")
    return type(step) is HistoryFeatures and output == "default"


@njit(cache=True)
def _virtual_key_before(ka, sa, ia, ea, kb, sb, ib, eb):
    """Order of completions known ahead: the history order, then engine index.

    Entries equal in the history order (known and submit times, and job ids,
    missing ones included) are ordered by engine index, as the completions
    themselves reach the history (the completion heap breaks ties by it).
    """
    order = history_order(ka, sa, ia, kb, sb, ib)
    return order < 0 if order != 0 else ea < eb


class FeederJobs(NamedTuple):
    """The jobs to come as the compiled passes read them (row ``j``: job ``j``).

    Attributes
    ----------
    user : ndarray of int64
        Its user code in the history state (-1: no user).
    submit, job_id, request : ndarray of float64
        Its submit time, job id (NaN: none) and requested time (0 or NaN: none).
    total : ndarray of float64
        Its runtime: the sum of its pieces' durations.
    """

    user: np.ndarray
    submit: np.ndarray
    job_id: np.ndarray
    request: np.ndarray
    total: np.ndarray


class EngineEntries(NamedTuple):
    """The engine's entries (a job, or one piece of a job the log split), row ``e``.

    Attributes
    ----------
    parent : ndarray of int64
        The job it is (a piece of).
    start, duration, end : ndarray of float64
        Its start (once started), duration and end (once ended) in the simulation.
    successor : ndarray of int64
        Its job's next piece (-1: it is the last).
    """

    parent: np.ndarray
    start: np.ndarray
    duration: np.ndarray
    end: np.ndarray
    successor: np.ndarray


class UserBounds(NamedTuple):
    """Per-user scratch of :func:`plan_window`; a user's values hold only while
    ``stamp[u]`` is the current stop's number.

    Attributes
    ----------
    stamp : ndarray of int64
        The stop at which the user's values were last reset.
    queued_min : ndarray of float64
        Shortest duration of the user's entries waiting or not yet released.
    before_instant : ndarray of float64
        Earliest end of the user's window jobs submitted before the current
        submit instant (each at its submit time plus duration, the earliest
        it could end).
    at_instant : ndarray of float64
        The same for the window jobs submitted at the current instant.
    instant : ndarray of float64
        The current instant: the submit time of the user's latest window job.
    """

    stamp: np.ndarray
    queued_min: np.ndarray
    before_instant: np.ndarray
    at_instant: np.ndarray
    instant: np.ndarray


class Predictions(NamedTuple):
    """What the feeder predicted for each job (row ``j``: job ``j``).

    Attributes
    ----------
    features : ndarray of float64, shape (n_jobs, user columns)
        The ``user_*`` columns its last prediction was made from.
    value : ndarray of float64
        Its last prediction (NaN: none yet).
    has_value : ndarray of bool
        Whether it has a prediction.
    settled : ndarray of bool
        Its prediction is final and handed to the engine for good.
    """

    features: np.ndarray
    value: np.ndarray
    has_value: np.ndarray
    settled: np.ndarray


@njit(cache=True)
def plan_window(h, n_recent, jobs, entries, running, queued, pending, now, first, last,
                bounds, stop_id, memory, rows, final, changed):
    """Features of jobs ``first..last-1`` at their submission, as known at ``now``.

    ``h`` is the users' history, ``running``, ``queued`` and ``pending`` the
    engine entries running, waiting and not yet released. Writes ``rows``
    (user columns), ``final`` (nothing can change them) and ``changed``
    (they differ from ``memory.features`` or there is no prediction yet).
    Jobs already ``memory.settled`` are skipped (``final`` True, ``changed``
    False). Returns how many jobs submitted at ``now`` changed.
    """
    user, parent, duration = jobs.user, entries.parent, entries.duration
    queued_min, before, at, instant = (bounds.queued_min, bounds.before_instant,
                                       bounds.at_instant, bounds.instant)
    n_window = last - first
    for k in range(n_window):
        u = user[first + k]
        if u >= 0 and bounds.stamp[u] != stop_id:
            bounds.stamp[u] = stop_id
            queued_min[u] = np.inf
            before[u] = np.inf
            at[u] = np.inf
            instant[u] = -np.inf
    for source in (queued, pending):
        for i in range(source.shape[0]):
            e = source[i]
            u = user[parent[e]]
            if u >= 0 and bounds.stamp[u] == stop_id and duration[e] < queued_min[u]:
                queued_min[u] = duration[e]
    n_run = 0
    r_job = np.empty(running.shape[0], dtype=np.int64)
    for i in range(running.shape[0]):
        e = running[i]
        u = user[parent[e]]
        if u >= 0 and bounds.stamp[u] == stop_id:
            r_job[n_run] = e
            n_run += 1
    x_known = np.empty(n_run)
    x_submit = np.empty(n_run)
    x_id = np.empty(n_run)
    x_run = np.empty(n_run)
    x_ratio = np.empty(n_run)
    x_engine = np.empty(n_run, dtype=np.int64)
    n_now = 0
    for k in range(n_window):
        j = first + k
        u = user[j]
        s = jobs.submit[j]
        if u >= 0:
            if s > instant[u]:
                if at[u] < before[u]:
                    before[u] = at[u]
                at[u] = np.inf
                instant[u] = s
            ahead = s + duration[j]
            if ahead < at[u]:
                at[u] = ahead
        if memory.settled[j]:
            final[k] = True
            changed[k] = False
            continue
        is_final = True
        m = 0
        if u >= 0 and s > now:
            if now + queued_min[u] <= s or before[u] <= s:
                is_final = False
            for i in range(n_run):
                e = r_job[i]
                p = parent[e]
                if user[p] != u:
                    continue
                end = entries.start[e] + duration[e]
                if end > s:
                    continue
                if entries.successor[e] >= 0:
                    is_final = False  # its job ends after later pieces, at an unknown time
                    continue
                # insert in order (few entries)
                req = jobs.request[p]
                q = jobs.total[p] / req if req > 0 else np.nan
                pos = m
                while pos > 0 and _virtual_key_before(end, jobs.submit[p], jobs.job_id[p], e,
                                                      x_known[pos - 1], x_submit[pos - 1],
                                                      x_id[pos - 1], x_engine[pos - 1]):
                    x_known[pos] = x_known[pos - 1]
                    x_submit[pos] = x_submit[pos - 1]
                    x_id[pos] = x_id[pos - 1]
                    x_run[pos] = x_run[pos - 1]
                    x_ratio[pos] = x_ratio[pos - 1]
                    x_engine[pos] = x_engine[pos - 1]
                    pos -= 1
                x_known[pos] = end
                x_submit[pos] = jobs.submit[p]
                x_id[pos] = jobs.job_id[p]
                x_run[pos] = jobs.total[p]
                x_ratio[pos] = q
                x_engine[pos] = e
                m += 1
        features_ahead(h, u, s, n_recent, x_known[:m], x_submit[:m], x_id[:m], x_run[:m],
                       x_ratio[:m], rows, k)
        final[k] = is_final
        same = memory.has_value[j]
        if same:
            for c in range(rows.shape[1]):
                a = rows[k, c]
                b = memory.features[j, c]
                if a != b and not (a != a and b != b):
                    same = False
                    break
        changed[k] = not same
        if changed[k] and s == now:
            n_now += 1
    return n_now


@njit(cache=True)
def feed_completed(h, jobs, entries, done):
    """Add to ``h`` the jobs of ``done`` (engine entries, completion order) whose last piece ended."""
    for i in range(done.shape[0]):
        e = done[i]
        if entries.successor[e] >= 0:
            continue
        p = entries.parent[e]
        req = jobs.request[p]
        q = jobs.total[p] / req if req > 0 else np.nan
        insert_entry(h, jobs.user[p], entries.end[e], jobs.submit[p], jobs.job_id[p],
                     jobs.total[p], q)


@njit(cache=True)
def finish_window(submit, first, n_window, final, changed, memory, n_done, history, values):
    """``estimate_history`` codes and estimates of the window; mark final jobs settled.

    The engine checks the first job of an instant for all of them, so an
    instant is as valid as its least valid job: -1 (a job without a current
    prediction), ``n_done`` (valid while no job completes) or -2 (final).
    """
    start = 0
    while start < n_window:
        end = start + 1
        while end < n_window and submit[first + end] == submit[first + start]:
            end += 1
        level = 2
        for k in range(start, end):
            v = 0 if changed[k] else (2 if final[k] else 1)
            if v < level:
                level = v
        for k in range(start, end):
            if level == 0:
                history[k] = NO_ESTIMATE_YET
            elif level == 1:
                history[k] = n_done
            else:
                history[k] = ESTIMATE_FINAL
                memory.settled[first + k] = True
            values[k] = 1.0 if changed[k] else memory.value[first + k]
        start = end


class LearnedFeeder:
    """Estimates of a fitted ``HistoryFeatures`` pipeline for the simulator, exactly and fast.

    Same contract as the simulator's ``_Feeder``: :meth:`next_batch` returns
    the positions, estimates and ``estimate_history`` codes to fill.

    Attributes
    ----------
    n_calls, n_rows : int
        Regressor calls made and jobs predicted in them.
    """

    def __init__(self, pipeline, kept, state, pieces):
        features = pipeline.steps[0][1]
        # the later steps; a single one is called directly (what Pipeline.predict does)
        last = pipeline.steps[1][1]
        self.regressor = last if len(pipeline.steps) == 2 and hasattr(last, "predict") \
            else pipeline[1:]
        self.name = type(pipeline).__name__
        self.state = state
        self.n = n = len(kept)
        columns = check_jobs(kept, features._required_columns(), name="jobs",
                             owner="HistoryFeatures")
        columns["job_id"] = (np.asarray(kept["job_id"], dtype=np.float64)
                             if "job_id" in kept.columns else np.full(n, np.nan))
        self.history = HistoryState(features, columns)
        self.n_recent = self.history.n_recent
        self.submission = submission_columns(kept, columns["submit_time"], columns["req_time"],
                                             features.unix_start_time_)
        self.jobs = FeederJobs(
            user=self.history.user, submit=columns["submit_time"], job_id=columns["job_id"],
            request=columns["req_time"],
            total=np.bincount(pieces.all_parent, weights=pieces.dur, minlength=n))
        self._parent = np.ascontiguousarray(pieces.all_parent, dtype=np.int64)
        n_users = len(self.history.entries.head)
        self._bounds = UserBounds(np.full(n_users, -1, dtype=np.int64),
                                  *(np.empty(n_users) for _ in range(4)))
        width = user_column_count(self.n_recent)
        self.memory = Predictions(features=np.empty((n, width)), value=np.full(n, np.nan),
                                  has_value=np.zeros(n, dtype=np.bool_),
                                  settled=np.zeros(n, dtype=np.bool_))
        self._rows = np.empty((0, width))
        self._final = self._changed = self._history = self._values = np.empty(0)
        self.fed = 0
        self.stops = 0
        self.n_calls = 0
        self.n_rows = 0

    def next_batch(self):
        s = self.state
        counters = s.counters[0]
        now = float(counters["now"])
        ndone = int(counters["n_done"])
        h = self.history.entries
        entries = EngineEntries(parent=self._parent, start=s.jobs.start,
                                duration=s.jobs.duration, end=s.jobs.end,
                                successor=s.jobs.successor)
        if ndone > self.fed:
            feed_completed(h, self.jobs, entries, s.completed[self.fed:ndone])
            self.fed = ndone
        first = int(counters["next_arrival"])
        submit = self.jobs.submit
        last = min(first + LOOKAHEAD, self.n)
        if last < self.n and submit[last] == submit[last - 1]:  # never split an instant
            last = int(np.searchsorted(submit, submit[last - 1], side="right"))
        n_window = last - first
        if len(self._final) < n_window:
            size = max(n_window, 2 * len(self._final))
            self._rows = np.empty((size, self._rows.shape[1]))
            self._final = np.empty(size, dtype=np.bool_)
            self._changed = np.empty(size, dtype=np.bool_)
            self._history = np.empty(size, dtype=np.int64)
            self._values = np.empty(size)
        rows, final, changed = self._rows[:n_window], self._final[:n_window], \
            self._changed[:n_window]
        self.stops += 1
        n_now = plan_window(
            h, self.n_recent, self.jobs, entries, s.running.jobs[:int(s.running.length[0])],
            s.queue.jobs[:int(s.queue.length[0])], s.pending[:int(counters["n_pending"])], now,
            first, last, self._bounds, self.stops, self.memory, rows, final, changed)
        if n_now:
            ask = np.flatnonzero(changed)
            self._predict(ask + first, rows[ask])
            changed[:] = False
        history, values = self._history[:n_window], self._values[:n_window]
        finish_window(submit, first, n_window, final, changed, self.memory, ndone, history,
                      values)
        return np.arange(first, last), values.copy(), history.copy()

    def _predict(self, index, user_rows):
        matrix = np.hstack([self.submission[index], user_rows])
        values = predictions_of(self.regressor.predict(matrix), len(index),
                                f"{self.name}.predict", SimulationError)
        self.n_calls += 1
        self.n_rows += len(index)
        request = self.state.jobs.request[index]
        values = np.where(np.isfinite(values), values, request)
        if not np.isfinite(values).all():
            raise SimulationError(f"{self.name} gave no estimate for a job without a request")
        self.memory.value[index] = values
        self.memory.features[index] = user_rows
        self.memory.has_value[index] = True

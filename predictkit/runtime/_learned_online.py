"""Incremental state of :class:`~predictkit.runtime.LearnedRuntime` inside a simulation.

The passes of ``_learned_kernels`` walk the whole history at every
prediction. Inside the simulator (``start``, ``observe``, ``predict_for``)
the history only grows by completions in time order, and the jobs asked
are submitted no earlier than every completion seen, so the same passes
can be kept running instead: :class:`LearnedOnlineState` holds their state
(feature rings and moving means, residual rings, the calibration ``log
lam``), applies each completion in O(1), and processes the submission
of each job of the table once, just before the first completion that comes
after it, exactly where the pass puts it. Predictions asked by
``predict_for`` are computed from the current state (one regressor call per
call) and kept for that submission while no completion comes in between.
The model is refitted when the number of completions reaches the same
sizes as in the pass, on the same rows, so every prediction equals the
pass's; the fit itself waits until a submission needs the model.

A job that ends in the second it is submitted (known time equal to its
submit time) completes, in the pass, *before* its own submission is
processed: its completion moves no ``log lam`` (it has no estimate yet)
and puts ``log(run / request) - mu`` into the pooled residuals, where
``mu`` is the model's prediction for its submission, made after every
completion of that second. The state applies such a completion at once,
keeps its place in the pool open (:attr:`LearnedOnlineState.pending`), and
fills it, with the features, model and ``mu`` of the completions seen so
far, before any estimate is read from the state; once a later completion
comes, the second is over and the entry is final.

A completion may also arrive after completions of the same instant that
the pass orders after it: a zero-runtime job that waited starts and ends at
an instant where jobs submitted after it have already ended and been
applied (the pass orders completions of an instant by submit time). Every
completion of the current instant is applied with a record of what it
overwrote (``complete_row``), so the state takes back those the late one
precedes, newest first (``undo_row``, with their open pool entries and
refit sizes), and applies them again after it: every estimate read at that
instant, before or after, is the one the pass over the history seen so far
gives. The state's version (completions applied) then ends above any it
had before, so no estimate computed before the late completion is reused.

Where the simulator breaks these assumptions (a completion at an earlier
instant than one already applied or before its submission, a job asked
after a later completion, a history fitted before ``start``),
:meth:`LearnedOnlineState.applies` is false (:attr:`LearnedOnlineState.stopped`
says why) and the estimator goes back to the passes over the whole history.
"""

from bisect import bisect_left

import numpy as np

from ._base import group_codes
from ._learned_kernels import (
    FEATURE_NAMES, UNDO_SIZE, budget_state, complete_row, decide_rows, feature_state,
    features_for, undo_row,
)
from ._learned_kernels import tree_ensemble_predict
from ._learned_trees import on_columns

__all__ = ["LearnedOnlineState"]


class LearnedOnlineState:
    """The passes of a :class:`~predictkit.runtime.LearnedRuntime`, kept between calls.

    Parameters
    ----------
    estimator : LearnedRuntime
        Its parameters and model cache (``_fit_model``, ``_refit_sizes``).
    jobs : dict of ndarray
        The ``start`` table's columns (``submit_time``, ``req_time``,
        ``user_id``, ``group_id``, ``width``, ``status``, ``job_id``).
    constants : dict
        Ring and pool sizes and weights of the passes (``ring``, ``pooled``,
        ``pooled_weight``, ``sentinel``, ``min_user_jobs``, ``session``,
        ``log_lam_low``, ``log_lam_high``).
    """

    def __init__(self, estimator, jobs, constants):
        self.est = estimator
        self.c = constants
        self.jobs = jobs
        n = len(jobs["submit_time"])
        self.user, = group_codes([jobs], ("user_id",))
        self.group, = group_codes([jobs], ("group_id",))
        self.key, = group_codes([jobs], ("user_id", "req_time"))
        self.submit = np.ascontiguousarray(jobs["submit_time"], dtype=np.float64)
        self.req = np.ascontiguousarray(jobs["req_time"], dtype=np.float64)
        self.width = np.ascontiguousarray(jobs["width"], dtype=np.float64)
        self.job_key = np.where(np.isnan(jobs["job_id"]), np.inf, jobs["job_id"])
        self.run = np.full(n, np.nan)
        self.log_ratio = np.full(n, np.nan)
        self.log_run = np.full(n, np.nan)
        self.fail = np.full(n, np.nan)
        # values of each row's submission, computed after `version` completions
        self.features = np.full((n, len(FEATURE_NAMES)), np.nan)
        self.mu = np.zeros(n)
        self.modeled = np.zeros(n, dtype=np.bool_)
        self.pred = np.full(n, np.nan)
        self.version_of = np.full(n, -1, dtype=np.int64)
        self.order = np.argsort(self.submit, kind="stable")
        self.sorted_submit = self.submit[self.order]
        self.next_submission = 0
        n_codes = [int(c.max(initial=-1) + 1) for c in (self.user, self.group, self.key)]
        self.fstate = feature_state(*n_codes, constants["ring"])
        self.bstate = budget_state(n_codes[0], n_codes[2], constants["ring"],
                                   constants["pooled"])
        self.log_lam = -np.log(estimator.max_bad_share)
        self.version = 0
        self.done = np.empty(max(n, 1), dtype=np.int64)
        self.next_fit = int(estimator.min_train)
        self.model, self.used, self.trees = None, None, None
        self.fit_size, self.fit_due = 0, False
        # jobs ended in the second of their submission, while that second lasts: their
        # rows and positions in the history (both increasing), and those whose pooled
        # residual may be read: rows and pooled residuals written before each
        self.pending, self.pending_at = [], []
        self.pool_rows, self.pool_written = [], []
        self.settled = -1
        # completions of the current instant, in the passes' order, to take back when
        # one that comes before them arrives late: what each overwrote (`complete_row`)
        # and (row, next_fit, fit_size, fit_due, pending?, pooled?) before it
        self.instant = -np.inf
        self.instant_log = []
        self.undo = np.empty((64, UNDO_SIZE))
        self.n_taken_back = 0  # completions taken back and applied again, in all
        self.last = (-np.inf, -np.inf, -np.inf)
        self.applies = True
        self.stopped = None

    def _stop(self, reason):
        self.applies = False
        self.stopped = reason

    # -- submissions ---------------------------------------------------------------

    def _model_of(self, rows):
        """Features and model predictions of the submissions of ``rows`` now."""
        c = self.c
        features = features_for(rows, self.user, self.group, self.key, self.submit, self.req,
                                self.width, *self.fstate, c["ring"], c["session"])
        if self.model is None or not len(rows):
            return features, np.zeros(len(rows)), np.zeros(len(rows), dtype=np.bool_)
        if self.trees is not None:  # their nodes read the columns of `features` directly
            raw = tree_ensemble_predict(features, *self.trees)
        else:
            raw = self.model.predict(np.ascontiguousarray(features[:, self.used]))
        return features, np.minimum(raw, 0.0), np.ones(len(rows), dtype=np.bool_)

    def _settle(self):
        """Bring the model and the open pool entries up to the completions so far."""
        if self.settled == self.version:
            return
        self.settled = self.version
        # the submissions of the pending rows come after every completion of their second
        first = bisect_left(self.pending_at, self.fit_size - int(self.est.max_train))
        if first < len(self.pending_at) and self.pending_at[first] < self.fit_size:
            rows = np.array(self.pending, dtype=np.int64)
            self.features[rows] = self._features(rows)
            self.fit_due = True  # training rows' features moved
        if self.fit_due:
            self.fit_due = False
            self._fit(self.fit_size)
        p_res, p_count = self.bstate[4], int(self.bstate[5][0])
        # the entries before `live`: later residuals took their places
        live = bisect_left(self.pool_written, p_count - len(p_res) + 1)
        if live < len(self.pool_rows):
            rows = np.array(self.pool_rows[live:], dtype=np.int64)
            features, mu, _ = self._model_of(rows)
            self.features[rows] = features
            self.mu[rows] = mu
            if not np.isfinite(mu).all():
                self._stop("a model prediction that is not finite")
                return
            for row, written, m in zip(rows.tolist(), self.pool_written[live:], mu.tolist()):
                p_res[written % len(p_res)] = self.log_ratio[row] - m

    def _features(self, rows):
        c = self.c
        return features_for(rows, self.user, self.group, self.key, self.submit, self.req,
                            self.width, *self.fstate, c["ring"], c["session"])

    def _compute(self, rows):
        """Features, model prediction and estimate of the submissions of ``rows`` now."""
        self._settle()
        if not self.applies:
            return
        c = self.c
        features, mu, modeled = self._model_of(rows)
        est = self.est
        pred = decide_rows(rows, mu, modeled, self.user, self.key, self.req, *self.bstate,
                           self.log_lam, c["ring"], c["pooled"], c["pooled_weight"],
                           c["sentinel"], c["min_user_jobs"], float(est.bad_threshold))
        self.features[rows] = features
        self.mu[rows] = mu
        self.modeled[rows] = modeled
        self.pred[rows] = pred
        self.version_of[rows] = self.version

    def _refresh(self, rows):
        stale = rows[self.version_of[rows] != self.version]
        if len(stale):
            self._compute(stale)

    def predict(self, index):
        """Raw estimates of the jobs ``index`` (``None`` where the state no longer applies)."""
        index = np.asarray(index, dtype=np.int64)
        if len(index) and self.submit[index].min() < self.last[0]:
            self._stop("a job asked after a later completion")
            return None
        self._refresh(index)
        return self.pred[index] if self.applies else None

    # -- completions ---------------------------------------------------------------

    def observe(self, index, end_time, run_time):
        """Apply the completions of the jobs ``index`` in the passes' order.

        Completions of the current instant that the passes order after
        these are taken back first and applied again after them. Returns
        False (and applies nothing) when they break the assumptions of the
        module notes.
        """
        index = np.asarray(index, dtype=np.int64)
        if not len(index):
            return True
        known = np.asarray(end_time, dtype=np.float64)
        run = np.asarray(run_time, dtype=np.float64)
        submit = self.submit[index]
        if not (known >= submit).all():
            self._stop("a completion without an end time" if np.isnan(known).any()
                       else "a completion before its submission")
            return False
        if known.min() < self.instant:
            self._stop("a completion out of time order")
            return False
        self.run[index] = run
        req = self.req[index]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(req > 0, np.minimum(np.maximum(run, 1.0) / req, 2.0), np.nan)
            self.log_ratio[index] = np.log(ratio)
            self.log_run[index] = np.log(np.maximum(run, 1.0))
        status = self.jobs["status"][index]
        self.fail[index] = np.where(status >= 0, (status != 1).astype(np.float64), np.nan)
        if len(index) > 1:
            order = np.lexsort((self.job_key[index], submit, known))
            index, known, submit = index[order], known[order], submit[order]
        back = self._take_back((known[0], submit[0], self.job_key[index[0]]))
        if back:
            # they were added first: they stay first among equal keys
            index = np.concatenate([back, index])
            known = np.concatenate([np.full(len(back), self.instant), known])
            submit = self.submit[index]
            order = np.lexsort((self.job_key[index], submit, known))
            index, known, submit = index[order], known[order], submit[order]
        targets = np.searchsorted(self.sorted_submit, known, side="left")
        for i, t, target in zip(index.tolist(), known.tolist(), targets.tolist()):
            if t > self.instant:
                self.instant = t
                self.instant_log.clear()
            if self.pending and t > self.submit[self.pending[0]]:
                # the second of the open entries is over: they are final once settled
                self._settle()
                self.pending, self.pending_at = [], []
                self.pool_rows, self.pool_written = [], []
            if target > self.next_submission:
                self._refresh(self.order[self.next_submission:target])
                self.next_submission = target
            if not self.applies:
                return False
            self._apply(i, t)
        self.last = (known[-1], submit[-1], self.job_key[index[-1]])
        return True

    def _apply(self, i, t):
        """Apply the completion of row ``i`` at ``t``, the current instant."""
        est, c = self.est, self.c
        p_count = self.bstate[5]
        same_second = t == self.submit[i]
        pooled = same_second and bool(np.isfinite(self.log_ratio[i]))
        log = self.instant_log
        log.append((i, self.next_fit, self.fit_size, self.fit_due, same_second, pooled))
        if len(log) > len(self.undo):
            self.undo = np.concatenate([self.undo, np.empty_like(self.undo)])
        if same_second:
            # the pass completes it before its submission: no estimate yet, and
            # its pooled residual waits for the model's prediction (_settle)
            self.pending.append(i)
            self.pending_at.append(self.version)
            if pooled:
                self.pool_rows.append(i)
                self.pool_written.append(int(p_count[0]))
            self.settled = -1
        self.log_lam = complete_row(
            i, t, np.nan if same_second else self.pred[i],
            0.0 if same_second else self.mu[i], self.user, self.group, self.key,
            self.submit, self.req, self.run, self.fail, self.log_ratio, self.log_run,
            *self.fstate, *self.bstate, self.log_lam, c["ring"], float(est.bad_threshold),
            float(est.max_bad_share), float(est.step), c["log_lam_low"],
            c["log_lam_high"], self.undo[len(log) - 1])
        self.done[self.version] = i
        self.version += 1
        if self.version == self.next_fit:
            self.next_fit = min(2 * self.version, self.version + int(est.refit_every))
            self.fit_size, self.fit_due = self.version, True

    def _take_back(self, key):
        """Take back the completions of the current instant ordered after ``key``.

        Newest first, each to the state before it (the model is fitted again
        where a refit size is reached again). Returns their rows, oldest first.
        """
        log, back = self.instant_log, []
        while log and key < (self.instant, self.submit[log[-1][0]],
                             self.job_key[log[-1][0]]):
            i, self.next_fit, self.fit_size, self.fit_due, same_second, pooled = log.pop()
            self.log_lam = undo_row(i, self.undo[len(log)], self.user, self.group, self.key,
                                    self.log_ratio, *self.fstate, *self.bstate, self.c["ring"])
            self.version -= 1
            if same_second:
                self.pending.pop()
                self.pending_at.pop()
                if pooled:
                    self.pool_rows.pop()
                    self.pool_written.pop()
            back.append(i)
        if back:
            self.settled = -1
            self.n_taken_back += len(back)
        return back[::-1]

    def _fit(self, size):
        """Fit the model on the first ``size`` completions, as the passes do at this size."""
        train = self.done[:size][-int(self.est.max_train):]
        train = train[np.isfinite(self.log_ratio[train])]
        if len(train) < 2:
            self.model, self.used, self.trees = None, None, None
            return
        used = np.flatnonzero(np.isfinite(self.features[train]).any(axis=0))
        self.model, trees = self.est._fit_model(
            np.ascontiguousarray(self.features[np.ix_(train, used)]), self.log_ratio[train])
        self.used = used
        self.trees = None if trees is None else on_columns(trees, used)


"""Requests drawn from the same user's requests for jobs of similar length.

Tsafrir, Etsion and Feitelson (JSSPP 2005, section 11.4) name the
repetitiveness of users as what a request model leaves out. In the archive
logs a user asks for a few habitual values whatever the job's length: in
one busy week of Sandia-Ross one user's 73 jobs of a few minutes all ask for
30 min and another's 53 one-minute jobs ask for 2-12 h, while the log's
requests for jobs of 30 s to 2 min range from 10 min to 200 h (5% and 95%
quantiles). A model that draws a user's padding from the pooled distribution
(even with a shared user score) gives such a burst of short jobs requests
from that whole range, and EASY's bounded slowdown is driven by the bursts
that draw long ones.

:class:`UserRequestTable` is the empirical model of those habits: fitted to a
log, it keeps every job's ``(user, runtime, request)``; a job of runtime
``r`` of user ``u`` asks for the request of one of the ``neighbors`` jobs of
``u``'s fitted template user with the runtimes nearest ``r`` (in log scale),
chosen at random. A job no chosen neighbor covers (its request is below the
runtime) is left to the caller's fallback model (``NaN``). A user not seen in
the fit takes a fitted user as template, chosen with probability proportional
to the fitted users' job counts, so the table generates requests for
synthetic users too. Jobs without a user (a log without user ids) share one
pooled template: the model is then the empirical request distribution
conditional on the runtime alone.

Fitted with submit times, :meth:`UserRequestTable.draw_recent` follows the
user's habits of the time: the neighbors come from the user's jobs around
the same point of the user's activity. :meth:`UserRequestTable.chain` makes a
job repeat its user's previous request with a fitted share (an autoregressive
choice among the user's values).
"""

import numpy as np

from ..exceptions import ConfigError

__all__ = ["UserRequestTable", "positions_in_time"]


class UserRequestTable:
    """The requests of each user's jobs sorted by runtime, fitted to a log.

    Parameters
    ----------
    neighbors : int
        Jobs of the template user with the nearest runtimes among which a
        job's request is drawn.

    Attributes
    ----------
    users_ : ndarray
        Fitted user ids (ascending); jobs without a user form one pooled
        template after them.
    start_, stop_ : ndarray of int
        Each template's slice of ``log_runtime_`` and ``request_``.
    log_runtime_, request_ : ndarray
        ``log10`` runtimes and requests of the fitted jobs, sorted by template
        and runtime.
    job_order_ : ndarray of int
        Position in those arrays of each fitted job (input order).
    time_order_ : ndarray of int or None
        Position of each fitted job among its template's jobs in time order
        (``time_log_runtime_``, ``time_request_``); None when fitted without
        submit times.
    repeat_share_ : float
        Share of a user's jobs that :meth:`chain` makes repeat the previous
        job's request (when that covers them): the log's share of such
        repeats (``observed_repeat_share_``, among a user's consecutive jobs
        in submit order) beyond the share the draws repeat by themselves.
    """

    def __init__(self, *, neighbors=10):
        if int(neighbors) < 1:
            raise ConfigError(f"neighbors must be at least 1, got {neighbors!r}")
        self.neighbors = int(neighbors)

    def fit(self, runtimes, requests, users=None, submit_times=None):
        """Keep the log's jobs by user and runtime; fit the repeat share.

        ``runtimes`` and ``requests`` positive and finite; ``users`` may hold
        NaN (jobs without a user); the repeat share needs ``submit_times``.
        """
        run = np.asarray(runtimes, dtype=float)
        req = np.asarray(requests, dtype=float)
        users = np.full(run.size, np.nan) if users is None else np.asarray(users, dtype=float)
        known = ~np.isnan(users)
        self.users_, codes = np.unique(users[known], return_inverse=True)
        template = np.full(run.size, self.users_.size, dtype=np.int64)
        template[known] = codes
        log_run = np.log10(np.maximum(run, 1.0))
        order = np.lexsort((log_run, template))
        counts = np.bincount(template, minlength=self.users_.size + 1)
        self.stop_ = np.cumsum(counts)
        self.start_ = self.stop_ - counts
        self.log_runtime_ = log_run[order]
        self.request_ = req[order]
        self.job_order_ = np.empty(run.size, dtype=np.int64)
        self.job_order_[order] = np.arange(run.size)
        self.weights_ = counts[:-1] / max(counts[:-1].sum(), 1)
        self.repeat_share_ = 0.0
        self.time_order_ = None
        if submit_times is not None:
            submit = np.asarray(submit_times, dtype=float)
            by_time = np.lexsort((submit, template))
            self.time_order_ = np.empty(run.size, dtype=np.int64)
            self.time_order_[by_time] = np.arange(run.size)
            self.time_log_runtime_ = log_run[by_time]
            self.time_request_ = req[by_time]
        if submit_times is not None and known.any():
            observed = _repeat_share(run, req, template, submit, known)
            # the draws repeat by themselves as often as a user's values coincide
            drawn = self.draw(run, template, np.random.default_rng(0))
            drawn = np.where(np.isnan(drawn), -1.0, drawn)
            natural = _repeat_share(run, drawn, template, submit, known)
            self.repeat_share_ = float(np.clip((observed - natural) / max(1 - natural, 1e-9),
                                               0.0, 1.0))
            self.observed_repeat_share_ = observed
        return self

    def templates(self, users, rng):
        """Template index of each job's user: the fitted user itself, else a random one."""
        n_fitted = self.users_.size
        if users is None:
            return None
        users = np.asarray(users, dtype=float)
        known = ~np.isnan(users)
        out = np.full(users.size, n_fitted, dtype=np.int64)
        if not known.any():
            return out
        labels, codes = np.unique(users[known], return_inverse=True)
        position = np.searchsorted(self.users_, labels)
        seen = (position < n_fitted) & (self.users_[np.minimum(position, n_fitted - 1)]
                                        == labels) if n_fitted else np.zeros(labels.size, bool)
        chosen = np.where(seen, position, n_fitted)
        unseen = ~seen
        if unseen.any() and n_fitted:
            chosen[unseen] = rng.choice(n_fitted, size=int(unseen.sum()), p=self.weights_)
        out[known] = chosen[codes]
        return out

    def draw(self, runtimes, templates, rng, *, exclude=None, uniforms=None):
        """A neighbor's request per job, NaN where it does not cover the runtime.

        ``templates``: from :meth:`templates` (None: every job pooled, or the
        whole table when the pooled template is empty). ``exclude``: a
        position in the table each job may not draw (its own fitted entry),
        or -1. ``uniforms``: the uniform draw that picks each job's neighbor
        (default independent per job; shared by a session, its jobs of similar
        length ask alike).
        """
        run = np.asarray(runtimes, dtype=float)
        n = run.size
        if templates is None:
            templates = np.full(n, self.users_.size, dtype=np.int64)
        start, stop = self.start_[templates], self.stop_[templates]
        empty = stop <= start
        # the pooled template of a log with users is empty: use the whole table
        start = np.where(empty, 0, start)
        stop = np.where(empty, self.request_.size, stop)
        log_run = np.log10(np.maximum(run, 1.0))
        at = np.empty(n, dtype=np.int64)
        for t in np.unique(templates):
            mask = templates == t
            s, e = int(start[mask][0]), int(stop[mask][0])
            keys = self.log_runtime_[s:e]
            # centred on the jobs of equal runtime (a spike of jobs killed at one limit)
            at[mask] = s + (np.searchsorted(keys, log_run[mask], side="left")
                            + np.searchsorted(keys, log_run[mask], side="right")) // 2
        size = np.minimum(self.neighbors, stop - start)
        excluded = np.full(n, -1, dtype=np.int64) if exclude is None else np.asarray(exclude)
        has_own = excluded >= 0
        size = np.where(has_own, np.minimum(self.neighbors + 1, stop - start), size)
        low = np.clip(at - size // 2, start, stop - size)
        take = np.where(has_own & (size > 1), size - 1, size)
        u = rng.random(n) if uniforms is None else np.asarray(uniforms, dtype=float)
        pick = low + np.minimum(np.floor(u * take).astype(np.int64), take - 1)
        pick = np.where(has_own & (size > 1) & (pick >= excluded) & (excluded >= low)
                        & (excluded < low + size), pick + 1, pick)
        request = self.request_[pick]
        lone = has_own & (size <= 1)
        return np.where((request >= run) & ~lone, request, np.nan)

    def draw_recent(self, runtimes, templates, positions, rng, *, window=50, exclude=None,
                    uniforms=None):
        """A request of the template's jobs near in time and runtime; NaN where below the runtime.

        ``positions`` in [0, 1]: where each job falls in its user's jobs in
        time (0 the first, 1 the last); it is mapped to the same point of the
        template's jobs. The job draws among the ``neighbors`` jobs of nearest
        runtime among the template's ``2 * window + 1`` jobs around that point,
        so a user's values follow the user's habits of the time. Needs a
        table fitted with submit times. ``exclude``: a position in the table's
        time order each job may not draw (:attr:`time_order_`), or -1.
        """
        run = np.asarray(runtimes, dtype=float)
        n = run.size
        if templates is None:
            templates = np.full(n, self.users_.size, dtype=np.int64)
        log_run = np.log10(np.maximum(run, 1.0))
        u = rng.random(n) if uniforms is None else np.asarray(uniforms, dtype=float)
        jitter = rng.random((n, 2 * window + 1)) * 1e-9  # ties broken at random
        excluded = np.full(n, -1, dtype=np.int64) if exclude is None else np.asarray(exclude)
        out = np.full(n, np.nan)
        for t in np.unique(templates):
            jobs = np.flatnonzero(templates == t)
            s, e = int(self.start_[t]), int(self.stop_[t])
            if e <= s:
                s, e = 0, self.request_.size
            m = e - s
            width = min(2 * window + 1, m)
            centre = np.rint(np.clip(positions[jobs], 0.0, 1.0) * (m - 1)).astype(np.int64)
            low = s + np.clip(centre - window, 0, m - width)
            index = low[:, None] + np.arange(width)
            distance = np.abs(self.time_log_runtime_[index] - log_run[jobs, None])
            distance = distance + jitter[jobs, :width]
            distance[index == excluded[jobs, None]] = np.inf
            usable = np.isfinite(distance).sum(axis=1)
            k = np.minimum(self.neighbors, usable)
            nearest = np.argsort(distance, axis=1)
            column = np.minimum(np.floor(u[jobs] * k).astype(np.int64), np.maximum(k - 1, 0))
            chosen = index[np.arange(jobs.size), nearest[np.arange(jobs.size), column]]
            request = self.time_request_[chosen]
            out[jobs] = np.where((k > 0) & (request >= run[jobs]), request, np.nan)
        return out

    def chain(self, runtimes, requests, users, submit_times, rng):
        """Each job repeats its user's previous request, when that covers it, with the share."""
        if users is None or submit_times is None or self.repeat_share_ <= 0:
            return requests
        users = np.asarray(users, dtype=float)
        run = np.asarray(runtimes, dtype=float)
        known = np.flatnonzero(~np.isnan(users))
        order = known[np.lexsort((np.asarray(submit_times, float)[known], users[known]))]
        repeat = rng.random(run.size) < self.repeat_share_
        out = np.array(requests, dtype=float)
        for k in range(1, order.size):
            i, p = order[k], order[k - 1]
            if users[i] == users[p] and repeat[i] and out[p] >= run[i]:
                out[i] = out[p]
        return out


def positions_in_time(users, times=None):
    """Each job's place among its user's jobs in time: 0 the first, 1 the last.

    Jobs without a user (NaN) are placed among all such jobs; without
    ``times`` the jobs' order is their time order.
    """
    users = np.asarray(users, dtype=float)
    n = users.size
    times = np.arange(n, dtype=float) if times is None else np.asarray(times, dtype=float)
    known = ~np.isnan(users)
    codes = np.zeros(n, dtype=np.int64)
    codes[known] = np.unique(users[known], return_inverse=True)[1] + 1
    order = np.lexsort((np.arange(n), times, codes))
    counts = np.bincount(codes)
    start = np.cumsum(counts) - counts
    rank = np.empty(n)
    rank[order] = np.arange(n) - start[codes[order]]
    return rank / np.maximum(counts[codes] - 1, 1)


def _repeat_share(run, req, template, submit, known):
    idx = np.flatnonzero(known)
    order = idx[np.lexsort((submit[idx], template[idx]))]
    same = template[order][1:] == template[order][:-1]
    covers = same & (req[order][:-1] >= run[order][1:])
    repeats = covers & (req[order][1:] == req[order][:-1])
    return float(repeats.sum() / covers.sum()) if covers.any() else 0.0

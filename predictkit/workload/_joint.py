"""A joint model of runtimes and requests: modal requests chosen from the runtime.

The modal model of Tsafrir, Etsion and Feitelson (JSSPP 2005) describes the
requests of a log as ``K`` modes and pairs them with runtimes by a random
shuffle (section 11.2), which ignores how users choose a request for a job
they know; the paper leaves that correlation to future work (section 11.4).
Real logs show it plainly: short jobs sit far below their request, long jobs
reach it, a spike of jobs is killed at its limit, and a user repeats the same
request. :class:`JointEstimates` models it in three steps, all fitted to a log:

1. **Padding by runtime length.** Runtimes fall into bins of half a decade
   (below 10 s, 10-32 s, ..., above 32,000 s); in each bin the model keeps the
   distribution of the padding ``log10(request / runtime)`` (clipped at 0: a
   job that ran past its request was at it), as quantiles at every percent.
   A job's target request is its runtime times a padding drawn from its bin.
   The padding quantiles near 0 are the spike of jobs at their request.
2. **Modes.** The target is rounded to the nearest mode in log scale among
   the modes at least the runtime (a request never falls below its job).
   The 20 most popular modes (the head, with ``t_max``) are the candidates
   of most jobs; a share ``tail_share`` of the jobs may also use the tail
   modes, as the modal model's tail holds about 11% of the jobs.
3. **Users and sessions.** The padding is drawn by inverse transform from a
   uniform ``Phi(z)`` with ``z = sqrt(a) z_user + sqrt(b) z_session +
   sqrt(1 - a - b) z_job`` (standard normal scores): a share ``a`` of the
   padding's variation belongs to the user (some users are always accurate,
   others always pad) and a share ``b`` to the session, so a session repeats
   its request (a session also shares its rounding draws). The marginal
   distribution is unchanged by ``a`` and ``b``. By default each user draws
   an independent score; ``user_scores="stratified"`` (a measured candidate,
   not the default: see ``docs/workload.md``) draws them stratified by
   activity (:func:`stratified_user_scores`), so the job-weighted
   distribution of the user scores is exactly standard normal and the
   heaviest users do not shift the whole distribution from one draw to the
   next.
4. **The user's own values** (``user_requests=True``, the default; a fitted
   model only).
   A user asks for a few habitual values, which change over time, whatever
   the job's length; drawn from the pooled paddings, a user's burst of short
   jobs gets one random request from the log's whole range. A fitted model
   keeps each user's ``(submit time, runtime, request)`` jobs
   (:class:`._user_requests.UserRequestTable`): a job at the ``f``-th point of
   its user's jobs in time asks for the request of one of the 10 jobs of
   nearest runtime among the 101 jobs of its user around the same point (a
   user not in the log takes a fitted user, chosen by job count, as
   template; a session's jobs share the pick); steps 1-3 give the request
   only where that request does not cover the runtime. In a log without user
   ids the log's jobs form one sequence; fitted without submit times, the
   nearest runtimes among all the user's jobs.

Fitted to a log, the modes are the log's own request values (the head: its 20
most popular ones), the paddings its paddings per runtime bin, and ``a``, ``b``
the shares of the variance of the padding's normal scores between users and
between a user's sessions (one-way variance decomposition). Unfitted, the
modes come from :class:`TsafrirEstimates` (``t_max``, ``p_max``) and the
paddings from the default site of :mod:`._site`.
"""

import copy
from numbers import Integral, Real

import numpy as np
from scipy.special import ndtr, ndtri

from .._time import parse_duration
from .._validation import (RANDOM_STATE, Duration, Interval, StrOptions, check_fitted,
                           invalid_parameter)
from ..exceptions import ConfigError
from ..jobs import validate_jobs
from . import _default_site
from ._base import EstimateModel, as_rng, check_sample_inputs
from ._runtimes import inverse_transform, quantile_table
from ._sessions import DEFAULT_THINK_TIME, session_ids
from ._tsafrir_modes import N_HEAD
from ._user_requests import UserRequestTable, positions_in_time

__all__ = ["JointEstimates", "RUNTIME_BIN_EDGES", "runtime_bin", "AT_REQUEST"]

RUNTIME_BIN_EDGES = np.arange(1.0, 5.0, 0.5)
"""``log10`` runtime edges of the padding bins (10 s, 32 s, ..., 31,623 s)."""

AT_REQUEST = 0.99
"""Accuracy ``min(run / request, 1)`` from which a job counts as at its request."""

_MAX_SHARE = 0.95


def runtime_bin(runtimes):
    """Padding bin of each runtime (0 .. len(RUNTIME_BIN_EDGES))."""
    log_run = np.log10(np.maximum(np.asarray(runtimes, dtype=float), 1.0))
    return np.searchsorted(RUNTIME_BIN_EDGES, log_run, side="right").astype(np.int64)


def _codes(labels):
    """Integer codes ``0 .. m - 1`` of ``labels``; NaN labels each get their own code."""
    labels = np.asarray(labels, dtype=float)
    unknown = np.isnan(labels)
    codes = np.empty(labels.size, dtype=np.int64)
    _, codes_known = np.unique(labels[~unknown], return_inverse=True)
    codes[~unknown] = codes_known
    start = int(codes_known.max()) + 1 if codes_known.size else 0
    codes[unknown] = start + np.arange(int(unknown.sum()))
    return codes


def _normal_scores(values, groups):
    """Normal scores ``Phi^-1(mid-rank / n)`` of ``values`` within each group."""
    order = np.lexsort((values, groups))
    v, g = values[order], groups[order]
    n = v.size
    # mid-ranks of ties within a group
    new_run = np.r_[True, (v[1:] != v[:-1]) | (g[1:] != g[:-1])]
    run_id = np.cumsum(new_run) - 1
    run_start = np.flatnonzero(new_run)
    run_len = np.diff(np.r_[run_start, n])
    new_group = np.r_[True, g[1:] != g[:-1]]
    group_start = np.flatnonzero(new_group)
    group_len = np.diff(np.r_[group_start, n])
    group_id = np.cumsum(new_group) - 1
    rank = run_start[run_id] - group_start[group_id] + (run_len[run_id] + 1) / 2.0
    scores = np.empty(n)
    scores[order] = ndtri(rank / (group_len[group_id] + 1.0))
    return scores


def stratified_user_scores(user_codes, rng):
    """One normal score per user, stratified by the users' job counts.

    The users, in a random order, share out the unit interval in proportion
    to their jobs; each user's score is ``Phi^-1`` of a uniform point within
    its own stretch. Every user keeps one score, and the job-weighted
    distribution of the scores is the standard normal law whatever the users
    draw: under a Zipf law of activity the heaviest user (a sixth of the jobs)
    no longer moves the whole padding distribution from one seed to another,
    as independent scores per user do.

    Parameters
    ----------
    user_codes : ndarray of int
        Each job's user (non-negative codes; codes without jobs are allowed).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (user_codes.max() + 1,)
        The score of each user code (a code without jobs gets a score of a
        stretch of length 0, never used).
    """
    counts = np.bincount(user_codes).astype(float)
    if counts.size == 0:
        return counts
    order = rng.permutation(counts.size)
    share = counts[order] / counts.sum()
    low = np.cumsum(share) - share
    scores = np.empty(counts.size)
    scores[order] = ndtri(np.clip(low + rng.random(counts.size) * share, 1e-12, 1.0 - 1e-12))
    return scores


def _within_variance(scores, groups):
    """Pooled within-group variance (groups of one job carry no information)."""
    counts = np.bincount(groups)
    sums = np.bincount(groups, weights=scores)
    squares = np.bincount(groups, weights=scores ** 2)
    several = counts >= 2
    if not several.any():
        return None
    within = squares[several] - sums[several] ** 2 / counts[several]
    return float(within.sum() / (counts[several] - 1).sum())


def consistency_shares(padding, bins, users, sessions):
    """Shares of the padding's normal-score variance between users and between sessions.

    Returns ``(user_share, session_share)``, each in [0, 0.95] with their sum
    at most 0.95; 0 where the log has no user ids.
    """
    scores = _normal_scores(padding, bins)
    total = float(np.var(scores))
    if total <= 0:
        return 0.0, 0.0
    within_user = _within_variance(scores, users)
    within_session = _within_variance(scores, sessions)
    user = 0.0 if within_user is None else float(np.clip(1 - within_user / total, 0, _MAX_SHARE))
    both = user if within_session is None else float(
        np.clip(1 - within_session / total, user, _MAX_SHARE))
    return user, both - user


class JointEstimates(EstimateModel):
    """Requests that depend on the runtime, the user and the session, on modal values.

    Beyond the modal model (Tsafrir et al. 2005), which pairs estimates with
    jobs at random: a job's request is its runtime times a padding drawn from
    the log's paddings for runtimes of that length, rounded to the nearest
    mode; users and sessions are consistent in their padding. See the module
    documentation and ``docs/workload.md`` for the model and its fit.

    Parameters
    ----------
    t_max : float or str, optional
        Maximal request (at least 1 h). Unfitted, the modal model's maximum.
        ``fit`` learns ``t_max_`` (the longest of the log's 20 most popular
        requests) and keeps every request of the log up to its longest;
        given, ``t_max`` is the largest request of the fitted model: the
        log's requests above it (modes and users' own) become it, and a
        ``t_max`` above the log's longest request is added as a mode, so
        runtimes up to it are covered.
    p_max : float, optional
        Percent of jobs at ``t_max`` in the unfitted model's modes
        (:class:`TsafrirEstimates`); ignored by a fitted model.
    user_share, session_share : float, optional
        Shares of the padding's variation that belong to the user and to the
        session (each in [0, 0.95], their sum at most 0.95). ``fit`` learns
        them unless given; the unfitted defaults are the default site's.
    tail_share : float, optional
        Share of jobs whose request may be a tail mode (beyond the 20 most
        popular). ``fit`` learns it unless given; default 0.11 (the modal model).
    user_scores : {"independent", "stratified"}
        How each user's padding score (drawn once for all its jobs) is drawn:
        ``"independent"`` (default), a standard normal draw per user;
        ``"stratified"``, stratified by the users' job counts
        (:func:`stratified_user_scores`), so that the job-weighted
        distribution of the user scores is exactly standard normal whatever
        the heaviest users draw. The stratified scores are a measured
        candidate, not the default (``docs/workload.md``).
    think_time : float or str
        Session threshold when sessions are found from users and submit times
        (default 20 min, Zilber et al. 2005).
    min_jobs : int
        Smallest runtime bin that gets its own paddings when fitting (others
        use the whole log's).
    truncate : bool
        Runtimes above the largest mode are an error by default; with ``True``
        they are capped at it (and ``transform`` caps ``run_time``).
    user_requests : bool
        With ``True`` (default), a fitted model draws each job's request from
        the requests of its user's jobs of nearest runtime at the same point
        of the user's history (step 4 of the module documentation); with
        ``False`` every request comes from the paddings (steps 1-3). An
        unfitted model has no users' requests and ignores it. On the whole of
        the nine archive logs with a queue, EASY's bounded slowdown with the
        requests of the default is within 10% of the real requests' on 9 of
        them (mean over seeds), with ``False`` on 5 (``docs/workload.md``).
    random_state : int, RandomState, Generator or None

    Attributes
    ----------
    t_max_ : float
    mode_values_ : ndarray
        The fitted modes (the log's request values used by at least two jobs,
        and its longest request; ascending); ``mode_head_`` marks the 20 most
        popular.
    padding_quantiles_ : ndarray, shape (10, 101)
        ``log10`` padding quantiles per runtime bin (the last row pooled).
    user_share_, session_share_, tail_share_ : float
    user_table_ : UserRequestTable or None
        The log's requests by user and time (None with ``user_requests=False``).
    n_jobs_seen_ : int

    Examples
    --------
    >>> import numpy as np
    >>> model = JointEstimates(t_max="18h", random_state=0)
    >>> runtimes = np.array([30.0, 600.0, 4000.0, 60000.0])
    >>> requests = model.sample(runtimes)
    >>> bool((requests >= runtimes).all())
    True
    """

    _parameter_constraints = {
        "t_max": [Duration(minimum=3600), None],
        "p_max": [Interval(Real, 0, 100, closed="both"), None],
        "user_share": [Interval(Real, 0, _MAX_SHARE, closed="both"), None],
        "session_share": [Interval(Real, 0, _MAX_SHARE, closed="both"), None],
        "tail_share": [Interval(Real, 0, 1, closed="both"), None],
        "think_time": [Duration()],
        "min_jobs": [Interval(Integral, 1, None, closed="left")],
        "truncate": ["boolean"],
        "repeat_in_session": ["boolean"],
        "user_requests": ["boolean"],
        "user_scores": [StrOptions({"independent", "stratified"})],
        "random_state": [RANDOM_STATE],
    }
    _stateless = False

    def __init__(self, *, t_max=None, p_max=None, user_share=None, session_share=None,
                 tail_share=None, think_time=DEFAULT_THINK_TIME, min_jobs=50, truncate=False,
                 repeat_in_session=False, user_requests=True, user_scores="independent",
                 random_state=None):
        self.repeat_in_session = repeat_in_session
        self.user_requests = user_requests
        self.user_scores = user_scores
        self.t_max = t_max
        self.p_max = p_max
        self.user_share = user_share
        self.session_share = session_share
        self.tail_share = tail_share
        self.think_time = think_time
        self.min_jobs = min_jobs
        self.truncate = truncate
        self.random_state = random_state

    def __sklearn_is_fitted__(self):
        return hasattr(self, "mode_values_") or self.t_max is not None

    def _check_params(self):
        super()._check_params()
        user = self.user_share or 0.0
        session = self.session_share or 0.0
        if user + session > _MAX_SHARE + 1e-12:
            raise invalid_parameter("session_share", "JointEstimates",
                                    f"at most {_MAX_SHARE} minus user_share ({user:g})", session)

    def fit(self, X, y=None):
        """Learn modes, paddings per runtime bin and user/session consistency from a log.

        Jobs without a positive runtime and request (unknown, ``NaN``, or 0)
        are left out of the fit.

        Raises
        ------
        JobTableError
            If the column ``run_time`` or ``req_time`` is missing.
        ConfigError
            If no job has a positive runtime and request.
        """
        self._check_params()
        validate_jobs(X, present=("run_time", "req_time"))
        run = X["run_time"].to_numpy(dtype=float)
        req = X["req_time"].to_numpy(dtype=float)
        keep = np.isfinite(run) & np.isfinite(req) & (run > 0) & (req > 0)
        if not keep.any():
            raise ConfigError("cannot fit JointEstimates: no job has a positive run_time "
                              "and req_time")
        run, req = run[keep], req[keep]
        values, counts = np.unique(req, return_counts=True)
        popular = np.argsort(-counts, kind="stable")
        head = np.zeros(values.size, dtype=bool)
        head[popular[:N_HEAD]] = True
        used = (counts >= 2) | head
        used[-1] = True  # the longest request covers every runtime of the log
        self.t_max_ = float(values[head].max())
        self.mode_values_ = values[used]
        self.mode_head_ = head[used]
        self.mode_weights_ = counts[used] / req.size
        if self.t_max is not None:
            self._limit_modes(parse_duration(self.t_max, name="t_max"))
        self.tail_share_ = (float(self.tail_share) if self.tail_share is not None
                            else float(1.0 - counts[head].sum() / req.size))
        padding = np.log10(np.maximum(req / run, 1.0))
        bins = runtime_bin(run)
        self.padding_quantiles_, self.bin_jobs_ = quantile_table(
            padding, bins, RUNTIME_BIN_EDGES.size + 1, self.min_jobs)
        user, session = self._fit_consistency(X, keep, run, padding, bins)
        self.user_table_ = None
        if self.user_requests:
            self.user_table_ = UserRequestTable().fit(run, req, _column(X, "user_id", keep),
                                                      _column(X, "submit_time", keep))
        self.user_share_ = float(self.user_share) if self.user_share is not None else user
        self.session_share_ = (float(self.session_share) if self.session_share is not None
                               else min(session, _MAX_SHARE - self.user_share_))
        self.n_jobs_seen_ = int(req.size)
        return self

    def _limit_modes(self, t_max):
        """Make ``t_max`` the largest request of the fitted modes.

        The modes above ``t_max`` are folded into it (their jobs asked for
        more than the limit allows: they ask for the limit, as a site's
        maximal request gathers the jobs that would ask for more); a
        ``t_max`` above every mode is added as a popular mode of weight 0,
        asked for only by runtimes no other mode covers.
        """
        below = self.mode_values_ < t_max
        self.mode_values_ = np.r_[self.mode_values_[below], t_max]
        self.mode_weights_ = np.r_[self.mode_weights_[below], self.mode_weights_[~below].sum()]
        self.mode_head_ = np.r_[self.mode_head_[below], True]
        self.t_max_ = float(t_max)

    def limited(self, t_max):
        """A copy of this fitted model whose largest request is ``t_max``.

        Parameters
        ----------
        t_max : float or str
            The maximal request (at least 1 h): the modes above it fold into
            it, the users' own requests above it become it (see ``t_max``).

        Returns
        -------
        JointEstimates
        """
        check_fitted(self, "mode_values_")
        model = copy.copy(self)
        model.t_max = t_max
        model._check_params()
        model._limit_modes(parse_duration(t_max, name="t_max"))
        return model

    def _fit_consistency(self, X, keep, run, padding, bins):
        if "user_id" not in X.columns:
            return 0.0, 0.0
        users = X["user_id"].to_numpy(dtype=float)[keep]
        if np.isnan(users).all():
            return 0.0, 0.0
        user_codes = _codes(users)
        if "submit_time" in X.columns:
            submit = X["submit_time"].to_numpy(dtype=float)[keep]
            known = ~np.isnan(submit)
            sessions = np.arange(run.size, dtype=np.int64) + user_codes.max() + 1
            sessions[known] = session_ids(users[known], submit[known], run[known],
                                          parse_duration(self.think_time, name="think_time"))
        else:
            sessions = np.arange(run.size, dtype=np.int64)
        return consistency_shares(padding, bins, user_codes, sessions)

    def _settings(self, n, rng):
        """(modes, weights, head mask, tail share, paddings, user share, session share)."""
        if hasattr(self, "mode_values_"):
            return (self.mode_values_, self.mode_weights_, self.mode_head_, self.tail_share_,
                    self.padding_quantiles_, self.user_share_, self.session_share_)
        from ._tsafrir import TsafrirEstimates

        if self.t_max is None:
            raise invalid_parameter(
                "t_max", "JointEstimates",
                "given (the maximal request, e.g. t_max='18h') unless the model is fitted "
                "on a log with requests", None)
        site = _default_site.default_site()
        table = TsafrirEstimates(t_max=self.t_max, p_max=self.p_max,
                                 random_state=rng).mode_table(max(n, 1))
        tail = self.tail_share if self.tail_share is not None else float(
            table.loc[~table["head"], "percent"].sum() / 100.0)
        estimates = site.estimates_
        user = self.user_share if self.user_share is not None else estimates.user_share_
        session = (self.session_share if self.session_share is not None
                   else min(estimates.session_share_, _MAX_SHARE - user))
        return (table["estimate"].to_numpy(), table["percent"].to_numpy() / 100.0,
                table["head"].to_numpy(), tail, estimates.padding_quantiles_, user, session)

    def largest_request(self, n_jobs=1000):
        """The largest request the model can give (runtimes above it cannot be covered)."""
        if hasattr(self, "mode_values_"):
            return float(self.mode_values_.max())
        self._check_params()
        if self.t_max is None:
            return self._settings(n_jobs, as_rng(0))[0].max()
        return parse_duration(self.t_max, name="t_max")

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """One request per job, each at least the job's runtime.

        Parameters
        ----------
        runtimes : array-like of float, shape (n,)
        users, submit_times : array-like, shape (n,), optional
            With users, a user's jobs share the user's padding tendency; with
            submit times too, the jobs of a session (``think_time``) share
            one more.
        estimates : ignored

        Returns
        -------
        ndarray of float, shape (n,)
        """
        self._check_params()
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        if run.size == 0:
            return np.zeros(0)
        user_codes = session_codes = None
        if users is not None:
            user_codes = _codes(users)
            if submit_times is not None:
                session_codes = session_ids(users, submit_times, run,
                                            parse_duration(self.think_time, name="think_time"))
        return self.draw(run, user_codes, session_codes, as_rng(self.random_state),
                         users=users, submit_times=submit_times)[0]

    def draw(self, runtimes, user_codes, session_codes, rng, *, precise=True, users=None,
             submit_times=None):
        """Requests and at-request flags for runtimes, users and sessions (integer codes).

        ``user_codes`` and ``session_codes`` may be None (independent jobs).
        ``users``: the jobs' user ids, matched to the fitted log's users for
        ``user_requests`` (without them, each user code takes a random fitted
        user as template); ``submit_times`` order a user's jobs for it
        (without them, the jobs' order).
        Each user's padding score is drawn once for all its jobs: an
        independent normal draw per user, or, with
        ``user_scores="stratified"``, stratified by activity
        (:func:`stratified_user_scores`), so that the job-weighted
        distribution of the user scores is exactly standard normal.
        The flags mark jobs whose padding is below ``1 / AT_REQUEST`` (the
        spike of jobs at their request). With ``precise``, such a job whose
        runtime no mode fits within that margin asks for its runtime itself
        (the runtimes are given and final); :func:`make_workload` passes
        ``precise=False`` and ends those jobs at their (modal) request instead,
        as jobs killed at their limit.
        """
        self._check_params()
        run = np.asarray(runtimes, dtype=float)
        n = run.size
        modes, weights, head, tail, table, user_share, session_share = self._settings(n, rng)
        largest = modes.max()
        if n and run.max() > largest:
            if not self.truncate:
                raise ConfigError(
                    f"the largest request ({largest:g} s) is below the longest runtime "
                    f"({run.max():g} s, {int((run > largest).sum()):,} job(s)); pass "
                    "truncate=True to cap runtimes at it")
            run = np.minimum(run, largest)
        # without users (or sessions) their share of the variance stays with the job
        user_share = user_share if user_codes is not None else 0.0
        session_share = session_share if session_codes is not None else 0.0
        scores = np.sqrt(max(1.0 - user_share - session_share, 0.0)) * rng.standard_normal(n)
        if user_share > 0:
            per_user = (stratified_user_scores(user_codes, rng)
                        if self.user_scores == "stratified"
                        else rng.standard_normal(user_codes.max() + 1))
            scores += np.sqrt(user_share) * per_user[user_codes]
        if session_share > 0:
            scores += np.sqrt(session_share) * rng.standard_normal(
                session_codes.max() + 1)[session_codes]
        padding = np.maximum(inverse_transform(table, runtime_bin(run), ndtr(scores)), 0.0)
        at_request = padding < np.log10(1.0 / AT_REQUEST)
        target = np.log10(np.maximum(run, 1.0)) + padding
        # a session rounds alike: its jobs of similar length ask for the same mode
        group = session_codes if session_codes is not None else np.arange(n)
        use_tail = (rng.random(group.max() + 1)[group] < tail) | at_request
        u = rng.random(group.max() + 1)[group]
        request = np.where(use_tail, _round_to_mode(modes, weights, run, target, u),
                           _round_to_mode(modes[head], weights[head], run, target, u))
        # a job at its request that no mode fits asked for its own runtime (a precise user)
        if precise:
            request = np.where(at_request & (request * AT_REQUEST > run), np.maximum(run, 1.0),
                               request)
        request = np.maximum(request, run)
        if session_codes is not None and self.repeat_in_session:
            longest = np.zeros(session_codes.max() + 1)
            np.maximum.at(longest, session_codes, run)
            lead = np.flatnonzero(run == longest[session_codes])
            pick = np.zeros(longest.size)
            pick[session_codes[lead]] = request[lead]
            request = pick[session_codes]
            at_request = run >= AT_REQUEST * request
        table = getattr(self, "user_table_", None)
        if table is not None and self.user_requests:
            labels = users if users is not None else (
                None if user_codes is None else user_codes + table.users_.max(initial=0) + 1.0)
            templates = table.templates(labels, rng)
            shared = (None if session_codes is None
                      else rng.random(session_codes.max() + 1)[session_codes])
            if table.time_order_ is None:
                own = table.draw(run, templates, rng, uniforms=shared)
            else:
                place = positions_in_time(np.full(n, np.nan) if labels is None else labels,
                                          submit_times)
                own = table.draw_recent(run, templates, place, rng, uniforms=shared)
            own = np.minimum(own, largest)
            # a generated runtime drawn at its request (not precise) keeps that draw
            covered = ~np.isnan(own) & (precise | ~at_request)
            request = np.where(covered, own, request)
            at_request = np.where(covered, run >= AT_REQUEST * request, at_request)
        return request, at_request


def _column(X, name, keep):
    """A column of the kept jobs as floats, or None when the table has none."""
    return X[name].to_numpy(dtype=float)[keep] if name in X.columns else None


def _round_to_mode(values, weights, run, target, u):
    """Round ``10 ** target`` to one of the two modes around it (among modes >= run).

    The mode below (``lo``) and the one above (``hi``) in log scale are chosen
    with odds ``w_lo (1 - d) : w_hi d``, where ``d`` in [0, 1] is where the
    target lies between them and ``w`` the modes' popularity: a popular mode
    draws the targets around it, as real users settle on a few values.
    ``values`` ascending; a job no value covers gets the largest value.
    """
    logs = np.log10(np.maximum(values, 1.0))
    hi = np.searchsorted(logs, target, side="left")
    hi_ok = hi < values.size
    hi_c = np.minimum(hi, values.size - 1)
    lo_c = np.maximum(hi - 1, 0)
    lo_ok = (hi >= 1) & (values[lo_c] >= run)
    gap = np.maximum(logs[hi_c] - logs[lo_c], 1e-12)
    d = np.clip((target - logs[lo_c]) / gap, 0.0, 1.0)
    w_lo = weights[lo_c] * (1.0 - d)
    w_hi = weights[hi_c] * d
    with np.errstate(invalid="ignore", divide="ignore"):
        p_lo = np.where(w_lo + w_hi > 0, w_lo / (w_lo + w_hi), 1.0 - d)
    pick_lo = lo_ok & (~hi_ok | (u < p_lo))
    # no value at or above the target: the largest one (it covers every runtime)
    return np.where(pick_lo | ~hi_ok, values[lo_c], values[hi_c])

"""Users' sessions laid over an arrival stream: a user submits the next job once the last one ended.

The Lublin-Feitelson arrival process says when jobs arrive, not whose they
are. Real users work in sessions (Zilber, Amit and Talby, ICS 2005; Shmueli
and Feitelson's feedback model, JSSPP 2006): most of a user's jobs are
submitted after the user's previous job has ended and a short think time has
passed, some come in bursts, seconds apart. A user also runs the same
applications again and again, so the runtimes of consecutive jobs repeat
(median ``|log10(run_2 / run_1)|`` of a user's consecutive jobs is
0.013-0.30 on thirteen archive logs: ``benchmarks/workload_locality.py``).
Predictors that learn from a user's finished jobs rely on both.

Here the arrivals are handed out in time order. Each open session knows when
its next job is due: right after its last submission (a burst, share
``burst``) or after its last job's runtime plus an exponential think time.
An arrival goes to the session that has been due longest; when no session is
due, it opens a new one, which takes the arrival's size and type. A session
lasts a geometric number of jobs. Its runtimes share a normal score: the
user's application's home score (weight ``persistence``), itself partly the
user's (weight ``user_affinity``: a user's applications run alike), plus the
session's own; each job adds its own noise (``spread``) or, with probability
``repeat``, repeats the previous job's noise, hence its runtime.

The scores are turned into runtimes through a site's runtime quantiles per
size class (:class:`RuntimeDistribution`), as ``RuntimeDistribution.sample``
does, inside the pass: when a session's next job is due depends on the
runtime of its last one.
"""

import heapq
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ._joint import stratified_user_scores

__all__ = ["SessionDraws", "draw_sessions", "lay_sessions", "mean_runtimes"]


class SessionDraws(NamedTuple):
    """The random draws behind :func:`lay_sessions`, one array per quantity.

    Attributes
    ----------
    length : ndarray of int64, shape (n,)
        Jobs of session ``s`` (geometric, >= 1), for sessions in the order they open.
    score : ndarray, shape (n,)
        Normal score of session ``s``'s runtimes (before each job's noise).
    noise : ndarray, shape (n,)
        Fresh noise of the job at each arrival.
    fresh : ndarray of bool, shape (n,)
        Whether the job at each arrival draws fresh noise (else it repeats its
        session's previous job's; a session's first job always draws).
    burst : ndarray of bool, shape (n,)
        Whether the next job of the session of each arrival is due at once.
    think : ndarray, shape (n,)
        Seconds between the end of the job at each arrival and its session's next job.
    """

    length: np.ndarray
    score: np.ndarray
    noise: np.ndarray
    fresh: np.ndarray
    burst: np.ndarray
    think: np.ndarray


def draw_sessions(rng, n, user_of_session, app_of_session, *, session_jobs, persistence,
                  user_affinity, repeat, burst, think_time):
    """Draw :class:`SessionDraws` for ``n`` arrivals (at most ``n`` sessions).

    ``user_of_session`` and ``app_of_session`` hold, for each of the ``n``
    possible sessions, the code of its user and of the user's application it
    runs (non-negative codes). Each user and each application has a home
    score, stratified by the jobs their sessions will hold
    (:func:`~predictkit.workload._joint.stratified_user_scores`), so that the
    job-weighted scores stay standard normal however few heavy users
    dominate: the runtimes keep the site's distribution. An application's
    score is ``sqrt(a) z_user + sqrt(1 - a) z_app`` (``a = user_affinity``),
    a session's ``sqrt(p) z_application + sqrt(1 - p) z_session`` (``p =
    persistence``).
    """
    length = rng.geometric(1.0 / session_jobs, size=n).astype(np.int64)
    opened = int(np.searchsorted(np.cumsum(length), n)) + 1
    app_home = _home_scores(rng, app_of_session, length, opened)
    user_home = _home_scores(rng, user_of_session, length, opened)
    application = (np.sqrt(user_affinity) * user_home[user_of_session]
                   + np.sqrt(1.0 - user_affinity) * app_home[app_of_session])
    score = np.sqrt(persistence) * application + np.sqrt(1.0 - persistence) * rng.standard_normal(n)
    noise = rng.standard_normal(n)
    fresh = rng.random(n) >= repeat
    bursts = rng.random(n) < burst
    think = rng.exponential(think_time, size=n) if think_time > 0 else np.zeros(n)
    return SessionDraws(length, score, noise, fresh, bursts, think)


def _home_scores(rng, code_of_session, length, opened):
    """A normal score per code, stratified by the jobs of the first ``opened`` sessions (each
    ``length`` jobs long); codes no such session holds get independent scores."""
    home = rng.standard_normal(int(code_of_session.max()) + 1)
    stratified = stratified_user_scores(np.repeat(code_of_session[:opened], length[:opened]),
                                        rng)
    home[:stratified.size] = stratified
    return home


def mean_runtimes(log_quantiles):
    """Mean runtime of each row of log10-runtime quantiles (linear between the stored ones)."""
    low, high = log_quantiles[:, :-1], log_quantiles[:, 1:]
    width = high - low
    flat = np.abs(width) < 1e-12
    # mean of 10**x for x uniform on [low, high]
    segment = np.where(flat, 10.0 ** low,
                       (10.0 ** high - 10.0 ** low) / np.where(flat, 1.0, width * np.log(10.0)))
    return segment.mean(axis=1)


def lay_sessions(times, position_class, draws, log_quantiles, spread):
    """Hand the arrivals to sessions; return each job's session, runtime and score.

    Parameters
    ----------
    times : ndarray, shape (n,)
        Arrival times in seconds, non-decreasing.
    position_class : ndarray of int64, shape (n,)
        Size class of the job drawn at each arrival (a session keeps its first one's).
    draws : SessionDraws
    log_quantiles : ndarray, shape (n_classes + 1, 101)
        ``RuntimeDistribution.log_quantiles_``.
    spread : float
        Weight of each job's noise in its score, in [0, 1].

    Returns
    -------
    session : ndarray of int64, shape (n,)
        Session of the job at each arrival, numbered in the order they open.
    start : ndarray of int64, shape (n_sessions,)
        The arrival that opened each session.
    run : ndarray, shape (n,)
        Runtimes in whole seconds (>= 1).
    score : ndarray, shape (n,)
        The normal score of each runtime (``run`` is what
        ``RuntimeDistribution.sample`` gives for it).
    """
    times = np.ascontiguousarray(times, dtype=np.float64)
    if times.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), np.zeros(0)
    session, start, run, score, n_sessions = _lay_sessions_pass(
        times, np.ascontiguousarray(position_class, dtype=np.int64), draws.length,
        draws.score, draws.noise, draws.fresh, draws.burst, draws.think,
        np.ascontiguousarray(log_quantiles, dtype=np.float64), float(spread))
    return session, start[:n_sessions], run, score


@njit(cache=True)
def _runtime_of_score(row, score):
    """``RuntimeDistribution.sample`` for one job: whole seconds at quantile ``Phi(score)``."""
    last = row.size - 1
    position = min(max(0.5 * (1.0 + math.erf(score / math.sqrt(2.0))), 0.0), 1.0) * last
    low = min(int(math.floor(position)), last - 1)
    log_run = row[low] + (position - low) * (row[low + 1] - row[low])
    return max(np.round(10.0 ** log_run), 1.0)


@njit(cache=True)
def _lay_sessions_pass(times, position_class, length, session_score, noise, fresh, burst,
                       think, log_quantiles, spread):
    """One pass over the arrivals in time order.

    Invariant: when arrival ``i`` is handled, the heap ``due`` holds exactly
    the open sessions (those with jobs left), each keyed by the time its next
    job is due and its number (ties go to the older session). Arrival ``i``
    goes to the top session if it is due by ``times[i]``, else opens session
    ``n_sessions``.
    """
    n = times.size
    session = np.empty(n, dtype=np.int64)
    start = np.empty(n, dtype=np.int64)
    run = np.empty(n)
    score = np.empty(n)
    jobs_left = np.empty(n, dtype=np.int64)
    last_noise = np.empty(n)
    job_weight = math.sqrt(1.0 - spread * spread)
    due = [(0.0, np.int64(0))]
    due.pop()
    n_sessions = 0
    for i in range(n):
        if len(due) and due[0][0] <= times[i]:
            s = heapq.heappop(due)[1]
            job_noise = noise[i] if fresh[i] else last_noise[s]
        else:
            s = n_sessions
            n_sessions += 1
            start[s] = i
            jobs_left[s] = length[s]
            job_noise = noise[i]
        last_noise[s] = job_noise
        session[i] = s
        score[i] = job_weight * session_score[s] + spread * job_noise
        run[i] = _runtime_of_score(log_quantiles[position_class[start[s]]], score[i])
        jobs_left[s] -= 1
        if jobs_left[s] > 0:
            next_due = times[i] if burst[i] else times[i] + run[i] + think[i]
            heapq.heappush(due, (next_due, np.int64(s)))
    return session, start, run, score, n_sessions

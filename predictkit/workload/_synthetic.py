"""Complete synthetic job tables: Lublin-Feitelson arrivals and sizes with users, sessions,
site runtimes, joint requests and a controlled load."""

import os
from numbers import Integral, Real

import numpy as np

from .._deprecation import NOT_PASSED, UNSET, renamed_argument
from .._table import MAX_EXACT
from .._time import parse_duration
from .._validation import (RANDOM_STATE, Duration, HasMethods, Interval, StrOptions, WholeNumber,
                           invalid_parameter, validate_params)
from ..exceptions import InvalidParameterError
from ..jobs import as_job_table
from ._base import as_rng
from ._joint import JointEstimates
from ._load import paced_arrivals, to_calendar, to_rate_time
from ._lublin import (SECONDS_IN_BUCKET, TYPE_CODE, bucket_weights, sample_arrivals,
                      sample_runtimes, sample_sizes)
from ._runtimes import RuntimeDistribution, size_class
from ._session_arrivals import draw_sessions, lay_sessions, mean_runtimes
from ._session_fit import DEFAULT_SESSIONS
from ._default_site import default_site
from ._tsafrir import TsafrirEstimates

__all__ = ["make_workload"]

MAX_LOAD = 100.0
"""Largest offered load :func:`make_workload` takes: a hundred machines' worth of work a
week (overload studies run at 1-2; far above, arrivals only bunch into the same seconds)."""

DEFAULT_LOAD = 0.7
"""Offered load of :func:`make_workload` by default (production machines run at 0.6-0.8)."""
DEFAULT_MACHINE_PROCS = 128
"""Machine size of :func:`make_workload` by default (and of the built-in site's runtimes)."""
DEFAULT_T_MAX = 18 * 3600.0
"""Maximal runtime and request by default (18 h, the modal model's SDSC limit)."""

APPS_PER_USER = 3
"""Applications each synthetic user runs (``app_id``); a session runs one of them."""

BYTES_PER_JOB = 1024
"""Peak memory of :func:`make_workload` per job in bytes, rounded up (measured: 480-550)."""

BYTES_PER_USER = 64
"""Memory of :func:`make_workload` per user in bytes: the users' weights and the arrays
choosing among them."""


@validate_params({
    "n_jobs": [WholeNumber(1, integral=True, high=2**62)],
    "machine_procs": [Interval(Integral, 1, 2**53 - 1, closed="both")],
    "n_procs": [Interval(Integral, 1, 2**53 - 1, closed="both"), NOT_PASSED],
    "random_state": [RANDOM_STATE],
    "t_max": [Duration(minimum=3600), None],
    "p_max": [Interval(Real, 0, 100, closed="both"), None],
    "job_types": ["boolean"],
    "load": [Interval(Real, 0, MAX_LOAD, closed="right"), None],
    "n_users": [Interval(Integral, 1, None, closed="left"), None],
    "user_skew": [Interval(Real, 0, None, closed="left")],
    "session_jobs": [Interval(Real, 1, None, closed="left")],
    "runtime_spread": [Interval(Real, 0, None, closed="left"), None],
    "persistence": [Interval(Real, 0, 1, closed="both"), None],
    "user_affinity": [Interval(Real, 0, 1, closed="both"), None],
    "repeat": [Interval(Real, 0, 1, closed="both"), None],
    "burst": [Interval(Real, 0, 1, closed="both"), None],
    "think_time": [Duration(minimum=0)],
    "weekend_factor": [Interval(Real, 0, None, closed="neither")],
    "site": [HasMethods(["fit"]), None],
    "runtimes": [StrOptions({"site", "lublin"})],
    "estimates": [StrOptions({"joint", "modal"})],
})
def make_workload(n_jobs, *, machine_procs=DEFAULT_MACHINE_PROCS, random_state=None, t_max=None,
                  p_max=None, job_types=True, load=DEFAULT_LOAD, n_users=None, user_skew=1.0,
                  session_jobs=5.0, runtime_spread=None, persistence=None, user_affinity=None,
                  repeat=None, burst=None, think_time=300.0, weekend_factor=0.5, site=None,
                  runtimes="site", estimates="joint", n_procs=UNSET):
    """Generate a synthetic job table that looks like a real log.

    Arrivals, sizes and job types follow Lublin & Feitelson (JPDC 2003,
    parameters of the archive's ``m_lublin99``): a daily cycle (plus a weekly
    one added here), sizes preferring powers of two. On top of that model,
    which has no users or estimates:

    * each user runs three applications and works in sessions of
      ``session_jobs`` jobs on average (geometric lengths), each running one
      of the user's applications; a session keeps the size and type of its
      first job. A session's next job is submitted once its last job has run
      (plus an exponential think time of mean ``think_time``), or at once
      (a burst, share ``burst``): the arrivals go, in time order, to the
      session due longest, or open a new one
      (:mod:`predictkit.workload._session_arrivals`). Users are drawn per
      session from a Zipf-like law (user ``i`` has weight
      ``1 / i ** user_skew``) and belong to groups;
    * runtimes (``runtimes="site"``, the default) follow a site's runtime
      distribution per job-size class (:class:`RuntimeDistribution`): the
      built-in site (an equal-weight mixture of nine archive logs) or
      ``site``, through normal scores that repeat as real users' runtimes do:
      an application's sessions share a home score (``persistence``), a
      user's applications partly share theirs (``user_affinity``), a
      session's jobs vary around the session's score (``runtime_spread``)
      and repeat the previous job's runtime with probability ``repeat``;
      these and ``burst`` are the site's: fitted to its log by a
      :class:`SiteModel`, :data:`DEFAULT_SESSIONS` for the built-in site.
      ``runtimes="lublin"`` keeps Lublin & Feitelson's hyper-gamma runtimes,
      with sessions of consecutive arrivals whose runtimes vary around the
      first job's (``runtime_spread``);
    * requests (``estimates="joint"``, the default) come from
      :class:`JointEstimates`: a padding of the runtime drawn for its length,
      rounded to modal values, consistent within users and sessions; jobs
      drawn at their request ran into it (their runtime is the request,
      status 0). ``estimates="modal"`` uses :class:`TsafrirEstimates` with the
      session-aware assignment, as predictkit 0.2 did;
    * runtimes are capped at ``t_max`` (capped jobs get status 0);
    * arrivals are paced so that every 7-day window offers ``load`` of the
      machine within +-load/7 and one job's work at each edge, keeping the daily
      and weekly cycles (see :mod:`predictkit.workload._load`).

    Parameters
    ----------
    n_jobs : int
        Number of jobs (> 0).
    machine_procs : int, default=128
        Processors in the machine (sizes scale with ``log2(machine_procs)``;
        ``attrs["max_procs"]``).
    random_state : int, RandomState, Generator or None
    t_max : float or str, optional
        Maximal runtime and request (at least 1 h). Default: 18 h, or the
        largest request of ``site``; with ``site``, the site's requests
        above it become it (:meth:`JointEstimates.limited`).
    p_max : float, optional
        Percent of jobs requesting ``t_max`` with ``estimates="modal"``
        (default about 22%; jobs that no shorter mode covers get ``t_max``
        too, so the share is at least theirs: 9-15% of 10,000 jobs of the
        built-in site over seeds 0-4, more or less with other seeds and
        sizes, which a lower ``p_max`` does not change). The joint model draws
        each request from the job's runtime and padding, which sets that
        share (16-24% on the built-in site, by seed), so it refuses ``p_max``.
    job_types : bool
        Batch and interactive streams (``queue_id`` 1 and 0) or the typeless model.
    load : float or None, default=0.7
        Offered load ``sum(run_time * n_procs) / (machine_procs * span)`` of
        every 7-day window, at most :data:`MAX_LOAD`. ``None`` keeps the
        Lublin-Feitelson model's own arrival process, whatever load it gives.
        A load so low that the submit times reach 2**53 s is refused.
    n_users : int, optional
        Default ``max(10, round(sqrt(n_jobs)))``, capped at 2,000.
    user_skew : float
        Zipf exponent of user activity (>= 0).
    session_jobs : float
        Mean jobs per session (>= 1).
    runtime_spread : float, optional
        Default: the site's (0.3 for the built-in site). How much runtimes vary within a session: the weight of a job's own
        normal score in its score (``runtimes="site"``; 1 or more makes a
        session's jobs independent), or the standard deviation of the log
        runtime ratio to the session's first job (``runtimes="lublin"``).
    persistence : float, optional
        How much a user's sessions of one application share their runtimes:
        the share of the variance of a session's score that is the
        application's (0: independent sessions; ``runtimes="site"``).
        Default: the site's (0.9 for the built-in site; not fitted).
    user_affinity : float, optional
        How much a user's applications share their runtimes: the share of
        the variance of an application's score that is its user's (0:
        independent applications; ``runtimes="site"``). Default: the site's
        (0.5 for the built-in site).
    repeat : float, optional
        Probability that a job repeats the runtime (normal score) of its
        session's previous job (``runtimes="site"``). Default: the site's
        (0.5 for the built-in site).
    burst : float, optional
        Share of a session's jobs whose next job is submitted at once, not
        after the job has run (``runtimes="site"``). Default: the site's
        (0.5 for the built-in site).
    think_time : float or str, default=300
        Mean seconds between the end of a session's job and the submission of
        its next one (exponential; ``runtimes="site"``).
    weekend_factor : float
        Arrival rate on Saturdays and Sundays relative to weekdays (> 0; 1
        gives the plain daily cycle).
    site : SiteModel, optional
        A site fitted to a log (:class:`SiteModel`): its runtimes and requests
        replace the built-in site's.
    runtimes : {"site", "lublin"}
    estimates : {"joint", "modal"}
    n_procs : int, optional
        Deprecated name of ``machine_procs`` (``n_procs`` is also the job
        table's column of allocated processors); warns, removed in 0.3.

    Returns
    -------
    DataFrame
        A canonical job table sorted by ``submit_time``. ``wait_time`` is
        unknown (``NaN``: no schedule exists yet), ``preceding_job_id`` and
        ``think_time`` too. ``attrs`` has ``max_procs``, ``max_nodes``,
        ``max_runtime`` and ``note``.

    Raises
    ------
    InvalidParameterError
        For an invalid argument (a ``ConfigError`` and ``ValueError``), naming it;
        also when ``n_jobs`` jobs cannot fit in the machine's memory (about
        1 KiB per job while generating).

    Examples
    --------
    >>> jobs = make_workload(1000, random_state=0)
    >>> bool((jobs["req_time"] >= jobs["run_time"]).all())
    True
    """
    machine_procs = renamed_argument("make_workload", "n_procs", "machine_procs", n_procs,
                                     machine_procs, new_default=DEFAULT_MACHINE_PROCS,
                                     stacklevel=5)
    _check_memory(n_jobs, n_users)
    if p_max is not None and estimates == "joint":
        raise InvalidParameterError(
            "The 'p_max' parameter of make_workload sets the share of jobs at t_max of the "
            "modal model (estimates='modal'); the joint model (estimates='joint', the "
            "default) draws each request from the job's runtime and padding, which sets that "
            "share: pass estimates='modal' with p_max.", parameter="p_max",
            owner="make_workload")
    if site is not None and not hasattr(site, "estimates_"):
        raise invalid_parameter("site", "make_workload", "a fitted SiteModel (call fit first)",
                                site)
    joint = _joint_model(site, t_max) if estimates == "joint" else None
    if t_max is not None:
        t_max = parse_duration(t_max, name="t_max")
    elif joint is not None and site is not None:
        t_max = max(joint.largest_request(), 3600.0)
    else:
        t_max = DEFAULT_T_MAX
    think_time = parse_duration(think_time, name="think_time")
    sessions = _session_parameters(site, runtime_spread=runtime_spread, persistence=persistence,
                                   user_affinity=user_affinity, repeat=repeat, burst=burst)
    rng = as_rng(random_state)
    n = int(n_jobs)
    if n_users is None:
        n_users = int(min(2000, max(10, round(np.sqrt(n)))))

    types = ("interactive", "batch") if job_types else ("typeless",)
    submit, kind = _arrivals(rng, n, types, weekend_factor)
    size = np.empty(n)
    for code, name in enumerate(types):
        mask = kind == code
        size[mask] = sample_sizes(rng, int(mask.sum()), name, machine_procs)

    group_of_user = rng.integers(1, max(2, n_users // 5) + 1, size=n_users + 1)
    if runtimes == "lublin":
        session = np.cumsum(rng.random(n) < 1.0 / session_jobs)
        session -= session[0]
        first = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
        head = first[session]
        run = _lublin_runtimes(rng, size[head], kind[head], types, head, first,
                               sessions.runtime_spread)
        user_of_session, app_of_session = _users_of_sessions(rng, first.size, n_users,
                                                             user_skew)
    else:
        # at most n sessions; those that open take the first codes
        user_of_session, app_of_session = _users_of_sessions(rng, n, n_users, user_skew)
        model = site.runtimes_ if site is not None else default_runtimes()
        draws = draw_sessions(rng, n, user_of_session - 1, app_of_session,
                              session_jobs=session_jobs, persistence=sessions.persistence,
                              user_affinity=sessions.user_affinity, repeat=sessions.repeat,
                              burst=sessions.burst, think_time=think_time)
        session, start, run = _laid_sessions(submit, size, draws, model, machine_procs, load,
                                             t_max, min(sessions.runtime_spread, 1.0),
                                             bucket_weights(types[-1], weekend_factor))
        head = start[session]
    size, kind = size[head], kind[head]
    killed = run > t_max
    run = np.minimum(run, t_max)
    user = user_of_session[session].astype(float)
    app = (app_of_session[session] + 1).astype(float)

    if joint is not None:
        requests, at_request = joint.draw(run, user_of_session[session] - 1, session, rng,
                                          precise=False)
        # a job drawn at its request ran into it: killed at its limit
        killed |= at_request & (requests > run)
        run = np.where(at_request, np.minimum(requests, t_max), run)
        requests = np.maximum(requests, run)

    if load is not None:
        profile = bucket_weights(types[-1], weekend_factor)
        submit = paced_arrivals(submit, run * size, capacity=machine_procs, load=load,
                                weights=profile, bucket_seconds=SECONDS_IN_BUCKET)
    submit = np.floor(submit - submit[0])
    span = float(submit.max(initial=0.0))
    if load is not None and not span < MAX_EXACT:
        raise invalid_parameter(
            "load", "make_workload", f"at least about {load * span / MAX_EXACT:.3g} for these "
            f"{n:,} jobs (below it they span {span / (365.25 * 86400):.3g} years and "
            "their submit times pass 2**53 s, which a job table cannot hold exactly)", load)

    if joint is None:
        requests = TsafrirEstimates(t_max=t_max, p_max=p_max, assignment="sessions",
                                    random_state=rng).sample(run, users=user, submit_times=submit)
        _warn_share_at_t_max(p_max, requests, t_max)
    queue = np.array([TYPE_CODE[name] for name in types], dtype=float)[kind]
    jobs = as_job_table({
        "submit_time": submit, "run_time": run, "n_procs": size, "req_procs": size,
        "req_time": requests, "status": np.where(killed, 0.0, 1.0), "user_id": user,
        "group_id": group_of_user[user.astype(np.int64)].astype(float), "app_id": app,
        "queue_id": queue,
    }, attrs={
        "max_procs": int(machine_procs), "max_nodes": int(machine_procs),
        "max_runtime": int(t_max), "note": _note(runtimes, estimates, site, load),
    })
    return jobs


def _warn_share_at_t_max(p_max, requests, t_max):
    """Warn when jobs that no shorter mode covers put more jobs at ``t_max`` than ``p_max``."""
    if p_max is None or not len(requests):
        return
    share = 100.0 * float(np.mean(requests >= t_max))
    if share > p_max + 1.0:
        import warnings

        warnings.warn(f"p_max={p_max:g}: {share:.1f}% of the jobs request t_max, since jobs "
                      "that no shorter mode covers get it too", UserWarning, stacklevel=4)


def _session_parameters(site, **given):
    """The given session parameters, the others the site's (:data:`DEFAULT_SESSIONS` for the
    built-in site or a site fitted without them)."""
    fitted = getattr(site, "sessions_", None) or DEFAULT_SESSIONS
    return fitted._replace(**{name: float(value) for name, value in given.items()
                              if value is not None})


def _joint_model(site, t_max):
    """The request model: the site's fitted one, or the built-in site's for ``t_max``."""
    if site is not None:
        return site.estimates_ if t_max is None else site.estimates_.limited(t_max)
    return JointEstimates(t_max=DEFAULT_T_MAX if t_max is None else t_max)


SESSION_CLOCK_PASSES = 3
"""Passes of :func:`_laid_sessions` over the arrivals (each refines the time scale)."""


def _users_of_sessions(rng, n_sessions, n_users, user_skew):
    """Each session's user (1-based, Zipf-like: user ``i`` has weight ``1 / i ** user_skew``)
    and application code (0-based, :data:`APPS_PER_USER` per user)."""
    weights = 1.0 / np.arange(1, n_users + 1, dtype=np.float64) ** float(user_skew)
    user = rng.choice(n_users, size=n_sessions, p=weights / weights.sum()) + 1
    return user, (user - 1) * APPS_PER_USER + rng.integers(0, APPS_PER_USER, size=n_sessions)


def _laid_sessions(submit, size, draws, model, machine_procs, load, t_max, spread, weights):
    """Sessions laid over the arrivals on the time scale the paced arrivals will have.

    Pacing (:func:`paced_arrivals`) stretches the model's arrivals so that the
    work offered per week is ``load``, and the work depends on the sessions'
    runtimes and sizes. The first pass estimates it from each arrival's size
    and its size class's mean runtime (capped at ``t_max``); each further pass
    takes the work of the sessions the previous pass laid. Returns
    ``(session, start, run)`` of :func:`lay_sessions`.
    """
    position_class = size_class(size, machine_procs)
    times = submit - submit[0]
    if load is not None and times.size > 1 and times[-1] > 0:
        rate = to_rate_time(times, weights, SECONDS_IN_BUCKET)
        work = float((size * mean_runtimes(np.minimum(model.log_quantiles_, np.log10(t_max)))
                      [position_class]).sum())
    for _ in range(SESSION_CLOCK_PASSES if load is not None else 1):
        if load is not None and times.size > 1 and times[-1] > 0:
            times = to_calendar(rate * (work / (load * machine_procs)) / rate[-1], weights,
                                SECONDS_IN_BUCKET)
        session, start, run, _ = lay_sessions(times, position_class, draws,
                                              model.log_quantiles_, spread)
        work = float((size[start[session]] * np.minimum(run, t_max)).sum())
    return session, start, run


def _lublin_runtimes(rng, size, kind, types, head, first, runtime_spread):
    """Lublin-Feitelson runtimes; a session's jobs vary around its first job's."""
    run = np.empty(size.size)
    for code, name in enumerate(types):
        mask = kind == code
        run[mask] = sample_runtimes(rng, size[mask], name)
    noise = np.exp(rng.normal(0.0, runtime_spread, size.size))
    noise[first] = 1.0
    return np.maximum(np.floor(run[head] * noise), 1.0)


def _note(runtimes, estimates, site, load):
    source = "a fitted site" if site is not None else "the built-in site"
    run = ("Lublin & Feitelson (2003) runtimes" if runtimes == "lublin"
           else f"runtimes of {source}")
    req = ("Tsafrir et al. (2005) modal estimates" if estimates == "modal"
           else f"joint requests of {source}")
    paced = "model's own arrival rate" if load is None else f"offered load {load:g} per week"
    return (f"synthetic: Lublin & Feitelson (2003) arrivals and sizes, users, sessions, {run}, "
            f"{req}, {paced}; generated by predictkit.make_workload")


def default_runtimes():
    """The built-in site's runtime distribution."""
    return RuntimeDistribution.from_quantiles(default_site().runtime_log_quantiles,
                                              machine_procs=DEFAULT_MACHINE_PROCS)


def _arrivals(rng, n, types, weekend_factor):
    """Merge the arrival streams of the job types; the earlier arrival comes first."""
    times = [sample_arrivals(rng, n, name, weekend_factor) for name in types]
    codes = np.concatenate([np.full(n, code) for code in range(len(types))])
    merged = np.concatenate(times)
    order = np.argsort(merged, kind="stable")[:n]
    return merged[order], codes[order]



def _check_memory(n_jobs, n_users=None):
    """Refuse a workload that cannot fit in physical memory, with the estimate."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no such query on this system
        return
    jobs_need = int(n_jobs) * BYTES_PER_JOB
    users_need = int(n_users or 0) * BYTES_PER_USER
    if jobs_need + users_need <= total:
        return
    if users_need > jobs_need:
        raise invalid_parameter(
            "n_users", "make_workload",
            f"small enough to fit in memory: {int(n_users):,} users need about "
            f"{_bytes(users_need)} (about {BYTES_PER_USER} bytes per user), this machine has "
            f"{_bytes(total)}", n_users)
    raise invalid_parameter(
        "n_jobs", "make_workload",
        f"small enough to fit in memory: {int(n_jobs):,} jobs need about "
        f"{_bytes(jobs_need + users_need)} (about {BYTES_PER_JOB:,} bytes per job), this "
        f"machine has {_bytes(total)}", n_jobs)


def _bytes(n):
    """``n`` bytes in the largest binary unit that keeps the number at least 1."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024

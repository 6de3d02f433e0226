"""Complete synthetic job tables: Lublin-Feitelson jobs with users, sessions and estimates."""

import os
from numbers import Integral, Real

import numpy as np

from .._deprecation import NOT_PASSED, UNSET, renamed_argument
from .._time import parse_duration
from .._validation import (RANDOM_STATE, Duration, Interval, WholeNumber, invalid_parameter,
                           validate_params)
from ..jobs import as_job_table
from ._base import as_rng
from ._lublin import TYPE_CODE, sample_arrivals, sample_runtimes, sample_sizes
from ._tsafrir import TsafrirEstimates

__all__ = ["make_workload"]

BYTES_PER_JOB = 1024
"""Peak memory of :func:`make_workload` per job in bytes, rounded up (measured: 480-550)."""


@validate_params({
    "n_jobs": [WholeNumber(1, integral=True, high=2**62)],
    "machine_procs": [Interval(Integral, 1, None, closed="left")],
    "n_procs": [Interval(Integral, 1, None, closed="left"), NOT_PASSED],
    "random_state": [RANDOM_STATE],
    "t_max": [Duration(minimum=3600)],
    "p_max": [Interval(Real, 0, 100, closed="both"), None],
    "job_types": ["boolean"],
    "load": [Interval(Real, 0, None, closed="neither"), None],
    "n_users": [Interval(Integral, 1, None, closed="left"), None],
    "user_skew": [Interval(Real, 0, None, closed="left")],
    "session_jobs": [Interval(Real, 1, None, closed="left")],
    "runtime_spread": [Interval(Real, 0, None, closed="left")],
    "weekend_factor": [Interval(Real, 0, None, closed="neither")],
})
def make_workload(n_jobs, *, machine_procs=128, random_state=None, t_max="18h", p_max=None,
                  job_types=True, load=None, n_users=None, user_skew=1.0,
                  session_jobs=5.0, runtime_spread=0.5, weekend_factor=0.5, n_procs=UNSET):
    """Generate a synthetic job table that looks like a real log.

    Jobs follow Lublin & Feitelson (JPDC 2003, parameters of the archive's
    ``m_lublin99``): arrivals with a daily cycle (plus a weekly one added here),
    sizes preferring powers of two, runtimes correlated with size. On top of
    that model, which has no users or estimates:

    * consecutive arrivals form sessions of ``session_jobs`` jobs on average
      (geometric lengths); a session keeps the size and type of its first
      job, its runtimes vary around the first job's by a log-normal factor
      (``runtime_spread``), so its think times are the model's short
      inter-arrival times;
    * each session belongs to a user drawn from a Zipf-like law (user ``i``
      has weight ``1 / i ** user_skew``), users belong to groups, and each
      session runs one of its user's three applications;
    * runtimes are capped at ``t_max`` (the site limit; capped jobs get
      status 0, killed at their limit, the others status 1);
    * requests come from :class:`TsafrirEstimates` with ``t_max``, ``p_max``
      and the session-aware assignment, so a session repeats one estimate.

    Parameters
    ----------
    n_jobs : int
        Number of jobs (> 0).
    machine_procs : int, default=128
        Processors in the machine (sizes scale with ``log2(machine_procs)``;
        ``attrs["max_procs"]``).
    random_state : int, RandomState, Generator or None
    t_max : float or str
        Maximal runtime and estimate (at least 1 h).
    p_max : float, optional
        Percent of jobs requesting ``t_max`` (model default about 22%).
    job_types : bool
        Batch and interactive streams (``queue_id`` 1 and 0) or the typeless model.
    load : float, optional
        Target offered load ``sum(run_time * n_procs) / (machine_procs * span)``;
        arrivals are stretched or compressed to reach it. ``None`` keeps the
        model's own arrival rate.
    n_users : int, optional
        Default ``max(10, round(sqrt(n_jobs)))``, capped at 2,000.
    user_skew : float
        Zipf exponent of user activity (>= 0).
    session_jobs : float
        Mean jobs per session (>= 1).
    runtime_spread : float
        Standard deviation of the log runtime ratio within a session (>= 0).
    weekend_factor : float
        Arrival rate on Saturdays and Sundays relative to weekdays (> 0; 1
        gives the plain daily cycle).
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
        500 bytes per job while generating).

    Examples
    --------
    >>> jobs = make_workload(1000, random_state=0)
    >>> bool((jobs["req_time"] >= jobs["run_time"]).all())
    True
    """
    machine_procs = renamed_argument("make_workload", "n_procs", "machine_procs", n_procs,
                                     machine_procs, new_default=128, stacklevel=5)
    _check_memory(n_jobs)
    t_max = parse_duration(t_max, name="t_max")
    rng = as_rng(random_state)
    n = int(n_jobs)
    if n_users is None:
        n_users = int(min(2000, max(10, round(np.sqrt(n)))))

    types = ("interactive", "batch") if job_types else ("typeless",)
    submit, kind = _arrivals(rng, n, types, weekend_factor)
    size = np.empty(n)
    run = np.empty(n)
    for code, name in enumerate(types):
        mask = kind == code
        size[mask] = sample_sizes(rng, int(mask.sum()), name, machine_procs)
        run[mask] = sample_runtimes(rng, size[mask], name)

    session = np.cumsum(rng.random(n) < 1.0 / session_jobs)
    session -= session[0]
    first = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
    head = first[session]
    size, kind = size[head], kind[head]
    noise = np.exp(rng.normal(0.0, runtime_spread, n))
    noise[first] = 1.0
    run = np.maximum(np.floor(run[head] * noise), 1.0)
    killed = run > t_max
    run = np.minimum(run, t_max)

    weights = 1.0 / np.arange(1, n_users + 1) ** user_skew
    user_of_session = rng.choice(n_users, size=first.size, p=weights / weights.sum()) + 1
    user = user_of_session[session].astype(float)
    group_of_user = rng.integers(1, max(2, n_users // 5) + 1, size=n_users + 1)
    app = ((user - 1) * 3 + rng.integers(1, 4, size=first.size)[session]).astype(float)

    if load is not None:
        offered = float(np.sum(run * size)) / (machine_procs * max(submit[-1] - submit[0], 1.0))
        submit = submit[0] + (submit - submit[0]) * offered / load
    submit = np.floor(submit - submit[0])

    estimates = TsafrirEstimates(t_max=t_max, p_max=p_max, assignment="sessions",
                                 random_state=rng).sample(run, users=user, submit_times=submit)
    queue = np.array([TYPE_CODE[name] for name in types], dtype=float)[kind]
    jobs = as_job_table({
        "submit_time": submit, "run_time": run, "n_procs": size, "req_procs": size,
        "req_time": estimates, "status": np.where(killed, 0.0, 1.0), "user_id": user,
        "group_id": group_of_user[user.astype(np.int64)].astype(float), "app_id": app,
        "queue_id": queue,
    }, attrs={
        "max_procs": int(machine_procs), "max_nodes": int(machine_procs), "max_runtime": int(t_max),
        "note": ("synthetic: Lublin & Feitelson (2003) jobs with users, sessions and "
                 "Tsafrir et al. (2005) estimates, generated by predictkit.make_workload"),
    })
    return jobs


def _arrivals(rng, n, types, weekend_factor):
    """Merge the arrival streams of the job types; the earlier arrival comes first."""
    times = [sample_arrivals(rng, n, name, weekend_factor) for name in types]
    codes = np.concatenate([np.full(n, code) for code in range(len(types))])
    merged = np.concatenate(times)
    order = np.argsort(merged, kind="stable")[:n]
    return merged[order], codes[order]



def _check_memory(n_jobs):
    """Refuse a workload that cannot fit in physical memory, with the estimate."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no such query on this system
        return
    need = int(n_jobs) * BYTES_PER_JOB
    if need > total:
        raise invalid_parameter(
            "n_jobs", "make_workload",
            f"small enough to fit in memory: {int(n_jobs):,} jobs need about "
            f"{_bytes(need)} (about {BYTES_PER_JOB:,} bytes per job), this machine has "
            f"{_bytes(total)}", n_jobs)


def _bytes(n):
    """``n`` bytes in the largest binary unit that keeps the number at least 1."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024

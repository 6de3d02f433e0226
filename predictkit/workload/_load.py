"""Arrival times that offer a chosen load in every week, keeping daily and weekly cycles.

Scaling all arrival times by one factor (the Lublin-Feitelson model's own
load knob) fixes the load of the whole log only: jobs' work
``run_time * n_procs`` is heavy-tailed, so a week can offer a tenth of the
machine and the next one five times it. Here each job has two clocks, in
hours of average arrival rate ("rate time", before the daily and weekly
cycles are applied):

* the **random clock** ``R_i``: the model's own random arrivals, scaled to
  the same total span;
* the **work clock** ``W_i = (work of the jobs before i) / (load * machine)``:
  the time at which the machine, offered exactly ``load``, would reach job i.

Job i arrives at ``u_i = W_i + D tanh((R_i - W_i) / D)``: it follows the random
clock while that stays within ``D`` (the ``band``) of the work clock, and is
pulled back smoothly beyond. ``u`` is increasing whenever both clocks are
(the step of ``D tanh`` never exceeds the step of ``R - W``), and ``|u_i - W_i|
<= D``, so the jobs arriving in any span ``T`` of rate time offer at least
``load * machine * (T - 2 D)`` less the work of the job just before the span,
and at most ``load * machine * (T + 2 D)`` plus the work of the last job in it.
Rate time is then mapped to the calendar through the cumulative arrival-rate
profile of a week (daily cycle, weekend factor): a calendar week always holds
one week of rate time, so every 7-day window offers ``load`` within ``2 D / 7
days``, plus the share of its last job or less that of the job before it,
whatever its start (a job offering more than a week's budget leaves a window
after it without arrivals).
"""

import numpy as np

__all__ = ["paced_arrivals", "to_rate_time", "to_calendar", "DEFAULT_BAND"]

DEFAULT_BAND = 12 * 3600.0
"""``D`` in seconds of rate time: a 7-day window stays within 1/7 of the load (relative)."""


def to_rate_time(times, weights, bucket_seconds):
    """Calendar seconds to rate time (seconds at the average rate), over a weekly profile.

    ``weights`` are the relative arrival rates of the week's buckets (mean 1).
    """
    edges = np.concatenate(([0.0], np.cumsum(weights))) * bucket_seconds
    period = weights.size * bucket_seconds
    cycles = np.floor(times / period)
    rest = times - cycles * period
    bucket = np.clip((rest // bucket_seconds).astype(np.int64), 0, weights.size - 1)
    within = rest - bucket * bucket_seconds
    return cycles * period + edges[bucket] + within * weights[bucket]


def to_calendar(rate_times, weights, bucket_seconds):
    """The inverse of :func:`to_rate_time`."""
    edges = np.concatenate(([0.0], np.cumsum(weights))) * bucket_seconds
    period = weights.size * bucket_seconds
    cycles = np.floor(rate_times / period)
    rest = rate_times - cycles * period
    bucket = np.clip(np.searchsorted(edges, rest, side="right") - 1, 0, weights.size - 1)
    within = (rest - edges[bucket]) / weights[bucket]
    return cycles * period + bucket * bucket_seconds + within


def paced_arrivals(random_times, work, *, capacity, load, weights, bucket_seconds,
                   band=DEFAULT_BAND):
    """Calendar arrival times offering ``load`` of ``capacity`` in every window.

    Parameters
    ----------
    random_times : ndarray, shape (n,)
        The model's own arrival times (calendar seconds, ascending).
    work : ndarray, shape (n,)
        ``run_time * n_procs`` of each job, in arrival order.
    capacity : float
        Processors of the machine.
    load : float
        Offered load, ``> 0``.
    weights, bucket_seconds
        The weekly arrival-rate profile (see :func:`to_rate_time`).
    band : float
        ``D`` in seconds of rate time.

    Returns
    -------
    ndarray, shape (n,)
        Non-decreasing calendar seconds starting at 0.
    """
    n = work.size
    work_clock = np.concatenate(([0.0], np.cumsum(work[:-1]))) / (load * capacity)
    span = float(work.sum()) / (load * capacity)
    rate = to_rate_time(np.asarray(random_times, dtype=float), weights, bucket_seconds)
    rate = rate - rate[0]
    if n > 1 and rate[-1] > 0:
        # the random clock over the same span as the work clock (one mean gap per job)
        rate = rate * (span * (n - 1) / n) / rate[-1]
    paced = work_clock + band * np.tanh((rate - work_clock) / band)
    paced = np.maximum.accumulate(paced - paced[0])
    return to_calendar(paced, weights, bucket_seconds)

"""The Lublin-Feitelson model of rigid parallel jobs, vectorised.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", JPDC 63(11), 2003, with the
parameters of its public implementation (``m_lublin99`` in the Parallel
Workloads Archive): per job type (batch, interactive, or "typeless") a size
from a two-stage log-uniform with serial and power-of-two shares, a runtime
whose log is hyper-gamma with a size-dependent mixing probability, and
arrivals whose log inter-arrival time is gamma, stretched over a daily cycle
of 48 half-hour buckets weighted by a gamma CDF.

Changes, all documented in ``docs/workload.md``: sizes scale with the machine
(``med`` and ``high`` shifted by ``log2(P) - 7``, keeping the reference's
advice ``med = high - 2.5`` for batch-like jobs; a 128-processor machine gets
the published values; this reproduces the archive's 256-node sample); an
optional weekly cycle lowers weekend arrivals; everything is drawn in bulk
with numpy.
"""

import numpy as np
from scipy.stats import gamma

__all__ = ["JOB_TYPES", "sample_sizes", "sample_runtimes", "sample_arrivals", "bucket_weights"]

JOB_TYPES = {
    # serial, pow2, low, med, high, uprob; a1, b1, a2, b2, pa, pb; aarr, barr, anum, bnum, arar
    "batch": (0.2927, 0.6686, 1.2, 5.0, 7.0, 0.875,
              6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986,
              6.0415, 0.8531, 6.1271, 5.2740, 1.0519),
    "interactive": (0.1541, 0.625, 1.0, 3.0, 5.5, 0.705,
                    3.8351, 0.6605, 7.073, 0.6856, -0.0118, 0.9156,
                    6.5510, 0.6621, 8.9186, 3.6680, 0.9797),
    "typeless": (0.244, 0.576, 0.8, 4.5, 7.0, 0.86,
                 4.2, 0.94, 312.0, 0.03, -0.0054, 0.78,
                 10.2303, 0.4871, 8.1737, 3.9631, 1.0225),
}
"""Published parameters of the three job types (for a 128-processor machine)."""

TYPE_CODE = {"interactive": 0, "batch": 1, "typeless": 0}
"""Queue number the reference implementation writes for each type."""

TOO_MUCH_TIME = 12.0
"""Largest log runtime; larger draws are redrawn (runtimes below exp(12) s, ~45 h)."""
TOO_MUCH_ARRIVE_TIME = 13.0
"""Largest log inter-arrival time; larger draws are redrawn."""
BUCKETS = 48
SECONDS_IN_BUCKET = 1800.0
CYCLIC_DAY_START = 11


def _params(job_type):
    keys = ("serial", "pow2", "low", "med", "high", "uprob", "a1", "b1", "a2", "b2",
            "pa", "pb", "aarr", "barr", "anum", "bnum", "arar")
    return dict(zip(keys, JOB_TYPES[job_type]))


def _truncated_gamma(rng, shape, scale, limit):
    """Gamma draws (arrays of shape/scale) redrawn until they are <= limit."""
    values = rng.gamma(shape, scale)
    bad = values > limit
    while bad.any():
        values[bad] = rng.gamma(np.broadcast_to(shape, values.shape)[bad],
                                np.broadcast_to(scale, values.shape)[bad])
        bad = values > limit
    return values


def sample_sizes(rng, n, job_type, n_procs):
    """Processor counts: serial, else ``2**u`` with ``u`` two-stage uniform, rounded
    to a power of two for the power-of-two share (same uniform as the reference).

    ``med`` and ``high`` move by ``log2(n_procs) - 7`` from their published
    128-processor values (never below ``low``); sizes are capped at ``n_procs``.
    """
    p = _params(job_type)
    shift = np.log2(n_procs) - 7.0
    low = p["low"]
    med, high = max(p["med"] + shift, low), max(p["high"] + shift, low)
    u = rng.random(n)
    first = rng.random(n) <= p["uprob"]
    lo = np.where(first, low, med)
    hi = np.where(first, med, high)
    par = lo + rng.random(n) * (hi - lo)
    pow2 = u <= p["serial"] + p["pow2"]
    par = np.where(pow2, np.floor(par + 0.5), par)
    sizes = np.floor(2.0 ** par + 0.5)
    sizes[u <= p["serial"]] = 1.0
    return np.clip(sizes, 1, n_procs)


def sample_runtimes(rng, sizes, job_type):
    """Runtimes (s): ``exp`` of a hyper-gamma draw with ``p = pa * nodes + pb``."""
    p = _params(job_type)
    prob = np.clip(p["pa"] * sizes + p["pb"], 0.0, 1.0)
    first = rng.random(sizes.size) <= prob
    shape = np.where(first, p["a1"], p["a2"])
    scale = np.where(first, p["b1"], p["b2"])
    log_run = _truncated_gamma(rng, shape, scale, TOO_MUCH_TIME)
    return np.maximum(np.floor(np.exp(log_run)), 1.0)


def bucket_weights(job_type, weekend_factor=1.0):
    """Relative arrival rate of each half-hour bucket of a week (mean 1).

    The daily profile is the reference's: bucket ``(i - 1) mod 48`` gets
    ``F(i + 0.5) - F(i - 0.5)`` for ``i = 11 .. 58`` with ``F`` the
    gamma(anum, bnum) CDF. Days 5 and 6 of each week (Saturday, Sunday when the
    log starts on a Monday) are multiplied by ``weekend_factor``.
    """
    p = _params(job_type)
    i = np.arange(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS)
    day = np.empty(BUCKETS)
    day[(i - 1) % BUCKETS] = (gamma.cdf(i + 0.5, p["anum"], scale=p["bnum"])
                              - gamma.cdf(i - 0.5, p["anum"], scale=p["bnum"]))
    day /= day.mean()
    week = np.tile(day, 7)
    week[5 * BUCKETS:] *= weekend_factor
    return week / week.mean()


def sample_arrivals(rng, n, job_type, weekend_factor=1.0):
    """``n`` arrival times (s from a Monday midnight) of one job type.

    Each inter-arrival draws ``exp(g)`` "points" with ``g ~ gamma(aarr * arar,
    barr)``; time advances through the buckets paying each bucket's weight
    per half hour, so arrivals are dense where the weight is high. This is the
    reference's bucket-paying loop written as the inverse of the cumulative
    weight.
    """
    p = _params(job_type)
    weights = bucket_weights(job_type, weekend_factor)
    g = _truncated_gamma(rng, np.full(n, p["aarr"] * p["arar"]), p["barr"], TOO_MUCH_ARRIVE_TIME)
    points = np.cumsum(np.exp(g) / SECONDS_IN_BUCKET)
    period = weights.sum()
    cycles = np.floor(points / period)
    rest = points - cycles * period
    edges = np.concatenate(([0.0], np.cumsum(weights)))
    bucket = np.clip(np.searchsorted(edges, rest, side="right") - 1, 0, weights.size - 1)
    within = (rest - edges[bucket]) / weights[bucket]
    return (cycles * weights.size + bucket + within) * SECONDS_IN_BUCKET

"""Built-in runtime predictors kept inside the compiled event loop.

``simulate(jobs, estimates=<predictor>)`` with one of predictkit's own
predictors (:class:`~predictkit.runtime.RequestedTime`,
:class:`~predictkit.runtime.WalltimeAdjuster`,
:class:`~predictkit.runtime.RecentUsageMax`,
:class:`~predictkit.runtime.RecentAverage`) does not stop the loop to ask
Python at each submission: the predictor's online state lives in a
:class:`PredictorState` next to the engine state, every completion updates it
(:func:`observe_completion`) and every arrival reads it
(:func:`estimate_arrivals`). The estimates, and so the schedules, are the
same floats as those of the Python-driven path (``_Feeder`` in
:mod:`._simulate`), which stays the reference and serves every other
predictor: a subclass, a predictor fitted before the simulation (its history
is not empty), a third-party :class:`~predictkit.runtime.OnlinePredictor`, or
``predictor_refresh``. ``RequestedTime`` needs no online state: its estimates
are made once before the loop (:func:`static_predictions`).

What does not depend on the simulation is computed before the loop (from the
jobs kept, in submit order): each job's group (joint codes of the key
columns, :func:`predictkit.runtime._base.group_codes`), its value in the
history (run/request capped at 1, run/request, or the runtime: the simulated
runtime, summed over the pieces of a split job, is known in advance) and, for
quantiles, its rank among its group's values. Only when a job becomes known
(the instant its last piece ends) depends on the schedule.

The semantics are those of :mod:`predictkit.runtime._base`: a job predicted
at its submission ``t`` sees the jobs whose last piece ended by ``t``
(equality counts); "the last n" follows the history order (known time, then
submit time, then ``job_id``, then the order jobs completed); quantiles are
type 7 and means are summed in ascending order; missing key values join no
group; completed jobs without a positive request have no ratio. The
prediction is then clipped (``clip_to_request``), replaced by the request
when missing, capped at the request and floored at 1 s, spread over the
pieces of a split job, and written to ``estimate``, ``estimate_at_start``
(the request with ``selective``) and the priority key (``sjf``), as
``_Filler`` does.

Predictor state
---------------
``n`` is the number of simulated jobs, ``N`` that plus the pieces of split
jobs, ``g`` the number of groups, ``v`` the number of jobs with a group and a
finite value (the most the history can hold) and ``r`` the slots of the
last-n buffers (``sum over groups of min(n_recent, group's v)``).

=========================  =======  ===============================================  ===============================================
field                      type     meaning                                          invariant
=========================  =======  ===============================================  ===============================================
``config[0].kind``         i8       ``KIND_*``: which statistic                      ``KIND_NONE``: the loop asks nothing
``config[0].quantile``     f8       quantile of the window (``KIND_QUANTILE``)       in [0.5, 1]
``config[0].window``       f8       seconds of history kept                          < 0: all history
``config[0].min_jobs``     i8       fewest entries for a statistic                   >= 1
``config[0].floor``        f8       lower bound of the factor                        NaN: none
``config[0].n_recent``     i8       entries of the last-n statistics                 >= 1
``config[0].clip``         b1       ``clip_to_request``                              
``config[0].limit``        f8       ``max_runtime`` of split jobs                    ``inf``: jobs are not split
``config[0].selective``    b1       running jobs use the request                     
``config[0].sjf``          b1       the priority key is the estimate                 
``config[0].n_seen``       i8       jobs entered into the history so far             order of completion (``seq``)
``config[0].failed``       i8       job without an estimate                          -1 until one is met
``group[n]``               i8       group of the job                                 -1: a key value is missing
``value[n]``               f8       the job's value once it is in the history        NaN: never enters it
``rank[n]``                i8       rank of ``value`` among its group's values       a permutation of ``0..v_g-1``
``request[n]``             f8       ``req_time`` as the predictor reads it           NaN when missing
``full_request[n]``        f8       the request the estimate is capped at            ``inf`` when missing
``submit[n]``, ``job_id``  f8[n]    tie-breaks of the history order                  ``job_id`` NaN without the column
``known[n]``               f8       instant the job entered the history              NaN before
``seq[n]``                 i8       position of the job in completion order          -1 before
``parent[N]``              i8       job of each piece                                ``parent[j] = j`` for ``j < n``
``offset[g+1]``            i8       slots of group ``k``: ``offset[k]:offset[k+1]``  ``offset[g] = v``
``sorted_values[v]``       f8       each group's values in ascending order           ``sorted_values[offset + rank] = value``
``tree[v+g]``              i8       Fenwick counts of ranks in the window            group ``k`` at ``offset[k] + k``, 1-based
``fifo[v]``                i8       jobs of the window in entry order                known times nondecreasing
``head[g]``, ``tail[g]``   i8       window of group ``k``: ``fifo[head:tail]``       relative to ``offset[k]``
``window_sorted[v]``       f8       values of the window in ascending order          ``KIND_MEAN``; ``tail - head`` of them
``recent_offset[g+1]``     i8       slots of group ``k``'s last-n ring buffer        length ``min(n_recent, v_k)``
``recent[r]``              i8       the group's last jobs, a ring buffer             oldest at ``recent_head``; history order
``recent_head[g]``         i8       ring position of the oldest entry                
``recent_count[g]``        i8       entries in the ring                              <= its length
=========================  =======  ===============================================  ===============================================
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ..exceptions import SimulationError
from ..runtime._base import group_codes
from .._fenwick import fenwick_add, fenwick_find
from ..runtime._history_state import history_order
from ..runtime._kernels import between, linear_quantile_rank, sorted_insert, sorted_remove
from ..runtime._recent import RecentAverage, RecentUsageMax
from ..runtime._requested import RequestedTime
from ..runtime._walltime_adjuster import WalltimeAdjuster
from .._reference_path import compiled_paths_on

__all__ = ["PredictorState", "empty_state", "compiled_kind", "build_state",
           "static_predictions", "no_estimate_error", "observe_completion", "estimate_arrivals",
           "KIND_NONE", "KIND_QUANTILE", "KIND_MEAN",
           "KIND_RECENT_MAX", "KIND_RECENT_MEAN", "KIND_STATIC"]

KIND_NONE, KIND_QUANTILE, KIND_MEAN, KIND_RECENT_MAX, KIND_RECENT_MEAN = 0, 1, 2, 3, 4
KIND_STATIC = -1
"""Predicted once before the loop (``RequestedTime``); never stored in a state."""

CONFIG = np.dtype([
    ("kind", np.int64), ("quantile", np.float64), ("window", np.float64),
    ("min_jobs", np.int64), ("floor", np.float64), ("n_recent", np.int64),
    ("clip", np.bool_), ("limit", np.float64), ("selective", np.bool_), ("sjf", np.bool_),
    ("n_seen", np.int64), ("failed", np.int64),
], align=True)
"""Parameters and tallies of the compiled predictor: one record, ``config[0]``."""

class PredictorState(NamedTuple):
    """The online state of a compiled predictor (table in the module docstring)."""

    config: np.ndarray
    group: np.ndarray
    value: np.ndarray
    rank: np.ndarray
    request: np.ndarray
    full_request: np.ndarray
    submit: np.ndarray
    job_id: np.ndarray
    known: np.ndarray
    seq: np.ndarray
    parent: np.ndarray
    offset: np.ndarray
    sorted_values: np.ndarray
    tree: np.ndarray
    fifo: np.ndarray
    head: np.ndarray
    tail: np.ndarray
    window_sorted: np.ndarray
    recent_offset: np.ndarray
    recent: np.ndarray
    recent_head: np.ndarray
    recent_count: np.ndarray


def _config(kind=KIND_NONE):
    config = np.zeros(1, dtype=CONFIG)
    config["kind"] = kind
    config["window"] = -1.0
    config["floor"] = np.nan
    config["limit"] = np.inf
    config["min_jobs"] = 1
    config["n_recent"] = 1
    config["failed"] = -1
    return config


def empty_state():
    """The state of a simulation whose loop asks no predictor (``KIND_NONE``)."""
    ints = np.zeros(0, dtype=np.int64)
    floats = np.zeros(0)
    return PredictorState(
        config=_config(), group=ints, value=floats, rank=ints, request=floats,
        full_request=floats, submit=floats, job_id=floats, known=floats, seq=ints,
        parent=ints, offset=np.zeros(1, dtype=np.int64), sorted_values=floats, tree=ints,
        fifo=ints, head=ints, tail=ints, window_sorted=floats,
        recent_offset=np.zeros(1, dtype=np.int64), recent=ints, recent_head=ints,
        recent_count=ints)


def compiled_kind(predictor, refresh):
    """Which compiled statistic stands for ``predictor``, or ``None`` (Python path).

    Only predictkit's own classes (not subclasses), not fitted before (an
    empty history), and the exact path (no ``predictor_refresh``) qualify.
    """
    if not compiled_paths_on() or refresh is not None:
        return None
    if getattr(predictor, "n_history_", 0):
        return None
    kind = type(predictor)
    if kind is RequestedTime:
        return KIND_STATIC
    if kind is WalltimeAdjuster:
        return KIND_MEAN if isinstance(predictor.quantile, str) else KIND_QUANTILE
    if kind is RecentUsageMax:
        return KIND_RECENT_MAX
    if kind is RecentAverage:
        return KIND_RECENT_MEAN
    return None


def static_predictions(predictor, kept, request):
    """Predictions of a predictor whose history never changes them (``RequestedTime``).

    One call of ``predict_for`` for every job, checked as the Python path
    checks each batch: a missing prediction falls back to ``request`` (the
    engine's request, ``inf`` when unknown), and a job left without one is an
    error.
    """
    predictor.start(kept)
    values = np.asarray(predictor.predict_for(np.arange(len(kept))), dtype=float)
    values = np.where(np.isfinite(values), values, request)
    if not np.isfinite(values).all():
        raise no_estimate_error(predictor)
    return values


def no_estimate_error(predictor):
    """The error of a predictor that left a job without a request without an estimate."""
    return SimulationError(f"{type(predictor).__name__} gave no estimate for a job without a "
                           "request")


def build_state(predictor, kind, kept, *, total, full_request, pieces, selective, sjf):
    """The compiled state of ``predictor`` for the jobs ``kept``, with an empty history.

    Parameters
    ----------
    predictor : WalltimeAdjuster, RecentUsageMax or RecentAverage
        Not fitted before; :meth:`start` is called on it (checking its
        parameters and the columns it reads, as the Python path does).
    kind : int
        From :func:`compiled_kind`.
    kept : DataFrame
        The simulated jobs in submit order.
    total : ndarray
        Simulated runtime of each job (summed over its pieces).
    full_request : ndarray
        The request the estimates are capped at (``inf`` when unknown).
    pieces : _Pieces
        How jobs are split (``max_runtime``).
    selective, sjf : bool
        ``simulate(selective=...)``; whether the priority key is the estimate.
    """
    predictor.start(kept)
    arrays = predictor._jobs
    n = len(kept)
    keys = predictor._group_keys()
    group = group_codes([arrays], keys)[0] if keys else np.zeros(n, dtype=np.int64)
    group = np.ascontiguousarray(group, dtype=np.int64)
    request = np.ascontiguousarray(arrays["req_time"], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind in (KIND_QUANTILE, KIND_MEAN):
            value = np.where(request > 0, np.minimum(total / request, 1.0), np.nan)
        elif kind == KIND_RECENT_MAX:
            value = np.where(request > 0, total / request, np.nan)
        else:
            value = np.asarray(total, dtype=np.float64).copy()
    valid = (group >= 0) & np.isfinite(value)
    n_groups = int(group.max()) + 1 if n and group.max() >= 0 else 0
    counts = np.bincount(group[valid], minlength=n_groups).astype(np.int64)
    offset = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rank = np.full(n, -1, dtype=np.int64)
    sorted_values = np.empty(int(offset[-1]))
    members = np.flatnonzero(valid)
    by_value = members[np.lexsort((value[members], group[members]))]
    if len(by_value):
        position = np.arange(len(by_value))
        rank[by_value] = position - offset[group[by_value]]
        sorted_values[position] = value[by_value]
    config = _config(kind)
    config["clip"] = bool(predictor.clip_to_request)
    if kind in (KIND_QUANTILE, KIND_MEAN):
        window = predictor.window_seconds_
        config["window"] = -1.0 if window is None else float(window)
        config["min_jobs"] = int(predictor.min_jobs)
        config["floor"] = np.nan if predictor.floor is None else float(predictor.floor)
        if kind == KIND_QUANTILE:
            config["quantile"] = float(predictor.quantile)
        recent_counts = np.zeros(n_groups, dtype=np.int64)
    else:
        config["n_recent"] = int(predictor.n_recent)
        recent_counts = np.minimum(counts, int(predictor.n_recent))
    config["limit"] = np.inf if pieces.limit is None else float(pieces.limit)
    config["selective"] = bool(selective)
    config["sjf"] = bool(sjf)
    recent_offset = np.concatenate([[0], np.cumsum(recent_counts)]).astype(np.int64)
    job_id = np.ascontiguousarray(arrays["job_id"], dtype=np.float64)
    return PredictorState(
        config=config, group=group, value=np.ascontiguousarray(value, dtype=np.float64),
        rank=rank, request=request,
        full_request=np.ascontiguousarray(full_request, dtype=np.float64),
        submit=np.ascontiguousarray(arrays["submit_time"], dtype=np.float64), job_id=job_id,
        known=np.full(n, np.nan), seq=np.full(n, -1, dtype=np.int64),
        parent=np.ascontiguousarray(pieces.all_parent, dtype=np.int64), offset=offset,
        sorted_values=sorted_values,
        tree=np.zeros(int(offset[-1]) + n_groups, dtype=np.int64),
        fifo=np.zeros(int(offset[-1]), dtype=np.int64),
        head=np.zeros(n_groups, dtype=np.int64), tail=np.zeros(n_groups, dtype=np.int64),
        window_sorted=np.zeros(int(offset[-1]) if kind == KIND_MEAN else 0),
        recent_offset=recent_offset, recent=np.zeros(int(recent_offset[-1]), dtype=np.int64),
        recent_head=np.zeros(n_groups, dtype=np.int64),
        recent_count=np.zeros(n_groups, dtype=np.int64))


# ------------------------------------------------------------ completions
#
# The two passes the loop calls (observe_completion, estimate_arrivals) are
# inlined into it: called, each passed the whole state (over a hundred
# arguments once flattened), and cost no-guarantee and depth-k backfilling a
# third of their speed on LPC-EGEE (benchmarks/simulate_speed.py).


@njit(cache=True, inline="always", _nrt=False)
def _fenwick_add(p, g, rank, delta):
    """Add ``delta`` to the count of ``rank`` in group ``g``'s Fenwick tree."""
    fenwick_add(p.tree, p.offset[g] + g, p.offset[g + 1] - p.offset[g], rank, delta)


@njit(cache=True, inline="always", _nrt=False)
def _history_before(p, a, b):
    """Whether job ``a`` comes before job ``b`` in the history order.

    Known time, then submit time, then ``job_id``, then completion order.
    """
    order = history_order(p.known[a], p.submit[a], p.job_id[a], p.known[b], p.submit[b],
                          p.job_id[b])
    return order < 0 if order != 0 else p.seq[a] < p.seq[b]


@njit(cache=True, inline="always", _nrt=False)
def _recent_add(p, g, j):
    """Keep ``j`` in group ``g``'s ring of its last ``n_recent`` jobs, in history order.

    Keeps: the ring holds the largest ``min(n_recent, seen)`` of the group's
    entries in history order. A new entry is never older in known time than
    any other, so it only moves past entries of the same known time.
    """
    base = p.recent_offset[g]
    cap = p.recent_offset[g + 1] - base
    count = p.recent_count[g]
    head = p.recent_head[g]
    if count == cap:
        if _history_before(p, j, p.recent[base + head]):
            return
        head += 1
        if head == cap:
            head = 0
        count -= 1
    k = count
    while k > 0:
        before = head + k - 1
        if before >= cap:
            before -= cap
        if not _history_before(p, j, p.recent[base + before]):
            break
        slot = head + k
        if slot >= cap:
            slot -= cap
        p.recent[base + slot] = p.recent[base + before]
        k -= 1
    slot = head + k
    if slot >= cap:
        slot -= cap
    p.recent[base + slot] = j
    p.recent_head[g] = head
    p.recent_count[g] = count + 1


@njit(cache=True, inline="always", _nrt=False)
def observe_completion(p, jobs, piece, now):
    """A piece ended at ``now``: if it was its job's last, the job enters the history.

    Keeps: the history holds exactly the jobs whose last piece ended by
    ``now``, each with known time = that end; for windowed statistics the
    group's FIFO holds its entries in known-time order, and the Fenwick tree
    (quantiles) or the sorted buffer (means) the values of the entries not yet
    dropped from the window; last-n statistics keep their ring
    (:func:`_recent_add`).
    """
    if jobs.successor[piece] >= 0:
        return
    config = p.config[0]
    j = p.parent[piece]
    p.known[j] = now
    p.seq[j] = config.n_seen
    config.n_seen += 1
    g = p.group[j]
    if g < 0 or np.isnan(p.value[j]):
        return
    kind = config.kind
    if kind == KIND_QUANTILE or kind == KIND_MEAN:
        base = p.offset[g]
        p.fifo[base + p.tail[g]] = j
        if kind == KIND_QUANTILE:
            _fenwick_add(p, g, p.rank[j], 1)
        else:
            sorted_insert(p.window_sorted, base, p.tail[g] - p.head[g], p.value[j])
        p.tail[g] += 1
    else:
        _recent_add(p, g, j)


# --------------------------------------------------------------- arrivals


@njit(cache=True, inline="always", _nrt=False)
def _kth(p, g, k):
    """0-based rank of the ``k``-th smallest (0-based) value in group ``g``'s window."""
    return fenwick_find(p.tree, p.offset[g] + g, p.offset[g + 1] - p.offset[g], k)


@njit(cache=True, _nrt=False)
def _window_statistic(p, g, t):
    """Quantile (or mean) of group ``g``'s values known in ``[t - window, t]``; NaN below ``min_jobs``.

    Drops from the window, for good, the entries known before ``t - window``
    (queries come in nondecreasing ``t``). Combines the two order statistics
    as :func:`predictkit.runtime._kernels.window_quantile` does (type 7) and sums
    the mean in ascending order as :func:`~predictkit.runtime._kernels.window_mean`.
    """
    config = p.config[0]
    base = p.offset[g]
    mean = config.kind == KIND_MEAN
    if config.window >= 0.0:
        while p.head[g] < p.tail[g] and p.known[p.fifo[base + p.head[g]]] < t - config.window:
            old = p.fifo[base + p.head[g]]
            if mean:
                sorted_remove(p.window_sorted, base, p.tail[g] - p.head[g], p.value[old])
            else:
                _fenwick_add(p, g, p.rank[old], -1)
            p.head[g] += 1
    n = p.tail[g] - p.head[g]
    if n < config.min_jobs or n == 0:
        return np.nan
    if mean:
        total = 0.0
        for i in range(n):
            total += p.window_sorted[base + i]
        return total / n
    k, w = linear_quantile_rank(n, config.quantile)
    low = p.sorted_values[base + _kth(p, g, k)]
    if k >= n - 1:
        return low
    return between(low, p.sorted_values[base + _kth(p, g, k + 1)], w)


@njit(cache=True, _nrt=False)
def _recent_statistic(p, g):
    """Maximum (or mean, oldest first) of the values in group ``g``'s ring; NaN when empty."""
    count = p.recent_count[g]
    if count == 0:
        return np.nan
    base = p.recent_offset[g]
    cap = p.recent_offset[g + 1] - base
    head = p.recent_head[g]
    use_mean = p.config[0].kind == KIND_RECENT_MEAN
    total = 0.0
    best = 0.0
    for k in range(count):
        slot = head + k
        if slot >= cap:
            slot -= cap
        v = p.value[p.recent[base + slot]]
        if use_mean:
            total += v
        elif k == 0 or v > best:
            best = v
    return total / count if use_mean else best


@njit(cache=True, _nrt=False)
def _raw_prediction(p, j, t):
    """The predictor's output for job ``j`` submitted at ``t`` (``predict_for``, clipped)."""
    config = p.config[0]
    kind = config.kind
    g = p.group[j]
    req = p.request[j]
    if kind == KIND_QUANTILE or kind == KIND_MEAN:
        stat = np.nan if g < 0 else _window_statistic(p, g, t)
        if np.isnan(stat):
            adjust = 1.0
        elif not np.isnan(config.floor):
            adjust = max(stat, config.floor)
        else:
            adjust = stat
        raw = req * adjust
    else:
        stat = np.nan if g < 0 else _recent_statistic(p, g)
        if kind == KIND_RECENT_MAX:
            raw = (1.0 if np.isnan(stat) else stat) * req
        else:
            raw = req if np.isnan(stat) else stat
    if config.clip:
        # np.maximum(np.fmin(raw, req), 1.0)
        if np.isnan(raw):
            raw = req
        elif not np.isnan(req) and req < raw:
            raw = req
        if not np.isnan(raw) and raw < 1.0:
            raw = 1.0
    return raw


@njit(cache=True, inline="always", _nrt=False)
def estimate_arrivals(p, jobs, first, n_regular, now):
    """Estimate the regular jobs submitted at ``now`` (from ``first`` on), and their pieces.

    Keeps: each job's ``estimate``, ``estimate_at_start`` and (``sjf``)
    ``priority_key``, and those of its later pieces, are written before it
    is queued, from the history of the jobs known by ``now``, exactly as the
    Python path's ``_Feeder`` and ``_Filler`` write them. Returns False (and
    sets ``config.failed``) at a job left without an estimate.
    """
    config = p.config[0]
    limit = config.limit
    j = first
    while j < n_regular and jobs.submit[j] == now:
        value = _raw_prediction(p, j, now)
        if not np.isfinite(value):
            value = jobs.request[j]
            if not np.isfinite(value):
                config.failed = j
                return False
        value = max(min(value, p.full_request[j]), 1.0)
        piece = j
        rank = 0
        while piece >= 0:
            if rank == 0:
                est = value if limit == np.inf else min(value, limit)
            else:
                est = min(max(value - rank * limit, 0.0), limit)
            request = jobs.request[piece]
            est = max(min(est, request), 1.0)
            jobs.estimate[piece] = est
            jobs.estimate_at_start[piece] = max(request, 1.0) if config.selective else est
            if config.sjf:
                jobs.priority_key[piece] = est
            piece = jobs.successor[piece]
            rank += 1
        j += 1
    return True

"""Compiled loops of the runtime predictors (numba, cached on disk).

Every kernel works on a *history* (completed jobs) and *queries* (jobs to
predict), both already sorted by group code and then by time, and walks each
group once with two pointers. Group codes are ``>= 0``; ``-1`` marks a query
without a group (a missing key value), which gets no statistic.

The plain-Python references these kernels are tested against live in
``tests/runtime/runtime_reference.py``.
"""

import numpy as np
from numba import njit

from .._fenwick import fenwick_add, fenwick_find

__all__ = ["window_mean", "window_quantile", "recent_statistic", "recent_features",
           "quantile_sorted", "linear_quantile_rank", "between", "user_column_count",
           "n_done_column"]

SUMMARY_COLUMNS = 4
"""``HistoryFeatures``' user columns after the recent ones, in this order: the
number of completed jobs, their mean runtime, their mean usage ratio and the
time since the newest one ended (:func:`write_history_summary`)."""


@njit(cache=True)
def _group_span(h_group, g, start):
    """Rows ``[start, end)`` of group ``g`` in ``h_group`` (sorted), searching from ``start``."""
    nh = h_group.shape[0]
    while start < nh and h_group[start] < g:
        start += 1
    end = start
    while end < nh and h_group[end] == g:
        end += 1
    return start, end


@njit(cache=True, inline="always", _nrt=False)
def linear_quantile_rank(n, q):
    """Where quantile ``q`` of ``n`` sorted values ``v`` lies: ``(k, w)``.

    Hyndman & Fan type 7, numpy's ``method="linear"`` (Tang et al. 2009,
    section 4.2.1, take a quantile of a key's history): with
    ``h = (n - 1) q``, ``k = floor(h)`` and ``w = h - k``, the quantile is
    ``between(v[k], v[k + 1], w)``, or ``v[n - 1]`` itself when
    ``k >= n - 1`` (``q = 1``).
    """
    h = (n - 1) * q
    k = int(np.floor(h))
    return k, h - k


@njit(cache=True, inline="always", _nrt=False)
def between(low, high, w):
    """``low + w (high - low)``: the type 7 quantile between two order statistics."""
    return low + w * (high - low)


@njit(cache=True)
def quantile_sorted(values, n, q):
    """Quantile ``q`` of the first ``n`` entries of the sorted array ``values``
    (:func:`linear_quantile_rank`)."""
    k, w = linear_quantile_rank(n, q)
    if k >= n - 1:
        return values[n - 1]
    return between(values[k], values[k + 1], w)


@njit(cache=True)
def _sorted_mean(values, n):
    total = 0.0
    for i in range(n):
        total += values[i]
    return total / n


@njit(cache=True, inline="always", _nrt=False)
def sorted_insert(buf, start, m, value):
    """Insert ``value`` into the ``m`` sorted values at ``buf[start:]`` (kept sorted)."""
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if buf[start + mid] <= value:
            lo = mid + 1
        else:
            hi = mid
    for i in range(m, lo, -1):
        buf[start + i] = buf[start + i - 1]
    buf[start + lo] = value


@njit(cache=True, inline="always", _nrt=False)
def sorted_remove(buf, start, m, value):
    """Remove one ``value`` from the ``m`` sorted values at ``buf[start:]`` (kept sorted)."""
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if buf[start + mid] < value:
            lo = mid + 1
        else:
            hi = mid
    for i in range(lo, m - 1):
        buf[start + i] = buf[start + i + 1]


@njit(cache=True)
def window_mean(h_group, h_known, h_value, q_group, q_time, window, min_jobs):
    """Mean of the history values of each query's group and window.

    A history entry counts for a query at time ``t`` when it is in the same
    group and ``t - window <= known <= t`` (``window < 0`` means no lower
    bound). Queries with fewer than ``min_jobs`` entries get ``NaN``.

    The values of the current window are kept in a sorted buffer (binary
    search + shift on insert and delete) and summed in ascending order, so
    the mean does not depend on the order entries arrived in. Quantiles are
    :func:`window_quantile`.
    """
    nq = q_group.shape[0]
    nh = h_group.shape[0]
    out = np.full(nq, np.nan)
    buf = np.empty(max(nh, 1))
    current = -2
    start = 0
    end = 0
    lo = 0
    hi = 0
    for qi in range(nq):
        g = q_group[qi]
        if g < 0:
            continue
        if g != current:
            current = g
            start, end = _group_span(h_group, g, start)
            lo = start
            hi = start
        t = q_time[qi]
        while hi < end and h_known[hi] <= t:
            sorted_insert(buf, 0, hi - lo, h_value[hi])
            hi += 1
        if window >= 0.0:
            while lo < hi and h_known[lo] < t - window:
                sorted_remove(buf, 0, hi - lo, h_value[lo])
                lo += 1
        m = hi - lo
        if m >= min_jobs and m > 0:
            out[qi] = _sorted_mean(buf, m)
    return out


@njit(cache=True)
def window_quantile(h_group, h_known, h_rank, h_sorted, q_group, q_time,
                    window, quantile, min_jobs):
    """Quantile of the history values of each query's group and window, in O(log n) per event.

    The window and ``min_jobs`` are those of :func:`window_mean`.

    ``h_rank`` is each entry's rank among its group's values and ``h_sorted``
    the group's values in ascending order (laid out like the history). The
    window is a Fenwick tree of counts over ranks; the two order statistics
    the quantile needs are found by descending the tree, and combined exactly
    as in :func:`quantile_sorted` (numpy's ``method="linear"``).
    """
    nq = q_group.shape[0]
    nh = h_group.shape[0]
    out = np.full(nq, np.nan)
    tree = np.zeros(nh + 1, dtype=np.int64)
    current = -2
    start = 0
    end = 0
    lo = 0
    hi = 0
    m = 0
    for qi in range(nq):
        g = q_group[qi]
        if g < 0:
            continue
        if g != current:
            current = g
            start, end = _group_span(h_group, g, start)
            lo = start
            hi = start
            m = end - start
            for i in range(start, end + 1):
                if i <= nh:
                    tree[i] = 0
        t = q_time[qi]
        while hi < end and h_known[hi] <= t:
            fenwick_add(tree, start, m, h_rank[hi], 1)
            hi += 1
        if window >= 0.0:
            while lo < hi and h_known[lo] < t - window:
                fenwick_add(tree, start, m, h_rank[lo], -1)
                lo += 1
        n = hi - lo
        if n >= min_jobs and n > 0:
            k, w = linear_quantile_rank(n, quantile)
            low = h_sorted[start + fenwick_find(tree, start, m, k)]
            if k >= n - 1:
                out[qi] = low
            else:
                high = h_sorted[start + fenwick_find(tree, start, m, k + 1)]
                out[qi] = between(low, high, w)
    return out


@njit(cache=True)
def recent_statistic(h_group, h_known, h_value, q_group, q_time, n_recent, use_mean):
    """Maximum (or mean) of the last ``n_recent`` history values of each query's group.

    "Last" follows the history order (known time, then the tie-breaks the
    caller sorted by); only entries with ``known <= t`` count. Queries
    without any such entry get ``NaN``. The mean adds the values oldest first.
    """
    nq = q_group.shape[0]
    out = np.full(nq, np.nan)
    current = -2
    start = 0
    end = 0
    hi = 0
    for qi in range(nq):
        g = q_group[qi]
        if g < 0:
            continue
        if g != current:
            current = g
            start, end = _group_span(h_group, g, start)
            hi = start
        t = q_time[qi]
        while hi < end and h_known[hi] <= t:
            hi += 1
        first = max(start, hi - n_recent)
        if hi > first:
            if use_mean:
                total = 0.0
                for i in range(first, hi):
                    total += h_value[i]
                out[qi] = total / (hi - first)
            else:
                best = h_value[first]
                for i in range(first + 1, hi):
                    if h_value[i] > best:
                        best = h_value[i]
                out[qi] = best
    return out


@njit(cache=True, inline="always", _nrt=False)
def user_column_count(n_recent):
    """How many ``user_*`` columns ``HistoryFeatures`` makes of a user's history.

    Column ``k < n_recent`` is the ``k``-th newest runtime, ``n_recent + k``
    its usage ratio, then the ``SUMMARY_COLUMNS`` from
    :func:`n_done_column` on.
    """
    return 2 * n_recent + SUMMARY_COLUMNS


@njit(cache=True, inline="always", _nrt=False)
def n_done_column(n_recent):
    """Column of ``user_n_done``, the first of the summary columns (0 without history)."""
    return 2 * n_recent


@njit(cache=True, inline="always")
def write_history_summary(out, row, n_recent, t, count, run_sum, ratio_sum, ratio_n,
                          newest_known):
    """Write the ``SUMMARY_COLUMNS`` of query ``row``: the number of its completed jobs,
    their mean runtime and mean usage ratio (of the ``ratio_n`` ratios known), and the
    time ``t`` is after the newest one ended; NaN where there is none."""
    c = n_done_column(n_recent)
    out[row, c] = count
    if count > 0:
        out[row, c + 1] = run_sum / count
        out[row, c + 3] = t - newest_known
    if ratio_n > 0:
        out[row, c + 2] = ratio_sum / ratio_n


@njit(cache=True)
def recent_features(h_group, h_known, h_run, h_ratio, q_group, q_time, n_recent):
    """Per-query history features of the query's group (see ``HistoryFeatures``).

    Columns: the last ``n_recent`` runtimes (newest first), the last
    ``n_recent`` usage ratios (newest first), the number of completed jobs,
    the mean runtime and mean usage ratio of all of them (running sums in
    history order), and the time since the newest one ended. Missing values
    are ``NaN`` (count is 0 without history).
    """
    nq = q_group.shape[0]
    out = np.full((nq, user_column_count(n_recent)), np.nan)
    current = -2
    start = 0
    end = 0
    hi = 0
    run_sum = 0.0
    ratio_sum = 0.0
    ratio_count = 0
    for qi in range(nq):
        g = q_group[qi]
        if g < 0:
            out[qi, n_done_column(n_recent)] = 0.0
            continue
        if g != current:
            current = g
            start, end = _group_span(h_group, g, start)
            hi = start
            run_sum = 0.0
            ratio_sum = 0.0
            ratio_count = 0
        t = q_time[qi]
        while hi < end and h_known[hi] <= t:
            run_sum += h_run[hi]
            if not np.isnan(h_ratio[hi]):
                ratio_sum += h_ratio[hi]
                ratio_count += 1
            hi += 1
        count = hi - start
        for k in range(n_recent):
            i = hi - 1 - k
            if i >= start:
                out[qi, k] = h_run[i]
                out[qi, n_recent + k] = h_ratio[i]
        newest_known = h_known[hi - 1] if count > 0 else np.nan
        write_history_summary(out, qi, n_recent, t, count, run_sum, ratio_sum, ratio_count,
                              newest_known)
    return out

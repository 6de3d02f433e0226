"""The online state of :class:`HistoryFeatures`, updated in compiled code.

A simulation tells a predictor each completed job as it ends and asks it
about each job as it is submitted. :class:`HistoryState` keeps, per user,
the history entries (:class:`HistoryArrays`) in the order ``HistoryFeatures.transform`` sorts them
(known time, submit time, job id, then insertion order) as a linked list,
newest first, with running sums stored at each entry. Adding an entry costs
O(1) when it is the user's newest (always the case for completions, which
arrive in time order, except for ties and for fitted entries not yet known);
the features of a job cost O(``n_recent``). The features are bit for bit
those of ``HistoryFeatures.transform`` (same sums, added in the same order),
so a regressor on top gives the same predictions.

The features of a job may also be computed *ahead*, as they will be if some
entries are added first (``extra`` entries, e.g. running jobs whose end is
already known to the simulator); see :func:`features_ahead`.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._base import group_codes
from ._kernels import n_done_column, user_column_count, write_history_summary

__all__ = ["HistoryState", "HistoryArrays", "history_order"]

_NO_ENTRY = -1
"""``head`` and ``prev`` value where there is no entry (a user without entries, the oldest)."""


@njit(cache=True, inline="always", _nrt=False)
def history_order(known_a, submit_a, id_a, known_b, submit_b, id_b):
    """-1, 1 or 0: entry ``a`` sorts before, after or with entry ``b`` in the history order.

    Known time, then submit time (both finite), then job id (NaN last, as
    ``np.lexsort`` sorts); each caller breaks a tie (0) by the order it
    added the entries in.
    """
    if known_a != known_b:
        return -1 if known_a < known_b else 1
    if submit_a != submit_b:
        return -1 if submit_a < submit_b else 1
    if id_a != id_a:
        return 0 if id_b != id_b else 1
    if id_b != id_b or id_a < id_b:
        return -1
    return 1 if id_a > id_b else 0


class HistoryArrays(NamedTuple):
    """The users' history entries, as the compiled passes read and write them.

    Entry ``e`` is row ``e`` of every per-entry array; a user's entries form
    a list from ``head[u]``, newest first, along ``prev``.

    Attributes
    ----------
    head : ndarray of int64, one per user
        The user's newest entry (``_NO_ENTRY``: none yet).
    size : ndarray of int64, length 1
        ``size[0]`` entries stored so far.
    known, submit, job_id : ndarray of float64, per entry
        Its sort key (:func:`history_order`): when its runtime became known,
        its submit time and its job id (NaN: none).
    run, ratio : ndarray of float64, per entry
        Its runtime, and runtime / request (NaN without a request).
    prev : ndarray of int64, per entry
        The user's next older entry (``_NO_ENTRY`` for the oldest).
    count, run_sum, ratio_sum, ratio_n : ndarray, per entry
        Sums over the entry and every older one of its user: entries,
        runtimes, ratios that are not NaN and how many those are (int64
        counts, float64 sums).
    stack : ndarray of int64, one per entry
        Scratch space: the entries a pass walks past.
    """

    head: np.ndarray
    size: np.ndarray
    known: np.ndarray
    submit: np.ndarray
    job_id: np.ndarray
    run: np.ndarray
    ratio: np.ndarray
    prev: np.ndarray
    count: np.ndarray
    run_sum: np.ndarray
    ratio_sum: np.ndarray
    ratio_n: np.ndarray
    stack: np.ndarray


def empty_history(n_users, capacity):
    """:class:`HistoryArrays` for ``n_users`` users (at least one) and ``capacity`` entries."""
    def floats():
        return np.empty(capacity)

    def ints():
        return np.empty(capacity, dtype=np.int64)

    return HistoryArrays(
        head=np.full(max(n_users, 1), _NO_ENTRY, dtype=np.int64),
        size=np.zeros(1, dtype=np.int64), known=floats(), submit=floats(), job_id=floats(),
        run=floats(), ratio=floats(), prev=ints(), count=ints(), run_sum=floats(),
        ratio_sum=floats(), ratio_n=ints(), stack=ints())


@njit(cache=True)
def _link_sums(h, e, p):
    """Running sums of entry ``e`` placed right after ``p`` (-1: first)."""
    if p < 0:
        h.count[e] = 1
        h.run_sum[e] = 0.0 + h.run[e]
        h.ratio_sum[e] = 0.0
        h.ratio_n[e] = 0
    else:
        h.count[e] = h.count[p] + 1
        h.run_sum[e] = h.run_sum[p] + h.run[e]
        h.ratio_sum[e] = h.ratio_sum[p]
        h.ratio_n[e] = h.ratio_n[p]
    if not np.isnan(h.ratio[e]):
        h.ratio_sum[e] += h.ratio[e]
        h.ratio_n[e] += 1


@njit(cache=True, inline="always")
def _sorts_after(h, p, e):
    """Whether stored entry ``p`` sorts after stored entry ``e``."""
    return history_order(h.known[p], h.submit[p], h.job_id[p], h.known[e], h.submit[e],
                         h.job_id[e]) > 0


@njit(cache=True)
def insert_entry(h, u, e_known, e_submit, e_id, e_run, e_ratio):
    """Add one entry of user ``u`` to ``h`` (after older entries with the same sort key).

    It walks back from the user's newest entry past those sorting after it,
    is linked there, and the running sums of the entries after it are
    recomputed. Entries without a user, runtime or known time are skipped.
    """
    if u < 0 or not np.isfinite(e_run) or not np.isfinite(e_known):
        return
    e = h.size[0]
    h.size[0] += 1
    h.known[e] = e_known
    h.submit[e] = e_submit
    h.job_id[e] = e_id
    h.run[e] = e_run
    h.ratio[e] = e_ratio
    depth = 0
    p = h.head[u]
    while p >= 0 and _sorts_after(h, p, e):
        h.stack[depth] = p
        depth += 1
        p = h.prev[p]
    h.prev[e] = p
    if depth == 0:
        h.head[u] = e
    else:
        h.prev[h.stack[depth - 1]] = e
    _link_sums(h, e, p)
    before = e
    for k in range(depth - 1, -1, -1):
        _link_sums(h, h.stack[k], before)
        before = h.stack[k]


@njit(cache=True)
def insert_entries(h, users, e_known, e_submit, e_id, e_run, e_ratio):
    """Add entries to ``h`` in the given order (:func:`insert_entry` each)."""
    for i in range(users.shape[0]):
        insert_entry(h, users[i], e_known[i], e_submit[i], e_id[i], e_run[i], e_ratio[i])


@njit(cache=True)
def features_ahead(h, u, t, n_recent, x_known, x_submit, x_id, x_run, x_ratio, out, row):
    """Features (``user_*`` columns) of a query of user ``u`` at time ``t``.

    Uses the entries of ``h`` with known time ``<= t`` plus the ``extra``
    entries ``x_*`` (sorted by the entry order, all known by ``t``, all of
    them newer than the entries of the state known by the time of the call
    and added after them), as ``HistoryFeatures.transform`` would once they
    are added. Writes ``out[row, :user_column_count(n_recent)]``.
    """
    head, known, submit, job_id = h.head, h.known, h.submit, h.job_id
    run, ratio, prev, count = h.run, h.ratio, h.prev, h.count
    run_sum, ratio_sum, ratio_n, scratch = h.run_sum, h.ratio_sum, h.ratio_n, h.stack
    for c in range(user_column_count(n_recent)):
        out[row, c] = np.nan
    if u < 0:
        out[row, n_done_column(n_recent)] = 0.0
        return
    p = head[u]
    while p >= 0 and known[p] > t:
        p = prev[p]
    m = x_known.shape[0]
    # entries of the state that sort after the first extra one (known in the future
    # when the state was last updated): merged with the extra ones
    depth = 0
    if m > 0:
        while p >= 0 and history_order(known[p], submit[p], job_id[p], x_known[0],
                                       x_submit[0], x_id[0]) > 0:
            scratch[depth] = p
            depth += 1
            p = prev[p]
    if depth == 0 and m == 0:
        if p < 0:
            out[row, n_done_column(n_recent)] = 0.0
            return
        write_history_summary(out, row, n_recent, t, count[p], run_sum[p], ratio_sum[p],
                              ratio_n[p], known[p])
        q = p
        for k in range(n_recent):
            if q < 0:
                break
            out[row, k] = run[q]
            out[row, n_recent + k] = ratio[q]
            q = prev[q]
        return
    c = 0 if p < 0 else count[p]
    rs = 0.0 if p < 0 else run_sum[p]
    qs = 0.0 if p < 0 else ratio_sum[p]
    qn = 0 if p < 0 else ratio_n[p]
    # merge, oldest first: state entries scratch[depth-1..0] and extra x[0..m-1];
    # equal keys: the state's (added earlier) first
    total = depth + m
    i = depth - 1
    j = 0
    newest = 0.0
    merged_run = np.empty(total)
    merged_ratio = np.empty(total)
    for k in range(total):
        take_state = False
        if i >= 0 and j < m:
            s = scratch[i]
            take_state = history_order(known[s], submit[s], job_id[s],
                                       x_known[j], x_submit[j], x_id[j]) <= 0
        elif i >= 0:
            take_state = True
        if take_state:
            s = scratch[i]
            r, q, newest = run[s], ratio[s], known[s]
            i -= 1
        else:
            r, q, newest = x_run[j], x_ratio[j], x_known[j]
            j += 1
        c += 1
        rs += r
        if not np.isnan(q):
            qs += q
            qn += 1
        merged_run[k] = r
        merged_ratio[k] = q
    write_history_summary(out, row, n_recent, t, c, rs, qs, qn, newest)
    k = 0
    for idx in range(total - 1, -1, -1):
        if k >= n_recent:
            return
        out[row, k] = merged_run[idx]
        out[row, n_recent + k] = merged_ratio[idx]
        k += 1
    q = p
    while k < n_recent and q >= 0:
        out[row, k] = run[q]
        out[row, n_recent + k] = ratio[q]
        q = prev[q]
        k += 1


def usage_ratio(run, request):
    """``run / request`` where the request is positive, else NaN (as ``HistoryFeatures``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(request > 0, run / request, np.nan)


class HistoryState:
    """Per-user history of a fitted :class:`HistoryFeatures`, for the jobs to come.

    Parameters
    ----------
    features : HistoryFeatures
        Fitted; its history (``history_``) is loaded, entries known later
        included (they count from their known time on).
    jobs : dict of ndarray
        The jobs to come (``submit_time``, ``req_time``, ``user_id``,
        ``job_id``, ``procs``), row ``i`` is job ``i``.

    Attributes
    ----------
    user : ndarray of int64
        User code of each job to come (-1: no user).
    entries : HistoryArrays
        The users' history entries (one user code per user of the history
        or of the jobs to come).
    """

    def __init__(self, features, jobs):
        hist = features.history_
        self.n_recent = int(features.n_recent)
        h_code, q_code = group_codes([hist, jobs], ("user_id",))
        self.user = q_code.astype(np.int64)
        n_users = int(max(h_code.max(initial=-1), q_code.max(initial=-1))) + 1
        self.entries = empty_history(n_users, len(hist["run"]) + len(q_code) + 1)
        self.jobs = jobs
        order = np.lexsort((hist["seq"], hist["job_id"], hist["submit_time"], hist["known"]))
        self.insert(h_code[order], hist["known"][order], hist["submit_time"][order],
                    hist["job_id"][order], hist["run"][order],
                    usage_ratio(hist["run"][order], hist["req_time"][order]))

    def insert(self, users, known, submit, job_id, run, ratio):
        """Add entries in order (later ones after earlier ones with the same sort key)."""
        insert_entries(self.entries, np.asarray(users, dtype=np.int64),
                       np.asarray(known, dtype=np.float64), np.asarray(submit, dtype=np.float64),
                       np.asarray(job_id, dtype=np.float64), np.asarray(run, dtype=np.float64),
                       np.asarray(ratio, dtype=np.float64))

    def observe(self, index, end_time, run_time):
        """Add completed jobs ``index`` (rows of ``jobs``), in completion order."""
        jobs = self.jobs
        self.insert(self.user[index], end_time, jobs["submit_time"][index],
                    jobs["job_id"][index], run_time,
                    usage_ratio(run_time, jobs["req_time"][index]))

    def user_features(self, users, times):
        """The ``user_*`` columns for queries ``(users, times)`` (no extra entries)."""
        out = np.empty((len(users), user_column_count(self.n_recent)))
        empty = np.empty(0)
        for row, (u, t) in enumerate(zip(np.asarray(users, dtype=np.int64),
                                         np.asarray(times, dtype=np.float64))):
            features_ahead(self.entries, u, t, self.n_recent, empty, empty, empty, empty,
                           empty, out, row)
        return out

"""Compiled passes of :class:`~predictkit.runtime.LearnedRuntime` (numba, cached on disk).

Both passes walk one list of *events* in time order (:func:`event_order`):
the completion of each history entry at its known time (:data:`COMPLETION`)
and the submission of each history entry and each query at its submit time
(:data:`SUBMISSION`).
A submission at ``s`` comes after every completion with known time ``<= s``
(the no-peeking rule of :mod:`predictkit.runtime._base`: a job ending in the
same second counts as finished); completions come in the history's recent
order (known time, submit time, ``job_id``, order added). Rows index one
table: history entries first, then queries.

State of the passes (one row per user, group or (user, request) key code; the
feature state first, then the budget state):

========================  ==========================================================
state                     meaning
========================  ==========================================================
``u_ratio[u, k]``         log(run / request) of the user's completed jobs, a ring
                          of ``ring`` slots (slot ``count % ring`` is the oldest)
``u_run``, ``u_submit``   log runtime and submit time of the same jobs
``u_fail``                1 if that job did not complete normally (SWF status not 1),
                          0 if it did, NaN where the log has no status
``u_count[u]``            completed jobs of the user so far
``u_end[u]``              latest known (end) time among them
``k_last``, ``k_mean``    last and exponentially weighted mean log ratio per
                          (user, request) key; ``k_count`` jobs per key
``g_mean``                exponentially weighted mean log ratio per group (project)
``u_res[u, k]``           log ratios of the user's completed jobs with a request, a ring
                          of ``ring`` slots; ``u_res_count[u]`` how many were added
``k_res[k, j]``           the same per (user, request) key, counted by ``k_res_count``
``p_res[j]``              the model's last residuals (log ratio minus its prediction)
                          over all users, a ring of ``pooled_size`` slots;
                          ``p_count[0]`` how many were added
``log_lam``               log multiplier of the bad-estimate penalty
========================  ==========================================================
"""

import numpy as np
from numba import njit

__all__ = ["FEATURE_NAMES", "event_order", "submission_features", "budgeted_predictions",
           "feature_state", "budget_state", "features_for", "decide_rows", "complete_row",
           "undo_row", "UNDO_SIZE", "COMPLETION", "SUBMISSION"]

FEATURE_NAMES = (
    "log_request", "log_width", "user_log_n_done",
    "user_ratio_1", "user_ratio_2", "user_ratio_3", "user_mean_ratio", "user_std_ratio",
    "user_ratio_trend", "user_log_run_1", "user_log_since_last_end",
    "user_log_since_last_submit", "user_burst_position",
    "key_ratio_1", "key_mean_ratio", "key_log_n_done", "group_mean_ratio",
    "user_failed_share",
)
"""Columns of :func:`submission_features` (log ratios are log(run / request))."""

COMPLETION, SUBMISSION = 0, 1
"""Kinds of events; at the same instant completions come first (the smaller kind)."""

(LOG_REQUEST, LOG_WIDTH, USER_LOG_N_DONE, USER_RATIO_1, USER_RATIO_2, USER_RATIO_3,
 USER_MEAN_RATIO, USER_STD_RATIO, USER_RATIO_TREND, USER_LOG_RUN_1, USER_LOG_SINCE_LAST_END,
 USER_LOG_SINCE_LAST_SUBMIT, USER_BURST_POSITION, KEY_RATIO_1, KEY_MEAN_RATIO,
 KEY_LOG_N_DONE, GROUP_MEAN_RATIO, USER_FAILED_SHARE) = range(len(FEATURE_NAMES))
"""Column of each feature in :data:`FEATURE_NAMES` (its name in capitals)."""

_LOG_OVERRUN = np.log(2.0)
"""Largest log(run / request) a residual sample may reach (jobs overrun their requests)."""
_KEY_WEIGHT = 0.3
"""Weight of the newest job in the (user, request) key's moving mean."""
_GROUP_WEIGHT = 0.05
"""Weight of the newest job in the group's moving mean."""
_RECENCY = 0.7
"""Weight of a sampled job relative to the next newer one of the same user or key: the
samples follow a user's latest runs (half the weight two jobs back)."""
_AIM_WINDOW = 1000
"""Completions over which the bad share must stay under the budget (see :func:`aimed_share`)."""
_AIM_Z = 1.645
"""Normal quantile of that bound (one-sided 95%)."""


def event_order(known, submit, job_id, seq, q_submit):
    """Events of the passes, in time order: ``(kind, row)`` arrays.

    Parameters
    ----------
    known, submit, job_id, seq : ndarray
        History entries (known time NaN: never completes).
    q_submit : ndarray
        Submit times of the queries (rows ``len(known) + i``).
    """
    nh, nq = len(known), len(q_submit)
    done = np.flatnonzero(np.isfinite(known))
    done = done[np.lexsort((seq[done], job_id[done], submit[done], known[done]))]
    times = np.concatenate([known[done], submit, q_submit])
    kinds = np.concatenate([np.full(len(done), COMPLETION),
                            np.full(nh + nq, SUBMISSION)]).astype(np.int64)
    rows = np.concatenate([done, np.arange(nh + nq)]).astype(np.int64)
    # completions keep their recent order; at equal times they come first
    rank = np.arange(len(times))
    order = np.lexsort((rank, kinds, times))
    return kinds[order], rows[order], times[order]


@njit(cache=True)
def _nanmean(values):
    total, count = 0.0, 0
    for v in values:
        if v == v:
            total += v
            count += 1
    return total / count if count else np.nan


@njit(cache=True)
def complete_features(i, t, user, group, key, submit, fail, log_ratio, log_run, u_ratio, u_run,
                      u_submit, u_fail, u_count, u_end, k_last, k_mean, k_count, g_mean, ring):
    """Add the completion of row ``i`` at known time ``t`` to the feature state."""
    u, g, k, r = user[i], group[i], key[i], log_ratio[i]
    if u >= 0:
        slot = u_count[u] % ring
        u_ratio[u, slot] = r
        u_run[u, slot] = log_run[i]
        u_submit[u, slot] = submit[i]
        u_fail[u, slot] = fail[i]
        u_count[u] += 1
        u_end[u] = t
    if r == r:
        if k >= 0:
            k_last[k] = r
            k_mean[k] = r if k_count[k] == 0 else (
                _KEY_WEIGHT * r + (1 - _KEY_WEIGHT) * k_mean[k])
            k_count[k] += 1
        if g >= 0:
            g_mean[g] = r if g_mean[g] != g_mean[g] else (
                _GROUP_WEIGHT * r + (1 - _GROUP_WEIGHT) * g_mean[g])


@njit(cache=True)
def features_of(f, i, user, group, key, submit, req, width, u_ratio, u_run, u_submit, u_fail,
                u_count, u_end, k_last, k_mean, k_count, g_mean, ring, session):
    """Write the features of the submission of row ``i`` into ``f`` (all NaN on entry)."""
    u, g, k = user[i], group[i], key[i]
    s = submit[i]
    if req[i] > 0:
        f[LOG_REQUEST] = np.log(req[i])
    if width[i] > 0:
        f[LOG_WIDTH] = np.log(width[i])
    if g >= 0:
        f[GROUP_MEAN_RATIO] = g_mean[g]
    if k >= 0 and k_count[k] > 0:
        f[KEY_RATIO_1] = k_last[k]
        f[KEY_MEAN_RATIO] = k_mean[k]
        f[KEY_LOG_N_DONE] = np.log1p(k_count[k])
    if u < 0:
        return
    c = u_count[u]
    f[USER_LOG_N_DONE] = np.log1p(c)
    m = min(c, ring)
    if m == 0:
        return
    newest = np.empty(m)
    last_submit, burst = -np.inf, 0
    for j in range(m):
        slot = (c - 1 - j) % ring
        newest[j] = u_ratio[u, slot]
        if u_submit[u, slot] > last_submit:
            last_submit = u_submit[u, slot]
        if s - u_submit[u, slot] <= session:
            burst += 1
    for j in range(min(m, 3)):
        f[USER_RATIO_1 + j] = newest[j]
    mean = _nanmean(newest)
    f[USER_MEAN_RATIO] = mean
    if mean == mean:
        total, count = 0.0, 0
        for v in newest:
            if v == v:
                total += (v - mean) * (v - mean)  # a product, as the reference computes it
                count += 1
        f[USER_STD_RATIO] = np.sqrt(total / count)
        f[USER_RATIO_TREND] = _nanmean(newest[:4]) - mean
    f[USER_LOG_RUN_1] = u_run[u, (c - 1) % ring]
    f[USER_LOG_SINCE_LAST_END] = np.log1p(max(s - u_end[u], 0.0))
    f[USER_LOG_SINCE_LAST_SUBMIT] = np.log1p(max(s - last_submit, 0.0))
    f[USER_BURST_POSITION] = burst
    failed = np.empty(m)
    for j in range(m):
        failed[j] = u_fail[u, (c - 1 - j) % ring]
    f[USER_FAILED_SHARE] = _nanmean(failed)


@njit(cache=True)
def feature_state(n_users, n_groups, n_keys, ring):
    """Empty feature state (see the module notes), in the order the kernels take it."""
    nu, ng, nk = max(n_users, 1), max(n_groups, 1), max(n_keys, 1)
    return (np.full((nu, ring), np.nan), np.full((nu, ring), np.nan),
            np.full((nu, ring), np.nan), np.full((nu, ring), np.nan),
            np.zeros(nu, dtype=np.int64), np.full(nu, np.nan), np.full(nk, np.nan),
            np.full(nk, np.nan), np.zeros(nk, dtype=np.int64), np.full(ng, np.nan))


@njit(cache=True)
def submission_features(kind, row, time, user, group, key, submit, req, width, fail,
                        log_ratio, log_run, n_users, n_groups, n_keys, ring, session):
    """Features of every submission from the completions before it (:data:`FEATURE_NAMES`).

    ``session`` (s): completed jobs of the user submitted at most this long
    before a submission count as earlier jobs of its burst.
    """
    n = submit.shape[0]
    out = np.full((n, len(FEATURE_NAMES)), np.nan)
    (u_ratio, u_run, u_submit, u_fail, u_count, u_end, k_last, k_mean, k_count,
     g_mean) = feature_state(n_users, n_groups, n_keys, ring)
    for e in range(kind.shape[0]):
        i = row[e]
        if kind[e] == COMPLETION:
            complete_features(i, time[e], user, group, key, submit, fail, log_ratio, log_run,
                              u_ratio, u_run, u_submit, u_fail, u_count, u_end, k_last, k_mean,
                              k_count, g_mean, ring)
        else:
            features_of(out[i], i, user, group, key, submit, req, width, u_ratio, u_run,
                        u_submit, u_fail, u_count, u_end, k_last, k_mean, k_count, g_mean,
                        ring, session)
    return out


@njit(cache=True)
def _decide(log_ratios, weights, request, lam, threshold, sentinel):
    """The estimate minimising ``-E[accuracy] + lam * P(bad estimate)`` over weighted samples.

    The runtime samples are ``request * exp(min(l, log 2))`` for the sampled
    log ratios ``l`` (a job may overrun its request), plus a pseudo-job of
    weight ``sentinel`` that runs ``threshold`` past the request, so that
    every adjusted estimate carries some risk and a large ``lam`` brings
    every estimate back to the request; the candidates are the samples themselves, each sample
    minus ``threshold`` (the smallest estimate that is not a bad one for it),
    and the request (never a bad estimate: Tang's BE counts adjusted jobs).
    Ties go to the larger estimate.
    """
    m = log_ratios.shape[0]
    runs = np.empty(m)
    for k in range(m):
        runs[k] = request * np.exp(min(log_ratios[k], _LOG_OVERRUN))
    order = np.argsort(runs)
    runs, w = runs[order], weights[order]
    # below[k]: sum of w * r over the k shortest runs; above[k]: sum of w / r and of w
    # over the runs from k on
    below = np.zeros(m + 1)
    above_inv = np.zeros(m + 1)
    above_w = np.zeros(m + 1)
    for k in range(m):
        below[k + 1] = below[k] + w[k] * runs[k]
    for k in range(m - 1, -1, -1):
        above_inv[k] = above_inv[k + 1] + w[k] / runs[k]
        above_w[k] = above_w[k + 1] + w[k]
    total = above_w[0] + sentinel
    long_run = request + threshold + 1.0
    # the request: accuracy min(r, R) / max(r, R), never a bad estimate
    split = np.searchsorted(runs, request)
    acc = below[split] / request + request * above_inv[split] + sentinel * request / long_run
    best, best_loss = request, -acc / total
    for j in range(2 * m):
        p = runs[j % m] if j < m else runs[j % m] - threshold
        p = max(p, 1.0)
        if p >= request:
            continue
        lo = np.searchsorted(runs, p, side="left")  # runs < p
        hi = np.searchsorted(runs, p, side="right")  # runs <= p
        acc = below[lo] / p + (above_w[lo] - above_w[hi]) + p * above_inv[hi]
        acc += sentinel * p / long_run
        bad = above_w[np.searchsorted(runs, p + threshold, side="right")] + sentinel
        loss = (-acc + lam * bad) / total
        if loss < best_loss - 1e-12 or (abs(loss - best_loss) <= 1e-12 and p > best):
            best, best_loss = p, loss
    return best


@njit(cache=True)
def aimed_share(budget):
    """The bad share the calibration aims at, so that ``budget`` is a maximum.

    The share ``t`` whose one-sided 95% binomial upper bound over a stretch
    of ``_AIM_WINDOW`` completions reaches the budget:
    ``t + _AIM_Z * sqrt(t (1 - t) / _AIM_WINDOW) = budget`` (the smaller root
    of the quadratic), e.g. 1.39% for a 2% budget, 3.98% for 5%, 18.0% for 20%.
    Aiming at the budget itself would exceed it over half the stretches.
    """
    c = _AIM_Z * _AIM_Z / _AIM_WINDOW
    b = budget
    return ((2.0 * b + c) - np.sqrt((2.0 * b + c) ** 2 - 4.0 * (1.0 + c) * b * b)) / (
        2.0 * (1.0 + c))


@njit(cache=True)
def budgeted_predictions(kind, row, user, key, req, run, log_ratio, mu, modeled, ring,
                         pooled_size, pooled_weight, sentinel, min_user_jobs, threshold, budget,
                         step, log_lam_start, log_lam_low, log_lam_high):
    """Estimates held to a bad-estimate budget by an adaptive multiplier.

    At each submission, the estimate minimises ``-E[accuracy] + lam * P(bad)``
    (:func:`_decide`) over sampled log ratios: those of the last ``ring``
    jobs of the job's ``key`` (user and request; of its user when the key
    has fewer than ``min_user_jobs``), the newest weighing 1 and each older
    one ``_RECENCY`` times the next newer one, mixed with the model's prediction ``mu``
    plus each of the model's last ``pooled_size`` residuals over all users
    (weight ``pooled_weight`` in all: the learned prior, which also keeps
    the tail risk of a user's few jobs from vanishing) and a pseudo-job of
    weight ``sentinel`` that outruns its request. A job keeps
    its request when its user has fewer than ``min_user_jobs`` completed
    jobs and no model has been fitted yet (``modeled``). At each completion
    of an estimated job, ``log lam`` moves by ``step * (bad - budget)``, the
    adaptive conformal update of Gibbs & Candes (2021) eq. 2 applied to the
    multiplier with the target :func:`aimed_share` of ``budget``, so that
    the share of bad estimates over a long stretch stays below ``budget``
    with high probability. Returns the estimates (one per row, NaN where there is no
    request) and ``log lam`` at each submission.
    """
    n = req.shape[0]
    pred = np.full(n, np.nan)
    trace = np.full(n, np.nan)
    n_users = 1
    for i in range(n):
        if user[i] + 1 > n_users:
            n_users = user[i] + 1
    n_keys = 1
    for i in range(n):
        if key[i] + 1 > n_keys:
            n_keys = key[i] + 1
    u_res, u_res_count, k_res, k_res_count, p_res, p_count = budget_state(n_users, n_keys, ring,
                                                                  pooled_size)
    samples = np.empty(ring + pooled_size)
    weights = np.empty(ring + pooled_size)
    log_lam = log_lam_start
    for e in range(kind.shape[0]):
        i = row[e]
        if kind[e] == COMPLETION:
            log_lam = complete_budget(i, pred[i], user, key, req, run, log_ratio, mu[i], u_res,
                                      u_res_count, k_res, k_res_count, p_res, p_count, log_lam, ring,
                                      threshold, budget, step, log_lam_low, log_lam_high)
            if log_ratio[i] - mu[i] == log_ratio[i] - mu[i]:
                p_count[0] += 1
            continue
        trace[i] = log_lam
        pred[i] = decide_row(i, user, key, req, mu[i], modeled[i], u_res, u_res_count, k_res,
                             k_res_count, p_res, p_count[0], samples, weights, log_lam, ring,
                             pooled_size, pooled_weight, sentinel, min_user_jobs, threshold)
    return pred, trace


@njit(cache=True)
def budget_state(n_users, n_keys, ring, pooled_size):
    """Empty state of the budgeted decisions: residual rings per user, key, and pooled."""
    return (np.zeros((max(n_users, 1), ring)), np.zeros(max(n_users, 1), dtype=np.int64),
            np.zeros((max(n_keys, 1), ring)), np.zeros(max(n_keys, 1), dtype=np.int64),
            np.zeros(pooled_size), np.zeros(1, dtype=np.int64))


@njit(cache=True)
def complete_budget(i, pred_i, user, key, req, run, log_ratio, mu_i, u_res, u_res_count, k_res,
                    k_res_count, p_res, p_count, log_lam, ring, threshold, budget, step,
                    log_lam_low, log_lam_high):
    """Add the completion of row ``i`` (estimated ``pred_i`` at its submission) to the state.

    ``budget`` is the maximum bad share; the update aims at :func:`aimed_share`.
    Returns the new ``log lam``; the caller counts the pooled residual (``p_count[0]``)
    when ``log_ratio[i] - mu_i`` is finite.
    """
    u = user[i]
    if pred_i == pred_i and req[i] > 0:
        bad = 1.0 if pred_i < req[i] and run[i] - pred_i > threshold else 0.0
        log_lam = min(max(log_lam + step * (bad - aimed_share(budget)), log_lam_low),
                      log_lam_high)
    residual = log_ratio[i] - mu_i
    if residual == residual:
        p_res[p_count[0] % p_res.shape[0]] = residual
    if u >= 0 and log_ratio[i] == log_ratio[i]:
        u_res[u, u_res_count[u] % ring] = log_ratio[i]
        u_res_count[u] += 1
    if key[i] >= 0 and log_ratio[i] == log_ratio[i]:
        k_res[key[i], k_res_count[key[i]] % ring] = log_ratio[i]
        k_res_count[key[i]] += 1
    return log_lam


@njit(cache=True)
def decide_row(i, user, key, req, mu_i, modeled_i, u_res, u_res_count, k_res, k_res_count, p_res,
               p_count, samples, weights, log_lam, ring, pooled_size, pooled_weight, sentinel,
               min_user_jobs, threshold):
    """The budgeted estimate of row ``i`` at its submission (see :func:`budgeted_predictions`)."""
    u = user[i]
    request = req[i]
    if not request > 0:
        return request
    m_user = min(u_res_count[u], ring) if u >= 0 else 0
    if m_user < min_user_jobs and not modeled_i:
        return request
    m = 0
    kk = key[i]
    m_key = min(k_res_count[kk], ring) if kk >= 0 else 0
    if m_key >= min_user_jobs:
        for k in range(m_key):
            samples[m] = k_res[kk, k]
            weights[m] = _RECENCY ** ((k_res_count[kk] - 1 - k) % ring)  # the newest weighs 1
            m += 1
    else:
        for k in range(m_user):
            samples[m] = u_res[u, k]
            weights[m] = _RECENCY ** ((u_res_count[u] - 1 - k) % ring)
            m += 1
    m_pooled = min(p_count, pooled_size)
    for k in range(m_pooled):
        samples[m] = mu_i + p_res[k]
        weights[m] = pooled_weight / m_pooled
        m += 1
    if m == 0:
        return request
    return _decide(samples[:m], weights[:m], request, np.exp(log_lam), threshold, sentinel)


@njit(cache=True)
def features_for(rows, user, group, key, submit, req, width, u_ratio, u_run, u_submit, u_fail,
                 u_count, u_end, k_last, k_mean, k_count, g_mean, ring, session):
    """Features of the submissions of ``rows`` from the current feature state."""
    out = np.full((rows.shape[0], len(FEATURE_NAMES)), np.nan)
    for j in range(rows.shape[0]):
        features_of(out[j], rows[j], user, group, key, submit, req, width, u_ratio, u_run,
                    u_submit, u_fail, u_count, u_end, k_last, k_mean, k_count, g_mean, ring,
                    session)
    return out


@njit(cache=True)
def decide_rows(rows, mu, modeled, user, key, req, u_res, u_res_count, k_res, k_res_count, p_res,
                p_count, log_lam, ring, pooled_size, pooled_weight, sentinel, min_user_jobs,
                threshold):
    """Budgeted estimates of the submissions of ``rows`` from the current state."""
    out = np.empty(rows.shape[0])
    samples = np.empty(ring + pooled_size)
    weights = np.empty(ring + pooled_size)
    for j in range(rows.shape[0]):
        out[j] = decide_row(rows[j], user, key, req, mu[j], modeled[j], u_res, u_res_count, k_res,
                            k_res_count, p_res, p_count[0], samples, weights, log_lam, ring,
                            pooled_size, pooled_weight, sentinel, min_user_jobs, threshold)
    return out


(_UNDO_U_RATIO, _UNDO_U_RUN, _UNDO_U_SUBMIT, _UNDO_U_FAIL, _UNDO_U_END, _UNDO_K_LAST,
 _UNDO_K_MEAN, _UNDO_G_MEAN, _UNDO_U_RES, _UNDO_K_RES, _UNDO_P_RES, _UNDO_LOG_LAM,
 _UNDO_MU) = range(13)
"""Slots of a :func:`complete_row` record: the values of the state it overwrites (the
user's ring slot, last end, key and group means, residual ring slots, ``log lam``)
and the model's prediction ``mu`` it completed with."""
UNDO_SIZE = 13
"""Values of one :func:`complete_row` record (what it overwrites, see :func:`undo_row`)."""


@njit(cache=True)
def complete_row(i, t, pred_i, mu_i, user, group, key, submit, req, run, fail, log_ratio,
                 log_run, u_ratio, u_run, u_submit, u_fail, u_count, u_end, k_last, k_mean,
                 k_count, g_mean, u_res, u_res_count, k_res, k_res_count, p_res, p_count, log_lam,
                 ring, threshold, budget, step, log_lam_low, log_lam_high, undo):
    """Add the completion of row ``i`` at known time ``t`` to both states; the new ``log lam``.

    ``undo`` (:data:`UNDO_SIZE` values) receives what the completion
    overwrites, so that :func:`undo_row` can take it back.
    """
    u, g, k = user[i], group[i], key[i]
    nan = np.nan
    undo[_UNDO_U_RATIO] = u_ratio[u, u_count[u] % ring] if u >= 0 else nan
    undo[_UNDO_U_RUN] = u_run[u, u_count[u] % ring] if u >= 0 else nan
    undo[_UNDO_U_SUBMIT] = u_submit[u, u_count[u] % ring] if u >= 0 else nan
    undo[_UNDO_U_FAIL] = u_fail[u, u_count[u] % ring] if u >= 0 else nan
    undo[_UNDO_U_END] = u_end[u] if u >= 0 else nan
    undo[_UNDO_K_LAST] = k_last[k] if k >= 0 else nan
    undo[_UNDO_K_MEAN] = k_mean[k] if k >= 0 else nan
    undo[_UNDO_G_MEAN] = g_mean[g] if g >= 0 else nan
    undo[_UNDO_U_RES] = u_res[u, u_res_count[u] % ring] if u >= 0 else nan
    undo[_UNDO_K_RES] = k_res[k, k_res_count[k] % ring] if k >= 0 else nan
    undo[_UNDO_P_RES] = p_res[p_count[0] % p_res.shape[0]]
    undo[_UNDO_LOG_LAM] = log_lam
    undo[_UNDO_MU] = mu_i
    complete_features(i, t, user, group, key, submit, fail, log_ratio, log_run, u_ratio, u_run,
                      u_submit, u_fail, u_count, u_end, k_last, k_mean, k_count, g_mean, ring)
    log_lam = complete_budget(i, pred_i, user, key, req, run, log_ratio, mu_i, u_res, u_res_count,
                              k_res, k_res_count, p_res, p_count, log_lam, ring, threshold, budget,
                              step, log_lam_low, log_lam_high)
    if log_ratio[i] - mu_i == log_ratio[i] - mu_i:
        p_count[0] += 1
    return log_lam


@njit(cache=True)
def undo_row(i, undo, user, group, key, log_ratio, u_ratio, u_run, u_submit, u_fail, u_count,
             u_end, k_last, k_mean, k_count, g_mean, u_res, u_res_count, k_res, k_res_count, p_res,
             p_count, ring):
    """Take back the last :func:`complete_row` of row ``i`` (its record ``undo``).

    Completions are taken back newest first. Returns ``log lam`` before it.
    """
    u, g, k, r = user[i], group[i], key[i], log_ratio[i]
    if r - undo[_UNDO_MU] == r - undo[_UNDO_MU]:
        p_count[0] -= 1
        p_res[p_count[0] % p_res.shape[0]] = undo[_UNDO_P_RES]
    if r == r:
        if k >= 0:
            k_res_count[k] -= 1
            k_res[k, k_res_count[k] % ring] = undo[_UNDO_K_RES]
            k_count[k] -= 1
            k_last[k] = undo[_UNDO_K_LAST]
            k_mean[k] = undo[_UNDO_K_MEAN]
        if u >= 0:
            u_res_count[u] -= 1
            u_res[u, u_res_count[u] % ring] = undo[_UNDO_U_RES]
        if g >= 0:
            g_mean[g] = undo[_UNDO_G_MEAN]
    if u >= 0:
        u_count[u] -= 1
        slot = u_count[u] % ring
        u_ratio[u, slot] = undo[_UNDO_U_RATIO]
        u_run[u, slot] = undo[_UNDO_U_RUN]
        u_submit[u, slot] = undo[_UNDO_U_SUBMIT]
        u_fail[u, slot] = undo[_UNDO_U_FAIL]
        u_end[u] = undo[_UNDO_U_END]
    return undo[_UNDO_LOG_LAM]


@njit(cache=True)
def tree_ensemble_predict(X, baseline, roots, feature, threshold, missing_left, left, right,
                          is_leaf, value):
    """Sum of ``baseline`` and one leaf value per tree for each row of ``X``.

    The trees of a fitted ``HistGradientBoostingRegressor`` (numeric features,
    squared error), nodes flattened, tree ``t`` rooted at ``roots[t]``: the
    same walk and the same sums, in the same order, as its ``predict``.
    """
    out = np.empty(X.shape[0])
    for j in range(X.shape[0]):
        total = 0.0
        total += baseline
        for t in range(roots.shape[0]):
            node = roots[t]
            while not is_leaf[node]:
                v = X[j, feature[node]]
                if v != v:
                    node = left[node] if missing_left[node] else right[node]
                elif v <= threshold[node]:
                    node = left[node]
                else:
                    node = right[node]
            total += value[node]
        out[j] = total
    return out

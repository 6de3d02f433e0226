"""Plain-Python references of the runtime predictors, one job at a time.

Each function predicts one job from a list of completed jobs (dicts with
``known``, ``submit``, ``job_id``, ``run``, ``req`` and key values), written
straight from the papers, for cross-checks of the compiled kernels.
"""

import math


def _clip(value, req):
    if math.isnan(value):
        return value
    if not math.isnan(req):
        value = min(value, req)
    return max(value, 1.0)


def type7(sorted_values, q):
    n = len(sorted_values)
    h = (n - 1) * q
    lo = math.floor(h)
    if lo >= n - 1:
        return sorted_values[n - 1]
    return sorted_values[lo] + (h - lo) * (sorted_values[lo + 1] - sorted_values[lo])


def _same(job, h, keys):
    for key in keys:
        a, b = job[key], h[key]
        if math.isnan(a) or math.isnan(b) or a != b:
            return False
    return True


def _recent_order(history):
    return sorted(history, key=lambda h: (h["known"], h["submit"], h["job_id"], h["seq"]))


def tang(history, job, *, keys, window, quantile, min_jobs, floor):
    s = job["submit"]
    ratios = []
    for h in history:
        if not _same(job, h, keys) or h["known"] > s:
            continue
        if window is not None and h["known"] < s - window:
            continue
        if not h["req"] > 0:
            continue
        ratios.append(min(h["run"] / h["req"], 1.0))
    adjust = 1.0
    if len(ratios) >= min_jobs and ratios:
        ratios.sort()
        if quantile == "mean":
            total = 0.0
            for r in ratios:
                total += r
            adjust = total / len(ratios)
        else:
            adjust = type7(ratios, quantile)
        if floor is not None:
            adjust = max(adjust, floor)
    return _clip(job["req"] * adjust, job["req"])


def usage_max(history, job, *, n_recent):
    s = job["submit"]
    mine = [h for h in _recent_order(history)
            if _same(job, h, ("user_id",)) and h["known"] <= s and h["req"] > 0]
    if not mine:
        return _clip(job["req"], job["req"])
    best = max(h["run"] / h["req"] for h in mine[-n_recent:])
    return _clip(job["req"] * best, job["req"])


def recent_average(history, job, *, n_recent):
    s = job["submit"]
    mine = [h for h in _recent_order(history)
            if _same(job, h, ("user_id",)) and h["known"] <= s]
    if not mine:
        return _clip(job["req"], job["req"])
    total = 0.0
    for h in mine[-n_recent:]:
        total += h["run"]
    return _clip(total / len(mine[-n_recent:]), job["req"])


def history_features(history, job, *, n_recent):
    """The ``user_*`` columns of HistoryFeatures for one job."""
    s = job["submit"]
    mine = [h for h in _recent_order(history)
            if _same(job, h, ("user_id",)) and h["known"] <= s]
    nan = float("nan")
    runs = [h["run"] for h in reversed(mine)][:n_recent]
    ratios = [(h["run"] / h["req"] if h["req"] > 0 else nan) for h in reversed(mine)][:n_recent]
    runs += [nan] * (n_recent - len(runs))
    ratios += [nan] * (n_recent - len(ratios))
    run_sum, ratio_sum, ratio_n = 0.0, 0.0, 0
    for h in mine:
        run_sum += h["run"]
        if h["req"] > 0:
            ratio_sum += h["run"] / h["req"]
            ratio_n += 1
    count = len(mine)
    return runs + ratios + [
        float(count),
        run_sum / count if count else nan,
        ratio_sum / ratio_n if ratio_n else nan,
        s - mine[-1]["known"] if count else nan,
    ]


def as_records(X, y=None, known=None):
    """Rows of a job table as dicts for the functions above."""
    records = []
    for i in range(len(X)):
        row = X.iloc[i]
        rec = {
            "submit": float(row["submit_time"]),
            "req": float(row["req_time"]),
            "job_id": float(row["job_id"]) if "job_id" in X.columns else float("nan"),
            "seq": float(i),
        }
        for key in ("user_id", "group_id", "req_time"):
            if key in X.columns:
                rec[key] = float(row[key])
        if y is not None:
            rec["run"] = float(y[i])
            rec["known"] = float(known[i])
        records.append(rec)
    return records


def _ewma(values, weight):
    """Moving mean: the first value, then ``weight`` of each newer one."""
    mean = None
    for v in values:
        mean = v if mean is None else weight * v + (1 - weight) * mean
    return float("nan") if mean is None else mean


def _mean_of_known(values):
    known = [v for v in values if v == v]
    total = 0.0
    for v in known:
        total += v
    return total / len(known) if known else float("nan")


def learned_features(rows, i, *, ring, session, key_weight, group_weight):
    """LearnedRuntime's submission features of row ``i`` (``FEATURE_NAMES`` order).

    ``rows``: dicts with ``user``, ``group``, ``key`` (codes, -1: none),
    ``submit``, ``known`` (NaN: never completes), ``job_id``, ``seq``,
    ``req``, ``width``, ``fail``, ``log_ratio`` and ``log_run``. Only rows
    known to have ended by the submission count (the no-peeking rule),
    oldest first in recent order; a user's features look at their last
    ``ring`` jobs.
    """
    nan = float("nan")
    job = rows[i]
    s = job["submit"]
    done = sorted((r for r in rows if r["known"] == r["known"] and r["known"] <= s),
                  key=lambda r: (r["known"], r["submit"], r["job_id"], r["seq"]))
    f = [nan] * 18
    if job["req"] > 0:
        f[0] = math.log(job["req"])
    if job["width"] > 0:
        f[1] = math.log(job["width"])
    if job["group"] >= 0:
        f[16] = _ewma([r["log_ratio"] for r in done if r["group"] == job["group"]
                       and r["log_ratio"] == r["log_ratio"]], group_weight)
    if job["key"] >= 0:
        ratios = [r["log_ratio"] for r in done if r["key"] == job["key"]
                  and r["log_ratio"] == r["log_ratio"]]
        if ratios:
            f[13], f[14], f[15] = ratios[-1], _ewma(ratios, key_weight), math.log1p(len(ratios))
    if job["user"] < 0:
        return f
    mine = [r for r in done if r["user"] == job["user"]]
    f[2] = math.log1p(len(mine))
    if not mine:
        return f
    newest = list(reversed(mine))[:ring]
    ratios = [r["log_ratio"] for r in newest]
    for j, ratio in enumerate(ratios[:3]):
        f[3 + j] = ratio
    f[6] = _mean_of_known(ratios)
    if f[6] == f[6]:
        spread = 0.0
        for v in ratios:
            if v == v:
                spread += (v - f[6]) * (v - f[6])
        f[7] = math.sqrt(spread / sum(v == v for v in ratios))
        f[8] = _mean_of_known(ratios[:4]) - f[6]
    f[9] = newest[0]["log_run"]
    f[10] = math.log1p(max(s - newest[0]["known"], 0.0))
    f[11] = math.log1p(max(s - max(r["submit"] for r in newest), 0.0))
    f[12] = float(sum(s - r["submit"] <= session for r in newest))
    f[17] = _mean_of_known([r["fail"] for r in newest])
    return f


def _ring_order(values, ring):
    """The last ``ring`` of ``values`` (oldest first) as a ring buffer holds them, with
    each one's age (0: the newest): slot ``k`` holds the newest value whose index is
    ``k`` modulo ``ring``. The compiled decision sorts its samples, so the order it is
    given them decides only how equal samples' weights are summed."""
    slots = {}
    for index, value in enumerate(values):
        slots[index % ring] = (value, len(values) - 1 - index)
    return [slots[k] for k in range(min(len(values), ring))]


def budgeted_estimates(rows, *, decide, aimed_share, ring, pooled_size, pooled_weight,
                       sentinel, min_user_jobs, threshold, budget, step, log_lam_start,
                       log_lam_bounds, recency):
    """LearnedRuntime's budgeted estimates, one event at a time.

    ``rows``: dicts with ``user`` and ``key`` codes (-1: none), ``submit``,
    ``known`` (NaN: never completes; only history rows have one), ``job_id``,
    ``seq``, ``req``, ``run``, ``log_ratio``, ``mu`` (the model's log ratio)
    and ``modeled``. Completions (in recent order) come before submissions at
    the same instant. ``decide(samples, weights, request, lam)`` is the
    accuracy-versus-risk decision (checked against its own reference) and
    ``aimed_share(budget)`` the share the multiplier aims at. Returns the
    estimates and ``log lam`` at each submission.
    """
    nan = float("nan")
    events = sorted(
        [((r["known"], 0, r["submit"], r["job_id"], r["seq"], i), i)
         for i, r in enumerate(rows) if r["known"] == r["known"]]
        + [((r["submit"], 1, 0.0, 0.0, 0.0, i), i) for i, r in enumerate(rows)])
    estimate, trace = [nan] * len(rows), [nan] * len(rows)
    by_user, by_key, pooled = {}, {}, []
    log_lam = log_lam_start
    for (_, kind, *_), i in events:
        r = rows[i]
        if kind == 0:
            if estimate[i] == estimate[i] and r["req"] > 0:
                bad = 1.0 if estimate[i] < r["req"] and r["run"] - estimate[i] > threshold \
                    else 0.0
                log_lam = min(max(log_lam + step * (bad - aimed_share(budget)),
                                  log_lam_bounds[0]), log_lam_bounds[1])
            if r["log_ratio"] - r["mu"] == r["log_ratio"] - r["mu"]:
                pooled.append(r["log_ratio"] - r["mu"])
            if r["log_ratio"] == r["log_ratio"]:
                if r["user"] >= 0:
                    by_user.setdefault(r["user"], []).append(r["log_ratio"])
                if r["key"] >= 0:
                    by_key.setdefault(r["key"], []).append(r["log_ratio"])
            continue
        trace[i] = log_lam
        estimate[i] = r["req"]
        if not r["req"] > 0:
            continue
        mine = by_user.get(r["user"], []) if r["user"] >= 0 else []
        if min(len(mine), ring) < min_user_jobs and not r["modeled"]:
            continue
        same_key = by_key.get(r["key"], []) if r["key"] >= 0 else []
        own = same_key if min(len(same_key), ring) >= min_user_jobs else mine
        samples = [value for value, _ in _ring_order(own, ring)]
        weights = [recency ** age for _, age in _ring_order(own, ring)]
        last_pooled = [value for value, _ in _ring_order(pooled, pooled_size)]
        if last_pooled:
            samples += [r["mu"] + value for value in last_pooled]
            weights += [pooled_weight / len(last_pooled)] * len(last_pooled)
        if samples:
            estimate[i] = decide(samples, weights, r["req"], math.exp(log_lam))
    return estimate, trace

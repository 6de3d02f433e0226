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

"""A plain, slow reference scheduler to check the compiled simulator against.

Everything is recomputed from lists at every instant: the free processors at
a time are ``n_procs`` minus the widths of the intervals covering it, and a
job fits at ``s`` when that count is at least its width at ``s`` and at every
interval start inside ``(s, s + d)``. Same rules as the simulator:

* at an instant: completions (by job), arrivals, estimate expiries, one pass;
* priority ties by submit time, then job index; backfill candidates sorted
  stably by the waiting estimate when ``bf_sjf``;
* a started job occupies ``[now, now + est_r)`` in plans; waiting jobs are
  planned with ``est_w``;
* EASY / depth-k: reservations for the first k blocked jobs, recomputed each
  pass; conservative: reservations made at arrival, compressed (each removed
  and re-inserted in priority order) after early completions, repaired
  after a running job outlives its estimate, and a pass at every reserved
  start time;
* starvation (CPlant, Leung et al. 2010 II.A): waiting jobs that have waited
  ``starve`` enter an FCFS queue (unless ``bar_heavy`` and their user's
  usage is above the mean of the users with a job waiting); its jobs start
  in FCFS order until one does not fit, which gets a reservation; the rest of
  that queue, then the other jobs in priority order, start if they fit around
  it; a pass at every instant a waiting job crosses ``starve``.
"""

import math

INCREMENTS = [60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0, 36000.0, 72000.0,
              180000.0, 360000.0]


def extend(est, req, mode, n_ext):
    if mode == "request" and est < req and math.isfinite(req):
        return req
    if mode == "increments":
        new = est + INCREMENTS[min(n_ext, len(INCREMENTS) - 1)]
    else:
        new = 2.0 * est
    if est < req and new > req:
        new = req
    return new


def free_at(t, intervals, n_procs):
    return n_procs - sum(w for (s, e, w) in intervals if s <= t < e)


def min_free(s, d, intervals, n_procs):
    points = [s] + [a for (a, b, w) in intervals if s < a < s + d]
    return min(free_at(p, intervals, n_procs) for p in points)


def earliest(now, w, d, intervals, n_procs):
    candidates = sorted({now} | {e for (a, e, x) in intervals if e > now})
    for s in candidates:
        if min_free(s, d, intervals, n_procs) >= w:
            return s
    raise AssertionError("no slot found")


def reference_simulate(submit, dur, width, est_w, est_r, req, user, n_procs, *,
                       policy="easy", depth=1, priority="fcfs", keys=None, bf_sjf=False,
                       under="double", period=86400.0, factor=0.5, estimator=None,
                       starve=None, bar_heavy=False, since=None):
    """Simulate; return ``(start, end, backfilled, promised)`` lists.

    With ``policy="starvation"``, ``since`` (a list, filled in) receives the
    time each job entered the starvation queue (``None``: never).

    ``estimator(now, arriving, done)`` (optional) returns the waiting
    estimates of the jobs ``arriving`` at ``now`` given the completed jobs
    ``done`` (in completion order); the result replaces ``est_w`` (and
    ``est_r`` unless ``est_r`` was given as the request: pass
    ``est_r=None`` to use the waiting estimate when running).
    """
    n = len(submit)
    est_w = list(est_w)
    est_r = list(est_r) if est_r is not None else [None] * n
    running_uses_request = est_r[0] is not None if n else False
    start = [None] * n
    end = [None] * n
    backfilled = [False] * n
    promised = [None] * n
    cur_est = [None] * n
    n_ext = [0] * n
    rs = [None] * n
    since = since if since is not None else []
    since[:] = [None] * n
    last_pass = -math.inf
    usage = {}
    epoch = None
    queue = []
    running = []
    done = []
    arrived = 0
    while True:
        times = []
        if arrived < n:
            times.append(submit[arrived])
        times += [start[j] + dur[j] for j in running]
        times += [start[j] + cur_est[j] for j in running if dur[j] > cur_est[j]]
        times += [rs[j] for j in queue if rs[j] is not None]
        if policy == "starvation":
            times += [submit[j] + starve for j in queue
                      if since[j] is None and submit[j] + starve > last_pass]
        if not times:
            break
        now = min(times)
        if priority == "fairshare" or bar_heavy:
            e = math.floor(now / period)
            if epoch is not None and e > epoch:
                for u in usage:
                    usage[u] *= factor ** (e - epoch)
            if epoch is None or e > epoch:
                epoch = e
        freed = extended = False
        for j in sorted(j for j in running if start[j] + dur[j] == now):
            running.remove(j)
            end[j] = now
            if start[j] + cur_est[j] > now:
                freed = True
            usage[user[j]] = usage.get(user[j], 0.0) + width[j] * dur[j]
            done.append(j)
        arriving = []
        while arrived < n and submit[arrived] == now:
            arriving.append(arrived)
            arrived += 1
        if arriving and estimator is not None:
            values = estimator(now, arriving, list(done))
            for j, v in zip(arriving, values):
                v = max(min(v, req[j]), 1.0)
                est_w[j] = v
                if not running_uses_request:
                    est_r[j] = v
        queue += arriving
        for j in sorted(j for j in running
                        if dur[j] > cur_est[j] and start[j] + cur_est[j] == now):
            cur_est[j] = extend(cur_est[j], req[j], under, n_ext[j])
            n_ext[j] += 1
            extended = True
        if not queue:
            continue
        order = _order(queue, now, priority, keys, submit, est_w, width, usage, user)
        last_pass = now
        started = []

        def begin(j):
            start[j] = now
            cur_est[j] = est_r[j] if est_r[j] is not None else est_w[j]
            running.append(j)
            started.append(j)

        if policy == "fcfs":
            for j in order:
                if width[j] > n_procs - sum(width[r] for r in running):
                    break
                begin(j)
        elif policy in ("easy", "depth"):
            plan = [(now, start[r] + cur_est[r], width[r]) for r in running]
            pos = 0
            reserved = 0
            while pos < len(order) and reserved < depth:
                j = order[pos]
                if min_free(now, est_w[j], plan, n_procs) >= width[j]:
                    begin(j)
                    plan.append((now, now + cur_est[j], width[j]))
                else:
                    t = earliest(now, width[j], est_w[j], plan, n_procs)
                    plan.append((t, t + est_w[j], width[j]))
                    reserved += 1
                pos += 1
            rest = order[pos:]
            if bf_sjf:
                rest = sorted(rest, key=lambda j: est_w[j])
            for j in rest:
                if min_free(now, est_w[j], plan, n_procs) >= width[j]:
                    begin(j)
                    plan.append((now, now + cur_est[j], width[j]))
        elif policy == "starvation":
            mean_terms = None
            for j in order:
                if since[j] is not None or submit[j] + starve > now:
                    continue
                if bar_heavy:
                    if mean_terms is None:
                        users = []
                        total = 0.0
                        for k in order:
                            if user[k] not in users:
                                users.append(user[k])
                                total += usage.get(user[k], 0.0)
                        mean_terms = (total, len(users))
                    if usage.get(user[j], 0.0) * mean_terms[1] > mean_terms[0]:
                        continue
                since[j] = now
            starving = sorted((j for j in queue if since[j] is not None),
                              key=lambda j: (submit[j], j))
            main = [j for j in order if since[j] is None]
            if bf_sjf:
                main = sorted(main, key=lambda j: est_w[j])
            plan = [(now, start[r] + cur_est[r], width[r]) for r in running]
            pos = 0
            while pos < len(starving) and \
                    width[starving[pos]] <= n_procs - sum(width[r] for r in running):
                begin(starving[pos])
                plan.append((now, now + cur_est[starving[pos]], width[starving[pos]]))
                pos += 1
            candidates = main
            if pos < len(starving):
                head = starving[pos]
                t = earliest(now, width[head], est_w[head], plan, n_procs)
                if promised[head] is None:
                    promised[head] = t
                plan.append((t, t + est_w[head], width[head]))
                candidates = starving[pos + 1:] + main
            for j in candidates:
                if min_free(now, est_w[j], plan, n_procs) >= width[j]:
                    begin(j)
                    plan.append((now, now + cur_est[j], width[j]))
        else:
            def plan(exclude=None):
                held = [(now, start[r] + cur_est[r], width[r]) for r in running]
                return held + [(rs[j], rs[j] + est_w[j], width[j]) for j in queue
                               if start[j] is None and rs[j] is not None and j != exclude]

            def move(j):
                old = rs[j]
                rs[j] = earliest(now, width[j], est_w[j], plan(exclude=j), n_procs)
                return rs[j] != old

            def repair():
                moved = False
                for j in order:
                    if start[j] is None and rs[j] is not None:
                        if min_free(rs[j], est_w[j], plan(), n_procs) < 0:
                            moved |= move(j)
                return moved

            if extended and repair():
                freed = True
            if freed:
                for j in order:
                    if rs[j] is not None and rs[j] > now:
                        move(j)
            for j in order:
                if rs[j] is None:
                    rs[j] = earliest(now, width[j], est_w[j], plan(exclude=j), n_procs)
                    promised[j] = rs[j]
            while True:
                grew = False
                for j in order:
                    if start[j] is None and rs[j] == now:
                        begin(j)
                        if cur_est[j] > est_w[j]:
                            grew = True
                if not grew or not repair():
                    break
        waiting = False
        for j in order:
            if start[j] is None:
                waiting = True
            elif waiting:
                backfilled[j] = True
        queue = [j for j in queue if start[j] is None]
    return start, end, backfilled, promised


def _order(queue, now, priority, keys, submit, est_w, width, usage, user):
    if priority == "fcfs":
        key = lambda j: (submit[j], j)  # noqa: E731
    elif priority == "sjf":
        key = lambda j: (est_w[j], submit[j], j)  # noqa: E731
    elif priority == "keys":
        key = lambda j: (keys[j], submit[j], j)  # noqa: E731
    elif priority == "wfp":
        def key(j):
            ratio = (now - submit[j]) / est_w[j]
            return (-(ratio * ratio * ratio) * width[j], submit[j], j)
    elif priority == "fairshare":
        key = lambda j: (usage.get(user[j], 0.0), submit[j], j)  # noqa: E731
    else:
        raise ValueError(priority)
    return sorted(queue, key=key)

"""Compiled building blocks of the simulator: event heaps, the running list and
the availability profile.

The availability profile is the step function "free processors over time"
used by backfilling (Mu'alem & Feitelson's profile, Leung et al. 2010 section
I): breakpoints ``T[0] < T[1] < ... < T[P-1]`` and free counts ``F[k]`` on
``[T[k], T[k+1])``, the last segment extending to infinity. Processors are
held on half-open intervals ``[start, end)``.

Each structure is one of the named tuples of :mod:`._engine` and keeps its
own length in a one-element array ``length``: ``EventHeap(times, jobs,
length)``, ``RunningSet(end_times, jobs, length)``, ``Profile(times, free,
length, running_max, running_min)``.

Every kernel is compiled without numba's reference counting (``_nrt=False``):
the simulation state is a tuple of some forty arrays, and counting the
references to each of them at every inlined call cost about nine tenths of the
run time. Kernels therefore never allocate; scratch space comes with the state.
"""


import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import viewer
from numba.extending import intrinsic

# --------------------------------------------------------------------- heaps
# Binary min-heaps of (time, job) pairs; ties in time are broken by job index
# so that simultaneous events are always handled in the same order.


@njit(cache=True, inline="always", _nrt=False)
def _before(ka, va, kb, vb):
    return ka < kb or (ka == kb and va < vb)


@njit(cache=True, inline="always", _nrt=False)
def heap_push(heap, key, val):
    """Add the event ``(key, val)`` to ``heap``."""
    keys = heap.times
    vals = heap.jobs
    i = heap.length[0]
    heap.length[0] = i + 1
    keys[i] = key
    vals[i] = val
    while i > 0:
        parent = (i - 1) // 2
        if not _before(keys[i], vals[i], keys[parent], vals[parent]):
            break
        keys[i], keys[parent] = keys[parent], keys[i]
        vals[i], vals[parent] = vals[parent], vals[i]
        i = parent


@njit(cache=True, inline="always", _nrt=False)
def heap_pop(heap):
    """Remove and return the earliest event ``(time, job)`` of ``heap``."""
    keys = heap.times
    vals = heap.jobs
    key = keys[0]
    val = vals[0]
    n = heap.length[0] - 1
    heap.length[0] = n
    keys[0] = keys[n]
    vals[0] = vals[n]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        right = left + 1
        if right < n and _before(keys[right], vals[right], keys[left], vals[left]):
            child = right
        if not _before(keys[child], vals[child], keys[i], vals[i]):
            break
        keys[i], keys[child] = keys[child], keys[i]
        vals[i], vals[child] = vals[child], vals[i]
        i = child
    return key, val


@intrinsic
def _move_items(typingctx, a, dst, src, count):
    """``a[dst:dst + count] = a[src:src + count]`` in one ``memmove`` (the ranges may
    overlap; ``a`` is a contiguous 1-d array, ``count >= 0``)."""
    if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"):
        return None
    sig = types.void(a, types.intp, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memmove(builder, builder.gep(array.data, [args[1]]),
                            builder.gep(array.data, [args[2]]), args[3], itemsize)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always", _nrt=False)
def shift_right(a, pos, n):
    """Move ``a[pos:n]`` one place right (``a`` needs room for ``n + 1``)."""
    if n > pos:
        _move_items(a, pos + 1, pos, n - pos)


@njit(cache=True, inline="always", _nrt=False)
def shift_left(a, pos, n, by):
    """Move ``a[pos + by:n]`` to ``a[pos:n - by]``."""
    if n - by > pos:
        _move_items(a, pos, pos + by, n - by - pos)


# ------------------------------------------------------- running jobs (sorted)
# Running jobs sorted by (expected end, job index): the shadow time of EASY and
# the profile of a scheduling pass are read off this list.


@njit(cache=True, inline="always", _nrt=False)
def _search(times, jobs, n, t, j):
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if _before(times[mid], jobs[mid], t, j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always", _nrt=False)
def running_insert(running, t, j):
    """Add job ``j`` expected to end at ``t``."""
    times = running.end_times
    jobs = running.jobs
    n = running.length[0]
    pos = _search(times, jobs, n, t, j)
    shift_right(times, pos, n)
    shift_right(jobs, pos, n)
    times[pos] = t
    jobs[pos] = j
    running.length[0] = n + 1


@njit(cache=True, inline="always", _nrt=False)
def running_remove(running, t, j):
    """Remove job ``j``, listed as ending at ``t``."""
    times = running.end_times
    jobs = running.jobs
    n = running.length[0]
    pos = _search(times, jobs, n, t, j)
    shift_left(times, pos, n, 1)
    shift_left(jobs, pos, n, 1)
    running.length[0] = n - 1


# ------------------------------------------------------------------ profile
# ``profile.times[:length]`` are the breakpoints and ``profile.free[k]`` the
# free processors on ``[times[k], times[k + 1])``; ``length`` is at least 1.


@njit(cache=True, _nrt=False)
def profile_reset(profile, now, free, running, width):
    """Build the profile at ``now`` from the running set (sorted by expected end)."""
    T = profile.times
    F = profile.free
    T[0] = now
    F[0] = free
    p = 1
    current = free
    for k in range(running.length[0]):
        current += width[running.jobs[k]]
        if running.end_times[k] == T[p - 1]:
            F[p - 1] = current
        else:
            T[p] = running.end_times[k]
            F[p] = current
            p += 1
    profile.length[0] = p


@njit(cache=True, _nrt=False)
def profile_advance(profile, now):
    """Drop the part of the profile before ``now``."""
    T = profile.times
    F = profile.free
    p = profile.length[0]
    k = 0
    while k + 1 < p and T[k + 1] <= now:
        k += 1
    if k > 0:
        shift_left(T, 0, p, k)
        shift_left(F, 0, p, k)
        profile.length[0] = p - k
    T[0] = now


@njit(cache=True, _nrt=False)
def _segment(T, p, t):
    """Index of the segment holding time ``t`` (``t >= T[0]``)."""
    lo = 0
    hi = p
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if T[mid] <= t:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, _nrt=False)
def _split(profile, t, hint):
    """Make ``t`` a breakpoint; returns its index. Searched outwards from segment
    ``hint`` (the start of an interval, for its end), else by bisection."""
    T = profile.times
    F = profile.free
    p = profile.length[0]
    if hint < 0:
        k = _segment(T, p, t)
    else:
        k = first_at_or_after(T, p, t, hint)
        if k == p or T[k] > t:
            k -= 1
    if T[k] == t:
        return k
    shift_right(T, k + 1, p)
    shift_right(F, k + 1, p)
    T[k + 1] = t
    F[k + 1] = F[k]
    profile.length[0] = p + 1
    return k + 1


@njit(cache=True, _nrt=False)
def profile_add(profile, start, end, delta):
    """Add ``delta`` free processors on ``[start, end)`` (``start >= times[0]``)."""
    profile_add_near(profile, start, end, delta, -1)


@njit(cache=True, _nrt=False)
def profile_add_near(profile, start, end, delta, hint):
    """:func:`profile_add`, searching for ``start`` from segment ``hint`` (``-1``:
    by bisection)."""
    if end <= start:
        return
    if profile.length[0] + 2 > len(profile.times):
        profile_compact(profile)
        hint = -1
    ks = _split(profile, start, hint)
    ke = _split(profile, end, ks)
    F = profile.free
    for k in range(ks, ke):
        F[k] += delta


@njit(cache=True, _nrt=False)
def profile_min(profile, start, end):
    """Fewest free processors on ``[start, end)`` (at ``start`` if empty)."""
    T = profile.times
    F = profile.free
    p = profile.length[0]
    k = _segment(T, p, start)
    low = F[k]
    k += 1
    while k < p and T[k] < end:
        if F[k] < low:
            low = F[k]
        k += 1
    return low


@njit(cache=True, _nrt=False)
def profile_fits(profile, start, width, duration):
    return profile_min(profile, start, start + duration) >= width


@njit(cache=True, _nrt=False)
def profile_earliest(profile, width, duration):
    """Earliest start at or after ``times[0]`` with ``width`` free for ``duration``."""
    return profile_earliest_before(profile, width, duration, np.inf)


@njit(cache=True, _nrt=False)
def profile_compact(profile):
    """Merge neighbouring segments with the same free count."""
    T = profile.times
    F = profile.free
    p = profile.length[0]
    if p <= 1:
        return
    out = 1
    for k in range(1, p):
        if F[k] != F[out - 1]:
            T[out] = T[k]
            F[out] = F[k]
            out += 1
    profile.length[0] = out


# ------------------------------------------------------------ stable sorting


@njit(cache=True, _nrt=False)
def stable_order(keys, src, dst, idx, tmp, n):
    """``dst[:n] = src[:n]`` ordered by ``keys[:n]``, ties kept in ``src`` order.

    ``np.argsort(keys, kind="mergesort")`` without allocating: insertion sort
    of runs of 16, then bottom-up merges between ``idx`` and ``tmp``.
    """
    run = 16
    for i in range(n):
        idx[i] = i
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        for i in range(lo + 1, hi):
            v = idx[i]
            kv = keys[v]
            k = i - 1
            while k >= lo and keys[idx[k]] > kv:
                idx[k + 1] = idx[k]
                k -= 1
            idx[k + 1] = v
    a = idx
    b = tmp
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            out = lo
            while i < mid and j < hi:
                if keys[a[j]] < keys[a[i]]:
                    b[out] = a[j]
                    j += 1
                else:
                    b[out] = a[i]
                    i += 1
                out += 1
            while i < mid:
                b[out] = a[i]
                i += 1
                out += 1
            while j < hi:
                b[out] = a[j]
                j += 1
                out += 1
        a, b = b, a
        width *= 2
    for i in range(n):
        dst[i] = src[a[i]]


# ------------------------------------------- queries for incremental planning


@njit(cache=True, _nrt=False)
def profile_before(profile, t):
    """Index of the segment holding the instant just before ``t`` (``t > times[0]``)."""
    T = profile.times
    lo = 0
    hi = profile.length[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if T[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True, inline="always", _nrt=False)
def first_at_or_after(a, n, t, hint):
    """Index of the first of ``a[:n]`` (ascending) at or after ``t`` (``n``: none),
    searched outwards from ``hint``: a few steps when the answer is near it."""
    h = min(max(hint, 0), n)
    if h < n and a[h] < t:
        lo = h  # a[lo] < t
        step = 1
        hi = h + 1
        while hi < n and a[hi] < t:
            lo = hi
            step *= 2
            hi = lo + step
        hi = min(hi, n)  # hi == n or a[hi] >= t
    else:
        hi = h  # hi == n or a[hi] >= t
        step = 1
        lo = h - 1
        while lo >= 0 and a[lo] >= t:
            hi = lo
            step *= 2
            lo = hi - step
        lo = max(lo, -1)  # lo == -1 or a[lo] < t
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[mid] < t:
            lo = mid
        else:
            hi = mid
    return hi


@njit(cache=True, _nrt=False)
def profile_earliest_before(profile, width, duration, limit):
    """:func:`profile_earliest` among starts before ``limit`` (``inf`` if none)."""
    return profile_earliest_between(profile, width, duration, 0, limit)


@njit(cache=True, _nrt=False)
def profile_earliest_between(profile, width, duration, first, limit):
    """:func:`profile_earliest_before` among starts at breakpoints ``first`` onwards."""
    T = profile.times
    F = profile.free
    p = profile.length[0]
    k = first
    while k < p and T[k] < limit:
        if F[k] >= width:
            start = T[k]
            end = start + duration
            j = k + 1
            ok = True
            while j < p and T[j] < end:
                if F[j] < width:
                    ok = False
                    break
                j += 1
            if ok:
                return start
            k = j + 1
        else:
            k += 1
    return np.inf


@njit(cache=True, _nrt=False)
def profile_running_min(profile):
    """``profile.running_min[k]``: fewest free processors on any segment up to ``k``."""
    F = profile.free
    out = profile.running_min
    low = F[0]
    for k in range(profile.length[0]):
        if F[k] < low:
            low = F[k]
        out[k] = low


@njit(cache=True, _nrt=False)
def profile_fits_now(profile, width, duration):
    """:func:`profile_fits` at ``times[0]`` in O(log length), from an up-to-date
    :func:`profile_running_min`."""
    k = profile_before(profile, profile.times[0] + duration)
    return profile.running_min[max(k, 0)] >= width


@njit(cache=True, _nrt=False)
def profile_run_around(profile, start, end, steps):
    """Bound the stretches with a free processor that meet ``[start, end)``.

    Returns ``(left, right)``: every such stretch lies within ``[left,
    right)``; ``right`` is ``inf`` when one runs to the end of the profile,
    ``left`` is ``-inf`` when ``steps`` segments were not enough to tell.
    """
    T = profile.times
    F = profile.free
    p = profile.length[0]
    left = _segment(T, p, max(start, T[0]))
    while left > 0 and F[left - 1] >= 1:
        left -= 1
        steps -= 1
        if steps < 0:
            return -np.inf, np.inf
    right = max(profile_before(profile, end) + 1, left)
    while right < p and F[right] >= 1:
        right += 1
        steps -= 1
        if steps < 0:
            return -np.inf, np.inf
    if right >= p:
        return T[left], np.inf
    return T[left], T[right]


@njit(cache=True, _nrt=False)
def gap_index_build(profile, index):
    """Index the longest free stretches of ``profile`` (a :class:`GapIndex`).

    ``index.longest[level, k]``: the longest time within ``[times[0],
    times[k])`` with at least ``2**level`` free throughout; levels above the
    most free processors on the indexed part are left out (``index.levels``).
    A level's row is computed when first asked for (:func:`_gap_row`), from
    the breakpoints and free counts copied here. Clears the record of
    processors given back since (``index.changed``).
    """
    T = profile.times
    F = profile.free
    count = min(profile.length[0], len(index.times))
    most = 0
    for k in range(count):
        index.times[k] = T[k]
        index.free[k] = F[k]
        if F[k] > most:
            most = F[k]
    levels = 0
    while levels < index.longest.shape[0] and (1 << levels) <= most:
        levels += 1
    index.length[0] = count
    index.levels[0] = levels
    index.built[0] = 0
    index.changed[:, :] = np.inf
    index.stale[0] = 0
    index.run[0] = np.inf
    index.run[1] = -np.inf
    index.run[2] = np.inf


@njit(cache=True, _nrt=False)
def _gap_row_build(index, level):
    T = index.times
    F = index.free
    h = 1 << level
    row = index.longest[level]
    best = 0.0
    begin = np.inf
    for k in range(index.length[0]):
        current = T[k] - begin if begin < np.inf else 0.0
        row[k] = best if best > current else current
        if F[k] >= h:
            if begin == np.inf:
                begin = T[k]
        elif begin < np.inf:
            if T[k] - begin > best:
                best = T[k] - begin
            begin = np.inf
    index.built[0] |= np.int64(1) << level


@njit(cache=True, inline="always", _nrt=False)
def _gap_row(index, level):
    """``index.longest[level]``, computed first if it was not since the index was built."""
    if not (index.built[0] >> level) & 1:
        _gap_row_build(index, level)
    return index.longest[level]


@njit(cache=True, inline="always", _nrt=False)
def _biased_exponent(x):
    """The exponent field of the float ``x`` (1023 for ``1 <= |x| < 2``)."""
    return (viewer(x, np.int64) >> 52) & 0x7FF


@njit(cache=True, inline="always", _nrt=False)
def _log2_floor(x):
    """``floor(log2(x))`` for finite ``x >= 0.5`` (capped at 62), read off the exponent."""
    return min(_biased_exponent(x) - 1023, 62)


FIT_ROUNDING = 4.0
"""Units in the last place by which a free stretch may fall short of a window that
"fits" it: ``start + duration <= end`` in floating point can hold for a stretch a
few units in the last place shorter than ``duration``."""


@njit(cache=True, inline="always", _nrt=False)
def float_spacing(x):
    """``np.spacing(x)`` for ``x >= 0``: below ``2**1023`` and for normal ``x``, a power
    of two built from its exponent (``np.spacing`` itself calls ``nextafter``)."""
    e = _biased_exponent(x)
    if 53 < e < 0x7FE:
        return viewer((e - 52) << 52, np.float64)
    return np.spacing(x)


@njit(cache=True, _nrt=False)
def gap_index_given_back(profile, index, start, end, steps):
    """Record in ``index`` that processors were given back on ``[start, end)``.

    For each length ``2**b`` (seconds) that a free stretch meeting the
    interval may reach, lowers ``index.changed[1, b]`` to the earliest
    instant by which such a stretch could have been free that long, and
    ``index.changed[0, b]`` to the same but no earlier than ``start`` (for
    a job of width 1, whose stretch must end before its limit, hence meet
    the interval before it).

    The stretches are bounded by the run of segments with a free processor
    around the interval (:func:`profile_run_around`). ``index.run`` keeps
    the last run walked: while every interval given back lies inside it,
    its ends still have no processor free (taking only lowers the free
    counts), so it bounds the stretches again without a walk. An interval
    reaching outside it is walked and becomes the new run.

    Within one run the record depends on the interval only through its
    start, and only to lower ``changed[0]``: ``index.run[2]``, the earliest
    start recorded since the run was walked and since anything was ruled out
    (which :func:`_forget_ruled_out` may have to lower again), makes an
    interval starting no earlier a no-op.
    """
    if end <= start:
        return
    one = index.changed[0]
    wide = index.changed[1]
    if index.run[0] <= start and end <= index.run[1]:
        if start >= index.run[2]:
            return
        left = index.run[0]
        right = index.run[1]
    else:
        left, right = profile_run_around(profile, start, end, steps)
        index.run[0] = left
        index.run[1] = right
    index.run[2] = start
    # a window "fits" when start + duration <= end in floating point, which
    # can hold for a stretch a few units in the last place shorter
    span = right - left
    if span < np.inf:
        span += FIT_ROUNDING * float_spacing(max(abs(right), abs(end)))
    if span < 0.5:
        return
    top = len(one) - 1 if span == np.inf else min(_log2_floor(span), len(one) - 1)
    _forget_ruled_out(index, left, top)
    length = 1.0
    for b in range(top + 1):
        by = left + length
        length *= 2.0
        if by < wide[b]:
            wide[b] = by
        by = max(by, start)
        if by < one[b]:
            one[b] = by


@njit(cache=True, inline="always", _nrt=False)
def _forget_ruled_out(index, left, top):
    """Processors were given back within a free stretch that starts at
    ``left`` and lasts less than ``2**(top + 1)`` seconds.

    A start they make possible has its whole window inside that stretch
    (taking since only lowers free counts), so what ``index.ruled_out``
    holds for lengths below ``2**(top + 1)`` stays true only before ``left``.
    """
    ruling = index.ruling[0]
    level = 0
    while ruling:
        if ruling & 1:
            row = index.ruled_out[level]
            for b in range(top + 1):
                if row[b] > left:
                    row[b] = left
        ruling >>= 1
        level += 1


@njit(cache=True, inline="always", _nrt=False)
def gap_index_ruled_out(index, width, duration):
    """Time before which no start has ``width`` processors free for ``duration``,
    by :attr:`GapIndex.ruled_out` (``-inf`` when it cannot tell)."""
    if duration < 1.0:
        return -np.inf
    level = min(_log2_floor(float(width)), index.ruled_out.shape[0] - 1)
    b = min(_log2_floor(duration), index.ruled_out.shape[1] - 1)
    if index.ruled_length[level, b] <= duration:
        return index.ruled_out[level, b]
    return -np.inf


@njit(cache=True, inline="always", _nrt=False)
def gap_index_rule_out(index, width, duration, limit):
    """Record that no start before ``limit`` has ``width`` processors free for
    ``duration`` (a search of the profile found none).

    Kept at the smallest ``level`` with ``2**level >= width`` (a wider job
    needs more free): in the row of lengths ``[2**b, 2**(b + 1))`` holding
    ``duration``, and as ``2**c`` in every longer row (a longer window holds
    a shorter one). Later searches start at ``limit`` instead of the start
    of the profile; processors given back lower it again
    (:func:`_forget_ruled_out`).
    """
    level = _log2_floor(float(width))
    if (1 << level) < width:
        level += 1
    if level >= index.ruled_out.shape[0]:
        return
    row = index.ruled_out[level]
    lengths = index.ruled_length[level]
    b = min(_log2_floor(max(duration, 1.0)), len(row) - 1)
    if row[b] < limit or (row[b] == limit and duration < lengths[b]):
        row[b] = limit
        lengths[b] = max(duration, 1.0)
    for c in range(b + 1, len(row)):
        if row[c] < limit:
            row[c] = limit
            lengths[c] = float(np.int64(1) << c)
    index.ruling[0] |= np.int64(1) << level
    index.run[2] = np.inf


@njit(cache=True, inline="always", _nrt=False)
def _gap_level(index, width):
    """Row of ``index.longest`` for jobs of ``width`` (``floor(log2(width))``, capped)."""
    return min(_log2_floor(float(width)), index.longest.shape[0] - 1)


@njit(cache=True, inline="always", _nrt=False)
def gap_index_answer(index, width, duration, limit, hint):
    """Whether ``width`` processors may be free for ``duration`` somewhere before ``limit``.

    0: no stretch of the profile before ``limit`` has ``width`` free for that
    long; 1: the index cannot rule one out; 2: what was given back since the
    index was built cannot be ruled out. With ``width == 1`` the caller
    guarantees that no processor is free just before ``limit``. The search
    for ``limit`` among the indexed breakpoints starts at ``hint``.
    """
    slack = FIT_ROUNDING * float_spacing(abs(limit))
    need = duration - slack
    b = min(_log2_floor(max(need, 1.0)), index.changed.shape[1] - 1)
    if index.changed[0 if width == 1 else 1, b] <= limit + slack:
        return 2
    n = index.length[0]
    lo = first_at_or_after(index.times, n, limit, hint)
    if lo >= n:
        return 1
    level = _gap_level(index, width)
    if level >= index.levels[0]:
        return 0
    return 1 if _gap_row(index, level)[lo] >= need - FIT_ROUNDING * float_spacing(abs(index.times[lo])) \
        else 0


@njit(cache=True, _nrt=False)
def gap_index_first_end(index, width, duration, limit):
    """Earliest instant at which a stretch with ``width`` free for ``duration``
    may end, by ``index`` (``-inf`` when it cannot tell).

    A stretch that was free when the index was built ends after the last
    breakpoint before which the index holds no stretch that long
    (``longest``); one that was not meets processors given back since, and
    ends no earlier than ``changed`` records for its length. Taken with the
    same rounding allowance as :func:`gap_index_answer`.
    """
    slack = FIT_ROUNDING * float_spacing(abs(limit))
    need = duration - slack
    b = min(_log2_floor(max(need, 1.0)), index.changed.shape[1] - 1)
    fresh = index.changed[0 if width == 1 else 1, b]
    n = index.length[0]
    level = _gap_level(index, width)
    base = np.inf
    if level < index.levels[0]:
        row = _gap_row(index, level)
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if row[mid] >= need - FIT_ROUNDING * float_spacing(abs(index.times[mid])):
                hi = mid
            else:
                lo = mid + 1
        if lo == 0:
            return -np.inf
        base = index.times[lo - 1]
    return min(base, fresh)

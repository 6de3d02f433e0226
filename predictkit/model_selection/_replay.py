"""Online replay: every job predicted from exactly the jobs known at its submission."""

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._format import format_count
from .._validation import StrOptions, check_instance, invalid_parameter, validate_params
from .._table import (as_numbers, cancelled_before_running, check_aligned,
                      check_known_after_target, check_target, known_after_submission,
                      predictions_of, submission_order, validate_jobs)
from .._table import known_time as _known_time
from ..exceptions import ConfigError, JobTableError

__all__ = ["replay", "known_times"]

_TIME_COLUMN = {"end": "end_time", "start": "start_time"}

def known_times(X, y, target="end"):
    """Time at which each job's target becomes known (the no-peeking clock).

    The same clock as :func:`predictkit.jobs.known_time` with ``y`` given
    (kept under this name for existing callers): ``end_time`` (``start_time``
    for ``target="start"``) when ``X`` has that column, else ``submit_time +
    wait_time (+ y)``; jobs whose target ``y`` is unknown get ``NaN``.

    Raises
    ------
    JobTableError
        When a job has a known target but no known time: the caller must say
        what to assume through ``known_time=``.
    """
    return _known_time(X, target, y=y)


_OWN_COLUMNS = ("job_id", "submit_time", "wait_time", "run_time")
"""The columns replay itself reads (the job id to order one second's submissions and
to name a bad row)."""


@validate_params({"method": [StrOptions({"auto", "reference", "fast"})],
                  "known_time": ["array-like", None]})
def replay(estimator, X, y, *, method="auto", known_time=None):
    """Predict every job online, from exactly the jobs whose target was known at its submission.

    For each job ``j`` (in submit-time order) the estimator's history holds
    the jobs submitted before ``submit_time[j]`` with ``known_time <=
    submit_time[j]`` -- for runtimes the end time, for queue waits the start
    time (``estimator.target_known_at``) -- and nothing else: never ``j``'s
    own target, even when ``j`` starts (and ends) at its submission. This is the no-peeking rule of the project (DESIGN:
    estimator conventions), the way a scheduler sees a trace, and how Tang et
    al. (2013) section 4.2 and Klusacek & Soysal (2019) section 2.2 evaluate.

    ``method="reference"`` does it literally: jobs sorted by submit time,
    then ``job_id`` where the table has one, then row (so rows need not be
    sorted, and the answers do not depend on how rows submitted in the same
    second are arranged); before each distinct submit time
    ``t``, ``partial_fit`` every not yet added job with ``known_time <= t``
    (in known-time order, ties by that submission order), then ``predict`` all
    jobs submitted at ``t`` in one call. ``method="fast"`` calls the
    estimator's one-pass ``_replay(X, y, known)``, which gives the same
    numbers (tested to the last digit); ``"auto"`` uses it when available.

    Jobs whose target is unknown (``y`` is ``NaN``, e.g. a missing runtime)
    are predicted but never enter the history. A target known at its own
    job's submission instant counts as known just after that instant (the
    next float), so the literal loop above keeps it from the job and from
    the jobs submitted with it.

    An estimator with ``observe_queue(X_queued, now)`` (QBETS) is also shown,
    before each prediction at ``t``, the queue a scheduler sees then: the
    jobs submitted before ``t`` whose target becomes known after ``t``.

    Parameters
    ----------
    estimator : estimator
        An online estimator instance (``partial_fit``, ``predict``,
        ``target_known_at``), e.g. ``RecentAverage()``, not the class
        ``RecentAverage``. It is cloned; the argument is left untouched.
    X : DataFrame
        Job table with ``submit_time`` (no missing values) and the columns
        the estimator reads.
    y : array-like of shape (n_jobs,)
        Targets (runtimes for runtime predictors, waits for wait bounds), in
        seconds: ``>= 0``, or ``NaN`` where unknown.
    method : {"auto", "reference", "fast"}, default="auto"
        How to replay.
    known_time : array-like of shape (n_jobs,), optional
        When each target became known; default: from ``end_time`` /
        ``start_time`` or ``submit_time + wait_time (+ y)``. Needed for logs
        without waits; ``NaN`` keeps a job out of every history (with a
        warning counting the jobs with a known target it keeps out). A job
        cancelled before it ran (status 5, a recorded wait, a runtime ``y``
        of 0) never enters a runtime history: its 0 is no runtime.

    Returns
    -------
    ndarray of shape (n_jobs,)
        One prediction per job, in the row order of ``X``.

    Raises
    ------
    JobTableError
        Missing columns or submit times, a column replay reads (``submit_time``,
        ``wait_time``, ``run_time``) holding text, an infinite value or one of
        2**53 or more in magnitude (naming the column and first row), a
        negative ``wait_time`` it computes a known time from, a target ``y``
        that is not a number, infinite or negative (naming the first row), a
        target without a known time or known before ``submit_time + y`` (which
        would show jobs their own answer), ``y`` or ``known_time`` a Series
        whose index differs from ``X``'s (values are taken by position).
    InvalidParameterError
        Unknown ``method``, an estimator that is not online, or an estimator
        class instead of an instance (a ``ConfigError``).
    ConfigError
        ``"fast"`` for an estimator without a fast path.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.model_selection import replay
    >>> from predictkit.runtime import RecentAverage
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 50.0, 500.0], "wait_time": [0.0] * 3,
    ...                      "req_time": [1000.0] * 3, "user_id": [1.0] * 3})
    >>> replay(RecentAverage(), jobs, [100.0, 300.0, 10.0])
    array([1000., 1000.,  200.])
    """
    check_instance(estimator, "estimator", "replay")
    target = getattr(estimator, "target_known_at", None)
    if target not in _TIME_COLUMN or not hasattr(estimator, "partial_fit"):
        raise invalid_parameter(
            "estimator", "replay", "an online estimator (target_known_at = 'end' or 'start', "
            "and partial_fit)", type(estimator).__name__)
    if not isinstance(X, pd.DataFrame):
        raise JobTableError(f"X must be a pandas DataFrame job table, got {type(X).__name__}")
    if "submit_time" not in X.columns:
        raise JobTableError("job table lacks required column submit_time")
    # the columns replay reads hold numbers, none infinite nor beyond float64's exact
    # range (the estimator checks those it reads itself)
    validate_jobs(X, columns=_OWN_COLUMNS, check_values=False, name="X")
    check_aligned(known_time, X, "known_time")  # y's alignment: check_target
    y = check_target(y, X, what="runtimes" if target == "end" else "waits", missing=True,
                     owner="replay")
    submit = np.asarray(X["submit_time"], dtype=np.float64)
    if np.isnan(submit).any():
        bad = np.isnan(submit)
        raise JobTableError(
            f"{int(bad.sum()):,} job(s) have no submit_time (first at row "
            f"{int(np.argmax(bad))}); replay cannot place them in time")
    if known_time is None:
        known = known_times(X, y, target)
    else:
        known = as_numbers(known_time, "known_time").copy()
        if known.shape != (len(X),):
            raise JobTableError(
                f"known_time must have one value per job ({len(X)}), got shape {known.shape}")
        never_ran = (cancelled_before_running(X, y) if target == "end"
                     else np.zeros(len(X), dtype=bool))
        known[never_ran] = np.nan  # a runtime of 0 that is no runtime, as known_times says
        unknown = np.isnan(known) & ~np.isnan(y) & ~never_ran
        if unknown.any():
            warnings.warn(f"known_time is NaN for {format_count(int(unknown.sum()), 'job')} with "
                          f"a known target (first at row {int(np.argmax(unknown))}): they stay "
                          "out of every history", UserWarning, stacklevel=3)
        known[np.isnan(y)] = np.nan
        check_known_after_target(known, submit, y, "known_time")
    known = known_after_submission(known, submit)
    est = clone(estimator)
    fast = hasattr(est, "_replay")
    if method == "fast" and not fast:
        raise ConfigError(f"{type(estimator).__name__} has no fast replay path")
    order = submission_order(submit, X["job_id"].to_numpy(dtype=np.float64, na_value=np.nan)
                             if "job_id" in X.columns else None)
    in_order = np.array_equal(order, np.arange(len(X)))
    if not in_order:
        X, y, submit, known = X.iloc[order], y[order], submit[order], known[order]
    if method == "fast" or (method == "auto" and fast):
        answers = np.asarray(est._replay(X, y, known), dtype=np.float64)
    else:
        answers = _reference(est, X, y, submit, known, _TIME_COLUMN[target])
    if in_order:
        return answers
    out = np.empty_like(answers)
    out[order] = answers
    return out


def _reference(est, X, y, submit, known, column):
    n = len(X)
    rows = np.arange(n)
    frame = X.assign(**{column: known})
    # pandas deep-copies attrs on every row selection and column access, which
    # dominates thousands of small calls; estimators read only the clock origin
    frame.attrs = {k: X.attrs[k] for k in ("unix_start_time",) if k in X.attrs}
    by_submit = rows  # replay put the rows in submission order
    eligible = np.flatnonzero(np.isfinite(known))
    by_known = eligible[np.lexsort((rows[eligible], submit[eligible], known[eligible]))]
    out = np.full(n, np.nan)
    est.partial_fit(frame.iloc[:0], y[:0])
    watches_queue = hasattr(est, "observe_queue")
    waiting = np.zeros(n, dtype=bool)
    added = 0
    start = 0
    while start < n:
        t = submit[by_submit[start]]
        stop = start
        while stop < n and submit[by_submit[stop]] == t:
            stop += 1
        first = added
        while added < len(by_known) and known[by_known[added]] <= t:
            added += 1
        if added > first:
            chunk = by_known[first:added]
            est.partial_fit(frame.iloc[chunk], y[chunk])
            waiting[chunk] = False
        batch = by_submit[start:stop]
        if watches_queue:
            # the queue at t: submitted before t, started after it
            est.observe_queue(frame.iloc[np.flatnonzero(waiting)], now=t)
        out[batch] = predictions_of(est.predict(frame.iloc[batch]), len(batch),
                                    f"{type(est).__name__}.predict", ConfigError)
        waiting[batch] = np.isfinite(known[batch]) & (known[batch] > t)
        start = stop
    return out

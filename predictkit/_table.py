"""The job table's core: canonical columns, validation, derived times, widths.

:mod:`predictkit.jobs` is the public face of this module (together with
cleaning and summaries, which build on it); everything here is re-exported
there.
"""

import copy
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._validation import invalid_parameter, python_scalar
from .exceptions import JobTableError

__all__ = [
    "SWF_COLUMNS",
    "INTEGER_COLUMNS",
    "TIME_COLUMNS",
    "DERIVED_TIME_COLUMNS",
    "MAX_EXACT",
    "empty_jobs",
    "as_job_table",
    "validate_jobs",
    "with_times",
    "known_time",
    "job_width",
    "requested_width",
    "cancelled_before_running",
]

SWF_COLUMNS = (
    "job_id",
    "submit_time",
    "wait_time",
    "run_time",
    "n_procs",
    "avg_cpu_time",
    "used_memory",
    "req_procs",
    "req_time",
    "req_memory",
    "status",
    "user_id",
    "group_id",
    "app_id",
    "queue_id",
    "partition_id",
    "preceding_job_id",
    "think_time",
)
"""The 18 SWF fields, in file order."""

INTEGER_COLUMNS = frozenset(
    {
        "job_id",
        "n_procs",
        "req_procs",
        "status",
        "user_id",
        "group_id",
        "app_id",
        "queue_id",
        "partition_id",
        "preceding_job_id",
    }
)
"""Fields that SWF defines as integers (identifiers and counts)."""

TIME_COLUMNS = ("submit_time", "wait_time", "run_time", "req_time", "think_time")
"""Fields holding seconds."""

DERIVED_TIME_COLUMNS = ("start_time", "end_time")
"""Instants a table may carry besides the SWF fields (:func:`with_times`), in the
seconds of ``submit_time``: checked like the SWF fields wherever they are read."""

OUTCOME_COLUMNS = ("wait_time", "run_time", "avg_cpu_time", "used_memory", "status",
                   "start_time", "end_time", "slurm_state")
"""Columns a log states only once a job has started or ended (the no-peeking rule of
DESIGN.md): an online predictor never reads them for a job it has not been told
about, and no estimator groups the jobs it predicts by them. The allocated width
``n_procs`` is not among them: logs without ``req_procs`` give it as the request."""

MAX_EXACT = 2.0**53
"""Magnitude from which float64 no longer holds every whole number: job tables stay below it."""

_NONNEGATIVE = ("wait_time", "run_time", "avg_cpu_time", "used_memory", "req_time",
                "req_memory", "think_time")
WIDTH_COLUMNS = ("n_procs", "req_procs")
"""A job's width in processors: allocated, requested. Where known, a whole number > 0
(``validate_jobs(X, whole=WIDTH_COLUMNS)`` checks it)."""
_POSITIVE = WIDTH_COLUMNS


def empty_jobs():
    """Return a job table with the canonical columns and no rows."""
    data = {c: np.empty(0, dtype=np.int64 if c == "job_id" else np.float64)
            for c in SWF_COLUMNS}
    return pd.DataFrame(data)


def as_job_table(data, *, attrs=None):
    """Build a canonical job table from a mapping or a DataFrame.

    Missing SWF columns are added as all-``NaN``; extra columns are kept after
    the canonical ones. Values of ``-1`` in SWF columns are **not** converted
    here (use :func:`predictkit.io.read_swf` for files); this only fixes the
    column order and the dtypes. The rows keep their order and get the
    labels ``0`` to ``n - 1`` (a file's jobs have no other); extra columns keep
    their dtypes.

    Parameters
    ----------
    data : DataFrame or mapping of column -> array-like
        The jobs.
    attrs : dict, optional
        Metadata to store in ``df.attrs`` (merged over ``data.attrs``).

    Raises
    ------
    JobTableError
        If ``data`` is neither (an array has no column names), or a column
        cannot be converted to numbers; the message names it.
    """
    if not isinstance(data, (pd.DataFrame, Mapping)):
        raise JobTableError(f"as_job_table needs a DataFrame or a mapping of column names to "
                            f"values, got {type(data).__name__} (name the columns, e.g. "
                            "pd.DataFrame(array, columns=[\"job_id\", \"submit_time\", ...]))")
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    check_unique_columns(frame)
    n = len(frame)
    columns = {}
    for name in SWF_COLUMNS:
        if name in frame.columns:
            values = _numeric(frame, name, "job table")
        elif name == "job_id":
            values = np.arange(1, n + 1, dtype=np.float64)
        else:
            values = np.full(n, np.nan)
        if name == "job_id":
            if np.isnan(values).any():
                raise JobTableError("column 'job_id' has missing values")
            if (values != np.round(values)).any():
                raise JobTableError("column 'job_id' holds non-integer values")
            values = values.astype(np.int64)
        columns[name] = values
    extra = [c for c in frame.columns if c not in columns]
    out = pd.DataFrame(columns, index=pd.RangeIndex(n))
    for name in extra:
        out[name] = frame[name].array  # its dtype kept (categories, nullable, pyarrow)
    out.attrs = copy_attrs(frame)
    if attrs:
        out.attrs.update(copy.deepcopy(dict(attrs)))
    return out


def copy_attrs(frame):
    """A deep copy of ``frame.attrs``, for a table derived from ``frame``.

    pandas copies ``attrs`` shallowly on assignment (``out.attrs =
    X.attrs``), so the header lines, notes and name maps would stay shared
    and an edit of the derived table's would change the input's. Every
    function that hands a job table's ``attrs`` on takes them from here.

    Parameters
    ----------
    frame : DataFrame or mapping
        The table whose ``attrs`` are copied (a mapping is copied itself).

    Returns
    -------
    dict
        The copy (empty when ``frame`` has no ``attrs``).
    """
    attrs = frame if isinstance(frame, dict) else getattr(frame, "attrs", None)
    return copy.deepcopy(dict(attrs or {}))


def rows_where(frame, keep):
    """The rows of ``frame`` where the boolean mask ``keep`` holds (its index kept), with
    a copy of its ``attrs`` (:func:`copy_attrs`); ``frame`` itself when every row is kept."""
    if keep.all():
        return frame
    out = frame[keep]
    out.attrs = copy_attrs(frame)
    return out


def validate_jobs(X, required=(), *, present=(), sorted_by="", positive=(), whole=(),
                  check_values=True, columns=None, name="job table"):
    """Check a job table and raise a clear error when it cannot be used.

    Parameters
    ----------
    X : DataFrame
        The job table.
    required : iterable of str
        Columns that must be present **and** have no missing values (one
        name alone is one column, as in the other lists).
    present : iterable of str
        Columns that must be present (missing values allowed).
    sorted_by : str, optional
        If given, a column that must be non-decreasing (e.g. ``"submit_time"``
        for online replay and simulation).
    positive : iterable of str
        Columns (among the present ones) whose known values must be > 0, in
        addition to the defaults (``n_procs``, ``req_procs``).
    whole : iterable of str
        Columns (among the present ones) whose known values must be whole
        numbers (counts, e.g. ``n_procs``).
    check_values : bool
        Check the value rules above (negative times, sizes <= 0, whole
        numbers). Every SWF
        column present (and ``start_time`` / ``end_time``, the instants of
        :data:`DERIVED_TIME_COLUMNS`, when ``columns``, ``required`` or
        ``present`` name them) is always checked to hold numbers (a text column is
        named with its first offending row), no infinite value and no value of
        2**53 or more in magnitude (:data:`MAX_EXACT`: float64 is not exact
        from there on, so ids and widths would be altered).
    columns : iterable of str, optional
        Check only these columns (those of them present, plus the ones named
        by the rules above), as if ``X`` held no others: what a reader of a
        few columns needs, without copying them out of a wide table. By
        default every SWF column present is checked, and no column may be
        named twice.
    name : str
        How to call the table in messages.

    Returns
    -------
    X : DataFrame
        The same object, unchanged.

    Raises
    ------
    JobTableError
        Naming the missing columns, or the column, the first offending row
        (its position and ``job_id``) and the number of offending rows.
    """
    if not isinstance(X, pd.DataFrame):
        raise JobTableError(
            f"{name} must be a pandas DataFrame with SWF columns, got {type(X).__name__}"
        )
    required, present, positive, whole = (
        (names,) if isinstance(names, str) else tuple(names)
        for names in (required, present, positive, whole))
    if isinstance(columns, str):
        columns = (columns,)
    scope = None
    if columns is not None:
        scope = set(columns).union(required, present, positive, whole,
                                   (sorted_by,) if sorted_by else ())

    def checked(column):
        return column in X.columns and (scope is None or column in scope)

    check_unique_columns(X, name, scope)
    missing = [c for c in dict.fromkeys(required + tuple(present)) if c not in X.columns]
    if missing:
        raise JobTableError(
            f"{name} lacks required column(s) {', '.join(missing)} "
            f"(has: {', '.join(map(str, X.columns[:20]))})"
        )
    numeric = {}
    # the derived instants only when named (a reader of them checks them itself)
    derived = tuple(c for c in DERIVED_TIME_COLUMNS if scope is not None and c in scope)
    for column in SWF_COLUMNS + derived:
        if checked(column):
            values = numeric[column] = _numeric(X, column, name)
            bad = np.abs(values) >= MAX_EXACT  # infinite values included
            if bad.any():
                what = ("infinite values" if np.isinf(values[np.argmax(bad)]) else
                        "values of 2**53 or more in magnitude, which float64 cannot hold exactly")
                _raise_rows(X, bad, f"{name}: column {column!r} holds {what}")

    def values_of(column):
        return numeric[column] if column in numeric else _numeric(X, column, name)

    for column in required:
        bad = np.isnan(values_of(column))
        if bad.any():
            _raise_rows(X, bad, f"{name}: column {column!r} has missing values")
    for column in _NONNEGATIVE if check_values else ():
        if checked(column):
            bad = values_of(column) < 0
            if bad.any():
                _raise_rows(X, bad, f"{name}: column {column!r} has negative values")
    for column in dict.fromkeys(tuple(_POSITIVE) + tuple(positive)) if check_values else ():
        if checked(column):
            bad = values_of(column) <= 0
            if bad.any():
                _raise_rows(X, bad, f"{name}: column {column!r} has values <= 0")
    for column in whole if check_values else ():
        if column in X.columns:
            values = values_of(column)
            bad = ~np.isnan(values) & (values != np.round(values))
            if bad.any():
                _raise_rows(X, bad, f"{name}: column {column!r} has values that are not "
                            "whole numbers")
    if sorted_by:
        if sorted_by not in X.columns:
            raise JobTableError(f"{name} lacks column {sorted_by!r} needed for ordering")
        values = values_of(sorted_by)
        known = values[~np.isnan(values)]
        steps = np.diff(known)
        if (steps < 0).any():
            first = int(np.argmax(steps < 0)) + 1
            raise JobTableError(
                f"{name}: {sorted_by!r} is not sorted ({int((steps < 0).sum())} "
                f"decrease(s), first at known row {first}); sort with "
                f"X.sort_values({sorted_by!r}, kind='stable')"
            )
    return X


def check_unique_columns(X, name="job table", columns=None):
    """Refuse a table that names a column twice (``pd.concat(axis=1)`` of two
    tables), or by several levels: which column a computation reads would be an accident.

    Parameters
    ----------
    X : DataFrame
        The table.
    name : str
        How to call the table in the message.
    columns : iterable of str, optional
        Refuse only repeats of these columns (default: of any column).

    Raises
    ------
    JobTableError
        Naming the first repeated column and how often it appears, or the
        levels of a table whose columns have more than one.
    """
    if X.columns.nlevels > 1:
        raise JobTableError(f"{name} has {X.columns.nlevels} levels of column names; job "
                            "tables name each column once (flatten them, e.g. "
                            "X.droplevel(0, axis=1))")
    if X.columns.is_unique:
        return
    repeated = X.columns[X.columns.duplicated()]
    if columns is not None:
        repeated = repeated[repeated.isin(list(columns))]
    if len(repeated):
        first = repeated[0]
        raise JobTableError(f"{name} has column {first!r} {int((X.columns == first).sum())} "
                            "times; keep one (e.g. X.loc[:, ~X.columns.duplicated()])")


def check_aligned(values, X, name, table="X", owner=""):
    """Refuse a pandas Series whose index differs from the job table's.

    Per-job arrays (targets, known times, estimates) are taken by position,
    as scikit-learn takes ``y``; a Series labelled for other rows, or for
    the same rows in another order, would pair each job with another job's
    value.

    Parameters
    ----------
    values : array-like
        The per-job values; only a Series is checked.
    X : DataFrame
        The job table.
    name, table : str
        How to call the values and the table in the message.
    owner : str
        Who checks, to start the message with.

    Raises
    ------
    JobTableError
        Naming the first position where the labels differ.
    """
    if isinstance(values, pd.Series) and len(values) == len(X) \
            and not values.index.equals(X.index):
        differs = values.index.to_numpy() != X.index.to_numpy()
        first = int(np.argmax(differs))
        theirs, ours = (python_scalar(labels[first]) for labels in (values.index, X.index))
        raise JobTableError(
            f"{owner + ': ' if owner else ''}{name} is a Series whose index differs from the "
            f"index of {table} (first at "
            f"position {first}: label {theirs!r} against {ours!r}); align it "
            f"({name}.loc[{table}.index]) or pass {name}.to_numpy() to pair by position")


def per_job_numbers(values, name):
    """:func:`as_numbers` of values given one per job: a 1-D array, or a one-line error
    (a job table or a scalar given instead)."""
    array = as_numbers(values, name)
    if array.ndim != 1:
        raise JobTableError(f"{name} must hold one value per job (1-D), got shape "
                            f"{array.shape}")
    return array


def predictions_of(values, n_jobs, owner, error=JobTableError):
    """What ``owner`` (a predictor's method, e.g. ``"Mine.predict"``) returned for
    ``n_jobs`` jobs, as a float64 array.

    Raises
    ------
    JobTableError
        For a value that is not a number (:func:`as_numbers`).
    error
        For an array that does not hold one value per job, naming its shape.
    """
    array = as_numbers(values, f"what {owner} returned")
    if array.shape != (n_jobs,):
        raise error(f"{owner} returned shape {array.shape} for {n_jobs:,} job(s)")
    return array


def as_numbers(values, name):
    """Per-job values (seconds, estimates) as a float64 array, or a one-line error.

    Raises
    ------
    JobTableError
        Naming the first value that is not a number (missing values are fine),
        or the dtype of dates or durations (float64 would read them as
        nanoseconds).
    """
    dtype = getattr(values, "dtype", None)
    if (getattr(dtype, "kind", None) in ("m", "M")
            or isinstance(dtype, (pd.DatetimeTZDtype, pd.PeriodDtype))):
        how = (".dt.total_seconds()" if getattr(dtype, "kind", None) == "m"
               else "(t - t0).dt.total_seconds() from an origin t0")
        raise JobTableError(f"{name} holds {dtype} values, not numbers of seconds (convert "
                            f"with {how})")
    if getattr(dtype, "kind", None) == "c":
        raise JobTableError(f"{name} holds {dtype} values, not real numbers")
    if getattr(dtype, "kind", None) == "b" or isinstance(dtype, pd.BooleanDtype):
        raise JobTableError(f"{name} holds True/False values, not numbers")
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        objects = np.asarray(values, dtype=object)
        flat = pd.Series(objects.ravel())
        numbers = pd.to_numeric(flat, errors="coerce")
        bad = (numbers.isna() & flat.notna()).to_numpy()
        if not bad.any():  # only missing values numpy cannot hold (pd.NA) stood in the way
            return numbers.to_numpy(dtype=np.float64, na_value=np.nan).reshape(objects.shape)
        first = int(np.argmax(bad))
        raise JobTableError(f"{name} must hold numbers; position {first} holds "
                            f"{flat.iloc[first]!r}") from None


KNOWN_TIME_SLACK = 1.0
"""Seconds a known time may fall short of ``submit_time`` + the target: ``sacct``
prints times to the second, and its ``Elapsed`` may exceed ``End - Start`` by
that much."""


def known_after_submission(known, submit):
    """The replay clock: a target known at its own job's submission instant
    (a zero wait, or a zero wait and runtime) counts as known just after it.

    Replay adds what is known at an instant ``t`` to the history before it
    predicts the jobs submitted at ``t``; without this a job that starts
    (and ends) when it is submitted would be predicted from its own target,
    and the jobs submitted at that instant from each other's. The known time of
    such a job becomes the next float after its submit time, which leaves
    every ordering of known times unchanged.

    Parameters
    ----------
    known, submit : ndarray of float64
        Known times (``NaN``: never known) and submit times.

    Returns
    -------
    ndarray of float64
        A copy of ``known`` with the times at or before ``submit`` moved.
    """
    with np.errstate(invalid="ignore"):
        same = known <= submit
    return np.where(same, np.nextafter(submit, np.inf), known)


def check_known_after_target(known, submit, y, what):
    """Refuse a clock that makes a job's target known before it can be.

    A runtime is known when the job ends and a wait when it starts, both no
    earlier than ``submit_time + y``; an earlier known time would put a job
    (or one submitted with it) in the history that predicts it.

    Parameters
    ----------
    known, submit, y : ndarray of float64
        Known times, submit times, targets (``NaN`` where unknown: not checked).
    what : str
        Where the known times come from, for the message.

    Raises
    ------
    JobTableError
        Naming the first such row, by how much and how many there are.
    """
    with np.errstate(invalid="ignore"):
        early = known < submit + y - KNOWN_TIME_SLACK
    if early.any():
        first = int(np.argmax(early))
        raise JobTableError(
            f"{what} is {submit[first] + y[first] - known[first]:,.0f} s before submit_time + "
            f"the target at row {first} ({int(early.sum()):,} row(s)): a target cannot be "
            "known before the job has run (or waited) that long, and replay would show jobs "
            "their own answer")


def with_numeric_columns(X, name="job table"):
    """``X`` itself when its SWF columns (and ``start_time``/``end_time``) have number
    dtypes; else a copy in which those held as objects or text are float64.

    A column of Python objects may hold ``pd.NA`` (read as missing) or text
    that reads as a number (``"100"``), which plain ``float`` conversions
    refuse or leave as text; every entry point that converts columns with
    them (:func:`clean_jobs`, :func:`~predictkit.simulate.simulate`,
    :func:`summarize`) takes its table through here once, after
    :func:`validate_jobs` has named any value that is no number.
    """
    textual = [column for column in X.columns
               if column in SWF_COLUMNS + DERIVED_TIME_COLUMNS
               and (pd.api.types.is_object_dtype(X[column].dtype)
                    or pd.api.types.is_string_dtype(X[column].dtype))]
    if not textual:
        return X
    out = X.assign(**{column: _numeric(X, column, name) for column in textual})
    out.attrs = copy_attrs(X)
    return out


def _numeric(X, column, name):
    """A column as float64 (missing values as NaN), or a JobTableError naming the first bad row."""
    check_unique_columns(X, name, (column,))
    series = X[column]
    kind = series.dtype
    # True/False is no count, time or id (a width of True would run as 1); a status of
    # True/False reads as SWF's 1 (completed) / 0 (failed)
    flags = pd.api.types.is_bool_dtype(kind) and column != "status"
    if not (pd.api.types.is_datetime64_any_dtype(kind) or pd.api.types.is_timedelta64_dtype(kind)
            or isinstance(kind, pd.PeriodDtype) or pd.api.types.is_complex_dtype(kind)
            or flags):
        try:
            return series.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            pass
        numbers = pd.to_numeric(series, errors="coerce")
        bad = (numbers.isna() & series.notna()).to_numpy()
        if bad.any():
            position = int(np.argmax(bad))
            hint = (" (number the names first, e.g. with pandas.factorize)"
                    if column in INTEGER_COLUMNS and column.endswith("_id") else "")
            raise JobTableError(
                f"{name}: column {column!r} is not numeric ({int(bad.sum())} row(s) hold "
                f"something else; first at {_row(X, position)}: "
                f"{series.iloc[position]!r}){hint}"
            )
    if column in TIME_COLUMNS + DERIVED_TIME_COLUMNS and kind.kind in "mM":
        as_numbers(series, f"{name}: column {column!r}")  # names the conversion
    what = "True/False" if pd.api.types.is_bool_dtype(kind) else kind
    raise JobTableError(f"{name}: column {column!r} holds {what} values, not numbers"
                        + (" of seconds" if column in TIME_COLUMNS + DERIVED_TIME_COLUMNS
                           else ""))


def _raise_rows(X, bad, message):
    raise JobTableError(
        f"{message} ({int(bad.sum())} row(s); first at {_row(X, int(np.argmax(bad)))})"
    )


def _row(X, position):
    """A row for messages: its position, and its ``job_id`` where the table has one."""
    if "job_id" not in X.columns:
        return f"row {position}"
    return f"row {position}, job_id {X['job_id'].iloc[position]}"


def check_target(y, X, *, what, name="y", missing=False, owner=""):
    """``y`` as float64, one value per job of ``X``, refused where no job could have it.

    The one check of the targets of the online estimators (runtimes, waits):
    their ``fit`` / ``partial_fit`` and :func:`~predictkit.model_selection.replay`
    refuse the same values with the same words.

    Parameters
    ----------
    y : array-like of shape (n_jobs,)
        Seconds.
    X : DataFrame
        The jobs (only to count them and to name the first bad row's ``job_id``).
    what : str
        What the values are, plural (``"runtimes"``, ``"waits"``).
    name : str
        How to call ``y`` in messages.
    missing : bool
        Accept ``NaN`` (an unknown target, as in :func:`replay`).
    owner : str
        Who checks, to start messages with.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    JobTableError
        ``y`` not numbers, not one per job, a Series labelled for other rows
        (:func:`check_aligned`), or holding an infinite, negative or (unless
        ``missing``) missing value, naming the first such row.
    """
    prefix = f"{owner}: " if owner else ""
    check_aligned(y, X, name, owner=owner)
    values = as_numbers(y, f"{prefix}{name}")
    if values.shape != (len(X),):
        raise JobTableError(f"{prefix}{name} must have one value per job ({len(X)}), "
                            f"got shape {values.shape}")
    checks = [(np.isinf(values), "infinite"), (values < 0, "negative")]
    if not missing:
        checks.insert(0, (np.isnan(values), "missing"))
    for bad, kind in checks:
        if bad.any():
            _raise_rows(X, bad, f"{prefix}{name} holds {kind} {what}")
    return values


def submission_order(submit, job_id=None):
    """The order a scheduler saw the jobs in: submit time, then ``job_id`` (where
    known), then row.

    Jobs submitted in the same second are common in logs, and the queue a
    scheduler (or a wait forecast) sees depends on which of them came first:
    :func:`~predictkit.model_selection.replay` and
    :func:`~predictkit.simulate.simulate` both take jobs in this order, so their
    answers do not depend on how the rows of such a batch are arranged.

    Parameters
    ----------
    submit : ndarray of float64
    job_id : ndarray of float64, optional
        ``NaN`` ids come after the known ones of their second.

    Returns
    -------
    ndarray of int64
        Row positions, a permutation of ``0 .. n - 1``.
    """
    rows = np.arange(len(submit))
    keys = (rows, submit) if job_id is None else (rows, job_id, submit)
    return np.lexsort(keys)


def said_starts(X, name="job table"):
    """When each row says its job started: ``start_time``, else ``submit_time +
    wait_time``.

    Parameters
    ----------
    X : DataFrame
        Jobs; neither column pair is required.
    name : str
        How to call the table in messages.

    Returns
    -------
    ndarray of float64
        ``NaN`` where unknown (or without ``start_time`` nor ``wait_time``).

    Raises
    ------
    JobTableError
        A column read holds something other than numbers of seconds.
    """
    if "start_time" in X.columns:
        return _numeric(X, "start_time", name)
    if "submit_time" in X.columns and "wait_time" in X.columns:
        return _numeric(X, "submit_time", name) + _numeric(X, "wait_time", name)
    return np.full(len(X), np.nan)


def with_times(X):
    """Return a copy of ``X`` with ``start_time`` and ``end_time`` columns.

    ``start_time = submit_time + wait_time`` and ``end_time = start_time +
    run_time`` (``NaN`` where a term is unknown). Existing columns of those
    names are kept.
    """
    out = X.copy()
    if "start_time" not in out.columns:
        out["start_time"] = (_numeric(out, "submit_time", "job table")
                             + _numeric(out, "wait_time", "job table"))
    if "end_time" not in out.columns:
        out["end_time"] = (_numeric(out, "start_time", "job table")
                           + _numeric(out, "run_time", "job table"))
    return out


def known_time(X, target="end", *, y=None, assume_no_wait=False):
    """Time at which each job's target becomes known to an online estimator.

    This is the clock of the no-peeking rule (DESIGN: estimator conventions):
    a runtime is known when the job ends, a wait when the job starts. Every
    part of predictkit that learns from a trace takes its clock from here
    (:func:`predictkit.model_selection.replay`, the runtime predictors'
    histories).

    Parameters
    ----------
    X : DataFrame
        Job table with ``submit_time`` and ``wait_time`` (and ``run_time`` for
        ``"end"``); precomputed ``start_time`` / ``end_time`` columns are used
        when present.
    target : {"end", "start"}
        ``"end"`` for runtimes, ``"start"`` for waits.
    y : array-like of float, optional
        The targets (runtimes for ``"end"``, waits for ``"start"``). When
        given, ``submit_time + wait_time + y`` replaces ``run_time`` (a table
        without ``wait_time`` and ``start_time`` starts its jobs at
        ``submit_time + y``), jobs whose target is unknown
        get ``NaN``, and a job with a known target but no known time is an
        error.
    assume_no_wait : bool, default=False
        Take a missing ``wait_time`` as 0 (a job known to end at
        ``submit_time + run``), as a user may say of a log that records no
        waits (``predictkit predict --assume-no-wait``).

    Returns
    -------
    ndarray of float64
        ``NaN`` where the time cannot be computed, and for ``"end"`` where
        the job never ran (:func:`cancelled_before_running`, its runtime
        ``y`` where given: a runtime of 0 that is no runtime): such jobs
        never enter a history.

    Raises
    ------
    JobTableError
        When the table has neither the time column nor ``wait_time``, when
        ``wait_time`` is read and holds a negative or infinite value, or
        (with ``y``) when a job with a known target has no known time (e.g.
        ``wait_time`` missing, as in the LLNL-Atlas and LLNL-Thunder logs):
        the caller must say what to assume, e.g. through ``known_time=`` of
        :func:`~predictkit.model_selection.replay`.
    """
    if not isinstance(target, str) or target not in ("end", "start"):
        raise invalid_parameter("target", "known_time", "'end' or 'start'", target)
    column = "end_time" if target == "end" else "start_time"
    if not isinstance(X, pd.DataFrame) or "submit_time" not in X.columns:
        raise JobTableError("known_time needs a job table (DataFrame) with submit_time")

    def seconds(name):
        return _numeric(X, name, "job table")

    if y is not None:
        y = check_target(y, X, what="runtimes" if target == "end" else "waits", missing=True,
                         owner="known_time")
    submit = seconds("submit_time")
    if column in X.columns:
        known = seconds(column).copy()
    elif target == "start" and y is not None and "wait_time" not in X.columns:
        known = submit + y
    else:
        if "wait_time" not in X.columns:
            raise JobTableError(
                f"job table lacks wait_time, needed for {column}; add a column {column!r} "
                "or pass known_time= to say when each target became known")
        wait = seconds("wait_time")
        if assume_no_wait:
            wait = np.where(np.isnan(wait), 0.0, wait)
        for bad, kind in ((np.isinf(wait), "infinite"), (wait < 0, "negative")):
            if bad.any():
                _raise_rows(X, bad, f"job table: column 'wait_time' has {kind} values, so "
                            f"{column} is unknown")
        known = submit + wait
        if target == "end":
            if y is None and "run_time" not in X.columns:
                raise JobTableError("job table lacks run_time, needed for end_time; add a "
                                    "column 'end_time' or give the runtimes as y")
            known = known + (seconds("run_time") if y is None else y)
    never_ran = (cancelled_before_running(X, y) if target == "end"
                 else np.zeros(len(known), dtype=bool))
    known[never_ran] = np.nan
    if y is None:
        return known
    known[np.isnan(y)] = np.nan
    check_known_after_target(known, submit, y,
                             f"column {column}" if column in X.columns
                             else f"submit_time + wait_time{' + y' if target == 'end' else ''}")
    lost = np.isnan(known) & ~np.isnan(y) & ~never_ran
    if lost.any():
        raise JobTableError(
            f"{int(lost.sum()):,} job(s) with a known target have no {column} "
            f"(wait_time unknown; first at row {int(np.argmax(lost))}); add an {column!r} "
            "column stating the assumption or pass known_time= to replay, e.g. "
            "X.submit_time + y to assume no queue wait"
        )
    return known


def job_width(X):
    """The processors each job occupies: ``n_procs``, else ``req_procs``.

    ``n_procs`` is what the scheduler allocated; where a log does not record
    it, the request (``req_procs``) stands in. This is the width a simulated
    scheduler runs a job with, and the size of the "sane jobs" filter
    (:func:`clean_jobs`). Something known when a job is submitted uses
    :func:`requested_width` instead.

    Parameters
    ----------
    X : DataFrame
        Job table with ``n_procs`` and/or ``req_procs``.

    Returns
    -------
    ndarray of float64
        ``NaN`` where neither is known.
    """
    return _first_known(X, "n_procs", "req_procs")


def requested_width(X):
    """The processors each job asked for: ``req_procs``, else ``n_procs``.

    What is known when a job is submitted (QBETS's job classes, the
    submission features of runtime predictors, queue snapshots); the
    allocation (``n_procs``) stands in where the request is not recorded or
    not positive. The width a job runs with is :func:`job_width`.

    Parameters
    ----------
    X : DataFrame
        Job table with ``req_procs`` and/or ``n_procs``.

    Returns
    -------
    ndarray of float64
        ``NaN`` where neither is known.
    """
    return _first_known(X, "req_procs", "n_procs", positive=True)


def _first_known(X, first, fallback, *, positive=False):
    columns = getattr(X, "columns", ())
    if first not in columns and fallback not in columns:
        raise JobTableError(f"job table lacks both {first!r} and {fallback!r} "
                            "(a job's width in processors)")
    n = len(X)
    width = (_numeric(X, first, "job table").copy() if first in columns
             else np.full(n, np.nan))
    if fallback in columns:
        missing = np.isnan(width) | (width <= 0) if positive else np.isnan(width)
        width = np.where(missing, _numeric(X, fallback, "job table"), width)
    return width


def user_accounts(users):
    """One account per user (0 to n - 1), and one of its own for each job whose
    user is unknown: a missing ``user_id`` groups nothing, as in the runtime
    predictors' histories, rather than charging strangers to one account.
    The fairshare of :func:`~predictkit.simulate.simulate` and of the fair
    start times (:mod:`predictkit.metrics`) both count usage by these.

    Parameters
    ----------
    users : ndarray of float64
        One user id per job (``NaN``: unknown).

    Returns
    -------
    codes : ndarray of int64
    n_accounts : int
        At least 1.
    n_unknown : int
        Jobs without a user.
    """
    codes, _ = pd.factorize(pd.Series(users))
    codes = codes.astype(np.int64)
    unknown = codes < 0
    n_known = int(codes.max()) + 1 if (~unknown).any() else 0
    codes[unknown] = n_known + np.arange(int(unknown.sum()))
    return codes, max(n_known + int(unknown.sum()), 1), int(unknown.sum())


CANCELLED = 5
"""SWF status of a cancelled job (Slurm's ``CANCELLED`` reads as 5 too)."""


def cancelled_before_running(X, run_time=None):
    """Jobs cancelled before they ran whose log still records a wait, one flag per row.

    Status 5 (cancelled) with no run time (0 or unknown) and a known wait: the
    archive's logs record for such a job the time until its cancel as its
    wait, the least it would have waited had it stayed in the queue (a
    censored wait), not a wait that ended in a start. ``run_time`` (one per
    job) stands for the table's column where given (the runtimes a replay is
    handed).
    """
    n = len(X)
    if "status" not in getattr(X, "columns", ()) or "wait_time" not in X.columns:
        return np.zeros(n, dtype=bool)
    status = _numeric(X, "status", "job table")
    wait = _numeric(X, "wait_time", "job table")
    if run_time is not None:
        run = np.asarray(run_time, dtype=np.float64)
    else:
        run = (_numeric(X, "run_time", "job table") if "run_time" in X.columns
               else np.full(n, np.nan))
    return (status == CANCELLED) & np.isfinite(wait) & ~(run > 0)

"""Vectorised parsers for the field formats that Slurm's ``sacct`` prints.

Each parser takes an array of strings (one per line of the file) and returns
the parsed values as ``float64`` with ``NaN`` for "unknown", together with a
boolean mask of the entries that could not be parsed, so the reader can name
the offending line. Each distinct string is parsed once.
"""

import math
import re
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..exceptions import ConfigError

__all__ = [
    "LIMIT_TOKENS",
    "UNKNOWN_TOKENS",
    "parse_slurm_duration",
    "parse_durations",
    "parse_raw_durations",
    "parse_timestamps",
    "parse_local_timestamps",
    "LocalTimestamps",
    "TIMESTAMP_HINT",
    "parse_counts",
    "parse_memory",
    "parse_time_request",
    "format_slurm_duration",
    "MAX_ARRAY_TASKS",
    "parse_array_tasks",
    "array_task_job_ids",
    "is_digits",
    "is_time_zone",
    "check_time_zone",
    "PENDING_STATES",
    "is_pending",
    "HOLDING_STATES",
    "holds_allocation",
    "state_first_words",
]

LIMIT_TOKENS = frozenset({"UNLIMITED", "PARTITION_LIMIT", "NOT_SET"})
"""Time-limit values that mean "no limit of the job's own" (read as ``NaN``;
``squeue`` prints ``NOT_SET`` for a job that has none yet)."""

UNKNOWN_TOKENS = frozenset({"", "INVALID", "NONE", "UNKNOWN", "N/A"})
"""Values that mean "not known" (e.g. ``Start`` of a pending job)."""

_DURATION = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+(?:\.\d+)?))?)?"
    r"|(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d+(?:\.\d+)?))$", re.ASCII
)
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"
TIMESTAMP_HINT = ("is not a time in Slurm's standard form 2024-03-04T10:00:00 (another form "
                  "comes from SLURM_TIME_FORMAT: run with SLURM_TIME_FORMAT=standard), or lies "
                  "outside the years 1970-2099")
"""What a timestamp that cannot be read is not, for the readers' messages."""
_YEARS = (1970, 2099)
"""The years a timestamp may have: Slurm's clock counts from 1970; the year 2100 bounds
a typing error such as 9999, which would make a runtime of millennia."""


def _well_formed(text):
    """Whether ``text`` has the one length of the form, ASCII digits only (strptime takes
    other digits and one-digit fields) and a second below 60 (strptime moves a second 60
    to the next minute); strptime checks the rest."""
    return len(text) == 19 and text.isascii() and text[17:19] < "60"


def is_digits(text):
    """Whether ``text`` is a run of ASCII digits (``str.isdigit`` also takes ``²`` and ``٣``)."""
    return text.isascii() and text.isdigit()


MAX_SECONDS = 2.0**32
"""Longest duration read (about 136 years): beyond it a field is malformed, not a time."""
MAX_COUNT = 2**32 - 1
"""Largest count read: Slurm keeps CPU and node counts in 32 bits."""
MAX_MEMORY_KB = 2.0**53
"""Largest memory size read, in KB (8 EiB)."""
MAX_ARRAY_TASKS = 1_000_000
"""Most tasks one job id of a job array's pending tasks (``123_[0-999999]``) may stand for."""
_ARRAY_JOB_ID = re.compile(r"^(?P<job>\d+)_\[(?P<tasks>.*)\]$", re.ASCII)
_ARRAY_TERM = re.compile(r"^(?P<first>\d+)(?:-(?P<last>\d+)(?::(?P<step>\d+))?)?$",
                         re.ASCII)
_MEMORY = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<unit>[KMGTP]?)(?P<per>[cn]?)$",
                     re.ASCII)
_SCALED_COUNT = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<unit>[KMG])$", re.ASCII)
_COUNT_UNITS = {"K": 1024, "M": 1024**2, "G": 1024**3}
_MEMORY_UNITS_KB = {"": 1 / 1024, "K": 1.0, "M": 1024.0, "G": 1024.0**2,
                    "T": 1024.0**3, "P": 1024.0**4}


def parse_slurm_duration(text):
    """Parse one Slurm duration into seconds.

    Accepted forms are those ``sacct`` prints: ``D-HH:MM:SS``, ``D-HH:MM``,
    ``D-HH``, ``HH:MM:SS``, ``MM:SS`` and ``MM:SS.mmm`` (fractions of a second
    appear in ``TotalCPU``). ``UNLIMITED``, ``Partition_Limit``, ``NOT_SET``, ``INVALID``,
    ``None``, ``Unknown`` and the empty string mean "no known value".

    Parameters
    ----------
    text : str
        The field as printed.

    Returns
    -------
    float
        Seconds, or ``NaN`` for the tokens above.

    Raises
    ------
    ValueError
        If the text is none of these forms (a bare number is refused: Slurm
        reads it as minutes on input but never prints it).

    Examples
    --------
    >>> parse_slurm_duration("1-02:03:04")
    93784.0
    >>> parse_slurm_duration("UNLIMITED")
    nan
    """
    value, bad, _ = _duration(str(text))
    if bad:
        raise ValueError(f"not a Slurm duration: {text!r}")
    return value


def _duration(text):
    """``(seconds, bad, limit)`` for one field."""
    text = text.strip()
    upper = text.upper()
    if upper in LIMIT_TOKENS:
        return math.nan, False, True
    if upper in UNKNOWN_TOKENS:
        return math.nan, False, False
    total = _clock_seconds(text)
    if not total <= MAX_SECONDS:
        return math.nan, True, False
    return total, False, False


def _clock_seconds(text):
    """Seconds of a ``[days-]hours:minutes:seconds`` form (NaN when malformed, uncapped)."""
    match = _DURATION.match(text)
    if match is None:
        return math.nan
    days, dh, dm, ds, h, m, s = match.groups()
    if days is not None:
        hours, minutes, seconds = int(dh), int(dm or 0), float(ds or 0)
        if hours >= 24 or minutes >= 60 or seconds >= 60:
            return math.nan
        return float(int(days) * 86400 + hours * 3600 + minutes * 60 + seconds)
    hours, minutes, seconds = int(h or 0), int(m), float(s)
    if (h is not None and minutes >= 60) or seconds >= 60:
        return math.nan
    return float(hours * 3600 + minutes * 60 + seconds)


def _per_unique(strings, parse_one, width):
    """Apply ``parse_one`` (returning ``width`` numbers) once per distinct string."""
    codes, uniques = pd.factorize(np.asarray(strings, dtype=object), use_na_sentinel=False)
    table = np.array([parse_one(str(u)) for u in uniques], dtype=np.float64)
    return table.reshape(-1, width)[codes]


def parse_durations(strings):
    """Parse a column of Slurm durations (see :func:`parse_slurm_duration`).

    Returns
    -------
    values : ndarray of float64
        Seconds, ``NaN`` where unknown or unlimited.
    bad : ndarray of bool
        Entries that are not a valid duration.
    limits : ndarray of bool
        Entries that were ``UNLIMITED``, ``Partition_Limit`` or ``NOT_SET``.
    """
    parsed = _per_unique(strings, _duration, 3)
    return parsed[:, 0], parsed[:, 1].astype(bool), parsed[:, 2].astype(bool)


def parse_raw_durations(strings, *, unit_seconds=1):
    """Parse a column of plain integers (``ElapsedRaw`` seconds, ``TimelimitRaw`` minutes).

    Returns ``(values, bad, limits)`` like :func:`parse_durations`; values are
    multiplied by ``unit_seconds``.
    """
    def one(text):
        text = text.strip()
        if text.upper() in LIMIT_TOKENS:
            return math.nan, False, True
        if text.upper() in UNKNOWN_TOKENS:
            return math.nan, False, False
        if not is_digits(text) or int(text) * unit_seconds > MAX_SECONDS:
            return math.nan, True, False
        return int(text) * unit_seconds, False, False

    parsed = _per_unique(strings, one, 3)
    return parsed[:, 0], parsed[:, 1].astype(bool), parsed[:, 2].astype(bool)


def parse_timestamps(strings, time_zone):
    """Parse ``Submit`` / ``Start`` / ``End`` timestamps (``2023-01-05T10:11:12``).

    Parameters
    ----------
    strings : array-like of str
        The column.
    time_zone : str
        IANA name of the zone the timestamps are written in (``sacct`` prints
        the local time of the host it runs on, without an offset). In a zone
        with daylight saving time, a wall-clock time that occurs twice is read
        as its first (summer-time) occurrence and a time that does not exist is
        moved forward to the first valid instant (:func:`parse_local_timestamps`
        gives both readings and the nonexistent times instead).

    Returns
    -------
    values : ndarray of float64
        Seconds since the Unix epoch, ``NaN`` for ``Unknown``, ``None`` and
        empty fields.
    bad : ndarray of bool
        Entries that are not a timestamp in this format.
    n_ambiguous : int
        How many times fell in a repeated or skipped hour.
    """
    local = parse_local_timestamps(strings, time_zone)
    values = local.values.copy()
    if local.nonexistent.any():
        shifted = local.naive[local.nonexistent].dt.tz_localize(
            time_zone, nonexistent="shift_forward").dt.tz_convert("UTC").dt.tz_localize(None)
        values[local.nonexistent] = _epoch_seconds(shifted)
    n_ambiguous = int((~np.isnan(local.later)).sum() + local.nonexistent.sum())
    return values, local.bad, n_ambiguous


class LocalTimestamps(NamedTuple):
    """Timestamps read in a zone, with both readings of a repeated wall-clock hour."""

    values: np.ndarray
    """Seconds since the Unix epoch; a repeated hour read as its first (summer-time)
    occurrence; ``NaN`` for unknown, malformed and nonexistent times."""
    later: np.ndarray
    """The second (standard-time) reading of a repeated hour, ``NaN`` elsewhere."""
    bad: np.ndarray
    """Entries that are not a timestamp in this format."""
    nonexistent: np.ndarray
    """Wall-clock times skipped when the clocks moved forward."""
    naive: pd.Series
    """The wall-clock times as read, before localisation."""


PENDING_STATES = frozenset({"PENDING", "PD"})
"""Slurm's state of a job waiting to start: ``sacct`` prints ``PENDING``, ``squeue`` ``%T``
``PENDING`` and ``%t`` ``PD``."""


HOLDING_STATES = frozenset({"RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "STOPPED",
                            "SIGNALING", "STAGE_OUT", "RESIZING"})
"""Slurm's states of a job that holds its allocation and has not ended yet."""


def state_first_words(states):
    """Each Slurm state's first word in upper case (``CANCELLED by 12`` is ``CANCELLED``;
    an empty or missing state is ``""``), as an object array."""
    return np.array([text.split()[0].upper() if isinstance(text, str) and text.split() else ""
                     for text in np.asarray(states, dtype=object)], dtype=object)


def is_pending(states):
    """Whether each Slurm state is pending: its first word (:func:`state_first_words`)
    among :data:`PENDING_STATES`.

    Parameters
    ----------
    states : array-like of str

    Returns
    -------
    ndarray of bool
    """
    return np.isin(state_first_words(states), list(PENDING_STATES))


def holds_allocation(states):
    """Whether each Slurm state is that of a job holding its allocation, not ended yet:
    its first word among :data:`HOLDING_STATES` (``RUNNING``, ``SUSPENDED``, ...)."""
    return np.isin(state_first_words(states), list(HOLDING_STATES))


def is_time_zone(zone):
    """Whether ``zone`` is the name of a time zone pandas knows (an IANA name such as
    ``Europe/Paris``)."""
    if not isinstance(zone, str) or not zone.strip():
        return False
    try:
        pd.Timestamp(0, unit="s", tz="UTC").tz_convert(zone)
    except Exception:  # pandas raises several types (with internal wording) for an unknown zone
        return False
    return True


def check_time_zone(time_zone, name="time_zone"):
    """Refuse a ``time_zone`` that is not a zone's name (pandas would take a number as
    an offset in seconds, and ``None`` as no zone at all) or not a zone pandas knows,
    before anything is read; ``name`` is how the message names it (``--time-zone``)."""
    if not isinstance(time_zone, str) or not time_zone.strip():
        raise ConfigError(f"{name} must be the name of a time zone, such as 'Europe/Paris' "
                          f"or 'UTC', got {time_zone!r}")
    if not is_time_zone(time_zone):
        raise _unknown_zone(time_zone, name)
    return time_zone


def _unknown_zone(time_zone, name):
    return ConfigError(f"{name}: unknown time zone {time_zone!r} (use an IANA name such as "
                       "'Europe/Paris', or 'UTC')")


def parse_local_timestamps(strings, time_zone):
    """Parse timestamps written in ``time_zone``, keeping what daylight saving makes unclear.

    Parameters
    ----------
    strings : array-like of str
        The column (``2023-01-05T10:11:12``; ``Unknown``, ``None`` and empty
        fields are unknown).
    time_zone : str
        IANA name of the zone the timestamps are written in.

    Returns
    -------
    LocalTimestamps
        Each time's first reading, the second reading of times in a repeated
        hour, the malformed entries and the times that do not exist in the zone.

    Raises
    ------
    ConfigError
        If ``time_zone`` is not a known zone.
    """
    codes, uniques = pd.factorize(np.asarray(strings, dtype=object), use_na_sentinel=False)
    distinct = _distinct_local_timestamps(pd.Series(uniques, dtype=object).str.strip(),
                                          time_zone)
    naive = pd.Series(distinct.naive.to_numpy()[codes])
    return LocalTimestamps(*(field[codes] for field in distinct[:4]), naive)


def _distinct_local_timestamps(strings, time_zone):
    """:func:`parse_local_timestamps` of a Series of distinct stripped strings."""
    unknown = np.array([str(t).upper() in UNKNOWN_TOKENS for t in strings], dtype=bool)
    formed = np.array([_well_formed(str(t)) for t in strings], dtype=bool)
    naive = pd.to_datetime(strings.where(formed & ~unknown, None), format=_TIMESTAMP_FORMAT,
                           errors="coerce")
    naive = naive.where(naive.dt.year.between(*_YEARS))
    bad = naive.isna().to_numpy() & ~unknown
    n = len(naive)
    later = np.full(n, np.nan)
    nonexistent = np.zeros(n, dtype=bool)
    if time_zone == "UTC":
        return LocalTimestamps(_epoch_seconds(naive), later, bad, nonexistent, naive)
    try:
        first = naive.dt.tz_localize(time_zone, ambiguous=np.ones(n, dtype=bool),
                                     nonexistent="NaT")
        second = naive.dt.tz_localize(time_zone, ambiguous=np.zeros(n, dtype=bool),
                                      nonexistent="NaT")
    except Exception:  # pandas raises several types (with internal wording) for an unknown zone
        raise _unknown_zone(time_zone, "time_zone") from None
    values = _epoch_seconds(first.dt.tz_convert("UTC").dt.tz_localize(None))
    second_values = _epoch_seconds(second.dt.tz_convert("UTC").dt.tz_localize(None))
    nonexistent = (first.isna() & naive.notna()).to_numpy()
    repeated = second_values != values
    later[repeated & ~np.isnan(values)] = second_values[repeated & ~np.isnan(values)]
    return LocalTimestamps(values, later, bad, nonexistent, naive)


def _epoch_seconds(naive):
    seconds = (naive - pd.Timestamp("1970-01-01")).dt.total_seconds()
    return np.array(seconds, dtype=np.float64)


def parse_counts(strings):
    """Parse a column of non-negative integers (``NCPUS``, ``NNodes``, ...).

    ``sacct`` prints ``AllocNodes`` and ``ReqNodes`` of 1024 or more in units
    of 1024 when that is exact (``1K``, ``1.50K``, ``64K``; Slurm's
    ``convert_num_unit``): a number with a ``K``, ``M`` or ``G`` suffix is read
    so, and is bad unless it comes to a whole count.

    Returns ``(values, bad)``; empty fields are ``NaN``; a count above
    :data:`MAX_COUNT` is bad.

    Examples
    --------
    >>> parse_counts(["4", "1.50K", "64K", "1.3K", ""])[0].tolist()
    [4.0, 1536.0, 65536.0, nan, nan]
    """
    def one(text):
        text = text.strip()
        if not text:
            return math.nan, False
        if is_digits(text):
            count = int(text)
        else:
            match = _SCALED_COUNT.match(text)
            if match is None:
                return math.nan, True
            scaled = float(match["number"]) * _COUNT_UNITS[match["unit"]]
            if scaled != round(scaled):
                return math.nan, True
            count = int(scaled)
        if count > MAX_COUNT:
            return math.nan, True
        return count, False

    parsed = _per_unique(strings, one, 2)
    return parsed[:, 0], parsed[:, 1].astype(bool)


def parse_memory(strings):
    """Parse memory sizes such as ``1234K``, ``1.5G`` or ``0`` into kilobytes.

    Units are powers of 1024; a number without unit is bytes (what
    ``sacct --noconvert`` prints for memory in current Slurm). A trailing
    ``c`` / ``n`` (per CPU / per node, printed by old Slurm in ``ReqMem``)
    is accepted and ignored.

    Returns ``(values, bad)``; empty fields are ``NaN``; a size above
    :data:`MAX_MEMORY_KB` is bad.
    """
    def one(text):
        text = text.strip()
        if text.upper() in UNKNOWN_TOKENS:
            return math.nan, False
        match = _MEMORY.match(text)
        if match is None:
            return math.nan, True
        kilobytes = float(match["number"]) * _MEMORY_UNITS_KB[match["unit"]]
        return (math.nan, True) if kilobytes > MAX_MEMORY_KB else (kilobytes, False)

    parsed = _per_unique(strings, one, 2)
    return parsed[:, 0], parsed[:, 1].astype(bool)


_BARE_MINUTES = re.compile(r"^\d+(?:\.\d+)?$", re.ASCII)
_WITH_UNIT = re.compile(r"^\d+(?:\.\d+)?\s*[A-Za-z]+$", re.ASCII)
"""A number and a unit word (``90min``, ``1.5 days``): not ``1e3``, which is no time."""


def parse_time_request(text, *, name="--time", no_limit=False, limit=True):
    """Parse a time limit as a user writes it for ``sbatch --time``, into seconds.

    Slurm's own forms: ``minutes`` (a bare number is minutes, as in Slurm),
    ``minutes:seconds``, ``hours:minutes:seconds``, ``days-hours``,
    ``days-hours:minutes`` and ``days-hours:minutes:seconds``; and, for
    convenience, a number with a unit (``90min``, ``90 minutes``, ``2h``,
    ``1.5 days``).

    Parameters
    ----------
    text : str
        The time.
    name : str
        What the value is (a flag such as ``--time``), for the error message.
    no_limit : bool
        Read Slurm's "no time limit" (``0``, ``UNLIMITED``, ``INFINITE``) as
        ``inf`` instead of refusing it.
    limit : bool, default True
        Whether the value is a time limit (its error then says what Slurm
        means by ``0`` or ``UNLIMITED``); False for another duration, such
        as the wait ``--within`` asks about.

    Returns
    -------
    float
        Seconds, always positive (``inf`` for no limit, with ``no_limit``).

    Raises
    ------
    ConfigError
        For anything else, including ``0`` and ``UNLIMITED`` (no finite time)
        unless ``no_limit``.

    Examples
    --------
    >>> parse_time_request("1-12:00:00"), parse_time_request("90"), parse_time_request("2h")
    (129600.0, 5400.0, 7200.0)
    """
    from .._time import parse_duration

    value = str(text).strip()
    if _BARE_MINUTES.match(value):
        seconds = float(value) * 60.0
    elif _DURATION.match(value):
        seconds = _clock_seconds(value)
    else:
        try:
            seconds = parse_duration(value, name=name) if _WITH_UNIT.match(value) \
                else math.nan
        except ConfigError:
            seconds = math.nan
    if seconds > MAX_SECONDS:
        raise ConfigError(f"{name} must be at most {MAX_SECONDS / 86400:,.0f} days "
                          f"({MAX_SECONDS:,.0f} s), got {text!r}")
    unlimited = seconds == 0 or value.upper() in _NO_LIMIT
    if unlimited and no_limit:
        return math.inf
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(
            f"{name} must be a positive Slurm time such as 90 (minutes), 30:00, 2:00:00, "
            f"1-12:00:00 or 90min, got {text!r}"
            + (" (no time limit in Slurm, where the partition's MaxTime applies, which a log "
               "does not state: give that limit)" if unlimited and limit else ""))
    return float(seconds)


_NO_LIMIT = ("UNLIMITED", "INFINITE")
"""What ``sbatch --time`` takes, besides 0, for no time limit."""


def format_slurm_duration(seconds):
    """Write seconds the way Slurm does: ``D-HH:MM:SS``, or ``HH:MM:SS`` under a day.

    Fractions of a second are rounded; ``NaN`` is ``"n/a"``.

    Examples
    --------
    >>> format_slurm_duration(93784), format_slurm_duration(5400)
    ('1-02:03:04', '01:30:00')
    """
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    total = int(round(seconds))
    sign = "-" if total < 0 else ""
    days, rest = divmod(abs(total), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{sign}{days}-{clock}" if days else f"{sign}{clock}"


def _split_array_job_id(job_id):
    """``(job, tasks)`` of ``123_[4-9%2]`` (``("123", "4-9%2")``); ``None`` without a bracket."""
    if "[" not in job_id and "]" not in job_id:
        return None
    match = _ARRAY_JOB_ID.match(job_id.strip())
    if match is None:
        raise ValueError("not a job array's pending tasks in the form JOB_[TASKS]")
    return match["job"], match["tasks"]


def parse_array_tasks(expression, *, limit=MAX_ARRAY_TASKS):
    """The task ids a job array's task expression stands for, as Slurm prints it.

    ``sacct`` and ``squeue`` print the pending tasks of an array on one line
    as ``123_[EXPRESSION]``: comma-separated ids and ranges ``a-b``, a
    stepped range ``a-b:s``, and a throttle ``%N`` (the most tasks running at
    once, which does not change which tasks exist) at the end.

    Parameters
    ----------
    expression : str
        The text between the brackets (``1-3,7,10-20:5%4``).
    limit : int
        The most task ids accepted (:data:`MAX_ARRAY_TASKS`).

    Returns
    -------
    list of int
        The task ids in the order written.

    Raises
    ------
    ValueError
        With a short reason: an empty or malformed term, a range whose end is
        before its start or whose step is 0, a task listed twice, an expression
        cut short by Slurm (``...``: ``sacct`` and ``squeue`` print at most 64
        bytes of it unless ``SLURM_BITSTR_LEN=0`` is set), or more than
        ``limit`` tasks.

    Examples
    --------
    >>> parse_array_tasks("10-15")
    [10, 11, 12, 13, 14, 15]
    >>> parse_array_tasks("1,3,8-12:2%5")
    [1, 3, 8, 10, 12]
    """
    if "..." in expression:
        raise ValueError("task list cut short by Slurm ('...'; run it with "
                         "SLURM_BITSTR_LEN=0 to print it whole)")
    body, _, throttle = expression.partition("%")
    if "%" in expression and not is_digits(throttle):
        raise ValueError("throttle after '%' is not a count")
    ranges = [_array_range(term) for term in body.split(",")]
    count = sum(len(r) for r in ranges)
    if count > limit:
        raise ValueError(f"stands for {count:,} tasks, more than the {limit:,} read "
                         "from one line")
    tasks = [task for r in ranges for task in r]
    if len(set(tasks)) != count:
        raise ValueError("lists a task twice")
    return tasks


def _array_range(term):
    """The ``range`` of one term (``7``, ``1-5``, ``1-9:2``) of a task expression."""
    match = _ARRAY_TERM.match(term.strip())
    if match is None:
        raise ValueError(f"term {term!r} is not a task id or range such as 4, 4-9 or 4-9:2")
    first = int(match["first"])
    last = int(match["last"]) if match["last"] is not None else first
    step = int(match["step"]) if match["step"] is not None else 1
    if last < first or step == 0:
        raise ValueError(f"range {term!r} is empty (its end is before its start, or its "
                         "step is 0)")
    return range(first, last + 1, step)


def array_task_job_ids(job_id):
    """The job ids of the tasks a job id such as ``123_[4-6]`` stands for.

    Parameters
    ----------
    job_id : str
        A job id as ``sacct`` or ``squeue`` prints it.

    Returns
    -------
    list of str or None
        ``["123_4", "123_5", "123_6"]``; ``None`` for the id of one job.

    Raises
    ------
    ValueError
        With a short reason, for an id with a bracket that is not
        ``JOB_[TASKS]`` (``123_[4-9``) or a task list that
        :func:`parse_array_tasks` refuses.

    Examples
    --------
    >>> array_task_job_ids("123_[4-6%1]"), array_task_job_ids("123_4")
    (['123_4', '123_5', '123_6'], None)
    """
    split = _split_array_job_id(job_id)
    if split is None:
        return None
    job, tasks = split
    return [f"{job}_{task}" for task in parse_array_tasks(tasks)]

"""Vectorised parsers for the field formats that Slurm's ``sacct`` prints.

Each parser takes a :class:`pandas.Series` of strings (one per line of the
file) and returns the parsed values as ``float64`` with ``NaN`` for "unknown",
together with a boolean mask of the entries that could not be parsed, so the
reader can name the offending line.
"""

import re

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
    "parse_counts",
    "parse_memory",
]

LIMIT_TOKENS = frozenset({"UNLIMITED", "PARTITION_LIMIT"})
"""Time-limit values that mean "no limit of the job's own" (read as ``NaN``)."""

UNKNOWN_TOKENS = frozenset({"", "INVALID", "NONE", "UNKNOWN", "N/A"})
"""Values that mean "not known" (e.g. ``Start`` of a pending job)."""

_DURATION = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+(?:\.\d+)?))?)?"
    r"|(?:(?P<h>\d+):)?(?P<m>\d+):(?P<s>\d+(?:\.\d+)?))$"
)
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"
_MEMORY = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<unit>[KMGTP]?)(?P<per>[cn]?)$")
_MEMORY_UNITS_KB = {"": 1 / 1024, "K": 1.0, "M": 1024.0, "G": 1024.0**2,
                    "T": 1024.0**3, "P": 1024.0**4}


def parse_slurm_duration(text):
    """Parse one Slurm duration into seconds.

    Accepted forms are those ``sacct`` prints: ``D-HH:MM:SS``, ``D-HH:MM``,
    ``D-HH``, ``HH:MM:SS``, ``MM:SS`` and ``MM:SS.mmm`` (fractions of a second
    appear in ``TotalCPU``). ``UNLIMITED``, ``Partition_Limit``, ``INVALID``,
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
    values, bad, _ = parse_durations(pd.Series([text], dtype=object))
    if bad[0]:
        raise ValueError(f"not a Slurm duration: {text!r}")
    return float(values[0])


def _tokens(strings):
    upper = strings.str.upper()
    return upper.isin(LIMIT_TOKENS).to_numpy(), upper.isin(UNKNOWN_TOKENS).to_numpy()


def parse_durations(strings):
    """Parse a column of Slurm durations (see :func:`parse_slurm_duration`).

    Returns
    -------
    values : ndarray of float64
        Seconds, ``NaN`` where unknown or unlimited.
    bad : ndarray of bool
        Entries that are not a valid duration.
    limits : ndarray of bool
        Entries that were ``UNLIMITED`` or ``Partition_Limit``.
    """
    strings = strings.astype(str).str.strip()
    limits, unknown = _tokens(strings)
    parts = strings.str.extract(_DURATION).apply(pd.to_numeric).to_numpy(dtype=np.float64)
    days, dh, dm, ds, h, m, s = (parts[:, k] for k in range(7))
    with_days = ~np.isnan(days)
    without = ~np.isnan(m)
    values = np.where(
        with_days,
        days * 86400 + dh * 3600 + np.nan_to_num(dm) * 60 + np.nan_to_num(ds),
        np.nan_to_num(h) * 3600 + m * 60 + s,
    )
    in_range = np.where(
        with_days,
        (dh < 24) & (np.nan_to_num(dm) < 60) & (np.nan_to_num(ds) < 60),
        (m < 60) | np.isnan(h),
    ) & np.where(without, s < 60, True)
    parsed = (with_days | without) & in_range
    bad = ~(parsed | limits | unknown)
    values = np.where(parsed, values, np.nan)
    return values, bad, limits


def parse_raw_durations(strings, *, unit_seconds=1):
    """Parse a column of plain integers (``ElapsedRaw`` seconds, ``TimelimitRaw`` minutes).

    Returns ``(values, bad, limits)`` like :func:`parse_durations`; values are
    multiplied by ``unit_seconds``.
    """
    strings = strings.astype(str).str.strip()
    limits, unknown = _tokens(strings)
    numbers = pd.to_numeric(strings.where(~(limits | unknown), None), errors="coerce")
    values = numbers.to_numpy(dtype=np.float64)
    bad = (np.isnan(values) | (values < 0)) & ~(limits | unknown)
    values = np.where(values >= 0, values * unit_seconds, np.nan)
    return values, bad, limits


def parse_timestamps(strings, time_zone):
    """Parse ``Submit`` / ``Start`` / ``End`` timestamps (``2023-01-05T10:11:12``).

    Parameters
    ----------
    strings : Series of str
        The column.
    time_zone : str
        IANA name of the zone the timestamps are written in (``sacct`` prints
        the local time of the host it runs on, without an offset). In a zone
        with daylight saving time, a wall-clock time that occurs twice is read
        as its first (summer-time) occurrence and a time that does not exist is
        moved forward to the first valid instant.

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
    strings = strings.astype(str).str.strip()
    _, unknown = _tokens(strings)
    naive = pd.to_datetime(strings.where(~unknown, None), format=_TIMESTAMP_FORMAT,
                           errors="coerce")
    bad = naive.isna().to_numpy() & ~unknown
    try:
        first = naive.dt.tz_localize(time_zone, ambiguous="NaT", nonexistent="NaT")
        localized = naive.dt.tz_localize(
            time_zone, ambiguous=np.ones(len(naive), dtype=bool), nonexistent="shift_forward",
        )
    except Exception as exc:  # pandas raises several types for an unknown zone
        raise ConfigError(f"unknown time zone {time_zone!r} ({exc})") from None
    n_ambiguous = int((first.isna() & naive.notna()).sum())
    utc = localized.dt.tz_convert("UTC").dt.tz_localize(None)
    values = (utc - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy(dtype=np.float64)
    return values, bad, n_ambiguous


def parse_counts(strings):
    """Parse a column of non-negative integers (``NCPUS``, ``NNodes``, ...).

    Returns ``(values, bad)``; empty fields are ``NaN``.
    """
    strings = strings.astype(str).str.strip()
    empty = (strings == "").to_numpy()
    values = pd.to_numeric(strings.where(~empty, None), errors="coerce").to_numpy(np.float64)
    bad = ~empty & (np.isnan(values) | (values < 0) | (values != np.round(values)))
    return np.where(bad, np.nan, values), bad


def parse_memory(strings):
    """Parse memory sizes such as ``1234K``, ``1.5G`` or ``0`` into kilobytes.

    Units are powers of 1024; a number without unit is bytes (what
    ``sacct --noconvert`` prints for memory in current Slurm). A trailing
    ``c`` / ``n`` (per CPU / per node, printed by old Slurm in ``ReqMem``)
    is accepted and ignored.

    Returns ``(values, bad)``; empty fields are ``NaN``.
    """
    strings = strings.astype(str).str.strip()
    _, unknown = _tokens(strings)
    parts = strings.str.extract(_MEMORY)
    number = pd.to_numeric(parts["number"]).to_numpy(dtype=np.float64)
    scale = parts["unit"].map(_MEMORY_UNITS_KB).to_numpy(dtype=np.float64)
    values = number * scale
    bad = np.isnan(values) & ~unknown
    return values, bad

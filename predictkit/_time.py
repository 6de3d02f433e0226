"""Durations written the way people write them: ``30D``, ``18h``, ``90min``, ``3600``."""

import math
import numbers
import re

import numpy as np

from .exceptions import ConfigError

__all__ = ["parse_duration", "format_duration"]

_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "w": 7 * 86400, "week": 7 * 86400, "weeks": 7 * 86400,
}
_PATTERN = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_duration(value, *, name="duration", allow_none=False):
    """Return a duration in seconds (float).

    Accepts numbers (seconds), numeric strings (``"3600"``), strings with one
    unit (``"30D"``, ``"18h"``, ``"90min"``, ``"2w"``; units are case-insensitive
    except that ``"M"`` alone is refused as ambiguous) and
    :class:`datetime.timedelta` / :class:`pandas.Timedelta` /
    :class:`numpy.timedelta64` (in its own unit, weeks down to nanoseconds).

    Parameters
    ----------
    value : float, int, str, timedelta, timedelta64 or None
        The duration.
    name : str
        What the duration is, for the error message.
    allow_none : bool
        Whether ``None`` (no limit) is accepted and returned as ``None``.

    Raises
    ------
    ConfigError
        If the value is not a non-negative finite duration.
    """
    if value is None:
        if allow_none:
            return None
        raise ConfigError(f"{name} is required, got None")
    if isinstance(value, np.timedelta64):  # an integer to numbers, in any unit
        seconds = _timedelta64_seconds(value, name)
    elif hasattr(value, "total_seconds"):
        seconds = float(value.total_seconds())
    elif isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{name} must be a duration, got {value!r}")
    elif isinstance(value, numbers.Real):
        seconds = float(value)
    elif isinstance(value, str):
        if allow_none and value.strip().lower() in {"none", "all", "inf"}:
            return None
        match = _PATTERN.match(value)
        if not match:
            raise ConfigError(
                f"{name} must look like 3600, 90min, 18h, 30D or 2w, got {value!r}"
            )
        number, unit = match.groups()
        if unit == "M":
            raise ConfigError(f"{name} {value!r} is ambiguous: write 'min' or '30D'")
        factor = _UNITS.get(unit.lower(), None) if unit else 1
        if factor is None:
            raise ConfigError(
                f"{name} has an unknown unit {unit!r} in {value!r} "
                "(use s, min, h, D or w)"
            )
        seconds = float(number) * factor
    else:
        raise ConfigError(f"{name} must be a duration, got {type(value).__name__}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"{name} must be a non-negative finite duration, got {value!r}")
    return seconds + 0.0  # -0.0 reads as 0


def timedelta64_seconds(values):
    """Numpy durations (a scalar or an array) in seconds, or ``None`` when their
    unit has no fixed length (none, months, years)."""
    if np.datetime_data(values.dtype)[0] in ("generic", "M", "Y"):
        return None
    return values / np.timedelta64(1, "s")


def _timedelta64_seconds(value, name):
    seconds = timedelta64_seconds(value)
    if seconds is None:
        what = ("without a unit" if np.datetime_data(value.dtype)[0] == "generic"
                else "in months or years, which have no fixed length")
        raise ConfigError(f"{name} is a numpy.timedelta64 {what}: give it in days, hours, "
                          f"minutes or seconds, got {value!r}")
    return float(seconds)


_DISPLAY_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))


def format_duration(seconds):
    """Return a duration in seconds the way people write it: ``5 min``, ``5 h 9 min``, ``2 d 3 h``.

    The one formatter of durations for people (report tables, printed
    summaries). At most two units are shown, the largest one that fits and
    the next smaller one (left out when zero); the value is rounded to the
    smaller unit first, so ``86370`` (23 h 59 min 30 s) reads ``1 d``.
    Durations under a minute are whole seconds (``42 s``).

    Parameters
    ----------
    seconds : float or None
        The duration; negative values get a leading ``-``.

    Returns
    -------
    str
        ``"n/a"`` for ``None`` or ``NaN``, ``"inf"`` / ``"-inf"`` for infinities.
    """
    if seconds is None:
        return "n/a"
    seconds = float(seconds)
    if math.isnan(seconds):
        return "n/a"
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if math.isinf(seconds):
        return f"{sign}inf"
    for i, (_, size) in enumerate(_DISPLAY_UNITS):
        if seconds >= size or size == 1:
            step = _DISPLAY_UNITS[min(i + 1, len(_DISPLAY_UNITS) - 1)][1]
            break
    total = int(round(seconds / step)) * step
    if total == 0:
        sign = ""
    parts = []
    for name, size in _DISPLAY_UNITS:
        if total >= size or (size == 1 and not parts):
            count, total = divmod(total, size)
            parts.append(f"{count:,} {name}")
            if len(parts) == 2 or total == 0:
                break
        elif parts:
            break
    return sign + " ".join(parts)

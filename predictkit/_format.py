"""The number formats of tables for people: report pages (three significant
digits, :func:`format_number`) and the command line's printed tables (three
decimals, :func:`format_fixed`, so a column of scores lines up).

Durations have their own formatter, :func:`predictkit._time.format_duration`.
"""

import math
import numbers

__all__ = ["displayable", "format_count", "format_fixed", "format_given", "format_number",
           "format_percent"]


def format_number(value):
    """Return a number as a table shows it: never in scientific notation.

    Whole numbers get thousands separators (``3,820``); other values keep
    three significant digits down to three decimals (``3,820`` for
    ``3820.4``, ``38.2``, ``3.82``, ``0.382``, ``0.004``).

    Parameters
    ----------
    value : float, int or None

    Returns
    -------
    str
        ``"n/a"`` for ``None`` or ``NaN``; ``"inf"`` / ``"-inf"`` for infinities.
    """
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    size = abs(value)
    if value.is_integer() or size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:,.1f}"
    if size >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def format_fixed(value):
    """Return a number as a command's printed table shows it.

    Thousands separators; integers (counts) without decimals, other numbers
    with three (``0.338``, ``1,234.500``); ``n/a`` for ``None`` or ``NaN``,
    ``inf`` / ``-inf``; text and bools as they are.
    """
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:,.3f}"


def format_given(value):
    """Return a number a user gave as they would write it: every digit it has.

    The shortest text that reads back as the same float, without a trailing
    ``.0`` (``0.9999999``, ``0.95``, ``1``, ``1e-07``): settings and errors
    must never round 0.9999999 to 1.
    """
    value = float(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def format_percent(share):
    """A share as a percentage with the digits it has (``99.5%``, ``95%``), never
    rounded up to a confidence that was not asked for."""
    return f"{format_given(round(float(share) * 100, 10))}%"


def format_count(n, noun):
    """``n`` things with the noun in the right number: ``"1 job"``, ``"2,000 jobs"``.

    Parameters
    ----------
    n : int
    noun : str
        The singular; the plural adds an ``s``.

    Returns
    -------
    str
    """
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def displayable(text):
    """``text`` with each byte of a file name that is no UTF-8 (which Python keeps as a
    lone surrogate) shown as U+FFFD: printable on any UTF-8 stream and page."""
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")

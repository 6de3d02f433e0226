"""One number format and table layout for every command's printed tables."""

import math
import numbers

import pandas as pd

__all__ = ["format_number", "format_table", "fill"]


def format_number(value):
    """Every number in a command's table: thousands separators, three decimals for floats.

    Integers (counts) are shown without decimals; unknown values as ``n/a``.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
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


def format_table(frame):
    """A result table as text: numbers in :func:`format_number`'s format, no index."""
    shown = frame.copy()
    for column in shown.columns:
        if not pd.api.types.is_bool_dtype(shown[column]):
            shown[column] = [format_number(v) for v in shown[column].tolist()]
    with pd.option_context("display.width", 200, "display.max_rows", 200,
                           "display.max_columns", 50):
        return shown.to_string(index=False)


def fill(text, **kwargs):
    """``textwrap.fill`` that never breaks a word at a hyphen (so ``--min-history`` stays whole)."""
    import textwrap

    return textwrap.fill(text, break_on_hyphens=False, **kwargs)

"""The table layout of every command's printed tables (numbers: :func:`predictkit._format.format_fixed`)."""

import pandas as pd

from .._format import format_fixed

__all__ = ["format_table", "fill"]


def format_table(frame):
    """A result table as text: numbers in :func:`format_fixed`'s format, no index."""
    shown = frame.copy()
    for column in shown.columns:
        if not pd.api.types.is_bool_dtype(shown[column]):
            shown[column] = [format_fixed(v) for v in shown[column].tolist()]
    with pd.option_context("display.width", 200, "display.max_rows", 200,
                           "display.max_columns", 50):
        return shown.to_string(index=False)


def fill(text, **kwargs):
    """``textwrap.fill`` that never breaks a word at a hyphen (so ``--min-history`` stays whole)."""
    import textwrap

    return textwrap.fill(text, break_on_hyphens=False, **kwargs)

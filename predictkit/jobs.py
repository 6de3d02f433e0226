"""The job table: canonical columns, validation, derived times.

A job table is a :class:`pandas.DataFrame` with one row per job and the 18
Standard Workload Format fields as columns, in SWF order and snake_case
(:data:`SWF_COLUMNS`). ``job_id`` is ``int64``; every other field is
``float64`` with SWF's ``-1`` ("unknown") stored as ``NaN`` so that it never
leaks into arithmetic. Header comments of the log live in ``df.attrs``.

The core (columns, validation, times, widths) lives in ``_table.py``,
cleaning (:func:`clean_jobs`) in ``_clean.py`` and summaries
(:func:`summarize`) in ``_summary.py``; the last two build on the first, and
this module gathers all three.
"""

from ._clean import clean_jobs, describe_cleaning
from ._summary import (SUMMARY_LABELS, estimate_modes, format_summary, request_accuracy,
                       summarize)
from ._table import (DERIVED_TIME_COLUMNS, INTEGER_COLUMNS, MAX_EXACT, SWF_COLUMNS, TIME_COLUMNS,
                     as_job_table, cancelled_before_running, empty_jobs, job_width, known_time,
                     requested_width, validate_jobs, with_times)

from . import _table

__all__ = [
    *_table.__all__,
    "clean_jobs",
    "describe_cleaning",
    "summarize",
    "request_accuracy",
    "estimate_modes",
    "format_summary",
    "SUMMARY_LABELS",
]

"""Reading a snapshot of the Slurm queue (``squeue`` output) for queue-aware wait bounds.

The snapshot this module reads is what

.. code-block:: sh

    squeue --all --array --states=PENDING --format='%i|%u|%a|%P|%C|%D|%l|%V|%T'

prints: one header line naming the columns, then one ``|``-separated line per
job. ``--array`` lists each pending array task on its own line; without it a
line such as ``123_[4-9%2]`` stands for the array's pending tasks and is read
as one job per task, like :func:`~predictkit.io.read_sacct` (an expression
``squeue`` cut short, which it does to long ones unless ``SLURM_BITSTR_LEN=0``
is set, is refused). A job listed twice is refused. A snapshot of only the
header is an empty queue. Columns are
found by their header names in any order and case; the ones used are

==============  =====  ==================================================
header          code   meaning
==============  =====  ==================================================
``JOBID``       ``%i`` job id (required)
``SUBMIT_TIME`` ``%V`` submission time, ``2024-03-04T10:00:00`` (required)
``CPUS``        ``%C`` processors requested (or ``NODES``, ``%D``; one of them required)
``TIME_LIMIT``  ``%l`` time limit, Slurm's ``[D-]HH:MM:SS``; ``UNLIMITED``, ``NOT_SET``: none (required)
``STATE``       ``%T`` ``PENDING``, ``RUNNING``, ...: only pending jobs are kept
``USER``        ``%u`` user name
``ACCOUNT``     ``%a`` account
``PARTITION``   ``%P`` partition
==============  =====  ==================================================

``MIN_CPUS`` (``%c``) is the processors asked *per node*, not the job's: it
is not read. Without a ``STATE`` column every line is taken as a pending job. ``sacct
--parsable2`` output of pending jobs is read too (its first line names
``JobID``).
"""

import numpy as np
import pandas as pd

from .._summary import width_unit
from .._table import requested_width
from ..exceptions import SqueueFormatError
from ._sacct import read_sacct
from ._sacct_text import looks_like_sacct, read_text
from ._slurm_fields import (
    TIMESTAMP_HINT,
    array_task_job_ids,
    check_time_zone,
    is_pending,
    parse_counts,
    parse_durations,
    parse_local_timestamps,
)

__all__ = ["read_squeue"]

_ALIASES = {
    "job_id": ("JOBID", "JOB_ID"),
    "submit": ("SUBMIT_TIME", "SUBMIT"),
    "cpus": ("CPUS", "NUM_CPUS"),
    "nodes": ("NODES", "NUM_NODES"),
    "time_limit": ("TIME_LIMIT", "TIMELIMIT"),
    "state": ("STATE", "ST"),
    "user": ("USER", "USERNAME"),
    "account": ("ACCOUNT",),
    "partition": ("PARTITION",),
}
FORMAT = "%i|%u|%a|%P|%C|%D|%l|%V|%T"
"""The ``squeue --format`` this reader expects (any subset with the required columns)."""


def read_squeue(path_or_buffer, *, time_zone="UTC"):
    """Read the pending jobs of a ``squeue`` (or ``sacct``) snapshot.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        The snapshot (plain or gzip); see the module docstring for the format.
    time_zone : str
        IANA zone the times are written in (``squeue`` prints local time). A
        submit time that does not exist there (skipped when clocks move
        forward) is an error. A submit time in the hour repeated when clocks
        move back is read as its second (standard-time) occurrence, the later
        of the two instants: it is an hour late for a job submitted in the
        first occurrence (the count of such times is in
        ``attrs["n_ambiguous_local_times"]``, only when not zero).
        ``TZ=UTC squeue`` output read with ``time_zone="UTC"`` has none of
        this. A ``sacct`` snapshot follows :func:`read_sacct`'s rule instead.

    Returns
    -------
    DataFrame
        One row per pending job: ``job_id`` (text), ``submit`` (seconds since
        the Unix epoch), ``req_procs`` (processors, or nodes when the
        snapshot has no ``CPUS`` column), ``req_nodes`` (when it has a
        ``NODES`` column), ``req_time`` (seconds, ``NaN`` for no limit),
        ``user``, ``account``, ``partition`` (text, ``None`` when the column
        is absent). ``attrs["width_unit"]`` says what ``req_procs`` counts
        (``"processor"`` or ``"node"``, as :func:`~predictkit.io.read_sacct`
        logs do).

    Raises
    ------
    SqueueFormatError
        An empty snapshot, a header without the required columns (named), or a
        line with a wrong field count or an unreadable time or count, or a
        count of 0 (with its line number), a submit time that does not exist in ``time_zone``,
        an empty ``JOBID`` or ``STATE``, a job listed twice, or a job array's task list (``123_[4-9]``) that is
        malformed, cut short or longer than
        1,000,000 tasks. A header
        without job lines is an empty queue, not an error.
    ConfigError
        An unknown ``time_zone``, or a ``path_or_buffer`` that is neither a
        path nor a file object open for reading (an
        :class:`~predictkit.exceptions.InvalidParameterError`).
    """
    source, text = read_text(path_or_buffer, "read_squeue")
    check_time_zone(time_zone)
    if _is_sacct(text):
        return _from_sacct(text, source, time_zone)
    numbered = [(k, line.rstrip("\r")) for k, line in enumerate(text.split("\n"), start=1)
                if line.strip()]
    if not numbered:
        raise SqueueFormatError("empty queue snapshot (expected a header line, e.g. from "
                                f"squeue --format='{FORMAT}')", source=source)
    header_number, header_line = numbered[0]
    names = [name.strip().upper() for name in header_line.rstrip("|").split("|")]
    where = {key: next((names.index(a) for a in aliases if a in names), None)
             for key, aliases in _ALIASES.items()}
    missing = [" or ".join(_ALIASES[k]) for k in ("job_id", "submit", "time_limit")
               if where[k] is None]
    if where["cpus"] is None and where["nodes"] is None:
        missing.append("CPUS or NODES" + (" (MIN_CPUS, %c, counts processors per node, not "
                                          "the job's: print %C)" if "MIN_CPUS" in names
                                          else ""))
    if missing:
        raise SqueueFormatError(
            f"squeue header lacks {'; '.join(missing)} (run squeue --format='{FORMAT}')",
            source=source, line_number=header_number, line=header_line)
    rows, numbers = [], []
    for number, line in numbered[1:]:
        fields = line.rstrip("|").split("|") if header_line.endswith("|") else line.split("|")
        if len(fields) != len(names):
            raise SqueueFormatError(
                f"expected {len(names)} '|'-separated fields (as in the header), found "
                f"{len(fields)}", source=source, line_number=number, line=line)
        rows.append([field.strip() for field in fields])
        numbers.append(number)
    lines = dict(zip(numbers, (line for _, line in numbered[1:])))
    rows, numbers = _expand_arrays(rows, numbers, where["job_id"], lines, source)
    columns = {key: np.array([row[k] for row in rows], dtype=object) if k is not None
               else None for key, k in where.items()}
    _check_job_ids(columns["job_id"], numbers, lines, source)

    def check(bad, what, key=None):
        if bad.any():
            k = int(np.argmax(bad))
            if key is not None:
                what = f"{names[where[key]]} {columns[key][k]!r} {what}"
            raise SqueueFormatError(what, source=source, line_number=numbers[k],
                                    line=lines[numbers[k]])

    submit, n_repeated = _submit_times(columns["submit"], time_zone, check,
                                       header_line.split("|")[where["submit"]].strip())
    limit, bad, _ = parse_durations(columns["time_limit"]) if rows else \
        (np.zeros(0), np.zeros(0, dtype=bool), None)
    check(bad, "is not a Slurm duration such as 1-00:00:00 (or UNLIMITED, NOT_SET)",
          "time_limit")
    counts = {}
    for key in ("cpus", "nodes"):
        if columns[key] is None:
            continue
        values, bad = (parse_counts(columns[key]) if rows
                       else (np.zeros(0), np.zeros(0, dtype=bool)))
        check(bad, "is not a count", key)
        check(values == 0, f"{names[where[key]]} is 0: a pending job asks for at least one")
        counts[key] = values
    frame = pd.DataFrame({
        "job_id": columns["job_id"] if rows else np.zeros(0, dtype=object),
        "submit": submit, "req_procs": counts.get("cpus", counts.get("nodes")),
        "req_time": limit,
        **{key: columns[key] if columns[key] is not None else np.full(len(rows), None)
           for key in ("user", "account", "partition")},
    })
    if "nodes" in counts:
        frame["req_nodes"] = counts["nodes"]
    if columns["state"] is not None:
        check(columns["state"] == "", "is empty (squeue prints every job's state)", "state")
        # A boolean array, not a list: an empty list would select no columns.
        frame = frame[is_pending(columns["state"])]
    frame.attrs["source"] = source
    frame.attrs["width_unit"] = "processor" if "cpus" in counts else "node"
    if n_repeated:
        frame.attrs["n_ambiguous_local_times"] = n_repeated
    return frame.reset_index(drop=True)


def _expand_arrays(rows, numbers, column, lines, source):
    """One row per task of a line standing for a job array's pending tasks (``123_[4-9]``).

    ``squeue`` without ``--array`` prints them so; each task's row is the
    line's, with ``JOBID`` ``123_4``, ``123_5``, ... and the line's number.
    """
    out_rows, out_numbers = [], []
    for row, number in zip(rows, numbers):
        try:
            ids = array_task_job_ids(row[column])
        except ValueError as exc:
            raise SqueueFormatError(f"JOBID {row[column]}: {exc}", source=source,
                                    line_number=number, line=lines[number]) from None
        for job_id in ids or [row[column]]:
            out_rows.append(row[:column] + [job_id] + row[column + 1:])
            out_numbers.append(number)
    return out_rows, out_numbers


def _check_job_ids(job_ids, numbers, lines, source):
    """Refuse a job listed twice: it would miscount the queue.

    ``squeue`` lists a job once; a repeat comes from concatenated snapshots
    (or a task listed both on its own line and in its array's line).
    """
    first_line = {}
    for job_id, number in zip(job_ids, numbers):
        if not job_id:
            raise SqueueFormatError("JOBID is empty (squeue prints every job's id)",
                                    source=source, line_number=number, line=lines[number])
        if job_id in first_line:
            raise SqueueFormatError(
                f"lines {first_line[job_id]} and {number} both list JOBID {job_id} (squeue "
                f"lists a job once; concatenated snapshots repeat jobs)", source=source,
                line_number=number, line=lines[number])
        first_line[job_id] = number


def _submit_times(column, time_zone, check, actual):
    """Seconds since the epoch of the submit times, and how many fell in a repeated hour.

    ``check(bad, message, key)`` raises for the first bad entry (naming the
    column ``key`` and its value); ``actual`` is the column's name as the
    header spells it.
    """
    if column is None or not len(column):
        return np.zeros(0), 0
    local = parse_local_timestamps(column, time_zone)
    check(local.bad | (np.isnan(local.values) & ~local.nonexistent),
          TIMESTAMP_HINT, "submit")
    if local.nonexistent.any():
        position = int(np.argmax(local.nonexistent))
        check(local.nonexistent,
              f"field {actual} ({column[position]}) does not exist in {time_zone}: "
              f"clocks moved forward (squeue never prints such a time there: "
              f"is that the zone the file was written in?)")
    repeated = ~np.isnan(local.later)
    return np.where(repeated, local.later, local.values), int(repeated.sum())


def _is_sacct(text):
    """sacct names the submission ``Submit``; squeue names it ``SUBMIT_TIME``."""
    if not looks_like_sacct(text):
        return False
    first = text.lstrip("\r\n \t").split("\n", 1)[0]
    return "submit" in [name.strip().lower() for name in first.split("|")]


def _from_sacct(text, source, time_zone):
    jobs = read_sacct(_Text(text, source), time_zone=time_zone)
    jobs = jobs[is_pending(jobs["slurm_state"])]
    origin = jobs.attrs.get("unix_start_time") or 0

    def names(column, key):
        inverse = {v: k for k, v in jobs.attrs.get(key, {}).items()}
        return [inverse.get(v) for v in jobs[column]] if column in jobs else None

    account_key = "account_ids" if "account_ids" in jobs.attrs else "group_ids"
    frame = pd.DataFrame({
        "job_id": jobs["slurm_job_id"].to_numpy(),
        "submit": jobs["submit_time"].to_numpy() + origin,
        "req_procs": requested_width(jobs),
        "req_time": jobs["req_time"].to_numpy(),
        "user": names("user_id", "user_ids"), "account": names("group_id", account_key),
        "partition": names("partition_id", "partition_ids")})
    frame.attrs["source"] = source
    frame.attrs["width_unit"] = width_unit(jobs)
    return frame


class _Text:
    """A text buffer that keeps the name of the file it came from."""

    def __init__(self, text, name):
        self.text, self.name = text, name

    def read(self):
        return self.text

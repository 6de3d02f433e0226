"""Reading Slurm accounting output (``sacct --parsable2``) into a job table.

The mapping from ``sacct`` fields to the SWF fields of the job table:

=================  ==========================================================
job table column   ``sacct`` source
=================  ==========================================================
``job_id``         ``JobIDRaw`` when present, else the number of ``JobID``
                   (see *Job identifiers* below)
``submit_time``    ``Submit``, seconds after the earliest ``Submit``
``wait_time``      ``Start - Submit``; ``NaN`` while a job is pending (a line
                   whose ``Start`` is before its ``Submit`` is malformed)
``run_time``       ``ElapsedRaw`` or ``Elapsed`` (``End - Start`` when both are
                   absent or empty; a line whose ``Elapsed`` is longer than
                   ``End - Start`` is malformed); ``NaN`` while a job has not
                   started or not ended
``n_procs``        ``NCPUS`` or ``AllocCPUS`` (``NNodes`` when no CPU column);
                   ``0`` (never allocated) is ``NaN``
``avg_cpu_time``   ``TotalCPU`` divided by ``n_procs``; ``NaN`` until the job
                   has ended
``used_memory``    ``MaxRSS`` in KB (largest over the job's steps: the peak
                   of one task, per processor only where each task has one);
                   ``NaN`` until the job has ended
``req_procs``      ``ReqCPUS`` (``ReqNodes`` or ``NNodes`` when no CPU column)
``req_time``       ``TimelimitRaw`` (minutes) or ``Timelimit``; ``NaN`` for
                   ``UNLIMITED`` / ``Partition_Limit``
``status``         ``State``: COMPLETED 1; FAILED, NODE_FAIL, OUT_OF_MEMORY,
                   TIMEOUT, BOOT_FAIL, DEADLINE, PREEMPTED 0; CANCELLED 5;
                   jobs still pending, running, suspended or requeued ``NaN``
``user_id``        ``User``, numbered 1.. in order of first appearance
``group_id``       ``Account`` (the project), else ``Group``
``app_id``         ``JobName``
``queue_id``       ``QOS``
``partition_id``   ``Partition``
=================  ==========================================================

``TIMEOUT`` (killed at the time limit) is coded as failed (0), as the
Parallel Workloads Archive conversions do; jobs killed at their request are
found by comparing ``run_time`` with ``req_time``. ``CPUTime`` is not used:
it is the *allocated* CPU time (elapsed times CPUs), not the CPU time used.
"""

import copy
import csv
import io
import itertools
import re
import warnings

import numpy as np
import pandas as pd

from .._format import format_count
from ..exceptions import ConfigError, SacctFormatError
from ..jobs import as_job_table
from ._slurm_fields import (
    TIMESTAMP_HINT,
    array_task_job_ids,
    check_time_zone,
    is_digits,
    parse_counts,
    parse_durations,
    parse_memory,
    parse_local_timestamps,
    parse_raw_durations,
)
from ._source import read_source, report_skipped_lines

__all__ = ["read_sacct", "looks_like_sacct", "sacct_lookalike"]

_ELAPSED_TOLERANCE = 1.0
"""Seconds by which Elapsed may exceed End - Start (times are printed to the second)."""
_UTC = frozenset({"UTC", "ETC/UTC", "GMT", "ETC/GMT", "UCT", "ZULU"})
"""Names of the zone without daylight saving in which the default reads times."""
_REQUEUE_GAP = 86400.0
"""Most seconds from the end of a run to the ``Submit`` of the next run of the same
requeued job: Slurm gives a requeued job a new submit time once the run's epilog
is over. A job id listed again later than this is another job with the same id."""
_DST_SHIFT = 3600.0
"""Seconds by which clocks move at a daylight-saving change (one hour nearly everywhere)."""
_JOB_ID = re.compile(r"^(?P<job>\d{1,10}(?:_\d{1,10})?(?:\+\d{1,10})?)(?:\.(?P<step>[^.]+))?$",
                     re.ASCII)
"""A job id: Slurm's job, array task and component numbers are 32-bit (at most 10 digits)."""
_REQUIRED = (("JobID", "JobIDRaw"), ("Submit",), ("Start",), ("State",),
             ("ElapsedRaw", "Elapsed", "End"),
             ("NCPUS", "AllocCPUS", "ReqCPUS", "NNodes", "AllocNodes", "ReqNodes"))
_FIELDS_READ = frozenset(name.lower() for name in (
    "JobID", "JobIDRaw", "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw",
    "Timelimit", "TimelimitRaw", "TotalCPU", "NCPUS", "AllocCPUS", "ReqCPUS", "NNodes",
    "AllocNodes", "ReqNodes", "MaxRSS", "State", "User", "Account", "Group", "JobName", "QOS",
    "Partition", "Cluster"))
"""The fields the job table is made of (others in the header are checked for their
count on each line, and not kept)."""
_STATUS = {"COMPLETED": 1.0, "FAILED": 0.0, "NODE_FAIL": 0.0, "OUT_OF_MEMORY": 0.0,
           "TIMEOUT": 0.0, "BOOT_FAIL": 0.0, "DEADLINE": 0.0, "PREEMPTED": 0.0,
           "CANCELLED": 5.0}
_UNFINISHED = frozenset({"PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING",
                         "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD", "REVOKED",
                         "SPECIAL_EXIT", "STOPPED", "SIGNALING", "STAGE_OUT", "COMPLETING",
                         "CONFIGURING", "LAUNCH_FAILED", "RECONFIG_FAIL", "POWER_UP_NODE",
                         "UPDATE_DB"})
"""States (and state flags Slurm prints alone) of a job that has not ended for good."""
_ID_COLUMNS = (("user_id", ("User",), "user_ids"),
               ("group_id", ("Account", "Group"), None),
               ("app_id", ("JobName",), "app_ids"),
               ("queue_id", ("QOS",), "qos_ids"),
               ("partition_id", ("Partition",), "partition_ids"))


def read_sacct(path_or_buffer, *, errors="raise", time_zone="UTC"):
    """Read ``sacct --parsable2`` (or ``--parsable``) output into a job table.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        The ``sacct`` output: pipe-separated fields with a header line naming
        them (any order, any case; extra fields are ignored). A ``.gz`` file
        or gzip data is decompressed. ``--parsable`` output, whose lines end
        with a ``|``, is accepted too, and so are outputs of one ``--format``
        concatenated (a repeated header line is no job). The jobs of one
        cluster: with a ``Cluster`` field naming several, the output is
        refused.
    errors : {"raise", "skip"}
        What to do with a malformed line (wrong field count, unparsable time,
        count or memory size, a job id Slurm never prints, a job array's
        task list that is malformed, cut short or too long (see *Job arrays'
        pending tasks* below), a step without its
        job, a local time that does not exist in ``time_zone``, a ``Start``
        before its ``Submit``, an ``End`` before its ``Start``, or an
        ``Elapsed`` more than 1 s longer than ``End - Start``: ``Elapsed``
        leaves out suspended time, so it may be shorter, never longer). ``"raise"`` raises :class:`~predictkit.exceptions.SacctFormatError`
        with the file, line number and text; ``"skip"`` leaves the line out,
        warns with the count and first line numbers and records them in
        ``attrs["skipped_lines"]`` and ``attrs["skipped_line_numbers"]``.
    time_zone : str
        IANA zone in which the timestamps are written. ``sacct`` prints the
        local time of the host it runs on without an offset, so pass that
        host's zone to get correct absolute times (``attrs["unix_start_time"]``)
        and correct durations across daylight-saving changes (see *Local
        times* below). Kept in ``attrs["time_zone_string"]``.

    Returns
    -------
    DataFrame
        The job table (one row per job allocation, and per task of a line
        standing for an array's pending tasks, in file order; sort with
        ``sort_values("submit_time", kind="stable")`` before online use), with
        the extra columns ``slurm_job_id`` (the original ``JobID`` text) and
        ``slurm_state`` (the raw ``State``), and with an ``Eligible`` field
        ``slurm_eligible_time``: when the job could first start (its
        ``--begin`` time, dependencies and holds over), on the clock of
        ``submit_time``; ``NaN`` while it is not (``Unknown``). The module
        docstring gives the field mapping. ``attrs`` holds ``unix_start_time``,
        ``time_zone_string``, the name-to-id maps ``user_ids``, ``account_ids``
        or ``group_ids``, ``app_ids``, ``qos_ids``, ``partition_ids``, the
        number of jobs without a time limit of their own
        (``n_unlimited_req_time``), the number of earlier runs of requeued
        jobs left out (``n_earlier_runs_dropped``) and of times in a repeated
        local hour (``n_ambiguous_local_times``), both only when not zero, the count of each state that has no SWF
        code (``unmapped_states``; a state that is no Slurm job state, such
        as an empty field, is also warned about), ``processor_unit`` (``"cpus"`` or
        ``"nodes"``) and ``source``.

    Notes
    -----
    *Job steps* (``123.batch``, ``123.extern``, ``123.0``) are folded into
    the job of the allocation line before them with the same job id:
    ``TotalCPU`` becomes the larger of the allocation line's value and the sum
    over its steps (Slurm versions differ in whether the allocation line
    already holds the total), and ``MaxRSS`` the largest over the allocation
    line and its steps.

    *Job identifiers*. With a ``JobIDRaw`` column every allocation has
    Slurm's own unique integer (array tasks ``123_4`` and heterogeneous-job
    components ``123+1`` have their own raw ids), which becomes ``job_id``;
    a plain ``JobID`` must equal its ``JobIDRaw`` (a line where it does not
    is malformed).
    Without it a plain ``JobID`` keeps its number, and array tasks and
    heterogeneous components are numbered after the largest plain id, in
    file order; an array's pending tasks, which only ``JobID`` lists, are
    then one job. Each heterogeneous component is one job. A job id that
    Slurm gave out again (after its saved state was lost, or when its ids
    wrapped around at ``MaxJobId``) names jobs of different users, or of one
    user that are no runs of one requeued job (*Requeued jobs* below): each
    is kept, the later ones numbered after the largest id, with a warning
    (their count is ``attrs["n_reused_job_ids"]``).

    *Job arrays' pending tasks*. ``sacct`` prints the tasks of an array that
    have not started on one line: ``123_[5-9]``, ``123_[1,3,8-12]``,
    ``123_[2-18:2]``, with a throttle ``123_[1-50%5]``. Such a line is read
    as one row per task (``123_5``, ``123_6``, ...), each with the line's
    other fields, the rows the tasks would give listed one a line; the
    line's ``JobIDRaw`` (the array's one record) goes to the first task.
    A bracket that is no task list (``123_[9-5]``, ``123_[a]``, unclosed, a
    task twice) is malformed, as is a list cut short (``...``: ``sacct``
    prints at most 64 bytes of it unless ``SLURM_BITSTR_LEN=0`` is set) and
    a line standing for more than
    1,000,000 (``MAX_ARRAY_TASKS``) tasks.

    *Requeued jobs*. ``sacct --duplicates`` lists a requeued job once per
    run, each run with its own ``Submit`` or ``Start`` and the same ``User``,
    each run after the first submitted again when the one before it was
    requeued (Slurm gives it a new ``Submit`` then, or keeps the first):
    the last run listed is kept, the earlier runs and their steps are left
    out with a warning
    (their count is ``attrs["n_earlier_runs_dropped"]``). Runs are ordered
    in time (by ``Submit``, then ``Start``), and a run is taken for an
    earlier run only when the next run with its job id and user has the same
    ``Submit``, or one between the run's ``Start`` and a day after its
    ``End`` (its ``Start`` when it has no ``End``; any, when it never
    started); otherwise the two are different jobs that share an id (see
    *Job identifiers*). Two allocation
    lines with the same ``JobID``, ``Submit`` and ``Start`` are one run
    listed twice, which ``sacct`` never prints (concatenated outputs do):
    :class:`~predictkit.exceptions.SacctFormatError` names both lines,
    whatever ``errors`` is.

    *Local times*. A time that does not exist in ``time_zone`` (skipped
    when clocks move forward) is malformed. A time in the hour repeated when
    clocks move back is read as its first (summer-time) occurrence, except a
    ``Start`` whose first reading is before its ``Submit`` and an ``End``
    whose first reading is before its ``Start`` or closer to it than
    ``Elapsed``, which are read as the second occurrence: a job whose times
    are in order in real time is accepted, but a wait or runtime with a time
    in the repeated hour may be an hour off, and the reader warns with their
    count (``attrs["n_ambiguous_local_times"]``). A ``Start`` before its
    ``Submit`` or an ``Elapsed`` longer than ``End - Start`` by at most an
    hour is malformed all the same, and its message suggests the zone.
    ``TZ=UTC sacct`` output read with ``time_zone="UTC"`` has none of this.

    Raises
    ------
    SacctFormatError
        On a malformed line (with ``errors="raise"``), the same run of a job
        listed twice, an empty input, a header without any job line after it,
        a header that lacks required fields (the message names them), a
        second header naming other fields or another order, jobs of more
        than one cluster, or lines ending in a carriage return alone; on
        text that is not UTF-8 (UTF-16 included), corrupt or truncated gzip
        data, or a path that cannot be read (a symlink loop, a file used as a
        folder), naming the file.
    InputFileError
        If the file does not exist, is a folder or cannot be opened (also the
        ``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError``
        that ``open`` raised).
    ConfigError
        If ``time_zone`` is not a known zone, or ``path_or_buffer`` is
        neither a path nor a file object open for reading (an
        :class:`~predictkit.exceptions.InvalidParameterError`, also a
        ``TypeError``, naming the argument).

    Examples
    --------
    >>> import io
    >>> text = ("JobID|User|Account|Partition|Submit|Start|End|Elapsed|Timelimit|NCPUS|State\\n"
    ...         "7|alice|chem|batch|2023-01-05T10:00:00|2023-01-05T10:01:00|"
    ...         "2023-01-05T11:01:00|01:00:00|02:00:00|4|COMPLETED\\n")
    >>> jobs = read_sacct(io.StringIO(text))
    >>> float(jobs.loc[0, "wait_time"]), float(jobs.loc[0, "req_time"]), jobs.attrs["user_ids"]
    (60.0, 7200.0, {'alice': 1})
    """
    if errors not in ("raise", "skip"):
        raise ConfigError(f"errors must be 'raise' or 'skip', got {errors!r}")
    check_time_zone(time_zone)
    source, text = _read_text(path_or_buffer)
    header, table, line_numbers, lines, skipped = _split(text, source, errors)
    del text
    _check_one_cluster(table, line_numbers, lines, source)
    table, line_numbers, lines = _expand_arrays(header, table, line_numbers, lines,
                                                source, errors, skipped)
    n_dropped_runs = 0
    parsed = _Parsed(table, time_zone)
    del table
    while True:
        _orphan_steps(parsed)
        bad = _order_problems(parsed)
        if not bad.any():
            earlier = _earlier_runs(parsed, line_numbers, lines, source)
            if not earlier.any():
                break
            n_dropped_runs += int((earlier & ~parsed.is_step).sum())
            parsed = parsed.subset(~earlier)
            line_numbers = line_numbers[~earlier]
            lines = lines[~earlier]
            continue
        first = int(np.argmax(bad))
        if errors == "raise":
            raise SacctFormatError(parsed.problems[first], source=source,
                                   line_number=int(line_numbers[first]), line=lines[first])
        # Dropping an allocation line orphans its steps, so check again.
        skipped.extend(line_numbers[bad].tolist())
        parsed = parsed.subset(~bad)
        line_numbers = line_numbers[~bad]
        lines = lines[~bad]
    jobs = _build(parsed, time_zone)
    jobs.attrs["source"] = source
    unknown = {state: count for state, count in jobs.attrs["unmapped_states"].items()
               if state not in _UNFINISHED}
    if unknown:
        shown = ", ".join(f"{state or '(empty)'}: {count}" for state, count in unknown.items())
        warnings.warn(
            f"{source}: {format_count(sum(unknown.values()), 'job')} with a State that is no "
            f"Slurm job state ({shown}): status unknown (NaN), the text kept in slurm_state",
            UserWarning, stacklevel=2,
        )
    if n_dropped_runs:
        jobs.attrs["n_earlier_runs_dropped"] = n_dropped_runs
        warnings.warn(
            f"{source}: kept the last run of each requeued job listed more than once "
            f"(sacct --duplicates); dropped {format_count(n_dropped_runs, 'earlier run')}",
            UserWarning, stacklevel=2,
        )
    ambiguous = jobs.attrs.get("n_ambiguous_local_times", 0)
    if ambiguous:
        warnings.warn(
            f"{source}: {format_count(ambiguous, 'time')} in an hour {time_zone} repeats when "
            f"clocks go back, read as its first occurrence unless that puts it before the "
            f"job's Submit or Start: a wait or runtime around the change may be an hour off "
            f"(sacct run with TZ=UTC has no such hour)", UserWarning, stacklevel=2)
    reused = _reused_ids(parsed)
    if reused:
        jobs.attrs["n_reused_job_ids"] = reused
        warnings.warn(
            f"{source}: {format_count(reused, 'job')} {'has' if reused == 1 else 'have'} the "
            f"job id of an earlier job that is not one of its requeued runs (another user's "
            f"job, or one it was not submitted again right after, as a requeued run is: Slurm "
            f"gives ids out again when its saved state is lost or its ids wrap around): kept "
            f"as separate jobs, numbered after the largest id (slurm_job_id keeps the JobID)",
            UserWarning, stacklevel=2,
        )
    # The tasks of an array's line are skipped together: count the line once.
    report_skipped_lines(source, sorted(set(skipped)), jobs.attrs, stacklevel=2)
    return jobs


def looks_like_sacct(head):
    """Whether the start of a log is ``sacct`` output (its first line names ``JobID``).

    Parameters
    ----------
    head : bytes or str
        The first bytes of the (already decompressed) log; a UTF-8 byte-order
        mark and leading blank lines are ignored.

    Returns
    -------
    bool
        True when the first non-blank line is a ``|``-separated header naming
        ``JobID`` or ``JobIDRaw`` (any case), as ``sacct --parsable2`` and
        ``--parsable`` print it.

    Examples
    --------
    >>> looks_like_sacct(b"JobID|User|Submit|Start|State\\n1|a|...")
    True
    >>> looks_like_sacct("; Version: 2.2\\n1 0 10 100 4 -1")
    False
    """
    _, first = _first_line(head)
    fields = [field.strip().lower() for field in first.split("|")]
    return len(fields) > 1 and ("jobid" in fields or "jobidraw" in fields)


def sacct_lookalike(head):
    """Why the start of a log that :func:`looks_like_sacct` refuses is still
    ``sacct`` output (printed without its header, or with another
    ``--delimiter``), or None.

    Returns
    -------
    tuple or None
        ``(problem, line number, line)`` of its first line that is no SWF
        comment; None for anything else (SWF, binary or UTF-16 data are left
        to their reader).
    """
    if isinstance(head, bytes) and b"\x00" in head:
        return None
    number, first = _first_line(head, skip=";")
    if "|" in first:
        problem = ("'|'-separated fields but no header line naming JobID: sacct output "
                   "printed with --noheader? predictkit needs the header (run sacct "
                   "--parsable2 without --noheader)")
    elif {"jobid", "jobidraw"} & set(re.split(r"\W+", first.lower())):
        if re.fullmatch(r"[\w ]+", first) and "  " in first:
            problem = ("a header naming JobID, its fields aligned in columns: sacct's default "
                       "fixed-width output? run sacct --parsable2")
        else:
            problem = ("a header naming JobID, its fields not separated by '|': sacct output "
                       "with another --delimiter? run sacct --parsable2 without --delimiter")
    else:
        return None
    return problem, number, first


def _first_line(head, skip=None):
    """``(number, text)`` of the first line of ``head`` that is not blank (nor starts
    with ``skip``), stripped; a UTF-8 byte-order mark is no text. ``(None, "")``
    when there is none."""
    if isinstance(head, bytes):
        head = head.decode("utf-8", errors="replace")
    lines = enumerate(head.removeprefix("\ufeff").split("\n"), start=1)
    return next(((k, line.strip()) for k, line in lines
                 if line.strip() and not (skip and line.strip().startswith(skip))),
                (None, ""))


def _read_text(path_or_buffer, reader="read_sacct"):
    source, raw = read_source(path_or_buffer, SacctFormatError, reader=reader)
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            number = raw.count(b"\n", 0, exc.start) + 1
            begin = raw.rfind(b"\n", 0, exc.start) + 1
            end = raw.find(b"\n", exc.start)
            line = raw[begin:None if end < 0 else end].rstrip(b"\r")
            raise SacctFormatError(
                f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                f"{exc.start - begin + 1}; sacct prints UTF-8: convert the file, e.g. with "
                f"iconv -f LATIN1 -t UTF-8)", source=source, line_number=number,
                line=line.decode("utf-8", errors="replace")) from None
    # A byte-order mark (written by some editors and Windows tools) is not text.
    return source, raw.removeprefix("\ufeff")


def _split(text, source, errors):
    """Split the text into the header and its columns, checking field counts.

    Returns ``(header, table, line_numbers, lines, skipped)``: ``table`` maps
    each header name the reader uses (:data:`_FIELDS_READ`) to an object array
    of the job lines' fields (as written), ``line_numbers`` and ``lines``
    (arrays) give each job line's number and text, ``skipped`` the numbers of
    lines left out.

    The checks look at each line's text once; the fields are then split by
    pandas' C parser, which keeps one string object for a value repeated
    nearby (a site's users, states and limits), instead of a list of
    strings per line.
    """
    if "\n" not in text and "\r" in text.strip():
        raise SacctFormatError(
            "lines end in a carriage return alone (old Mac line endings): convert them, "
            "e.g. with tr '\\r' '\\n'", source=source, line_number=1)
    lines = text.split("\n")
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    kept = [k for k, line in enumerate(lines) if line and not line.isspace()]
    if not kept:
        raise SacctFormatError("no header line (expected sacct --parsable2 output)",
                               source=source)
    header_index = kept[0]
    header_number, header_line = header_index + 1, lines[header_index]
    header = [name.strip() for name in header_line.split("|")]
    trailing = len(header) > 1 and header[-1] == ""
    if trailing:
        header = header[:-1]
    _check_header(header, source, header_number, header_line)
    if len(kept) == 1:
        raise SacctFormatError(
            "no job lines after the header (sacct selected no jobs: check its "
            "--starttime, --endtime and --allusers options)", source=source,
            line_number=header_number)
    body = np.array(kept[1:], dtype=np.int64)
    body_lines = [lines[k] for k in kept[1:]]
    del lines
    n_fields = np.fromiter(map(str.count, body_lines, itertools.repeat("|")),
                           dtype=np.int64, count=len(body_lines)) + 1
    if trailing:
        n_fields -= np.fromiter(map(str.endswith, body_lines, itertools.repeat("|")),
                                dtype=bool, count=len(body_lines))
    names = [name.lower() for name in header]
    repeated = np.zeros(len(body), dtype=bool)
    other_header = len(body)
    # every header names JobID; job lines seldom hold the word, most files never
    more = text.lower().count("jobid") > header_line.lower().count("jobid")
    candidates = (position for position, line in enumerate(body_lines)
                  if more and "jobid" in line.lower())
    for position in candidates:
        line = body_lines[position]
        values = (line[:-1] if trailing and line.endswith("|") else line).split("|")
        if _is_header(line, values):
            if [value.strip().lower() for value in values] != names:
                other_header = position
                break
            repeated[position] = True  # outputs of one --format concatenated: no job
    wrong = (n_fields != len(header)) & ~repeated
    if errors == "raise" and wrong[:other_header].any():
        position = int(np.argmax(wrong))
        hint = (" (a field holding '|', such as JobName or SubmitLine? leave it out of "
                "--format)" if n_fields[position] > len(header) else "")
        raise SacctFormatError(
            f"expected {len(header)} '|'-separated fields (as in the header), "
            f"found {n_fields[position]}{hint}", source=source,
            line_number=int(body[position]) + 1, line=body_lines[position])
    if other_header < len(body):
        raise SacctFormatError(
            f"a second header, naming other fields or another order than line "
            f"{header_number}'s (sacct outputs of different --format concatenated): "
            f"read each output apart, or run sacct once with one --format",
            source=source, line_number=int(body[other_header]) + 1,
            line=body_lines[other_header])
    skipped = (body[wrong] + 1).tolist()
    jobs = ~(wrong | repeated)
    job_lines = np.empty(len(body_lines), dtype=object)
    job_lines[:] = body_lines
    del body_lines
    job_lines = job_lines[jobs]
    return header, _columns(job_lines, header, trailing), body[jobs] + 1, job_lines, skipped


def _columns(lines, header, trailing):
    """The fields of ``lines`` as one object array per header name read
    (:data:`_FIELDS_READ`; each line has ``len(header)`` fields, and when
    ``trailing`` a ``|`` may follow them)."""
    if len(lines) == 0:
        return {name: np.empty(0, dtype=object) for name in header
                if name.lower() in _FIELDS_READ}
    read = [k for k, name in enumerate(header) if name.lower() in _FIELDS_READ]
    # The empty first line keeps read_csv from taking a byte-order mark that starts
    # the first job line for the file's; text given as str may hold lone surrogates.
    data = ("\n" + "\n".join(lines)).encode("utf-8", errors="surrogatepass")
    frame = pd.read_csv(io.BytesIO(data), sep="|", header=None, dtype=object, skiprows=1,
                        names=range(len(header) + trailing), usecols=read, na_filter=False,
                        quoting=csv.QUOTE_NONE, lineterminator="\n", skip_blank_lines=False,
                        engine="c", encoding="utf-8", encoding_errors="surrogatepass")
    del data
    return {header[k]: frame[k].to_numpy(dtype=object) for k in read}


def _is_header(line, values):
    """Whether a line's fields are a header's: they name JobID, Submit, Start and State
    (the line's text is looked at first: a job line rarely holds those words)."""
    low = line.lower()
    if "jobid" not in low or "submit" not in low:
        return False
    names = {value.strip().lower() for value in values}
    return bool(names & {"jobid", "jobidraw"}) and {"submit", "start", "state"} <= names


def _check_one_cluster(table, line_numbers, lines, source):
    """Refuse ``sacct --clusters`` output that lists jobs of several clusters.

    A job table is the log of one machine, and job ids are only unique within
    a cluster: two clusters' job 500 would be read as two runs of one job.
    """
    column = next((table[name] for name in table if name.lower() == "cluster"), None)
    if column is None:
        return
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    first = {}
    for code, value in enumerate(uniques):  # in order of first appearance
        name = value.strip()
        if name and name not in first:
            first[name] = code
    if len(first) > 1:
        names = list(first)
        position = int(np.argmax(codes == first[names[1]]))
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        raise SacctFormatError(
            f"jobs of {len(names)} clusters ({shown}); a job log is one machine's and job "
            f"ids repeat across clusters: run sacct --clusters=NAME for one cluster, or split "
            f"the file by its Cluster field", source=source,
            line_number=int(line_numbers[position]), line=lines[position])


def _expand_arrays(header, table, line_numbers, lines, source, errors, skipped):
    """One row per task of each line standing for a job array's tasks (``123_[4-9]``).

    Each task's row is the line's, with ``JobID`` ``123_4``, ``123_5``, ...;
    it keeps the line's number and text for error messages. A bracket that
    is not such a task list is a malformed line (appended to ``skipped``
    when ``errors`` is ``"skip"``).
    """
    name = next((name for name in header if name.lower() == "jobid"), None)
    if name is None:
        return table, line_numbers, lines
    column = table[name]
    listed = np.flatnonzero([("[" in value or "]" in value) for value in column])
    if len(listed) == 0:
        return table, line_numbers, lines
    copies = np.ones(len(column), dtype=np.int64)
    task_ids = []
    for position in listed:
        try:
            ids = array_task_job_ids(column[position]) or None
        except ValueError as exc:
            if errors == "raise":
                raise SacctFormatError(f"field {name} ({column[position].strip()}): {exc}",
                                       source=source, line_number=int(line_numbers[position]),
                                       line=lines[position]) from None
            skipped.append(int(line_numbers[position]))
            copies[position] = 0
            ids = None
        else:
            copies[position] = 1 if ids is None else len(ids)
        task_ids.append(ids)
    rows = np.repeat(np.arange(len(column)), copies)
    table = {key: values[rows] for key, values in table.items()}
    first_copy = np.cumsum(copies) - copies
    for position, ids in zip(listed, task_ids):
        if ids:
            table[name][first_copy[position]:first_copy[position] + len(ids)] = ids
    return table, line_numbers[rows], lines[rows]


def _check_header(header, source, number, line):
    names = {name.lower() for name in header}
    missing = [" or ".join(group) for group in _REQUIRED
               if not any(name.lower() in names for name in group)]
    if missing:
        raise SacctFormatError(
            f"header lacks required sacct field(s): {'; '.join(missing)} "
            f"(run sacct --parsable2 --format=JobID,User,Account,Partition,Submit,Start,"
            f"End,Elapsed,Timelimit,NCPUS,ReqCPUS,State)",
            source=source, line_number=number, line=line)
    duplicated = sorted({n for n in header if [h.lower() for h in header].count(n.lower()) > 1})
    if duplicated:
        raise SacctFormatError(f"header names field(s) twice: {', '.join(duplicated)}",
                               source=source, line_number=number, line=line)


class _Parsed:
    """Every column of interest parsed, with a per-line record of what failed.

    Each line is parsed on its own (a step is matched with its job by
    :func:`_orphan_steps`, which looks at the lines in order), so the lines
    kept after dropping some are those lines parsed (:meth:`subset`).
    """

    def __init__(self, table, time_zone):
        self.columns = {name.lower(): name for name in table}
        self.table = table
        self.time_zone = time_zone
        self.stripped = {}
        self.factorized = {}
        self.n = len(next(iter(table.values())))
        self.rows = np.arange(self.n)
        """The lines of ``table`` these are (:meth:`subset` keeps ``table`` whole)."""
        self.bad = np.zeros(self.n, dtype=bool)
        self.problems = {}
        self.values = {}
        self.n_ambiguous = 0
        self.later = {}
        self.limits = np.zeros(self.n, dtype=bool)
        for name in ("Submit", "Eligible", "Start", "End"):
            self._parse_time(name, time_zone)
        for name in ("Elapsed", "Timelimit", "TotalCPU"):
            self._parse(name, parse_durations, "a Slurm duration")
        self._parse("ElapsedRaw", parse_raw_durations, "whole seconds")
        self._parse("TimelimitRaw", lambda s: parse_raw_durations(s, unit_seconds=60),
                    "whole minutes")
        for name in ("NCPUS", "AllocCPUS", "ReqCPUS", "NNodes", "AllocNodes", "ReqNodes"):
            self._parse(name, parse_counts, "a count")
        self._parse("MaxRSS", parse_memory, "a memory size")
        _id_problems(self)

    def subset(self, keep):
        """The lines where ``keep`` (a boolean mask) holds, none of them flagged
        (they are checked again by what looks at lines together)."""
        out = copy.copy(self)
        out.rows = self.rows[keep]
        out.stripped = {}
        out.factorized = {name: (codes[keep], texts)
                          for name, (codes, texts) in self.factorized.items()}
        out.values = {name: column[keep] for name, column in self.values.items()}
        out.later = {name: column[keep] for name, column in self.later.items()}
        out.n_ambiguous = sum(int((~np.isnan(later)).sum()) for later in out.later.values())
        out.limits = self.limits[keep]
        out.job_key = self.job_key[keep]
        out.is_step = self.is_step[keep]
        if hasattr(self, "raw_id"):
            out.raw_id = self.raw_id[keep]
        out.n = len(out.job_key)
        out.bad = np.zeros(out.n, dtype=bool)
        out.problems = {}
        return out

    def _parse_time(self, name, time_zone):
        distinct = self.distinct(name)
        if distinct is None:
            return
        codes, texts = distinct
        local = parse_local_timestamps(texts, time_zone)
        self.values[name] = local.values[codes]
        self.later[name] = local.later[codes]
        self.n_ambiguous += int((~np.isnan(self.later[name])).sum())
        actual = self.columns[name.lower()]
        self._flag(local.bad[codes], f"field {actual} {TIMESTAMP_HINT}", name)
        nonexistent = local.nonexistent[codes]
        for position in np.flatnonzero(nonexistent & ~self.bad):
            self.problems[int(position)] = (
                f"field {actual} ({texts[codes[position]]}) does not exist in {time_zone}: "
                f"clocks moved forward (sacct never prints such a time there: "
                f"is that the zone the file was written in?)")
        self.bad |= nonexistent

    def _parse(self, name, parser, expected):
        """Parse a column with ``parser``, which reads each text on its own (once
        for each distinct text here)."""
        distinct = self.distinct(name)
        if distinct is None:
            return
        codes, texts = distinct
        result = parser(texts)
        values, bad = result[0][codes], result[1][codes]
        if name in ("Timelimit", "TimelimitRaw") and "req_time" not in self.values:
            self.values["req_time"] = values
            self.limits = result[2][codes]
        self.values[name] = values
        self._flag(bad, f"field {self.columns[name.lower()]} is not {expected}", name)

    def _flag(self, bad, message, name):
        for position in np.flatnonzero(bad & ~self.bad):
            value = self.table[self.columns[name.lower()]][self.rows[position]]
            self.problems[int(position)] = f"{message} ({value!r})"
        self.bad |= bad

    def distinct(self, name):
        """The column called ``name`` (any case) as ``(codes, texts)``: its distinct
        stripped texts and where each line's is among them, or None."""
        actual = self.columns.get(name.lower())
        if actual is None:
            return None
        if actual not in self.factorized:
            codes, uniques = pd.factorize(self.table[actual][self.rows], use_na_sentinel=False)
            inner, texts = pd.factorize(np.array([v.strip() for v in uniques], dtype=object),
                                        use_na_sentinel=False)
            self.factorized[actual] = (inner[codes], np.asarray(texts, dtype=object))
        return self.factorized[actual]

    def get(self, name):
        """The stripped string column called ``name`` (any case) as an array, or None."""
        distinct = self.distinct(name)
        if distinct is None:
            return None
        actual = self.columns[name.lower()]
        if actual not in self.stripped:
            codes, texts = distinct
            self.stripped[actual] = texts[codes]
        return self.stripped[actual]

    def first(self, *names):
        """Parsed values of the first of ``names`` present, or None."""
        return next((self.values[n] for n in names if n in self.values), None)


def _job_id_parts(texts):
    """Read job ids: for each, its job part (``None`` where the text is no Slurm
    job id), whether it names a step, and the number of a plain job id (``NaN``
    for an array task, a heterogeneous component or no id)."""
    keys = np.empty(len(texts), dtype=object)
    steps = np.zeros(len(texts), dtype=bool)
    numbers = np.full(len(texts), np.nan)
    for position, text in enumerate(texts):
        job, dot, step = text.partition(".")
        if job.isdigit() and job.isascii() and len(job) <= 10 and (
                not dot or (step and "." not in step)):
            keys[position] = job  # the common case, without the expression's cost
            steps[position] = bool(dot)
            numbers[position] = int(job)
            continue
        match = _JOB_ID.match(text)  # no plain id: that would have been read above
        if match:
            keys[position] = match["job"]
            steps[position] = match["step"] is not None
    return keys, steps, numbers


def _id_problems(parsed):
    """Read each line's job id; flag lines whose job id is not a Slurm job id or
    does not match its ``JobIDRaw``."""
    key_name = "JobID" if parsed.get("JobID") is not None else "JobIDRaw"
    texts = parsed.get(key_name)
    parsed.job_key, parsed.is_step, plain = _job_id_parts(texts)
    invalid = np.equal(parsed.job_key, None)
    parsed._flag(invalid, "not a Slurm job id", key_name)
    raw = parsed.get("JobIDRaw")
    if raw is not None:
        raw_step, parsed.raw_id = parsed.is_step.copy(), plain.copy()
        other = np.flatnonzero(raw != texts)  # where JobID is no plain id, mostly
        _, raw_step[other], parsed.raw_id[other] = _job_id_parts(raw[other])
        bad_raw = (np.isnan(parsed.raw_id) | (raw_step != parsed.is_step)) & ~invalid
        # a plain job id (not an array task nor a heterogeneous component) is its raw id
        with np.errstate(invalid="ignore"):
            bad_raw |= (plain != parsed.raw_id) & ~np.isnan(plain) & ~invalid
        parsed._flag(bad_raw, "field JobIDRaw is not an integer job id matching JobID",
                     "JobIDRaw")


def _orphan_steps(parsed):
    """Flag the steps listed before (or without) their job's allocation line."""
    key_name = "JobID" if parsed.get("JobID") is not None else "JobIDRaw"
    orphan = parsed.is_step & (_latest_allocation(parsed.job_key, parsed.is_step) < 0)
    orphan &= ~np.equal(parsed.job_key, None)
    parsed._flag(orphan, "job step before (or without) its job's allocation line", key_name)


def _latest_allocation(keys, is_step):
    """For each line, the last allocation line up to it with its job id (``-1``: none;
    ``keys`` of ``None`` have none)."""
    codes, _ = pd.factorize(keys)
    latest = pd.Series(np.where(is_step, -1, np.arange(len(keys))))
    owner = latest.groupby(codes).cummax().to_numpy() if len(keys) else latest.to_numpy()
    return np.where(codes < 0, -1, owner)


def _order_problems(parsed):
    """Flag allocation lines whose times contradict each other.

    A line without a Submit, whose Start is before its Submit or End before
    its Start, or whose Elapsed is longer than End - Start: Slurm never writes
    these for one run of a job (Elapsed leaves out suspended time, so it may
    be shorter, never longer), and a negative wait or an invented runtime
    would silently corrupt every statistic, so such a line is malformed.
    Times in a repeated wall-clock hour are resolved first
    (:func:`_resolve_repeated_hour`).
    """
    alloc = ~parsed.is_step
    submit, start = parsed.values["Submit"], parsed.values["Start"]
    # Every job has a submission time; without one it has no place on the clock.
    no_submit = alloc & np.isnan(submit) & ~parsed.bad
    parsed._flag(no_submit, "field Submit is unknown (every job has a submission time)",
                 "Submit")
    _resolve_repeated_hour(parsed)
    end = parsed.values.get("End")
    with np.errstate(invalid="ignore"):
        early_start = alloc & (start < submit)
        early_end = (alloc & (end < start)) if end is not None else np.zeros_like(alloc)
    for bad, (later, earlier) in ((early_start, ("Start", "Submit")),
                                  (early_end, ("End", "Start"))):
        later_text, earlier_text = parsed.get(later), parsed.get(earlier)
        for position in np.flatnonzero(bad & ~parsed.bad):
            gap = parsed.values[earlier][position] - parsed.values[later][position]
            parsed.problems[int(position)] = (
                f"field {parsed.columns[later.lower()]} ({later_text[position]}) is before "
                f"{parsed.columns[earlier.lower()]} ({earlier_text[position]})"
                + _zone_hint(parsed, gap))
        parsed.bad |= bad
    if end is None:
        return parsed.bad
    for name in ("ElapsedRaw", "Elapsed"):
        elapsed = parsed.values.get(name)
        if elapsed is None:
            continue
        with np.errstate(invalid="ignore"):
            too_long = alloc & (elapsed > end - start + _ELAPSED_TOLERANCE)
        texts = [parsed.get(n) for n in (name, "Start", "End")]
        for position in np.flatnonzero(too_long & ~parsed.bad):
            elapsed_text, start_text, end_text = (t[position] for t in texts)
            parsed.problems[int(position)] = (
                f"field {parsed.columns[name.lower()]} ({elapsed_text}) is longer than "
                f"End - Start ({end_text} - {start_text} = "
                f"{end[position] - start[position]:g} s)"
                + _zone_hint(parsed, elapsed[position] - (end[position] - start[position])))
        parsed.bad |= too_long
    return parsed.bad


def _zone_hint(parsed, seconds):
    """Where two times disagree by at most an hour, read in UTC, the daylight-saving
    change the file's zone may have had: a hint to give that zone; by an hour, read
    in a zone that changes its clocks, the hint that the file may be another zone's."""
    if seconds > _DST_SHIFT + _ELAPSED_TOLERANCE:
        return ""
    if parsed.time_zone.upper() in _UTC:
        return (f" (read in {parsed.time_zone}: if sacct wrote local time with a "
                f"daylight-saving change, give its zone, time_zone= or --time-zone)")
    if seconds >= _DST_SHIFT - _ELAPSED_TOLERANCE:
        return (f" (an hour off, read in {parsed.time_zone}, whose clocks change: if sacct "
                f"wrote another zone's time, such as UTC, give that zone, time_zone= or "
                f"--time-zone)")
    return ""


def _resolve_repeated_hour(parsed):
    """Choose the reading of Start and End that fell in a repeated wall-clock hour.

    Every time is first read as the first (summer-time) occurrence. A Start
    is read as the second occurrence when the first puts it before Submit; an
    End, when the first puts it before Start or makes End - Start shorter
    than Elapsed. Only these orderings say which occurrence was meant.
    """
    submit, start = parsed.values["Submit"], parsed.values["Start"]
    with np.errstate(invalid="ignore"):
        later_start = parsed.later["Start"]
        use = start < submit
        use &= ~np.isnan(later_start)
        start[use] = later_start[use]
        end = parsed.values.get("End")
        if end is None:
            return
        later_end = parsed.later["End"]
        short = end < start
        elapsed = parsed.first("ElapsedRaw", "Elapsed")
        if elapsed is not None:
            short |= elapsed > end - start + _ELAPSED_TOLERANCE
        use = short & ~np.isnan(later_end)
        end[use] = later_end[use]


def _earlier_runs(parsed, line_numbers, lines, source):
    """Lines of the earlier runs of jobs listed more than once (with their steps).

    ``sacct --duplicates`` lists a requeued job once per run, each run with its
    own Submit or Start; the last run listed is kept. Runs of one job have
    one User, and each run after the first (in time: by Submit, then Start)
    was submitted again when the one before it was requeued: with the same
    Submit, or between that run's Start and :data:`_REQUEUE_GAP` after its
    End (Start when it has no End; any, when it never started). The same id
    for another user, or listed again otherwise, is another job. Two allocation lines with the same job id, Submit and Start are the
    same run twice, which Slurm never prints, so that is an error.
    """
    alloc = np.flatnonzero(~parsed.is_step)
    keys = parsed.job_key[alloc]
    runs = pd.DataFrame({"key": pd.factorize(keys)[0],
                         "submit": parsed.distinct("Submit")[0][alloc],
                         "start": parsed.distinct("Start")[0][alloc]})
    repeated = runs.duplicated(keep="first").to_numpy()
    if repeated.any():
        second = int(np.argmax(repeated))
        same = (runs.to_numpy() == runs.to_numpy()[second]).all(axis=1)
        first = int(np.argmax(same))
        key_name = "JobID" if parsed.get("JobID") is not None else "JobIDRaw"
        raise SacctFormatError(
            f"lines {line_numbers[alloc[first]]} and {line_numbers[alloc[second]]} both list "
            f"{key_name} {keys[second]} with the same Submit and Start (sacct lists "
            f"a job once, a requeued job once per run with --duplicates; concatenated sacct "
            f"outputs repeat jobs)",
            source=source, line_number=int(line_numbers[alloc[second]]),
            line=lines[alloc[second]])
    # A job id listed again for another user is no requeue, nor is one whose
    # next run was submitted long after it ended: Slurm gave the id out again
    # (after its controller's saved state was lost, or its ids wrapped around).
    user = parsed.distinct("User")
    owner = ["key"] if user is None else ["key", "user"]
    if user is not None:
        runs["user"] = user[0][alloc]
    submit = parsed.values["Submit"][alloc]
    start = parsed.values["Start"][alloc]
    end = parsed.first("End")
    last = start if end is None else np.where(np.isnan(end[alloc]), start, end[alloc])
    # runs in time order (sacct's sort by Submit may list runs of one Submit in any
    # order): by Submit, then Start, a run that never started first
    in_time = np.lexsort((np.arange(len(alloc)), np.where(np.isnan(start), -np.inf, start),
                          submit))
    timed = runs.iloc[in_time]
    next_submit = np.empty(len(alloc))
    next_submit[in_time] = pd.Series(submit[in_time], index=timed.index).groupby(
        [timed[name] for name in owner], sort=False).shift(-1).to_numpy()
    with np.errstate(invalid="ignore"):
        earlier_alloc = ~np.isnan(next_submit) & (
            (next_submit == submit) | np.isnan(start)
            | ((next_submit >= start) & (next_submit <= last + _REQUEUE_GAP)))
    earlier = np.zeros(parsed.n, dtype=bool)
    if earlier_alloc.any():
        earlier[alloc[earlier_alloc]] = True
        earlier |= earlier[_step_owners(parsed.job_key, parsed.is_step)]
    return earlier


def _reused_ids(parsed):
    """How many job ids stand for more than one job (jobs of different users)."""
    keys = pd.Series(parsed.job_key[~parsed.is_step])
    return int(keys.duplicated().sum())


def _build(parsed, time_zone):
    alloc = np.flatnonzero(~parsed.is_step)
    steps = np.flatnonzero(parsed.is_step)
    owner = _step_owners(parsed.job_key, parsed.is_step)
    n = len(alloc)
    position_of = np.full(parsed.n, -1)
    position_of[alloc] = np.arange(n)
    out = {"job_id": _job_ids(parsed, alloc)}

    submit = parsed.values["Submit"][alloc]
    start = parsed.values["Start"][alloc]
    states = parsed.get("State")[alloc]
    codes, distinct = pd.factorize(states, use_na_sentinel=False)
    words = np.array([s.split()[0].rstrip("+").upper() if s.split() else "" for s in distinct],
                     dtype=object)[codes] if len(states) else np.empty(0, dtype=object)
    end = parsed.first("End")
    if end is not None:
        end = end[alloc]
        ended = ~np.isnan(end)
    else:
        ended = np.array([w not in _UNFINISHED for w in words], dtype=bool)
    # A job still pending or running has no final wait, runtime, CPU time or
    # memory yet: sacct prints its values so far (or 0), which are not results.
    unfinished = np.array([w in _UNFINISHED for w in words], dtype=bool)
    origin = np.nanmin(submit) if np.isfinite(submit).any() else np.nan
    out["submit_time"] = submit - origin
    out["wait_time"] = np.where(words == "PENDING", np.nan, start - submit)
    run = end - start if end is not None else np.full(n, np.nan)
    for name in ("Elapsed", "ElapsedRaw"):  # the first present and known wins
        if name in parsed.values:
            elapsed = parsed.values[name][alloc]
            run = np.where(np.isnan(elapsed), run, elapsed)
    out["run_time"] = np.where(np.isnan(start) | ~ended | unfinished, np.nan, run)

    cpus = parsed.first("NCPUS", "AllocCPUS")
    unit = "cpus" if parsed.first("NCPUS", "AllocCPUS", "ReqCPUS") is not None else "nodes"
    if unit == "nodes":
        cpus = parsed.first("NNodes", "AllocNodes")
        requested = parsed.first("ReqNodes", "NNodes")
    else:
        requested = parsed.first("ReqCPUS")
    n_procs = cpus[alloc] if cpus is not None else np.full(n, np.nan)
    out["n_procs"] = np.where(n_procs > 0, n_procs, np.nan)
    out["req_procs"] = requested[alloc] if requested is not None else np.full(n, np.nan)
    out["req_procs"] = np.where(out["req_procs"] > 0, out["req_procs"], np.nan)
    total_cpu = _fold(parsed.first("TotalCPU"), alloc, steps, owner, position_of, "sum")
    out["avg_cpu_time"] = np.where(unfinished, np.nan, total_cpu / out["n_procs"])
    out["used_memory"] = np.where(unfinished, np.nan, _fold(
        parsed.first("MaxRSS"), alloc, steps, owner, position_of, "max"))
    req_time = parsed.values.get("req_time")
    out["req_time"] = req_time[alloc] if req_time is not None else np.full(n, np.nan)

    out["status"] = np.array([_STATUS.get(w, np.nan) for w in words], dtype=np.float64)
    attrs = {"time_zone_string": time_zone, "processor_unit": unit,
             "n_unlimited_req_time": int(parsed.limits[alloc].sum())}
    unmapped = pd.Series(words[np.isnan(out["status"])]).value_counts()
    attrs["unmapped_states"] = {str(k): int(v) for k, v in unmapped.items()}
    for column, candidates, key in _ID_COLUMNS:
        name = next((c for c in candidates if parsed.get(c) is not None), None)
        if name is None:
            continue
        codes, mapping = _number(parsed.get(name)[alloc])
        out[column] = codes
        attrs[key or f"{name.lower()}_ids"] = mapping
    attrs["unix_start_time"] = int(origin) if np.isfinite(origin) else None
    out["slurm_job_id"] = parsed.get("JobID" if parsed.get("JobID") is not None
                                     else "JobIDRaw")[alloc]
    out["slurm_state"] = states
    eligible = parsed.first("Eligible")
    if eligible is not None:
        out["slurm_eligible_time"] = eligible[alloc] - origin
    if parsed.n_ambiguous:
        attrs["n_ambiguous_local_times"] = parsed.n_ambiguous
    return as_job_table(pd.DataFrame(out), attrs=attrs)


def _step_owners(keys, is_step):
    """For each line, the line index of the allocation it belongs to (every step has
    one: :func:`_orphan_steps`)."""
    return np.where(is_step, _latest_allocation(keys, is_step), np.arange(len(keys)))


def _fold(values, alloc, steps, owner, position_of, how):
    """The larger of each allocation line's value and the sum (or max) over its steps."""
    if values is None:
        return np.full(len(alloc), np.nan)
    group = pd.Series(values[steps]).groupby(position_of[owner[steps]])
    folded = group.sum(min_count=1) if how == "sum" else group.max()
    from_steps = folded.reindex(np.arange(len(alloc))).to_numpy(dtype=np.float64)
    return np.fmax(values[alloc], from_steps)


def _job_ids(parsed, alloc):
    """Each job's number: its own where it has one not taken by an earlier line,
    else the next after the largest, in file order."""
    if hasattr(parsed, "raw_id"):
        candidates = parsed.raw_id[alloc]
    else:
        keys = parsed.job_key[alloc]
        candidates = np.array([float(k) if is_digits(k) else np.nan for k in keys])
    pending = np.isnan(candidates) | pd.Series(candidates).duplicated().to_numpy()
    ids = np.zeros(len(alloc), dtype=np.int64)
    ids[~pending] = candidates[~pending]
    following = int(ids[~pending].max(initial=0)) + 1
    ids[pending] = following + np.arange(int(pending.sum()))
    return ids


def _number(names):
    """Integer ids 1.. in order of first appearance; empty names are NaN."""
    codes, uniques = pd.factorize(np.asarray(names, dtype=object), use_na_sentinel=False)
    named = np.array([bool(name) for name in uniques], dtype=bool)
    number = np.cumsum(named).astype(np.float64)
    number[~named] = np.nan
    mapping = {name: int(k) for name, k, keep in zip(uniques, number, named) if keep}
    return number[codes], mapping

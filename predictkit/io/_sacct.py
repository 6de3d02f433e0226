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
                   ``End - Start`` is malformed, as is one with ``Elapsed``
                   but no ``Start``, or a final ``State`` but no ``End``);
                   ``NaN`` while a job has not started or not ended
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

import warnings

import numpy as np
import pandas as pd

from .._format import format_count
from ..exceptions import ConfigError, SacctFormatError
from ..jobs import as_job_table
from ._sacct_checks import (ParsedLines, earlier_runs, order_problems, orphan_steps,
                            reused_ids, state_words, step_owners)
from ._sacct_text import check_one_cluster, expand_arrays, read_text, split_fields
from ._slurm_fields import check_time_zone, is_digits
from ._source import report_skipped_lines

__all__ = ["read_sacct"]

_STATUS = {"COMPLETED": 1.0, "FAILED": 0.0, "NODE_FAIL": 0.0, "OUT_OF_MEMORY": 0.0,
           "TIMEOUT": 0.0, "BOOT_FAIL": 0.0, "DEADLINE": 0.0, "PREEMPTED": 0.0,
           "CANCELLED": 5.0}
"""Status code of each state of a job that ended for good (SWF field 11)."""

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
        before its ``Submit``, an ``End`` before its ``Start``, an
        ``Elapsed`` more than 1 s longer than ``End - Start`` (``Elapsed``
        leaves out suspended time, so it may be shorter, never longer), or a
        time ``Unknown`` that the line says is known: no ``Start`` with an
        ``Elapsed`` above 0, or no ``End`` with a ``Start`` and the state of
        a job that ended, such as ``COMPLETED``; a time with a second of 60,
        digits other than ASCII or a year outside 1970-2099; ``ElapsedRaw``
        and ``Elapsed``, or ``TimelimitRaw`` and ``Timelimit``, that
        disagree). ``"raise"`` raises :class:`~predictkit.exceptions.SacctFormatError`
        with the file, line number and text; ``"skip"`` leaves the line out,
        warns with the count and first line numbers and records them in
        ``attrs["skipped_lines"]`` and ``attrs["skipped_line_numbers"]``, and
        refuses the file when no job is left.
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
        listed twice, an empty input, a header without any job line after it
        (or, with ``errors="skip"``, with none left), a header that lacks required fields (the message names them), a
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
    source, text = read_text(path_or_buffer)
    header, table, line_numbers, lines, skipped = split_fields(text, source, errors)
    del text
    check_one_cluster(table, line_numbers, lines, source)
    table, line_numbers, lines = expand_arrays(header, table, line_numbers, lines,
                                                source, errors, skipped)
    n_dropped_runs = 0
    parsed = ParsedLines(table, time_zone)
    del table
    while True:
        orphan_steps(parsed)
        bad = order_problems(parsed, final_states=frozenset(_STATUS))
        if not bad.any():
            earlier = earlier_runs(parsed, line_numbers, lines, source)
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
    if parsed.is_step.all():
        lines_skipped = sorted(set(skipped))
        raise SacctFormatError(f"no jobs: every job line is malformed ({len(lines_skipped)} "
                               f"line(s) left out with their steps, first at line "
                               f"{lines_skipped[0]})" if lines_skipped else
                               "no jobs: every line is a job step", source=source)
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
    reused = reused_ids(parsed)
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


def _build(parsed, time_zone):
    alloc = np.flatnonzero(~parsed.is_step)
    steps = np.flatnonzero(parsed.is_step)
    owner = step_owners(parsed.job_key, parsed.is_step)
    n = len(alloc)
    position_of = np.full(parsed.n, -1)
    position_of[alloc] = np.arange(n)
    out = {"job_id": _job_ids(parsed, alloc)}

    submit = parsed.values["Submit"][alloc]
    start = parsed.values["Start"][alloc]
    states = parsed.get("State")[alloc]
    words = state_words(parsed)[alloc]
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

"""Each ``sacct`` line's fields parsed, and the checks that look at lines together.

:class:`ParsedLines` parses every field the job table uses, line by line,
recording what failed; the functions below find what only the lines together
say: a step without its job, times out of order (and the local hour repeated
when clocks go back), the earlier runs of requeued jobs, and job ids given
out again. :func:`~predictkit.io.read_sacct` drops or refuses what they find.
"""

import copy
import re

import numpy as np
import pandas as pd

from ..exceptions import SacctFormatError
from ._slurm_fields import (
    TIMESTAMP_HINT,
    parse_counts,
    parse_durations,
    parse_local_timestamps,
    parse_memory,
    parse_raw_durations,
)

__all__ = ["ParsedLines", "orphan_steps", "order_problems", "earlier_runs", "reused_ids",
           "state_words", "step_owners"]


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


class ParsedLines:
    """Every column of interest parsed, with a per-line record of what failed.

    Each line is parsed on its own (a step is matched with its job by
    :func:`orphan_steps`, which looks at the lines in order), so the lines
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
        self.limit_tokens = {}
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
        for raw, formatted in (("ElapsedRaw", "Elapsed"), ("TimelimitRaw", "Timelimit")):
            self._agree(raw, formatted)
        self._request()
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
        if name in ("Timelimit", "TimelimitRaw"):
            self.limit_tokens[name] = result[2][codes]
        self.values[name] = values
        self._flag(bad, f"field {self.columns[name.lower()]} is not {expected}", name)

    def _agree(self, raw, formatted):
        """Flag a line whose two spellings of one time (``ElapsedRaw`` and ``Elapsed``,
        ``TimelimitRaw`` and ``Timelimit``) are both given and differ: which one
        holds cannot be told."""
        if raw not in self.values or formatted not in self.values:
            return
        first, second = self.values[raw], self.values[formatted]
        known = ~np.isnan(first) & ~np.isnan(second)
        differ = np.zeros(self.n, dtype=bool)
        differ[known] = np.abs(first[known] - second[known]) > _ELAPSED_TOLERANCE
        if raw in self.limit_tokens:  # one says "no limit", the other gives one
            differ |= (self.limit_tokens[raw] & ~np.isnan(second)) | (
                self.limit_tokens[formatted] & ~np.isnan(first))
        texts = self.get(raw), self.get(formatted)
        for position in np.flatnonzero(differ & ~self.bad):
            self.problems[int(position)] = (
                f"fields {self.columns[raw.lower()]} ({texts[0][position]}) and "
                f"{self.columns[formatted.lower()]} ({texts[1][position]}) disagree")
        self.bad |= differ

    def _request(self):
        """``req_time``: ``TimelimitRaw``, else ``Timelimit`` where it is unknown, and
        :attr:`limits`, the lines whose limit is none of the job's own (``UNLIMITED``)."""
        values = self.first("TimelimitRaw", "Timelimit")
        if values is None:
            return
        if "TimelimitRaw" in self.values and "Timelimit" in self.values:
            values = np.where(np.isnan(values), self.values["Timelimit"], values)
        self.values["req_time"] = values
        self.limits = np.isnan(values) & np.logical_or.reduce(list(self.limit_tokens.values()))

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


def orphan_steps(parsed):
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


def step_owners(keys, is_step):
    """For each line, the line index of the allocation it belongs to (every step has
    one: :func:`orphan_steps`)."""
    return np.where(is_step, _latest_allocation(keys, is_step), np.arange(len(keys)))


def order_problems(parsed, final_states):
    """Flag allocation lines whose times contradict each other.

    A line without a Submit, whose Start is before its Submit or End before
    its Start, or whose Elapsed is longer than End - Start: Slurm never writes
    these for one run of a job (Elapsed leaves out suspended time, so it may
    be shorter, never longer), and a negative wait or an invented runtime
    would silently corrupt every statistic, so such a line is malformed; so
    is a line that lost a time its other fields say is known
    (:func:`_unknown_times`: an Elapsed without a Start, or a state among
    ``final_states`` with a Start but no End). Times in a repeated
    wall-clock hour are resolved first (:func:`_resolve_repeated_hour`).
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
    _unknown_times(parsed, alloc, start, end, final_states)
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


def state_words(parsed):
    """Each line's state: the first word of ``State`` in upper case without a trailing
    ``+`` (``"CANCELLED by 123"`` is ``CANCELLED``), ``""`` where it is empty."""
    codes, texts = parsed.distinct("State")
    words = np.array([t.split()[0].rstrip("+").upper() if t.split() else "" for t in texts],
                     dtype=object)
    return words[codes] if len(codes) else np.empty(0, dtype=object)


def _unknown_times(parsed, alloc, start, end, final_states):
    """Flag allocation lines whose other fields say a time is known that is not.

    Slurm prints ``Unknown`` (or ``None``) for the Start of a job that never
    started, with an Elapsed of 0, and the End of one still running; a line
    with an Elapsed time but no Start, or with a Start and a state of
    ``final_states`` (a job that ended for good, such as ``COMPLETED``) but
    no End, has lost a time. Its runtime would be dropped, so such a line is
    malformed. A state Slurm may add later is none of ``final_states``.
    """
    elapsed_name = next((n for n in ("ElapsedRaw", "Elapsed") if n in parsed.values), None)
    if elapsed_name is not None:
        with np.errstate(invalid="ignore"):
            ran = alloc & np.isnan(start) & (parsed.values[elapsed_name] > 0)
        _flag_lost_time(parsed, ran, "Start", elapsed_name,
                        "the job ran (a job that ran has a start)")
    if end is None:
        return
    ended = np.array([w in final_states for w in state_words(parsed)], dtype=bool)
    _flag_lost_time(parsed, alloc & ended & ~np.isnan(start) & np.isnan(end), "End", "State",
                    "the job started and ended (a job that ended has an end)")


def _flag_lost_time(parsed, lost, field, witness, says):
    """Flag the lines ``lost``, whose ``field`` is unknown though their ``witness`` field
    ``says`` it is known."""
    witness_text = parsed.get(witness)
    for position in np.flatnonzero(lost & ~parsed.bad):
        parsed.problems[int(position)] = (
            f"field {parsed.columns[field.lower()]} is unknown but "
            f"{parsed.columns[witness.lower()]} ({witness_text[position]}) says {says}")
    parsed.bad |= lost


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


def earlier_runs(parsed, line_numbers, lines, source):
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
        earlier |= earlier[step_owners(parsed.job_key, parsed.is_step)]
    return earlier


def reused_ids(parsed):
    """How many job ids stand for more than one job (jobs of different users)."""
    keys = pd.Series(parsed.job_key[~parsed.is_step])
    return int(keys.duplicated().sum())

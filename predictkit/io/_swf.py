"""Reading and writing the Standard Workload Format (SWF).

SWF (Feitelson et al., Parallel Workloads Archive) is a text format: header
comment lines starting with ``;`` and one job per line with 18
whitespace-separated numeric fields, ``-1`` meaning unknown.
"""

import csv
import io
import re
import warnings

import numpy as np
import pandas as pd

from .._atomic import write_result
from .._format import format_count
from .._validation import short_repr
from ..exceptions import ConfigError, JobTableError, SWFFormatError
from ..jobs import INTEGER_COLUMNS, MAX_EXACT, SWF_COLUMNS, validate_jobs
from ._header import (HEADER_KEYS, changed_fields, field_problem, line_problem, merge_header,
                      parse_header, snake_case)
from ._source import read_source, report_skipped_lines

__all__ = ["read_swf", "write_swf"]

_N_FIELDS = len(SWF_COLUMNS)
_LONE_CARRIAGE_RETURN = re.compile(rb"\r(?!\n|\r*\Z)")
"""A carriage return that ends no Windows line (``\\r\\n``) and is not trailing the file."""
_NUMBER = re.compile(rb"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_BOM = b"\xef\xbb\xbf"
_FREE_TEXT = ("Note", "Acknowledge", "Information", "Conversion")
"""Header fields of free text: after the jobs, they are comments like any other."""
_FIELD_LINE = re.compile(rb"^[ \t]*;[ \t]*("
                         + "|".join(k for k in HEADER_KEYS if k not in _FREE_TEXT).encode()
                         + rb"):(?!//)", re.MULTILINE)
_NOT_NEGATIVE = frozenset({"submit_time", "wait_time", "run_time", "n_procs", "avg_cpu_time",
                           "used_memory", "req_procs", "req_time", "req_memory",
                           "preceding_job_id", "think_time"})


def read_swf(path_or_buffer, *, errors="raise"):
    """Read an SWF log (plain or gzip) into a job table.

    Parameters
    ----------
    path_or_buffer : str, path or binary file-like
        The log. Gzip is detected from the content (magic bytes), so both
        ``log.swf`` and ``log.swf.gz`` work, as does a stream such as stdin.
        A UTF-8 byte order mark at the start is skipped (the header is kept).
    errors : {"raise", "skip"}
        What to do with malformed job lines: a field count other than 18, a
        field that is not a number (``nan`` and ``inf`` are not), or a value
        SWF cannot hold: a magnitude of 2**53 or more (ids and widths would
        no longer be exact), a fraction in an integer field, a negative
        value other than -1 ("unknown") in a time, size or memory field, a
        job number that is negative or missing. Status and identifiers are
        codes: any whole number. ``"raise"`` raises
        :class:`~predictkit.exceptions.SWFFormatError` giving the file, the
        line number and the text; ``"skip"`` leaves those lines out, warns
        with their count and first line numbers, and records them in
        ``attrs["skipped_lines"]`` (count) and ``attrs["skipped_line_numbers"]``.

    Returns
    -------
    DataFrame
        The job table (:data:`predictkit.jobs.SWF_COLUMNS`): ``job_id`` as
        ``int64``, every other field as ``float64`` with ``-1`` read as
        ``NaN``. ``attrs`` holds the parsed header (snake_case keys such as
        ``max_procs``, ``unix_start_time``, ``time_zone_string``; repeated
        keys such as ``note`` or ``partition`` as lists), the verbatim header
        lines under ``"header"`` and the source under ``"source"``. Comments
        after the first job, on lines of their own or after a job's fields,
        are kept under ``"late_comments"`` as ``[job_id, inline, text]``: the
        job they stand before (``None`` after the last job) or, for an inline
        one, the job of its line; :func:`write_swf` puts them back there.

    Raises
    ------
    SWFFormatError
        On a malformed line (with ``errors="raise"``); on a header value that
        is not a sane number where SWF defines a number, or a conflicting
        repeat of ``MaxProcs``, ``MaxNodes``, ``UnixStartTime`` or
        ``TimeZone`` (the rules are in the user guide, "SWF"); on a header
        field line (``; MaxProcs: 512``, any field of the SWF specification
        but the free-text ``Note``, ``Acknowledge``, ``Information`` and
        ``Conversion``) after the first job whose value the header above
        does not give,
        which is how two logs joined with ``cat`` look (plain comments may
        follow jobs), whatever ``errors`` is; on a
        log without any job (an empty file or stream, an empty ``.gz``, a
        header without jobs, or every job line skipped); on a corrupt or
        truncated gzip, a binary or UTF-16 file, or a path that cannot be
        read (a symlink loop, a file used as a folder). All name the file,
        and the line number and text where there is one.
    InputFileError
        If the file does not exist, is a folder or cannot be opened (also the
        ``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError``
        that ``open`` raised).
    ConfigError
        If ``errors`` is not ``"raise"`` or ``"skip"``, or if
        ``path_or_buffer`` is neither a path nor a file object open for
        reading (an :class:`~predictkit.exceptions.InvalidParameterError`,
        also a ``TypeError``, naming the argument).

    Examples
    --------
    >>> import io, predictkit as pk
    >>> text = b"; MaxProcs: 8\\n1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1\\n"
    >>> jobs = pk.read_swf(io.BytesIO(text))
    >>> jobs.attrs["max_procs"], float(jobs.loc[0, "run_time"])
    (8, 60.0)
    """
    if errors not in ("raise", "skip"):
        raise ConfigError(f"errors must be 'raise' or 'skip', got {errors!r}")
    source, data = _read_bytes(path_or_buffer)
    header_lines, header_numbers, first_job = _leading_comments(data)
    attrs = parse_header(header_lines, source=source, line_numbers=header_numbers)
    late = _late_header_field(data, first_job, attrs, source)
    values = _parse_quickly(data)
    skipped = []
    if values is None:
        try:
            values, skipped = _parse_slowly(data, source, errors)
        except SWFFormatError as exc:
            if late is not None and exc.line_number > late.line_number:
                raise late from None
            raise
    if late is not None:
        raise late
    if len(values) == 0:
        raise SWFFormatError(_no_jobs(header_lines, skipped), source=source)
    jobs = _to_job_table(values)
    attrs["header"] = header_lines
    late_comments = _late_comments(data, first_job)
    if late_comments:
        attrs["late_comments"] = late_comments
    attrs["source"] = source
    report_skipped_lines(source, skipped, attrs, stacklevel=2)
    _warn_repeated_numbers(jobs["job_id"].to_numpy(), source)
    jobs.attrs = attrs
    return jobs


def _warn_repeated_numbers(job_ids, source):
    """Warn when jobs share a job number (two logs joined, a counter reset): all are kept."""
    repeated = pd.Series(job_ids).duplicated().to_numpy()
    if not repeated.any():
        return
    row = int(np.argmax(repeated))
    first = int(np.argmax(job_ids == job_ids[row]))
    count = int(repeated.sum())
    warnings.warn(f"{source}: {format_count(count, 'job')} "
                  f"{'repeats' if count == 1 else 'repeat'} an earlier job's number (first: "
                  f"job {job_ids[row]}, jobs {first + 1:,} and {row + 1:,} of the log); every "
                  "job is kept", UserWarning, stacklevel=3)


def _read_bytes(path_or_buffer):
    source, raw = read_source(path_or_buffer, SWFFormatError, reader="read_swf")
    if isinstance(raw, str):
        raw = raw.encode()
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    if b"\x00" in raw[:65536]:
        raise SWFFormatError("is a binary file (it holds NUL bytes), not SWF text", source=source)
    lone = _LONE_CARRIAGE_RETURN.search(raw) if b"\r" in raw else None
    if lone is not None:
        raise SWFFormatError(
            "a line ends in a carriage return alone (old Mac line endings), which would join "
            "or split lines; convert them, e.g. with tr '\\r' '\\n'", source=source,
            line_number=raw.count(b"\n", 0, lone.start()) + 1)
    return source, raw


def _leading_comments(data):
    """The header lines, their numbers, and the number and offset of the first job line."""
    lines, numbers, offset = [], [], 0
    for number, line in enumerate(io.BytesIO(data), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(b";"):
            return lines, numbers, (number, offset)
        if stripped:
            lines.append(_text(line.rstrip(b"\r\n")))
            numbers.append(number)
        offset += len(line)
    return lines, numbers, None


def _late_header_field(data, first_job, attrs, source):
    """The error for a header field after the first job that the header above lacks, or None.

    Such a line is most likely the header of a second log joined to the first
    (``cat a.swf b.swf``), whose jobs would be read with the first log's
    clock and machine. A field repeating a value of the header above is
    allowed, as are plain comments.
    """
    if first_job is None or data.find(b";", first_job[1]) < 0:
        return None
    number, position = 1, 0
    for match in _FIELD_LINE.finditer(data, first_job[1]):
        number += data.count(b"\n", position, match.start())
        position = match.start()
        end = data.find(b"\n", position)
        text = _text(data[position:end if end >= 0 else len(data)].rstrip(b"\r"))
        key = match.group(1).decode()
        above = attrs.get(snake_case(key))
        try:
            value = parse_header([text]).get(snake_case(key))
        except SWFFormatError:
            value = object()  # a value the reader refuses: given by no header
        if _given(value, above):
            continue
        said = "the header above has none" if above is None else f"the header above gives {above!r}"
        return SWFFormatError(f"header field {key} at line {number} comes after the first job "
                              f"(line {first_job[0]}): two logs joined? ({said})",
                              source=source, line_number=number, line=text)
    return None


_COMMENTED_LINE = re.compile(rb"^([^\n;]*);([^\n]*)$", re.M)
_JOB_LINE = re.compile(rb"^[ \t\r]*([^;\s][^\n;]*)", re.M)


def _late_comments(data, first_job):
    """The comments after the first job line, as ``[job_id, inline, text]`` (see
    :func:`read_swf`): a comment line belongs to the next job line, an inline
    comment (``; text`` after a job's fields) to the job of its line."""
    if first_job is None or data.find(b";", first_job[1]) < 0:
        return []
    found = []
    for match in _COMMENTED_LINE.finditer(data, first_job[1]):
        fields = match.group(1).strip()
        if fields:
            text = data[match.end(1):match.end()]
            found.append([_job_number(fields), True, _text(text.rstrip(b"\r"))])
        else:
            following = _JOB_LINE.search(data, match.end())
            job = _job_number(following.group(1).strip()) if following else None
            found.append([job, False, _text(match.group(0).rstrip(b"\r"))])
    return found


def _job_number(fields):
    """The job number that a job line's text starts with, or None."""
    first = fields.split(None, 1)[0] if fields else b""
    try:
        return int(first)
    except ValueError:
        try:
            number = float(first)
        except ValueError:
            return None
        return int(number) if np.isfinite(number) and number == int(number) else None


def _given(value, above):
    """Whether the header above already gives ``value`` (a list: each of its values)."""
    values = value if isinstance(value, list) else [value]
    known = above if isinstance(above, list) else [above]
    return above is not None and all(any(v == k for k in known) for v in values)


def _text(raw):
    """Bytes of a line as text: UTF-8, else Latin-1 (which never fails nor alters a byte)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _no_jobs(header_lines, skipped):
    if skipped:
        return f"no jobs: all {len(skipped)} job line(s) are malformed (first at line {skipped[0]})"
    if header_lines:
        return "no jobs: the file holds header comments but no job line"
    return "no jobs: the file is empty"


def _parse_quickly(data):
    """All job lines as an (n, 18) array, or None when any line needs a closer look."""
    try:
        table = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=range(_N_FIELDS),
            comment=";", dtype=np.float64, engine="c", na_filter=False,
            quoting=csv.QUOTE_NONE,  # a quoted field is no SWF number, as the slow path says
        )
    except pd.errors.EmptyDataError:
        return np.empty((0, _N_FIELDS))
    except (ValueError, pd.errors.ParserError):
        return None
    # With more fields than names on the first line, pandas silently makes the
    # first field the index: such a file goes to the line-by-line scan.
    if not isinstance(table.index, pd.RangeIndex):
        return None
    values = table.to_numpy(dtype=np.float64)
    if _bad_rows(values).any():
        return None
    return values


def _parse_slowly(data, source, errors):
    """Parse line by line to find malformed lines (only after the fast path failed)."""
    rows, numbers, texts, malformed = [], [], [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.split(b";", 1)[0].strip()
        if not stripped:
            continue
        fields = stripped.split()
        problem = None
        if len(fields) != _N_FIELDS:
            problem = f"expected {_N_FIELDS} fields, found {len(fields)}"
        else:
            bad = [f for f in fields if not _NUMBER.match(f)]
            if bad:
                problem = (f"field {fields.index(bad[0]) + 1} "
                           f"({SWF_COLUMNS[fields.index(bad[0])]}) is not a number "
                           f"({_text(bad[0])!r})")
        if problem is None:
            rows.append([float(f) for f in fields])
            numbers.append(number)
            texts.append(line)
        elif errors == "raise":
            malformed.append((number, problem, line))
            break
        else:
            malformed.append((number, None, None))
    values = np.array(rows, dtype=np.float64).reshape(-1, _N_FIELDS)
    numbers = np.array(numbers, dtype=np.int64)
    bad = _bad_rows(values)
    if errors == "raise":
        problems = list(malformed)
        if bad.any():
            row = int(np.argmax(bad))
            problems.append((int(numbers[row]), _row_problem(values[row]), texts[row]))
        if problems:
            number, problem, line = min(problems, key=lambda p: p[0])
            raise SWFFormatError(problem, source=source, line_number=number,
                                 line=_text(line).rstrip("\r"))
    skipped = sorted([m[0] for m in malformed] + numbers[bad].tolist())
    return values[~bad], skipped


def _column_rules(name, column):
    """(mask, reason) pairs: the values of one SWF field that SWF cannot hold.

    One definition for the reader (which names the line) and the writer
    (which names the row): every field finite and below 2**53 in magnitude
    (from there on float64 is not exact and ids or widths would be altered);
    integer fields whole; the job number known and not negative; times,
    sizes and memory either -1 (unknown) or >= 0. Status and identifiers
    are codes, any whole number (Sandia-Ross holds raw exit codes in status).
    """
    rules = [(~np.isfinite(column), "is not finite (inf, NaN, or a number too large to hold, "
                                    "such as 1e400)"),
             (np.abs(column) >= MAX_EXACT,
              "is too large: 2**53 (9007199254740992) or more cannot be held exactly")]
    if name in INTEGER_COLUMNS:
        rules.append((column != np.floor(column), "must be a whole number"))
    if name == "job_id":
        rules.append((column < 0, "must be a known job number, not negative"))
    elif name in _NOT_NEGATIVE:
        rules.append(((column < 0) & (column != -1),
                      "is negative; SWF allows -1 (unknown) or a value >= 0"))
    return rules


def _bad_rows(values):
    bad = np.zeros(len(values), dtype=bool)
    for k, name in enumerate(SWF_COLUMNS):
        for mask, _ in _column_rules(name, values[:, k]):
            bad |= mask
    return bad


def _row_problem(row):
    """Why one row of values is not valid SWF (the first broken rule, in field order)."""
    for k, name in enumerate(SWF_COLUMNS):
        for mask, reason in _column_rules(name, row[k:k + 1]):
            if mask[0]:
                return f"field {k + 1} ({name}) {reason}"
    return None


def _to_job_table(values):
    columns = {"job_id": values[:, 0].astype(np.int64)}
    for k, name in enumerate(SWF_COLUMNS[1:], start=1):
        column = values[:, k].copy()
        column[column == -1] = np.nan
        columns[name] = column
    return pd.DataFrame(columns)


def write_swf(jobs, path, *, comments=(), header=None):
    """Write a job table as an SWF log, atomically (to a path) or to a file object.

    Parameters
    ----------
    jobs : DataFrame
        A job table. Only the 18 SWF columns are written (SWF holds nothing
        else); missing ones are written as ``-1``.
    path : str, path or file object
        Destination. A name ending in ``.gz`` is gzip-compressed (no stored
        name or time stamp, so equal input gives equal bytes). A file is
        written to a temporary file beside it and renamed into place, so a
        reader never sees half a file; it keeps the mode of the file it
        replaces. A symbolic link is followed (the file it points to is
        replaced); a FIFO or a device is written as a stream, ``"-"`` is
        standard output. A file object open for writing, text
        (``io.StringIO``, ``open(name, "w")``) or binary (``io.BytesIO``,
        ``open(name, "wb")``), is written to at its position and left open,
        as :meth:`pandas.DataFrame.to_csv` does: never compressed, and not
        atomically (the whole log is made before the one write, so an
        invalid table writes nothing).
    comments : str or iterable of str
        Extra lines for the header, each written as ``; Note: <text>``. A
        single string is one comment.
    header : str or list of str, optional
        Header lines to write verbatim, instead of the header built from
        ``jobs.attrs`` (see Notes). A single string is one line.

    Returns
    -------
    Path or file object
        ``path`` as a :class:`~pathlib.Path`, or the file object given.

    Raises
    ------
    OutputError
        ``path`` is a directory, or its folder is missing or not writable.
    InvalidParameterError
        ``path`` is neither a path nor a file object open for writing (a
        closed file, one opened for reading, ``None``, a number), naming it;
        a :class:`ConfigError`, also a ``TypeError``.
    JobTableError
        Before anything is written, for a value SWF cannot hold, naming the
        column, the number of rows, the first row and its ``job_id``: text,
        an infinite value, a magnitude of 2**53 or more, a fraction in an
        integer field, a negative value other than -1 in a time, size or
        memory field, or a missing or negative ``job_id``; for a line of
        ``attrs["header"]`` or a header field in ``attrs`` that
        :func:`read_swf` would refuse or read differently (naming it).
    ConfigError
        Before anything is written, for a line of ``header`` or an item of
        ``comments`` that is not text, holds a line break (which would start
        a new line, possibly a job) or a NUL, or, for ``header``, does not
        start with ``;`` or does not parse as :func:`read_swf` parses it.

    Notes
    -----
    The header is ``header`` when given. Otherwise it is the lines of
    ``jobs.attrs["header"]`` (as :func:`read_swf` keeps them), where the
    SWF header fields held in ``attrs`` win: a field such as
    ``attrs["max_procs"]`` whose value differs from the one the lines give
    replaces that field's lines (or is added after them), ``None`` leaves
    the field out, and a field absent from ``attrs`` keeps its lines; free
    comments and keys SWF does not define are kept verbatim. Without
    ``attrs["header"]`` the header is built from the fields in ``attrs``.
    ``comments`` come last.

    ``NaN`` is written as ``-1``. Values that are whole numbers are written
    as integers; others with the shortest text that reads back to the same
    float, so ``read_swf(write_swf(x))`` equals ``x`` on the SWF columns
    (for a table with at least one job: a table without jobs is written as
    a header, which :func:`read_swf` refuses as a log without jobs).
    """
    validate_jobs(jobs, required=("job_id",), check_values=False, columns=SWF_COLUMNS)
    lines = _header_lines(jobs.attrs, header, comments)
    body = _format_body(jobs)
    if jobs.attrs.get("late_comments"):
        body = _with_late_comments(body, jobs["job_id"], jobs.attrs["late_comments"])
    text = ("\n".join(lines) + "\n" if lines else "") + body
    return write_result(path, text.encode("utf-8"), owner="write_swf")


def _with_late_comments(body, job_ids, late_comments):
    """``body`` with the comments :func:`read_swf` found among the jobs put back: a
    comment line before the first line of its job, an inline one after that line's
    fields; those whose job is not in the table (or None) at the end, in order."""
    try:
        comments = [(job, bool(inline), text) for job, inline, text in late_comments]
    except (TypeError, ValueError):
        raise JobTableError("cannot write SWF: attrs['late_comments'] must be a list of "
                            "[job_id, inline, text]") from None
    _checked([text.lstrip() if isinstance(text, str) else text for _, _, text in comments],
             "attrs['late_comments']", JobTableError)
    rows = body.split("\n")[:-1]
    first_row = {}
    for row, job in enumerate(job_ids.tolist()):
        first_row.setdefault(job, row)
    before, after, inline = {}, [], {}
    for job, is_inline, text in comments:
        row = first_row.get(job)
        if row is None:
            after.append(text.lstrip() if is_inline else text)
        elif is_inline:
            inline[row] = f"{inline[row]} {text}" if row in inline else text
        else:
            before.setdefault(row, []).append(text)
    out = []
    for row, line in enumerate(rows):
        out.extend(before.get(row, ()))
        out.append(f"{line} {inline[row]}" if row in inline else line)
    out.extend(after)
    return "\n".join(out) + "\n"


def _header_lines(attrs, header, comments):
    """The header write_swf writes, or the error naming what read_swf would refuse."""
    notes = [f"; Note: {text}" for text in _checked(comments, "comments", ConfigError,
                                                   prefix="; Note: ")]
    if header is not None:
        lines = _checked(header, "header", ConfigError)
        _check_parses(lines + notes, "header", ConfigError)
        return lines + notes
    if attrs.get("header") is None:
        lines, stored = [], {}
    else:
        lines = _checked(attrs["header"], "attrs['header']", JobTableError)
        stored = _check_parses(lines, "attrs['header']", JobTableError)
    changed = changed_fields(attrs, stored)
    for name in changed:
        problem = field_problem(name, attrs[name])
        if problem:
            raise JobTableError(f"cannot write SWF: attrs[{name!r}] = {short_repr(attrs[name])} "
                                f"is not a valid SWF header value: {problem}")
    if changed:
        lines = merge_header(lines, attrs)
    _check_parses(lines + notes, "the header built from attrs", JobTableError)
    return lines + notes


def _checked(lines, what, error, *, prefix=""):
    """``lines`` (one string is one line) as a list, each a header line read_swf keeps as one."""
    try:
        lines = [lines] if isinstance(lines, str) else list(lines)
    except TypeError:
        raise error(f"cannot write SWF: {what} must be text or a list of text, got "
                    f"{type(lines).__name__}") from None
    for number, line in enumerate(lines):
        if not isinstance(line, str):
            raise error(f"cannot write SWF: {what}[{number}] is {type(line).__name__}, not text")
        problem = line_problem(prefix + line)
        if problem:
            raise error(f"cannot write SWF: {what}[{number}] {problem}: {short_repr(line)}")
    return lines


def _check_parses(lines, what, error):
    try:
        return parse_header(lines)
    except SWFFormatError as exc:
        raise error(f"cannot write SWF: {what} would not read back: {exc}") from None


def _format_body(jobs):
    out = {}
    n = len(jobs)
    for name in SWF_COLUMNS:
        if name not in jobs.columns:
            out[name] = np.full(n, -1, dtype=np.int64)
            continue
        values = jobs[name].to_numpy(dtype=np.float64, na_value=np.nan)
        values = np.where(np.isnan(values), -1.0, values)
        for bad, reason in _column_rules(name, values):
            if bad.any():
                position = int(np.argmax(bad))
                raise JobTableError(
                    f"cannot write SWF: column {name!r} {reason} ({int(bad.sum())} row(s); "
                    f"first at row {position}, job_id {jobs['job_id'].iloc[position]}: "
                    f"{float(values[position])!r})"
                )
        integral = values == np.round(values)
        if integral.all():
            out[name] = values.astype(np.int64)
        else:
            text = values.astype(str)
            text[integral] = values[integral].astype(np.int64).astype(str)
            out[name] = text
    frame = pd.DataFrame(out)
    return frame.to_csv(sep=" ", header=False, index=False, lineterminator="\n",
                        float_format=None)

"""Reading and writing the Standard Workload Format (SWF).

SWF (Feitelson et al., Parallel Workloads Archive) is a text format: header
comment lines starting with ``;`` and one job per line with 18
whitespace-separated numeric fields, ``-1`` meaning unknown.
"""

import gzip
import io
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._atomic import open_output
from ..exceptions import SWFFormatError
from ..jobs import INTEGER_COLUMNS, SWF_COLUMNS, validate_jobs
from ._header import format_header, parse_header

__all__ = ["read_swf", "write_swf"]

_N_FIELDS = len(SWF_COLUMNS)
_NUMBER = re.compile(rb"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_MAX_REPORTED = 10


def read_swf(path_or_buffer, *, errors="raise"):
    """Read an SWF log (plain or gzip) into a job table.

    Parameters
    ----------
    path_or_buffer : str, path or binary file-like
        The log. Gzip is detected from the content (magic bytes), so both
        ``log.swf`` and ``log.swf.gz`` work, as does a stream such as stdin.
    errors : {"raise", "skip"}
        What to do with malformed job lines (a field count other than 18, or
        a field that is not a number). ``"raise"`` raises
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
        lines under ``"header"`` and the source under ``"source"``.

    Raises
    ------
    SWFFormatError
        On a malformed line (with ``errors="raise"``), a missing job id, or a
        file without any job line that is not empty of jobs by design.
    FileNotFoundError
        If the file does not exist.

    Examples
    --------
    >>> import io, predictkit as pk
    >>> text = b"; MaxProcs: 8\\n1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1\\n"
    >>> jobs = pk.read_swf(io.BytesIO(text))
    >>> jobs.attrs["max_procs"], float(jobs.loc[0, "run_time"])
    (8, 60.0)
    """
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', got {errors!r}")
    source, data = _read_bytes(path_or_buffer)
    header_lines = _leading_comments(data)
    try:
        table = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=range(_N_FIELDS),
            comment=";", dtype=np.float64, engine="c", na_filter=False,
        )
        values = table.to_numpy(dtype=np.float64)
        skipped = []
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        if isinstance(exc, pd.errors.EmptyDataError):
            values, skipped = np.empty((0, _N_FIELDS)), []
        else:
            values, skipped = _parse_slowly(data, source, errors)
    jobs = _to_job_table(values, source)
    attrs = parse_header(header_lines)
    attrs["header"] = header_lines
    attrs["source"] = source
    if skipped:
        attrs["skipped_lines"] = len(skipped)
        attrs["skipped_line_numbers"] = skipped[:_MAX_REPORTED]
        shown = ", ".join(map(str, skipped[:_MAX_REPORTED]))
        more = ", ..." if len(skipped) > _MAX_REPORTED else ""
        warnings.warn(
            f"{source}: skipped {len(skipped)} malformed line(s) (lines {shown}{more})",
            UserWarning, stacklevel=2,
        )
    jobs.attrs = attrs
    return jobs


def _read_bytes(path_or_buffer):
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = Path(path_or_buffer)
        raw = path.read_bytes()
        source = str(path)
    elif hasattr(path_or_buffer, "read"):
        raw = path_or_buffer.read()
        if isinstance(raw, str):
            raw = raw.encode()
        source = getattr(path_or_buffer, "name", None)
        source = source if isinstance(source, str) else "<buffer>"
    else:
        raise TypeError(
            f"read_swf needs a path or a binary file object, got {type(path_or_buffer).__name__}"
        )
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise SWFFormatError(f"corrupt or truncated gzip data ({exc})", source=source) from None
    return source, raw


def _leading_comments(data):
    lines = []
    for line in io.BytesIO(data):
        stripped = line.strip()
        if stripped and not stripped.startswith(b";"):
            break
        if stripped:
            lines.append(line.rstrip(b"\r\n").decode("utf-8", errors="replace"))
    return lines


def _parse_slowly(data, source, errors):
    """Parse line by line to find malformed lines (only after the fast path failed)."""
    rows, skipped = [], []
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
                problem = f"field {fields.index(bad[0]) + 1} is not a number ({bad[0].decode(errors='replace')!r})"
        if problem is None:
            rows.append([float(f) for f in fields])
        elif errors == "raise":
            raise SWFFormatError(problem, source=source, line_number=number,
                                 line=line.decode("utf-8", errors="replace").rstrip("\r"))
        else:
            skipped.append(number)
    values = np.array(rows, dtype=np.float64).reshape(-1, _N_FIELDS)
    return values, skipped


def _to_job_table(values, source):
    columns = {}
    ids = values[:, 0]
    if (ids < 0).any() or (ids != np.round(ids)).any():
        position = int(np.argmax((ids < 0) | (ids != np.round(ids))))
        raise SWFFormatError(
            f"job {position + 1} (in file order) has an invalid job number {ids[position]:g}",
            source=source,
        )
    columns["job_id"] = ids.astype(np.int64)
    for k, name in enumerate(SWF_COLUMNS[1:], start=1):
        column = values[:, k].copy()
        column[column == -1] = np.nan
        columns[name] = column
    return pd.DataFrame(columns)


def write_swf(jobs, path, *, comments=(), header=None):
    """Write a job table as an SWF log, atomically.

    Parameters
    ----------
    jobs : DataFrame
        A job table. Only the 18 SWF columns are written (SWF holds nothing
        else); missing ones are written as ``-1``.
    path : str or path
        Destination. A name ending in ``.gz`` is gzip-compressed (no stored
        name or time stamp, so equal input gives equal bytes). A file is
        written to a temporary file beside it and renamed into place, so a
        reader never sees half a file; it keeps the mode of the file it
        replaces. A symbolic link is followed (the file it points to is
        replaced); a FIFO or a device is written as a stream, ``"-"`` is
        standard output.
    comments : iterable of str
        Extra lines for the header, written as ``; Note: <text>``.
    header : list of str, optional
        Header lines to write verbatim instead of those in
        ``jobs.attrs["header"]`` (or, when that is absent, of the header
        rebuilt from the parsed ``attrs`` keys).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OutputError
        ``path`` is a directory, or its folder is missing or not writable.

    Notes
    -----
    ``NaN`` is written as ``-1``. Values that are whole numbers are written
    as integers; others with the shortest text that reads back to the same
    float, so ``read_swf(write_swf(x))`` equals ``x`` on the SWF columns.
    """
    validate_jobs(jobs, required=("job_id",), check_values=False)
    lines = list(header) if header is not None else list(
        jobs.attrs.get("header") or format_header(jobs.attrs)
    )
    lines += [f"; Note: {text}" for text in comments]
    body = _format_body(jobs)
    text = ("\n".join(lines) + "\n" if lines else "") + body
    payload = text.encode("utf-8")
    path = Path(path)
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0,
                           compresslevel=6) as stream:
            stream.write(payload)
        payload = buffer.getvalue()
    with open_output(path) as stream:
        stream.write(payload)
    return path


def _format_body(jobs):
    out = {}
    n = len(jobs)
    for name in SWF_COLUMNS:
        if name not in jobs.columns:
            out[name] = np.full(n, -1, dtype=np.int64)
            continue
        values = np.asarray(jobs[name], dtype=np.float64)
        values = np.where(np.isnan(values), -1.0, values)
        if not np.isfinite(values).all():
            raise SWFFormatError(f"column {name!r} holds infinite values; SWF cannot store them")
        integral = values == np.round(values)
        if integral.all() and np.abs(values).max(initial=0) < 2**62:
            out[name] = values.astype(np.int64)
        elif name in INTEGER_COLUMNS:
            position = int(np.argmax(~integral))
            raise SWFFormatError(
                f"column {name!r} must hold whole numbers; row {position} has {values[position]!r}"
            )
        else:
            text = values.astype(str)
            whole = integral & (np.abs(values) < 2**62)
            text[whole] = values[whole].astype(np.int64).astype(str)
            out[name] = text
    frame = pd.DataFrame(out)
    return frame.to_csv(sep=" ", header=False, index=False, lineterminator="\n",
                        float_format=None)

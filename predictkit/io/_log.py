"""Reading a job log whatever its format: SWF, ``sacct --parsable2`` or a Batsim JSON
workload, plain or gzip."""

import gzip
import io
import os
import zlib

from .._validation import check_path_or_file
from ..exceptions import ConfigError, SacctFormatError
from ._batsim import read_batsim
from ._sacct import read_sacct
from ._sacct_text import looks_like_sacct, sacct_lookalike
from ._slurm_fields import check_time_zone
from ._source import source_name
from ._swf import read_swf

__all__ = ["read_log", "LOG_FORMATS", "detect_format"]

LOG_FORMATS = ("auto", "swf", "sacct", "batsim")
"""Values of ``format``: detect from the content, or force a format."""

_HEAD_BYTES = 65536


def read_log(path_or_buffer, *, format="auto", time_zone="UTC", errors="raise"):
    """Read a job log into a job table: SWF, Slurm ``sacct`` output or a Batsim JSON
    workload, plain or gzip.

    Parameters
    ----------
    path_or_buffer : str, path or binary file-like
        The log. A buffer that cannot seek (a pipe, standard input) is read
        into memory first, so detecting its format consumes nothing.
    format : {"auto", "swf", "sacct", "batsim"}
        ``"auto"`` reads the first line of the (decompressed) content: a
        ``|``-separated header naming ``JobID`` is ``sacct --parsable2`` (or
        ``--parsable``) output (:func:`~predictkit.io.read_sacct`'s
        ``looks_like_sacct``), a JSON object or array (``{`` or ``[`` first) a Batsim
        workload (:func:`~predictkit.io.read_batsim`, what ``predictkit
        generate --format batsim`` writes), anything else SWF.
    time_zone : str
        For ``sacct`` output: the IANA zone its times are written in (see
        :func:`~predictkit.io.read_sacct`). Ignored for SWF and Batsim.
    errors : {"raise", "skip"}
        What to do with malformed lines (see :func:`~predictkit.io.read_swf`
        and :func:`~predictkit.io.read_sacct`); a Batsim workload, one JSON
        object, is read whole or refused.

    Returns
    -------
    DataFrame
        The job table, as :func:`~predictkit.io.read_swf`,
        :func:`~predictkit.io.read_sacct` or :func:`~predictkit.io.read_batsim`
        returns it.

    Raises
    ------
    ConfigError
        For a ``format`` other than those above, or a ``path_or_buffer``
        that is neither a path nor a file object open for reading (an
        :class:`~predictkit.exceptions.InvalidParameterError`).
    SWFFormatError, SacctFormatError
        For a malformed log (with the file and line number).

    Examples
    --------
    >>> import io
    >>> text = (b"JobID|Submit|Start|End|NCPUS|State\\n"
    ...         b"1|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:11:00|4|COMPLETED\\n")
    >>> read_log(io.BytesIO(text))["run_time"].tolist()
    [600.0]
    """
    check_path_or_file(path_or_buffer, "path_or_buffer", "read_log")
    if format not in LOG_FORMATS:
        raise ConfigError(f"format must be one of {', '.join(map(repr, LOG_FORMATS))}, "
                          f"got {format!r}")
    check_time_zone(time_zone)
    source = path_or_buffer
    if hasattr(source, "read") and not _seekable(source):
        data = source.read()
        buffered = io.BytesIO(data.encode() if isinstance(data, str) else data)
        buffered.name = getattr(source, "name", "<stream>")
        source = buffered
    if format == "auto":
        format = detect_format(source)
    if format == "sacct":
        return read_sacct(source, time_zone=time_zone, errors=errors)
    if format == "batsim":
        return read_batsim(source)
    return read_swf(source, errors=errors)


def detect_format(path_or_buffer):
    """``"sacct"``, ``"batsim"`` or ``"swf"``: the format of a log, from its first
    line (gzip is opened).

    A seekable buffer is left where it was. An unreadable file is called SWF,
    so that the reader names the problem. ``sacct`` output printed without
    its header or with another ``--delimiter`` raises ``SacctFormatError``
    saying so (:func:`~predictkit.io._sacct_text.sacct_lookalike`), rather than
    going to the SWF reader.
    """
    head = _read_head(path_or_buffer)
    if looks_like_sacct(head):
        return "sacct"
    if _looks_like_json(head):
        return "batsim"
    lookalike = sacct_lookalike(head)
    if lookalike is not None:
        problem, number, line = lookalike
        raise SacctFormatError(problem, source=source_name(path_or_buffer), line_number=number,
                               line=line[:200])
    return "swf"


def _looks_like_json(head):
    """Whether the content starts (after white space and a UTF-8 mark) with a JSON object
    or array (no SWF or ``sacct`` line starts with either)."""
    text = head.encode("utf-8", "replace") if isinstance(head, str) else head
    return text.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] in (b"{", b"[")


def _read_head(source):
    if hasattr(source, "read"):
        start = source.tell()
        try:
            return _head(source.read(_HEAD_BYTES))
        finally:
            source.seek(start)
    return _file_head(os.fspath(source))


def _seekable(buffer):
    try:
        return buffer.seekable()
    except (AttributeError, ValueError, OSError):
        return False


def _head(data):
    """The first bytes of ``data``, decompressed when it is gzip (empty when unreadable)."""
    if isinstance(data, str):
        return data
    if data[:2] != b"\x1f\x8b":
        return data[:_HEAD_BYTES]
    head = b""
    # decompressor objects, as data may be only the start of the gzip stream; one per
    # member, as a gzip file may be several members one after the other (an empty first)
    while data[:2] == b"\x1f\x8b" and len(head) < _HEAD_BYTES:
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            head += member.decompress(data, _HEAD_BYTES - len(head))
        except zlib.error:
            break  # the reader names the corrupt data
        if not member.eof:
            break
        data = member.unused_data
    return head


def _file_head(path):
    try:
        with open(path, "rb") as handle:
            start = handle.read(2)
            if start != b"\x1f\x8b":
                return start + handle.read(_HEAD_BYTES)
    except OSError:
        return b""  # the reader names the problem (missing file, link loop, folder)
    try:
        with gzip.open(path, "rb") as stream:
            return stream.read(_HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return b""

"""The bytes of a log, whatever it comes as: a path or a file object, plain or gzip.

One home for what every text reader (SWF, ``sacct``, ``squeue``) must do
before it parses a line: read the path (turning a path that cannot be read
into the reader's one-line error), read a file object, and decompress gzip
data found by its magic bytes, refusing corrupt or truncated gzip and UTF-16
text (which no reader here parses) by name; and, after parsing, what every
reader reports of the malformed lines it skipped.
"""

import gzip
import os
import warnings
import zlib
from pathlib import Path

from .._format import format_count
from .._validation import check_path_or_file
from ..exceptions import InputFileError

__all__ = ["read_source", "source_name", "report_skipped_lines"]

MAX_REPORTED = 10
"""Line numbers of skipped lines kept in ``attrs`` and shown in the warning."""

_GZIP_MAGIC = b"\x1f\x8b"
UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
"""Byte-order marks of UTF-16 text, which no reader takes (job logs and scripts are UTF-8)."""


def read_source(path_or_buffer, error, *, reader, parameter="path_or_buffer"):
    """``(source, data)``: the name of a log and its (decompressed) content.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        The log. A file object may give bytes or text.
    error : type
        The reader's error class (:class:`~predictkit.exceptions.SWFFormatError`
        or a subclass), called as ``error(message, source=...)``.
    reader : str
        The reader's name, for the message when the argument is neither a
        path nor a file object.
    parameter : str
        The name of the reader's argument, for the same message.

    Returns
    -------
    source : str
        The path, the file object's ``name``, or ``"<buffer>"``.
    data : bytes or str
        The content: bytes (gzip already decompressed) or, from a text file
        object, str.

    Raises
    ------
    InputFileError
        When the path does not exist, is a folder or may not be read: also
        the ``FileNotFoundError``, ``IsADirectoryError`` or
        ``PermissionError`` that ``open`` raised.
    error
        For another path that cannot be read (a symbolic link loop, a file
        used as a folder, a name too long), corrupt or truncated gzip data, or
        UTF-16 text, naming the source.
    InvalidParameterError
        When ``path_or_buffer`` is neither a path nor a file object open for
        reading (:func:`predictkit._validation.check_path_or_file`; also a
        ``TypeError``).
    """
    check_path_or_file(path_or_buffer, parameter, reader)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = Path(path_or_buffer)
        source = str(path)
        try:
            data = path.read_bytes()
        except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
            raise InputFileError.from_os_error(exc) from None
        except OSError as exc:  # a symlink loop, a file used as a folder, a too long name...
            raise error(f"cannot read the file: {exc.strerror or exc}", source=source) from None
    else:
        data = path_or_buffer.read()
        source = source_name(path_or_buffer)
    if isinstance(data, bytes):
        if data[:2] == _GZIP_MAGIC:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as exc:
                raise error(f"corrupt or truncated gzip data ({exc})", source=source) from None
        if data[:2] in UTF16_MARKS:
            raise error("is UTF-16 text; job logs are read as UTF-8 or ASCII (convert it, "
                        "e.g. with iconv -f UTF-16 -t UTF-8)", source=source)
        compression = other_compression(data)
        if compression is not None:
            kind, command = compression
            raise error(f"is {kind} data; logs are read plain or gzip-compressed (decompress "
                        f"it first, e.g. with {command})", source=source)
    return source, data


_OTHER_COMPRESSIONS = (
    (b"BZh", (b"1AY&SY", b"\x17rE8P\x90"), "bzip2-compressed", "bunzip2"),
    (b"\xfd7zXZ\x00", None, "xz-compressed", "unxz"),
    (b"\x28\xb5\x2f\xfd", None, "zstd-compressed", "unzstd"),
    (b"PK\x03\x04", None, "a zip archive's", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", None, "a 7-Zip archive's", "7z x"),
)
"""Compressed formats a log may come in besides gzip: (magic bytes at the start, the
marks one of which follows them one byte later (bzip2's block or end mark, after its
level digit) or None, what it is, the command that unpacks it)."""


def compression_of(data):
    """``(what, command)`` when ``data`` starts like compressed data, gzip included,
    else None: for text that no reader decompresses (a batch script)."""
    if data[:2] == _GZIP_MAGIC:
        return "gzip-compressed", "gunzip"
    return other_compression(data)


def other_compression(data):
    """``(what, command)`` when ``data`` starts like a compressed format other than gzip,
    else None (bzip2 is told from text starting "BZh" by its block mark)."""
    for magic, marks, kind, command in _OTHER_COMPRESSIONS:
        if data.startswith(magic) and (marks is None
                                       or data.startswith(marks, len(magic) + 1)):
            return kind, command
    return None


def source_name(path_or_buffer):
    """How messages name a log: its path, the file object's ``name``, or ``"<buffer>"``."""
    if isinstance(path_or_buffer, (str, os.PathLike)):
        return str(Path(path_or_buffer))
    name = getattr(path_or_buffer, "name", None)
    return name if isinstance(name, str) else "<buffer>"


def report_skipped_lines(source, skipped, attrs, *, stacklevel):
    """Record and warn about the malformed lines a reader skipped.

    Parameters
    ----------
    source : str
        The log's name, as :func:`read_source` gives it.
    skipped : list of int
        Line numbers (1-based), ascending; nothing is done when empty.
    attrs : dict
        The job table's ``attrs``: gains ``skipped_lines`` (how many) and
        ``skipped_line_numbers`` (the first :data:`MAX_REPORTED`).
    stacklevel : int
        Of the :class:`UserWarning`, counted from the caller.
    """
    if not skipped:
        return
    attrs["skipped_lines"] = len(skipped)
    attrs["skipped_line_numbers"] = skipped[:MAX_REPORTED]
    shown = ", ".join(map(str, skipped[:MAX_REPORTED]))
    more = ", ..." if len(skipped) > MAX_REPORTED else ""
    warnings.warn(f"{source}: skipped {format_count(len(skipped), 'malformed line')} "
                  f"(line{'s' if len(skipped) > 1 else ''} {shown}{more})",
                  UserWarning, stacklevel=stacklevel + 1)

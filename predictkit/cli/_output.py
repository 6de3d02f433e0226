"""A command's result: where it goes (``-o``, standard output), in which format, checked
before any work so that no input is overwritten, and written atomically."""

import json
import os
import stat
import sys

from ._checks import os_errors

__all__ = ["prints_table", "result_stream", "writes_descriptor", "print_json",
           "check_output_arg",
           "write_table", "table_format", "output_format", "write_swf_output"]


def prints_table(args):
    """Whether a command prints its result table: always without ``-o`` (the table is
    then its only result), and with ``-o`` unless ``--quiet``."""
    return not (args.quiet and args.output)


def result_stream(output):
    """Where a command prints its messages: standard error when the result goes to standard
    output (``-o -``, or a name of it such as ``/dev/stdout``), else standard output."""
    return sys.stderr if writes_descriptor(output) == 1 else sys.stdout


def writes_descriptor(output):
    """The standard stream (1 or 2) ``-o output`` writes to, else None: ``-`` is standard
    output, and ``/dev/stdout``, ``/dev/fd/2`` ... name this process's descriptors."""
    from .._atomic import _open_descriptor

    if not isinstance(output, (str, os.PathLike)):
        return None
    if os.fspath(output) == "-":
        return 1
    number = _open_descriptor(output)
    return number if number in (1, 2) else None


def print_json(obj, stream=None):
    """Print ``obj`` as indented JSON (NaN becomes null)."""
    stream = stream or sys.stdout
    stream.write(json.dumps(_jsonable(obj), indent=2, allow_nan=False) + "\n")


def _jsonable(obj):
    import math

    import numpy as np

    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return None if not math.isfinite(value) else value
    return obj


def check_output_arg(args):
    """Check a command's ``-o/--output`` before anything is read or written.

    Refused with :class:`~predictkit.exceptions.OutputError`: an output that
    is the same file as any other argument value of the command that names
    an existing file (a string, or a list of strings, compared as paths by
    :func:`predictkit._atomic.same_file`: same resolved path, or same device
    and inode), so each command, present or future, is covered without
    naming its inputs (a log named by its archive name is the file it
    names); and an output :func:`predictkit._atomic.open_output` would
    refuse (a directory, a missing or read-only folder). A command whose
    output is a folder sets ``output_is_folder=True`` in its parser
    defaults; its output is refused when it exists and is not a folder (a
    link to nothing too), when its page could not be written in it, or when
    the folder it would be created in does not exist or is not writable.
    """
    from .._atomic import check_output, refuse_inputs

    output = getattr(args, "output", None)
    if getattr(args, "format", None) is not None and not output:
        from ..exceptions import ConfigError

        raise ConfigError(f"--format {args.format} sets the format of -o/--output; give -o "
                          "too (without it the result is printed as a table)")
    if not isinstance(output, str):
        return
    values = []
    for key, value in vars(args).items():
        if key in ("output", "command"):
            continue
        values += [value] if isinstance(value, str) else (
            [v for v in value if isinstance(v, str)] if isinstance(value, (list, tuple)) else [])
    from ._logs import _named_trace

    # only values naming an existing file can be inputs (this leaves out --policy easy),
    # directly or by a log's archive name (found in PREDICTKIT_TRACES or the cache)
    inputs = [v for v in values if v and os.path.lexists(v)]
    inputs += [found for found in map(_named_trace, values) if found is not None]
    refuse_inputs(output, inputs, name="-o")
    _refuse_standard_streams(output, inputs, reads_stdin="-" in values)
    if writes_descriptor(output) == 2:
        from ..exceptions import OutputError

        raise OutputError(f"-o {output} is standard error, which carries the command's "
                          "progress lines and warnings: they would be mixed into the result "
                          "(use -o - for standard output, or a file)")
    if getattr(args, "output_is_folder", False) and output != "-":
        # the folder's page (report, demo) must not be one of the inputs either
        refuse_inputs(os.path.join(output, "index.html"), inputs, name="-o")
    if not getattr(args, "output_is_folder", False):
        check_output(output)
    elif output != "-":
        _check_output_folder(output)


def _check_output_folder(output):
    """Refuse now a report folder the command could not write its page in."""
    from .._atomic import check_output
    from ..exceptions import OutputError

    parent = os.path.dirname(os.path.abspath(output))
    if os.path.lexists(output) and not os.path.isdir(output):
        raise OutputError(f"-o {output} is not a folder"
                          + (" (a link to nothing)" if not os.path.exists(output) else ""))
    if os.path.isdir(output):
        try:
            check_output(os.path.join(output, "index.html"))
        except OutputError as exc:
            raise OutputError(f"-o {output}: {exc}") from None
    elif not os.path.isdir(parent):
        raise OutputError(f"-o {output}: the folder {os.path.dirname(output) or '.'} does "
                          "not exist (a report folder is created only inside one that does)")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"-o {output}: the folder {os.path.dirname(output) or '.'} is not "
                          "writable, so the report folder cannot be created in it")


def _same_as_stream(fd, path):
    """Whether the standard stream ``fd`` is the regular file ``path`` (redirected to it)."""
    try:
        stream, named = os.fstat(fd), os.stat(path)
    except (OSError, ValueError, TypeError):
        return False
    return stat.S_ISREG(stream.st_mode) and (stream.st_dev, stream.st_ino) == (
        named.st_dev, named.st_ino)


def _refuse_standard_streams(output, inputs, *, reads_stdin):
    """Refuse ``-o FILE`` when the log comes on standard input from FILE
    (``< FILE``), and ``-o -`` when standard output goes to an input
    (``> FILE``, ``>> FILE``): either would destroy the input."""
    from ..exceptions import OutputError

    if output == "-":
        for path in inputs:
            if _same_as_stream(1, path):
                raise OutputError(f"-o -: standard output is {path}, an input of the command: "
                                  "writing it would destroy what the result is computed from")
    elif reads_stdin and _same_as_stream(0, output):
        raise OutputError(f"-o {output} is the file given on standard input: writing it would "
                          "destroy what the result is computed from")


def write_table(frame, output, fmt=None):
    """Write a result table as CSV or JSON records (:func:`predictkit._atomic.open_output`).

    ``-`` writes to standard output. The format is ``fmt`` (from
    ``--format``), else the file extension (``.json`` or ``.csv``, either
    followed by ``.gz``), else CSV for standard output, a FIFO or a device. A
    name ending in ``.gz`` is gzip-compressed. Both keep every digit: a JSON
    number reads back as the very float written (:func:`json_records`), and
    NaN and infinities, which JSON has no number for, are null.
    """
    from .._atomic import gzip_if_named, open_output

    fmt = table_format(output, fmt)
    text = frame.to_csv(index=False) if fmt == "csv" else json_records(frame)
    with os_errors("-o", output), open_output(output) as stream:
        stream.write(gzip_if_named(output, text.encode("utf-8")))


def json_records(frame):
    """``frame`` as a JSON array of one object per row, every float in its shortest
    form that reads back exactly (Python's ``repr``; pandas' ``to_json`` keeps at most
    15 decimals); a missing or infinite value is null."""
    keys = [json.dumps(str(name)) + ":" for name in frame.columns]
    columns = [_json_texts(frame.iloc[:, i]) for i in range(frame.shape[1])]
    rows = ("{" + ",".join([key + value for key, value in zip(keys, row)]) + "}"
            for row in zip(*columns))
    return "[" + ",".join(rows) + "]"


def _json_texts(column):
    """The JSON text of each value of one column."""
    import math

    kind = column.dtype.kind
    if kind == "f" and not hasattr(column.dtype, "na_value"):
        return [repr(v) if math.isfinite(v) else "null" for v in column.tolist()]
    if kind in "iu" and not hasattr(column.dtype, "na_value"):
        return [str(v) for v in column.tolist()]
    missing = column.isna().to_numpy()
    return ["null" if gone else json.dumps(_jsonable(value), allow_nan=False, default=str)
            for value, gone in zip(column.tolist(), missing)]


def table_format(output, fmt=None):
    """The format :func:`write_table` uses for ``-o output``; call it before any work.

    Refuses (:class:`~predictkit.exceptions.ConfigError`) an output whose
    extension is neither ``.csv`` nor ``.json`` without ``--format``, and a
    ``--format`` other than csv or json.
    """
    from .._atomic import is_stream
    from ..exceptions import ConfigError

    name = str(output).lower().removesuffix(".gz")
    if fmt is None:
        if name.endswith(".csv") or is_stream(output):
            fmt = "csv"
        elif name.endswith(".json"):
            fmt = "json"
        else:
            raise ConfigError(f"-o {output}: use a .csv or .json file name, or --format")
    if fmt not in ("csv", "json"):
        raise ConfigError(f"--format {fmt} is not available here; use csv or json")
    return fmt


_TABLE_EXTENSIONS = ("parquet", "csv", "json", "swf")
"""Extensions that name a format: an output so named is never written in another one."""


def output_format(output, fmt, formats, *, default=None, extensions=None):
    """The format of ``-o output``: ``--format``, else the file extension, else ``default``.

    Refuses a format the command cannot write, an output named for a table
    format the command does not write (``.parquet``, or ``.json`` / ``.csv``
    where those are not among ``formats``) unless ``--format`` says what to
    write, and an output whose extension says nothing when there is no
    default. ``extensions`` maps a format to the extension that names it
    when that is not the format's name (``{"batsim": "json"}``).
    """
    from ..exceptions import ConfigError

    extensions = {f: (extensions or {}).get(f, f) for f in formats}
    endings = ", ".join("." + extensions[f] for f in formats)
    if fmt is None:
        name = str(output).lower()
        for candidate in formats:
            ending = extensions[candidate]
            if name.endswith((f".{ending}", f".{ending}.gz")):
                fmt = candidate
                break
        else:
            other = next((kind for kind in _TABLE_EXTENSIONS
                          if name.endswith((f".{kind}", f".{kind}.gz"))), None)
            if other is not None:
                raise ConfigError(f"-o {output}: this command does not write {other}; give "
                                  f"a file name ending in {endings}, or --format")
            fmt = default
    if fmt is None:
        raise ConfigError(f"-o {output}: give a file name ending in {endings}, or --format")
    if fmt not in formats:
        raise ConfigError(f"--format {fmt} is not available here; use {', '.join(formats)}")
    return fmt


def write_swf_output(jobs, output, *, comments=()):
    """Write ``jobs`` as SWF to ``-o output`` (``-`` is standard output)."""
    from ..io import write_swf

    with os_errors("-o", output):
        write_swf(jobs, output, comments=comments)

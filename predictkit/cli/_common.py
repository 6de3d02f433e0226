"""Options and helpers shared by the subcommands."""

import json
import os
import sys

__all__ = ["add_output_options", "print_json", "read_trace_arg", "write_table",
           "check_output_arg", "result_stream"]


def add_output_options(parser, *, formats=("swf", "csv", "json"), default=None):
    """Add ``-o/--output``, ``--format`` and ``--quiet`` to a subcommand parser."""
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="where to write the result ('-' for standard output)")
    parser.add_argument("--format", choices=formats, default=default,
                        help="output format (default: from the file extension)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print nothing but errors")


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


def read_trace_arg(path, **kwargs):
    """Read the trace named on the command line (a file, ``-`` for stdin, or a catalogue name)."""
    from ..io import read_swf

    if path == "-":
        return read_swf(sys.stdin.buffer, **kwargs)
    return read_swf(path, **kwargs)


def check_output_arg(args):
    """Check a command's ``-o/--output`` before anything is read or written.

    Refused with :class:`~predictkit.exceptions.OutputError`: an output that
    is the same file as any other argument value of the command that names
    an existing file (a string, or a list of strings, compared as paths by
    :func:`predictkit._atomic.same_file`: same resolved path, or same device
    and inode), so each command, present or future, is covered without
    naming its inputs; and an output :func:`predictkit._atomic.open_output`
    would refuse (a directory, a missing or read-only folder). A command
    whose output is a folder sets ``output_is_folder=True`` in its parser
    defaults; its output is refused only when it exists and is not a folder.
    """
    from .._atomic import check_output, refuse_inputs
    from ..exceptions import OutputError

    output = getattr(args, "output", None)
    if not isinstance(output, str):
        return
    values = []
    for key, value in vars(args).items():
        if key in ("output", "command"):
            continue
        values += [value] if isinstance(value, str) else (
            [v for v in value if isinstance(v, str)] if isinstance(value, (list, tuple)) else [])
    # only values naming an existing file can be inputs (this leaves out --policy easy)
    refuse_inputs(output, [v for v in values if v and os.path.lexists(v)], name="-o")
    if not getattr(args, "output_is_folder", False):
        check_output(output)
    elif output != "-" and os.path.exists(output) and not os.path.isdir(output):
        raise OutputError(f"-o {output} is not a folder")


def result_stream(output):
    """Where a command prints its messages: standard error when the result goes to stdout."""
    return sys.stderr if output == "-" else sys.stdout


def write_table(frame, output, fmt=None):
    """Write a result table as CSV or JSON records (:func:`predictkit._atomic.open_output`).

    ``-`` writes to standard output. The format is ``fmt`` (from
    ``--format``), else the file extension (``.json`` or ``.csv``), else CSV
    for standard output, a FIFO or a device.
    """
    from .._atomic import is_stream, open_output
    from ..exceptions import ConfigError

    name = str(output).lower()
    if fmt is None:
        if name.endswith(".csv") or is_stream(output):
            fmt = "csv"
        elif name.endswith(".json"):
            fmt = "json"
        else:
            raise ConfigError(f"-o {output}: use a .csv or .json file name, or --format")
    if fmt not in ("csv", "json"):
        raise ConfigError(f"--format {fmt} is not available here; use csv or json")
    text = frame.to_csv(index=False) if fmt == "csv" else frame.to_json(orient="records")
    with open_output(output) as stream:
        stream.write(text.encode("utf-8"))

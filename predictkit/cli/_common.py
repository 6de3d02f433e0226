"""Options and helpers shared by the subcommands."""

import json
import sys

__all__ = ["add_output_options", "print_json", "read_trace_arg"]


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


def write_table(frame, output, fmt=None):
    """Write a result table as CSV or JSON records, atomically; ``-`` writes to stdout.

    The format is ``fmt`` (from ``--format``), else the file extension
    (``.json`` or ``.csv``), else CSV for standard output.
    """
    from .._atomic import atomic_write
    from ..exceptions import ConfigError

    name = str(output).lower()
    if fmt is None:
        if output == "-" or name.endswith(".csv"):
            fmt = "csv"
        elif name.endswith(".json"):
            fmt = "json"
        else:
            raise ConfigError(f"-o {output}: use a .csv or .json file name, or --format")
    if fmt not in ("csv", "json"):
        raise ConfigError(f"--format {fmt} is not available here; use csv or json")
    text = frame.to_csv(index=False) if fmt == "csv" else frame.to_json(orient="records")
    if output == "-":
        sys.stdout.write(text)
        return
    with atomic_write(output) as stream:
        stream.write(text.encode("utf-8"))

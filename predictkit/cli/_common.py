"""Options and helpers shared by the subcommands."""

import argparse
import contextlib
import json
import sys
import time

from ._checks import os_errors

__all__ = ["add_output_options", "print_json", "read_trace_arg", "write_table", "add_command",
           "HelpFormatter", "DeprecatedAlias", "Progress", "write_swf_output", "output_format"]


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
    with os_errors("-o", output), atomic_write(output) as stream:
        stream.write(text.encode("utf-8"))


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` text that shows each option's default (and its choices).

    Options whose help already states the default, flags (``store_true``)
    and options without a default are left as written.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        if ("%(default)" in text or action.default in (None, argparse.SUPPRESS)
                or isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
                or not action.option_strings):
            return text
        return text + " (default: %(default)s)"


def add_command(subparsers, name, **kwargs):
    """Add the parser of subcommand ``name`` with the shared help layout."""
    kwargs.setdefault("formatter_class", HelpFormatter)
    return subparsers.add_parser(name, **kwargs)


class DeprecatedAlias(argparse.Action):
    """A hidden old spelling of an option: stores into the new option and warns once.

    Use as ``parser.add_argument("--procs", dest="n_procs", type=int,
    action=DeprecatedAlias, new="--n-procs", help=argparse.SUPPRESS)``.
    """

    def __init__(self, option_strings, dest, *, new, **kwargs):
        self.new = new
        kwargs.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: warning: {option_string} is deprecated; use {self.new}",
              file=sys.stderr)
        setattr(namespace, self.dest, values)


class Progress:
    """Progress of a command on standard error: its settings, then one line per step.

    Each finished step prints ``predictkit CMD: <what was done> in 4.1 s``,
    whether standard error is a terminal or not (so logs of batch jobs show
    where the time went); ``quiet`` silences everything. The settings line
    is printed with the first progress line, so that a command failing on
    its input (a missing file) prints only its one-line error.

    Parameters
    ----------
    command : str
        The subcommand's name.
    quiet : bool
        Print nothing (``--quiet``).
    """

    def __init__(self, command, *, quiet=False):
        self.command = command
        self.quiet = quiet
        self.pending = None

    def say(self, text):
        """Print ``predictkit CMD: text`` on standard error (unless quiet)."""
        if self.quiet:
            return
        if self.pending is not None:
            pending, self.pending = self.pending, None
            self.say(pending)
        print(f"predictkit {self.command}: {text}", file=sys.stderr, flush=True)

    def settings(self, **values):
        """Echo the settings in effect, ``name=value`` in the order given (see the class)."""
        self.pending = " ".join(f"{k.replace('_', '-')}={_setting(v)}" for k, v in values.items())

    @contextlib.contextmanager
    def step(self, done):
        """Time the enclosed work and then print ``done`` with the elapsed time.

        ``done`` is a string, or a callable returning one (called after the
        work, so it can count what the work produced).
        """
        started = time.perf_counter()
        yield
        text = done() if callable(done) else done
        self.say(f"{text} in {_seconds(time.perf_counter() - started)}")


def _setting(value):
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_setting(v) for v in value)
    return "none" if value is None else str(value)


def _seconds(elapsed):
    return f"{elapsed:.1f} s" if elapsed < 120 else f"{elapsed / 60:.1f} min"

def write_swf_output(jobs, output, *, comments=()):
    """Write ``jobs`` as SWF to the file ``output``, or to standard output for ``-``."""
    import os
    import tempfile

    from ..io import write_swf

    if output != "-":
        with os_errors("-o", output):
            write_swf(jobs, output, comments=comments)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.swf")
        write_swf(jobs, path, comments=comments)
        sys.stdout.flush()
        with open(path, "rb") as handle:
            sys.stdout.buffer.write(handle.read())
        sys.stdout.buffer.flush()

def output_format(output, fmt, formats, *, default=None):
    """The format of ``-o output``: ``--format``, else the file extension, else ``default``.

    Refuses a format the command cannot write, and an output whose extension
    says nothing when there is no default.
    """
    from ..exceptions import ConfigError

    if fmt is None:
        name = str(output).lower()
        for candidate in formats:
            if name.endswith((f".{candidate}", f".{candidate}.gz")):
                fmt = candidate
                break
        else:
            fmt = default
    if fmt is None:
        raise ConfigError(f"-o {output}: give a file name ending in "
                          f"{', '.join('.' + f for f in formats)}, or --format")
    if fmt not in formats:
        raise ConfigError(f"--format {fmt} is not available here; use {', '.join(formats)}")
    return fmt

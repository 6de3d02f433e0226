"""Options and helpers shared by the subcommands."""

import argparse
import contextlib
import json
import re
import sys
import time

__all__ = ["add_output_options", "print_json", "read_trace_arg", "add_command", "HelpFormatter",
           "DeprecatedAlias", "Progress", "flag_names", "cli_wording", "check_positive",
           "check_seed", "write_swf_output", "os_errors", "format_number", "format_table",
           "output_format", "check_procs", "check_count"]


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


@contextlib.contextmanager
def flag_names(mapping):
    """Re-word the library's parameter names as command-line flags in errors raised inside.

    ``mapping`` is ``{"n_jobs": "--jobs", ...}``; each whole-word occurrence
    of a parameter name in the message of a :class:`ConfigError`,
    :class:`SimulationError`, :class:`JobTableError` or :class:`DatasetError`
    becomes the flag, and remaining Python wording (``truncate=True``,
    ``fetch_pwa('X')``) is replaced by the command-line way to say it.
    """
    from ..exceptions import PredictkitError

    try:
        yield
    except PredictkitError as exc:
        text = str(exc)
        worded = cli_wording(text, mapping)
        if worded == text:
            raise
        raise _same_kind(exc, worded) from exc


def cli_wording(text, mapping=None):
    """``text`` with parameter names replaced by flags (see :func:`flag_names`)."""
    for python, flag in _PYTHON_WORDING:
        text = re.sub(python, flag, text)
    for name, flag in (mapping or {}).items():
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w(])", flag, text)
    return text


_PYTHON_WORDING = (
    (r"pass truncate=True", "give --truncate"),
    (r"predictkit\.datasets\.list_traces\(\) or ", ""),
    (r"fetch_pwa\('([^']*)'\) or download_if_missing=True", r"predictkit fetch \1"),
    (r"errors='skip'", "--skip-bad-lines"),
    (r"predictkit\.clean_jobs\(jobs\), which reports what it removed", "clean the log first"),
)


def _same_kind(exc, message):
    from ..exceptions import ConfigError

    try:
        new = type(exc)(message)
    except TypeError:
        new = ConfigError(message)
    if str(new) != message:
        new = ConfigError(message)
    return new


def check_positive(value, flag, *, allow_zero=False):
    """Refuse a negative (or zero) integer or number given to ``flag``."""
    from ..exceptions import ConfigError

    if value is None:
        return value
    if allow_zero and value < 0:
        raise ConfigError(f"{flag} must be 0 or more, got {value}")
    if not allow_zero and not value > 0:
        raise ConfigError(f"{flag} must be positive, got {value}")
    return value


MAX_PROCS = 2**53
"""Largest machine a command accepts (processor counts are exact in float64 below it)."""


def check_procs(value, flag="--n-procs"):
    """Refuse a machine size that is not positive or too large to count exactly."""
    from ..exceptions import ConfigError

    check_positive(value, flag)
    if value is not None and value > MAX_PROCS:
        raise ConfigError(f"{flag} must be at most {MAX_PROCS:,}, got {value:,}")
    return value


def check_seed(value, flag="--seed"):
    """Refuse a seed that not every random generator takes (scikit-learn's range)."""
    from ..exceptions import ConfigError

    if value is not None and not 0 <= value <= MAX_SEED:
        raise ConfigError(f"{flag} must be a whole number from 0 to {MAX_SEED:,}, got {value}")
    return value


MAX_SEED = 2**32 - 1
"""Largest seed: numpy's legacy generator and scikit-learn take no larger one."""


def check_count(value, flag, *, low=1):
    """Refuse a count below ``low`` or beyond what a compiled kernel can hold (int64)."""
    from ..exceptions import ConfigError

    if value is not None and not low <= value < 2**62:
        raise ConfigError(f"{flag} must be a whole number from {low} to {2**62 - 1:,}, "
                          f"got {value}")
    return value


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


@contextlib.contextmanager
def os_errors(flag, path=None):
    """Turn an operating-system error on the file ``path`` given to ``flag`` into one line.

    Missing files and folders, folders and permissions are left to
    :func:`predictkit.cli.main`, which words them already.
    """
    from ..exceptions import ConfigError

    try:
        yield
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except OSError as exc:
        name = path if path is not None else exc.filename
        where = f" {name}" if name is not None else ""
        raise ConfigError(f"{flag}{where}: {exc.strerror or exc}") from None


def format_number(value):
    """Every number in a command's table: thousands separators, three decimals for floats.

    Integers (counts) are shown without decimals; unknown values as ``n/a``.
    """
    import math
    import numbers

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:,.3f}"


def format_table(frame):
    """A result table as text: numbers in :func:`format_number`'s format, no index."""
    import pandas as pd

    shown = frame.copy()
    for column in shown.columns:
        if not pd.api.types.is_bool_dtype(shown[column]):
            shown[column] = [format_number(v) for v in shown[column].tolist()]
    with pd.option_context("display.width", 200, "display.max_rows", 200,
                           "display.max_columns", 50):
        return shown.to_string(index=False)


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

"""Options and helpers shared by the subcommands."""

import argparse
import contextlib
import json
import os
import stat
import sys
import time
import warnings

from .._compile_clock import compile_seconds
from .._format import format_count, format_given
from .._table import copy_attrs
from ..io._log import LOG_FORMATS  # the values of --input-format
from ._checks import os_errors

__all__ = ["add_output_options", "add_quiet_option", "add_log_argument", "LogPath", "StoreLog",
           "refuse_log_options", "read_trace_arg", "read_jobs_to_simulate", "source_name",
           "read_done", "write_table", "table_format", "check_output_arg", "check_stdin_once",
           "result_stream", "add_command", "ArgumentParser", "HelpFormatter", "prints_table",
           "DeprecatedAlias", "Progress", "write_swf_output", "output_format", "print_json",
           "one_line_warning", "cancelled_note", "add_machine_procs_option",
           "warn_busier_than_machine", "with_machine_size"]


def add_output_options(parser, *, formats=("swf", "csv", "json"), default=None, fallback=None):
    """Add ``-o/--output``, ``--format`` and ``--quiet`` to a subcommand parser.

    ``fallback``: the format written when the output's extension names none
    (the ``default`` of :func:`output_format`), for the help text.
    """
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="where to write the result ('-' for standard output)")
    otherwise = f", else {fallback}" if fallback else ""
    parser.add_argument("--format", choices=formats, default=default,
                        help=f"output format (default: from the file extension{otherwise})")
    add_quiet_option(parser)


def add_quiet_option(parser, still="the result still goes to -o, or without -o to standard "
                                   "output"):
    """Add ``-q/--quiet``: no progress lines or notes, but errors, warnings and the result
    (``still`` says where the result goes)."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help=f"print no progress lines or notes, only errors and warnings; "
                             f"{still}")


def prints_table(args):
    """Whether a command prints its result table: always without ``-o`` (the table is
    then its only result), and with ``-o`` unless ``--quiet``."""
    return not (args.quiet and args.output)


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


class LogPath(str):
    """A log named on the command line, remembering the options that say how to read it.

    :func:`add_log_argument` stores each log as a ``LogPath`` that holds the
    parsed namespace, so :func:`read_trace_arg` sees ``--input-format`` and
    ``--time-zone`` wherever they stand on the command line (``--time-zone``
    is None when not given: UTC, and no warning for an SWF log).
    """

    namespace = None
    prog = "predictkit"

    @classmethod
    def bound(cls, value, namespace, *, prog="predictkit"):
        path = cls(value)
        path.namespace = namespace
        path.prog = prog
        return path

    def option(self, name, default):
        return getattr(self.namespace, name, default)


class StoreLog(argparse.Action):
    """Store a log argument as a :class:`LogPath` that reads the command's
    ``--input-format`` and ``--time-zone`` (``action=`` of a second log option)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if isinstance(values, list):
            values = [LogPath.bound(v, namespace, prog=parser.prog) for v in values]
        else:
            values = LogPath.bound(values, namespace, prog=parser.prog)
        setattr(namespace, self.dest, values)


def add_log_argument(parser, *, dest="trace", flag=None, nargs=None, help=None):
    """Add the job-log argument of a subcommand, with ``--input-format`` and ``--time-zone``.

    Every command that reads a log declares it with this helper, so every one
    of them reads SWF, Slurm ``sacct --parsable2`` output and Batsim JSON
    workloads (each plain or gzip), and ``-`` for standard input.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    dest : str, default="trace"
        Attribute of the parsed arguments that holds the log (a :class:`LogPath`,
        or a list of them with ``nargs``).
    flag : str, optional
        Declare the log as this option (``"--estimates-for"``) instead of a
        positional argument.
    nargs : str, optional
        ``"+"`` for several logs.
    help : str, optional
        What the log is for; the accepted formats are appended.
    """
    what = (help + ": " if help else "") + (
        "SWF, sacct --parsable2 output or a Batsim JSON workload, plain or .gz; '-' for "
        "standard input")
    if flag is None:
        parser.add_argument(dest, nargs=nargs, metavar="TRACE", action=StoreLog, help=what)
    else:
        parser.add_argument(flag, dest=dest, nargs=nargs, metavar="TRACE", action=StoreLog,
                            default=None, help=what)
    parser.add_argument(
        "--input-format", choices=LOG_FORMATS, default="auto",
        help="format of the log: auto (sacct when the first line names JobID|..., Batsim "
             "when it starts a JSON object, else SWF), swf, sacct or batsim (default: "
             "%(default)s)")
    parser.add_argument(
        "--time-zone", default=None, metavar="ZONE",
        help="sacct input: the IANA zone sacct printed its times in, e.g. "
             "Europe/Paris (default: UTC); a warning says when the log is SWF")


def refuse_log_options(args, reads_a_log, where):
    """Refuse ``--time-zone`` and ``--input-format`` when the command reads no log.

    ``reads_a_log`` says whether it does with the options given; ``where``
    names the options that give a log (``"--trace"``), for the message.
    """
    from ..exceptions import ConfigError

    if reads_a_log:
        return
    for dest, flag, default in (("time_zone", "--time-zone", None),
                                ("input_format", "--input-format", "auto")):
        if getattr(args, dest, default) != default:
            raise ConfigError(f"{flag} applies to {where} only (the log it reads)")


def read_trace_arg(path, **kwargs):
    """Read the log named on the command line: SWF, ``sacct`` output or a Batsim workload, a
    file or ``-`` (stdin).

    The format is the ``--input-format`` of the command line (a :class:`LogPath`
    remembers it), ``auto`` for a plain string; :func:`predictkit.io.read_log`
    reads it. Standard input and pipes (such as ``<(sacct ...)``) are read into
    memory first, since they can be read only once.

    Parameters
    ----------
    path : str or LogPath
        File name, or ``-`` for standard input.
    **kwargs
        Passed to :func:`~predictkit.io.read_log` (e.g. ``errors="skip"``).
    """
    import io

    from ..io import read_log
    from ..io._log import detect_format
    from ..io._slurm_fields import check_time_zone

    fmt = path.option("input_format", "auto") if isinstance(path, LogPath) else "auto"
    zone = path.option("time_zone", None) if isinstance(path, LogPath) else None
    if zone is not None:
        check_time_zone(zone, "--time-zone")
    if path == "-" or not _is_regular_file(str(path)):
        # A stream (stdin, a pipe such as <(sacct ...)) can be read only once.
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(str(path), "rb") as handle:
                data = handle.read()
        source = io.BytesIO(data)
        source.name = "<stdin>" if path == "-" else str(path)
    else:
        source = str(path)
    if fmt == "auto":
        fmt = detect_format(source)
    jobs = read_log(source, format=fmt, time_zone="UTC" if zone is None else zone, **kwargs)
    if zone is not None and fmt != "sacct":
        warnings.warn(f"--time-zone applies to sacct input only; {path} is "
                      f"{'SWF' if fmt == 'swf' else 'a Batsim workload'}", UserWarning,
                      stacklevel=2)
    return jobs


def _is_regular_file(path):
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let open() name the problem


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
    defaults; its output is refused when it exists and is not a folder, or
    when the folder it would be created in does not exist.
    """
    from .._atomic import check_output, refuse_inputs
    from ..exceptions import OutputError

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
    # only values naming an existing file can be inputs (this leaves out --policy easy)
    inputs = [v for v in values if v and os.path.lexists(v)]
    refuse_inputs(output, inputs, name="-o")
    _refuse_standard_streams(output, inputs, reads_stdin="-" in values)
    if getattr(args, "output_is_folder", False) and output != "-":
        # the folder's page (report, demo) must not be one of the inputs either
        refuse_inputs(os.path.join(output, "index.html"), inputs, name="-o")
    if not getattr(args, "output_is_folder", False):
        check_output(output)
    elif output != "-" and os.path.exists(output) and not os.path.isdir(output):
        raise OutputError(f"-o {output} is not a folder")
    elif output != "-" and not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        raise OutputError(f"-o {output}: the folder {os.path.dirname(output) or '.'} does "
                          "not exist (a report folder is created only inside one that does)")


def check_stdin_once(args):
    """Refuse a command line that names standard input (``-``) as more than one input.

    Standard input can be read only once: the second reader would see an
    empty stream and report a misleading "empty file" error.
    """
    from ..exceptions import ConfigError

    uses = []
    for key, value in vars(args).items():
        if key == "output":
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        uses += [key for v in values if isinstance(v, str) and v == "-"]
    if len(uses) > 1:
        names = ", ".join(sorted({k.replace("_", "-") for k in uses}))
        raise ConfigError(f"standard input ('-') is given {len(uses)} times ({names}); it can "
                          "be read only once: save all but one input to a file")


def result_stream(output):
    """Where a command prints its messages: standard error when the result goes to stdout."""
    return sys.stderr if output == "-" else sys.stdout


def write_table(frame, output, fmt=None):
    """Write a result table as CSV or JSON records (:func:`predictkit._atomic.open_output`).

    ``-`` writes to standard output. The format is ``fmt`` (from
    ``--format``), else the file extension (``.json`` or ``.csv``, either
    followed by ``.gz``), else CSV for standard output, a FIFO or a device. A
    name ending in ``.gz`` is gzip-compressed.
    """
    from .._atomic import gzip_if_named, open_output

    fmt = table_format(output, fmt)
    text = frame.to_csv(index=False) if fmt == "csv" else frame.to_json(orient="records")
    with os_errors("-o", output), open_output(output) as stream:
        stream.write(gzip_if_named(output, text.encode("utf-8")))


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


class ArgumentParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, like every other error of the
    command line: ``predictkit CMD: error: ...; see predictkit CMD --help``
    (argparse prints the whole usage synopsis first). Subcommand parsers
    inherit the class."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}; "
                     f"see {self.prog} --help\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` text that shows each option's default (and its choices).

    Options whose help already states the default, flags (``store_true``)
    and options without a default are left as written.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        if ("%(default)" in text or "(default" in text
                or action.default in (None, argparse.SUPPRESS)
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

    Use as ``parser.add_argument("--n-procs", dest="machine_procs", type=int,
    action=DeprecatedAlias, new="--machine-procs")`` (hidden from ``--help``).
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
    where the time went), and how much of it went into compiling kernels on
    first use (:func:`~predictkit._compile_clock.compile_seconds`: a fresh
    installation's first command compiles those it runs, which later runs
    load from the cache); ``quiet`` silences everything. The settings line
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
        self.compile_mark = compile_seconds()
        self.compile_noted = False

    def say(self, text):
        """Print ``predictkit CMD: text`` on standard error (unless quiet)."""
        if self.quiet:
            return
        if self.pending is not None:
            pending, self.pending = self.pending, None
            self.say(pending)
        print(f"predictkit {self.command}: {text}", file=sys.stderr, flush=True)

    def warn(self, text):
        """Print ``predictkit CMD: warning: text``; ``--quiet`` keeps warnings."""
        if self.pending is not None and not self.quiet:
            pending, self.pending = self.pending, None
            self.say(pending)
        print(f"predictkit {self.command}: warning: {text}", file=sys.stderr, flush=True)

    def left_out(self, what):
        """Warn that jobs of the user's log were left out, ``what`` saying which and why:
        no job is dropped without a word, even with ``--quiet``."""
        self.warn(f"left out {what}")

    def settings(self, **values):
        """Echo the settings in effect, ``name=value`` in the order given (see the class)."""
        self.pending = " ".join(f"{k.replace('_', '-')}={_setting(v)}" for k, v in values.items())

    @contextlib.contextmanager
    def step(self, done):
        """Time the enclosed work and then print ``done`` with the elapsed time.

        ``done`` is a string, or a callable returning one (called after the
        work, so it can count what the work produced).
        """
        self.compile_mark = compile_seconds()
        started = time.perf_counter()
        yield
        self.finished(done() if callable(done) else done, time.perf_counter() - started)

    def finished(self, text, seconds):
        """Print ``text in <seconds>`` for a step that took ``seconds``, and the time it
        spent compiling kernels (since the last step began or finished) when a second or
        more; the first such line says that later runs load them from the cache."""
        compiled = compile_seconds()
        compiling, self.compile_mark = compiled - self.compile_mark, compiled
        note = ""
        if compiling >= 1.0:
            note = (f" ({_seconds(compiling)} of it compiling)" if self.compile_noted else
                    f" ({_seconds(compiling)} of it compiling kernels on first use; later "
                    "runs load them from the cache)")
            self.compile_noted = True
        self.say(f"{text} in {_seconds(seconds)}{note}")




def cancelled_note(n_jobs):
    """What the wait of ``n_jobs`` jobs cancelled before they ran stands for."""
    one = n_jobs == 1
    return (f"{format_count(n_jobs, 'job')} cancelled before running (status 5, no run "
            f"time) {'counts' if one else 'count'} the time until the cancel as "
            f"{'its' if one else 'their'} wait, the least {'it' if one else 'they'} would "
            "have waited (a censored wait): bounds learned from such waits lean low")


def read_done(jobs, path):
    """The progress line of a log read: ``read 1 job from standard input``."""
    return f"read {format_count(len(jobs), 'job')} from {source_name(path)}"


def source_name(path, stream="input"):
    """How progress lines name a log or an output: ``-`` is standard input (or output)."""
    return f"standard {stream}" if str(path) == "-" else str(path)


def _setting(value):
    if isinstance(value, float):
        return format_given(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_setting(v) for v in value)
    return "none" if value is None else str(value)


def _seconds(elapsed):
    return f"{elapsed:.1f} s" if elapsed < 120 else f"{elapsed / 60:.1f} min"


def write_swf_output(jobs, output, *, comments=()):
    """Write ``jobs`` as SWF to ``-o output`` (``-`` is standard output)."""
    from ..io import write_swf

    with os_errors("-o", output):
        write_swf(jobs, output, comments=comments)


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


def add_machine_procs_option(parser):
    """Add ``--machine-procs P``, the machine size of a log's simulation, to a parser."""
    parser.add_argument("--machine-procs", type=int, default=None, metavar="P",
                        help="machine size in processors (default: the header's MaxProcs, "
                             "else the widest job)")


def warn_busier_than_machine(jobs, machine_procs):
    """Warn when ``jobs`` keep more processors busy than the machine the command assumes.

    The warning (:func:`predictkit._summary.busier_than_machine`, the note
    of the report too) is one ``predictkit CMD: warning: ...`` line on
    standard error, which ``--quiet`` keeps: it says the results are for a
    machine smaller than the log's.

    Parameters
    ----------
    jobs : DataFrame
        The jobs the command simulates or learns from.
    machine_procs : int or None
        ``--machine-procs``.
    """
    from .._summary import busier_than_machine

    note = busier_than_machine(jobs, machine_procs)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=2)


def with_machine_size(jobs, machine_procs):
    """``jobs`` with ``attrs["max_procs"]`` set to a ``--machine-procs`` given for a
    log (a copy; unchanged when it is None). The report and demo simulate the
    log on that machine and size WaitPredictor's capacity by it."""
    if machine_procs is None:
        return jobs
    jobs = jobs.copy()
    jobs.attrs["max_procs"] = int(machine_procs)
    return jobs


def read_jobs_to_simulate(args, progress, *, require_request, needs):
    """The log of ``args.trace``, its first ``--max-jobs`` jobs, cleaned for a simulation.

    Jobs left out by :func:`predictkit.clean_jobs` are reported on
    ``progress``; ``needs`` completes the error raised when none is left
    ("a job needs ...").
    """
    from ..exceptions import JobTableError
    from ..jobs import clean_jobs, describe_cleaning

    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = read_trace_arg(args.trace)
    if args.max_jobs is not None:
        attrs = copy_attrs(jobs)
        jobs = jobs.iloc[:args.max_jobs]
        jobs.attrs = attrs
    jobs = clean_jobs(jobs, for_simulation=True, require_request=require_request)
    if describe_cleaning(jobs):
        progress.left_out(describe_cleaning(jobs))
    if not len(jobs):
        raise JobTableError(f"{args.trace}: no job can be simulated (a job needs {needs})")
    return jobs


def one_line_warning(command, *, once=False):
    """A ``warnings.showwarning`` printing ``predictkit CMD: warning: ...``, the
    warning's first line; with ``once``, each text only the first time."""
    said = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message).splitlines()[0] if str(message) else category.__name__
        if once and text in said:
            return
        said.add(text)
        print(f"predictkit {command}: warning: {text}", file=sys.stderr, flush=True)
    return show

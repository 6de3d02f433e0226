"""The job log of a command: its argument and options, how it is read (SWF, ``sacct`` or
Batsim, a file or standard input), and the progress lines and notes about what was read."""

import argparse
import os
import stat
import sys
import warnings

from .._format import format_count
from .._summary import first_jobs
from ..io._log import LOG_FORMATS  # the values of --input-format
from ._parser import path_text

__all__ = ["LogPath", "StoreLog", "add_log_argument", "refuse_log_options", "read_trace_arg",
           "read_jobs_to_simulate", "read_done", "source_name", "cancelled_note",
           "check_stdin_once"]


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
        parser.add_argument(dest, nargs=nargs, metavar="TRACE", action=StoreLog, type=path_text,
                            help=what)
    else:
        parser.add_argument(flag, dest=dest, nargs=nargs, metavar="TRACE", action=StoreLog,
                            type=path_text, default=None, help=what)
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
    named = _named_trace(path)
    if named is not None:
        path = named
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


def _names_no_file(path):
    """Whether ``path`` is a bare name that no file has: an archive name, perhaps."""
    text = str(path)
    return text != "-" and os.sep not in text and not os.path.lexists(text)


def _named_trace(path):
    """The file of a log named by its archive name (``KTH-SP2-1996-2.1-cln``, found in
    ``PREDICTKIT_TRACES`` or the download cache, as sweeps find them) where ``path`` is
    no file; None otherwise (the reader then names the problem)."""
    from ..datasets import find_trace
    from ..exceptions import PredictkitError

    text = str(path)
    if not _names_no_file(text):
        return None
    try:
        found = find_trace(text)
    except PredictkitError:
        return None
    return str(found) if found is not None else None


def _is_regular_file(path):
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let open() name the problem


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
        jobs = first_jobs(jobs, args.max_jobs)
    jobs = clean_jobs(jobs, for_simulation=True, require_request=require_request)
    if describe_cleaning(jobs):
        progress.left_out(describe_cleaning(jobs))
    if not len(jobs):
        raise JobTableError(f"{args.trace}: no job can be simulated (a job needs {needs})")
    return jobs


def read_done(jobs, path):
    """The progress line of a log read: ``read 1 job from standard input``; a log named by
    its archive name (:func:`_named_trace`) also names the file read."""
    named = jobs.attrs.get("source") if _names_no_file(path) else None
    return (f"read {format_count(len(jobs), 'job')} from {source_name(path)}"
            + (f" ({named})" if named is not None else ""))


def source_name(path, stream="input"):
    """How progress lines name a log or an output: ``-`` is standard input (or output)."""
    return f"standard {stream}" if str(path) == "-" else str(path)


def cancelled_note(n_jobs):
    """What the wait of ``n_jobs`` jobs cancelled before they ran stands for."""
    one = n_jobs == 1
    return (f"{format_count(n_jobs, 'job')} cancelled before running (status 5, no run "
            f"time) {'counts' if one else 'count'} the time until the cancel as "
            f"{'its' if one else 'their'} wait, the least {'it' if one else 'they'} would "
            "have waited (a censored wait): bounds learned from such waits lean low")


def check_stdin_once(args):
    """Refuse a command line that names standard input, or one other stream, as two inputs.

    Standard input (``-``, or a name of it such as ``/dev/stdin`` when it is a
    pipe) and any other pipe or socket can be read only once: the second reader would
    see an empty stream and report a misleading "empty file" error.
    """
    from ..exceptions import ConfigError

    uses = {}
    for key, value in vars(args).items():
        if key == "output":
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for text in (v for v in values if isinstance(v, str)):
            for stream in _streams(text):
                uses.setdefault(stream, []).append((key, text))
    for stream, named in uses.items():
        if len(named) < 2:
            continue
        names = ", ".join(sorted({key.replace("_", "-") for key, _ in named}))
        given = list(dict.fromkeys(text for _, text in named))
        if given == ["-"]:
            what = f"standard input ('-') is given {len(named)} times ({names})"
        elif len(given) == 1:
            what = f"{given[0]!r} is given {len(named)} times ({names})"
        else:
            what = f"{' and '.join(map(repr, given))} name one stream ({names})"
        raise ConfigError(f"{what}; it can be read only once: save all but one input to a file")


def _streams(text):
    """What a command-line input reads that can be read only once: ``"-"`` for standard
    input, and the device and inode of a pipe or socket it names (a regular file or a
    device such as ``/dev/null`` can be opened again)."""
    streams = ["-"] if text == "-" else []
    try:
        info = os.fstat(0) if text == "-" else os.stat(text)
    except (OSError, ValueError):
        return streams  # the reader names the problem
    if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        streams.append((info.st_dev, info.st_ino))
    return streams

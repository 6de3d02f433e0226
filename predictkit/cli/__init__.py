"""The ``predictkit`` command line: a thin layer over the library.

Each subcommand lives in its own module ``predictkit/cli/_<name>.py`` that
defines ``register(subparsers)``; the module adds its parser and sets
``func=run`` where ``run(args) -> int``. :func:`main` turns every
:class:`~predictkit.exceptions.PredictkitError` (and missing files) into one
line on stderr and exit status 2 (also any ``OSError``: a network or disk
failure is the user's environment, not a bug), prints every warning as one
line, and reports an unknown option with its subcommand's usage line;
``--debug`` shows the traceback instead. When the reader of its output or
progress goes away (``predictkit info x | head``), the command stops and
exits with status 141, as a process that ``SIGPIPE`` ends does: its work
was not finished.
Before a command runs, :func:`main` refuses an ``-o/--output`` that is the
same file as any of the command's other arguments (an input it would destroy)
or that cannot be written (``_output.check_output_arg``); every output goes
through :func:`predictkit._atomic.open_output`, where ``-`` is standard output.
"""

import argparse
import contextlib
import errno
import importlib
import io
import os
import shlex
import signal
import sys
import threading
import warnings

from .. import __version__
from ..exceptions import PredictkitError
from ._logs import check_stdin_once
from ._output import check_output_arg
from ._parser import ArgumentParser
from ._progress import one_line_warning

__all__ = ["main", "console_main", "build_parser"]

COMMANDS = ("info", "fetch", "predict", "simulate", "bounds", "varq", "generate", "report", "sweep", "demo",
            "wait", "walltime", "select")
"""Subcommand modules, in the order ``--help`` lists them."""


_DEBUG_HELP = "show full tracebacks instead of one-line errors"


def build_parser():
    """Return the top-level parser (an :class:`argparse.ArgumentParser`)."""
    parser = ArgumentParser(
        prog="predictkit",
        description=(
            "Runtime prediction, queue-delay bounds and workload modeling for "
            "batch-scheduled parallel machines. Reads SWF and Slurm sacct --parsable2 logs "
            "(plain or .gz, or - for standard input)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"predictkit {__version__}")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"predictkit.cli._{name}")
        module.register(subparsers)
    for command in subparsers.choices.values():
        # after the command too (``predictkit info LOG --debug``); not given, it leaves
        # the value before the command alone
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help=_DEBUG_HELP)
    parser.set_defaults(subcommand_parsers=subparsers.choices)
    return parser


def _parse(parser, argv):
    """Parse ``argv``; an unknown option is reported with its subcommand's usage line."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = getattr(args, "command", None)
        owner = args.subcommand_parsers.get(command, parser) if command else parser
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


BROKEN_PIPE_STATUS = 141
"""Exit status when the output's reader went away: 128 + ``SIGPIPE``, as a shell reports it."""


class _Terminated(KeyboardInterrupt):
    """``SIGTERM`` or ``SIGHUP``, raised where the command is, so that what it was
    writing is removed as on Ctrl-C."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _terminations_interrupt():
    """Within: ``SIGTERM`` and ``SIGHUP`` raise :class:`_Terminated` (the handlers
    before are put back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _Terminated(signum)

    before = {number: signal.signal(number, stop)
              for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if number}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


class _ClosedOutput(io.TextIOBase):
    """Standard output of a process started with it closed (``>&-``): a write
    fails, so that a result is never lost without a word."""

    def writable(self):
        return True

    def write(self, text):
        raise OSError(errno.EBADF, "standard output is closed: the result has nowhere to go")

    @property
    def buffer(self):
        return self


class _MessagesBestEffort:
    """Standard error whose writes may fail (a full disk, ``2>&-``) without
    losing the work: the message is lost instead. A reader gone away still
    stops the command (``BrokenPipeError``)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text) if self._stream is not None else len(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError):
            return len(text)

    def flush(self):
        try:
            if self._stream is not None:
                self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError):
            pass

    def isatty(self):
        return self._stream is not None and self._stream.isatty()

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _standard_streams():
    """Within: a closed standard output refuses writes, and standard error never
    ends the work (:class:`_ClosedOutput`, :class:`_MessagesBestEffort`); put back
    after, for callers of :func:`main` in a process of their own."""
    before = sys.stdout, sys.stderr
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    sys.stderr = _MessagesBestEffort(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = before


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    with _standard_streams(), _terminations_interrupt():
        try:
            return _main(argv)
        except _Terminated as exc:
            print(f"predictkit: terminated by {signal.Signals(exc.signum).name}",
                  file=sys.stderr)
            return 128 + exc.signum
        except KeyboardInterrupt:
            print("predictkit: interrupted", file=sys.stderr)
            return 130


def _main(argv):
    parser = build_parser()
    args = _parse(parser, argv)
    # what a written result says made it
    args.command_line = shlex.join(["predictkit", *(sys.argv[1:] if argv is None else argv)])
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        check_output_arg(args)
        check_stdin_once(args)
        with warnings.catch_warnings():
            if not args.debug:
                warnings.showwarning = one_line_warning(args.command)
            return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader of our output went away (e.g. `predictkit info x | head`):
        # nothing more can be said, and the work is not done.
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(devnull, stream.fileno())
        return BROKEN_PIPE_STATUS
    except (PredictkitError, OSError) as exc:
        if args.debug:
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            message = f"{exc.strerror}: {exc.filename}"
        elif isinstance(exc, OSError) and exc.strerror:
            message = exc.strerror
        print(f"predictkit {args.command}: error: {' '.join(message.split())}",
              file=sys.stderr)
        return 2


def console_main():
    """Entry point of the ``predictkit`` console script."""
    sys.exit(main())

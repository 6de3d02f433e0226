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
or that cannot be written (``_common.check_output_arg``); every output goes
through :func:`predictkit._atomic.open_output`, where ``-`` is standard output.
"""

import importlib
import sys
import warnings

from .. import __version__
from ..exceptions import PredictkitError
from ._common import ArgumentParser, check_output_arg, check_stdin_once, one_line_warning

__all__ = ["main", "console_main", "build_parser"]

COMMANDS = ("info", "fetch", "predict", "simulate", "bounds", "varq", "generate", "report", "sweep", "demo",
            "wait", "walltime", "select")
"""Subcommand modules, in the order ``--help`` lists them."""


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
    parser.add_argument("--debug", action="store_true",
                        help="show full tracebacks instead of one-line errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"predictkit.cli._{name}")
        module.register(subparsers)
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


def main(argv=None):
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = _parse(parser, argv)
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
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            os.dup2(devnull, stream.fileno())
        return BROKEN_PIPE_STATUS
    except (PredictkitError, OSError) as exc:
        if args.debug:
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            message = f"{exc.strerror}: {exc.filename}"
        print(f"predictkit {args.command}: error: {' '.join(message.split())}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("predictkit: interrupted", file=sys.stderr)
        return 130


def console_main():
    """Entry point of the ``predictkit`` console script."""
    sys.exit(main())

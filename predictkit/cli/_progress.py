"""What a command says while it works: the settings line, one timed line per step (with the
time spent compiling kernels on a first run), and warnings as one line each."""

import contextlib
import sys
import time

from .._compile_clock import compile_seconds
from .._format import format_given

__all__ = ["Progress", "one_line_warning", "print_warning"]


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
        print_warning(f"predictkit {self.command}", text)

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


def _setting(value):
    if isinstance(value, float):
        return format_given(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_setting(v) for v in value)
    return "none" if value is None else str(value)


def _seconds(elapsed):
    return f"{elapsed:.1f} s" if elapsed < 120 else f"{elapsed / 60:.1f} min"


def one_line_warning(command, *, once=False):
    """A ``warnings.showwarning`` printing ``predictkit CMD: warning: ...``, the
    warning's first line; with ``once``, each text only the first time."""
    said = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message).splitlines()[0] if str(message) else category.__name__
        if once and text in said:
            return
        said.add(text)
        print_warning(f"predictkit {command}", text)
    return show


def print_warning(prog, text):
    """Print ``PROG: warning: text`` on standard error: the one form of every warning of
    the command line (``prog`` is ``predictkit CMD``)."""
    print(f"{prog}: warning: {text}", file=sys.stderr, flush=True)

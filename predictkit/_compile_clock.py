"""Seconds spent compiling numba kernels in this process, so that progress lines can say where
a first run's time goes.

The compiled kernels (``@njit(cache=True)``) are compiled on their first call
and cached on disk (:mod:`predictkit._numba_cache`); later runs load them in
a fraction of a second. On a fresh installation the first command compiles
the kernels it uses, which can take minutes on a small machine and would
otherwise be reported as the time of whatever step first called them.
numba announces each compilation (not a load from the cache) as a
``"numba:compile"`` event; :func:`compile_seconds` adds up their durations.
"""

import time

__all__ = ["compile_seconds"]

_clock = None


def compile_seconds():
    """Seconds this process has spent compiling kernels since the first call (0.0 then).

    Nested compilations (a kernel compiling the kernels it calls) count once.
    """
    global _clock
    if _clock is None:
        _clock = _start_clock()
    return _clock.seconds if _clock is not None else 0.0


def _start_clock():
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba without its event API
        return None

    class CompileClock(event.Listener):
        """Total duration of the outermost ``numba:compile`` events."""

        def __init__(self):
            self.depth = 0
            self.started = 0.0
            self.seconds = 0.0

        def on_start(self, _event):
            if self.depth == 0:
                self.started = time.perf_counter()
            self.depth += 1

        def on_end(self, _event):
            self.depth -= 1
            if self.depth == 0:
                self.seconds += time.perf_counter() - self.started

    clock = CompileClock()
    event.register("numba:compile", clock)
    return clock

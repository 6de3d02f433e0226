"""The content identity of a sweep's trace file, so that a changed file is never reused.

The identity is the file's size, its modification time (nanoseconds) and the
sha256 of its first and last MiB. A full hash would also catch an edit that
keeps the size and puts the old modification time back, but would read every
byte of every trace (hundreds of MB for the largest logs) each time a sweep
starts; size + time + both ends is read in constant time and changes with any
ordinary rewrite, truncation, append or replacement of the file. Copying a
trace (a new modification time) makes its cells count as new: the safe side.
"""

import functools
import hashlib
import re
from pathlib import Path

__all__ = ["trace_identity", "trace_path", "resolve_trace", "cell_trace", "FOLDER_KEY",
           "SYNTHETIC_TRACE", "is_synthetic"]

SYNTHETIC_TRACE = re.compile(r"synthetic(?::(.*))?")
"""A grid's synthetic trace, ``synthetic`` or ``synthetic:N`` (the group: ``N``)."""


def is_synthetic(trace):
    """Whether a cell's ``trace`` is a synthetic workload rather than a log's path or name."""
    return isinstance(trace, str) and SYNTHETIC_TRACE.fullmatch(trace) is not None


_MIB = 1 << 20

FOLDER_KEY = "grid_folder"
"""The key of a cell holding its grid file's folder, which relative trace paths start from.
Not part of the cell's key (:func:`~predictkit.experiments.cell_key`): a grid moved with
its traces keeps its finished cells."""


def trace_path(trace, folder=None):
    """A cell's ``trace`` read as a path: taken from ``folder`` when relative (if given)."""
    return Path(folder or "", Path(trace).expanduser())


def resolve_trace(trace, folder=None):
    """The file a cell's ``trace`` names, or None (``synthetic:N``, or found nowhere).

    Looks where :func:`predictkit.experiments.load_cell_trace` reads: the path
    itself, then :func:`predictkit.datasets.find_trace` (the
    ``PREDICTKIT_TRACES`` folders, then the cache).

    Parameters
    ----------
    trace : str
        A cell's ``trace`` (a path or a trace name).
    folder : str or path, optional
        The folder a relative path is taken from: the grid file's (a cell's
        ``grid_folder``). Default: the working folder.
    """
    if not isinstance(trace, str) or not trace or "\0" in trace or is_synthetic(trace):
        return None  # a NUL byte names no file nor trace
    path = trace_path(trace, folder)
    if path.is_file():
        return path
    from ..datasets._fetch import find_trace

    return find_trace(trace)


def cell_trace(cell):
    """The file a cell's trace names (:func:`resolve_trace` from its ``grid_folder``), or None."""
    return resolve_trace(cell.get("trace"), cell.get(FOLDER_KEY))


def trace_identity(trace, folder=None):
    """Return ``"<size>:<mtime_ns>:<hash of first and last MiB>"`` for a trace file.

    Parameters
    ----------
    trace : str
        A cell's ``trace`` (a path or a trace name).
    folder : str or path, optional
        The folder a relative path is taken from (see :func:`resolve_trace`).

    Returns
    -------
    str or None
        None when the trace is not a file (``synthetic:N``, whose content is
        fixed by the cell's seed, or a name found nowhere).
    """
    path = resolve_trace(trace, folder)
    if path is None:
        return None
    stat = path.stat()
    return _identity(str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino,
                     stat.st_ctime_ns)


@functools.lru_cache(maxsize=256)
def _identity(path, size, mtime_ns, inode, ctime_ns):
    """Cached per process; ``inode`` and ``ctime_ns`` (which any write or ``utime``
    changes) only key the cache and are not part of the identity."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        digest.update(handle.read(_MIB))
        if size > _MIB:
            handle.seek(max(_MIB, size - _MIB))
            digest.update(handle.read(_MIB))
    return f"{size}:{mtime_ns}:{digest.hexdigest()[:32]}"

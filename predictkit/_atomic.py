"""Atomic file writes: write beside the target, then rename into place."""

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file next to ``path``; on success rename it to ``path``.

    A reader never sees a half-written file, and on any error the temporary
    file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FileNotFoundError(2, "No such directory", str(directory))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=directory)
    try:
        with os.fdopen(fd, mode) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise

"""Opening an output for writing: the one place that decides how a result reaches its target.

:func:`open_output` looks at what the path names and writes accordingly:

=========================  ==============================================================
the path names             what happens
=========================  ==============================================================
``-``                      standard output, written as a stream
a regular file, or nothing written to ``.NAME.HOST.PID.RANDOM.part`` beside the target,
                           flushed, fsynced and renamed over it (``os.replace``), so a
                           reader sees the old file or the new one, never half of one; a
                           new file gets ``0666 & ~umask``, a replaced one keeps its mode
                           (and, where permitted, its owner, group and extended
                           attributes such as ACLs); a file this
                           process may not write (``chmod a-w``) is refused, as the
                           shell's ``>`` refuses it; a file with other hard links gets a
                           new inode: the other names keep the old content
a symbolic link            followed: the file it points to is replaced as above and the
                           link stays a link; a dangling link creates its target
a FIFO or a device         opened and written as a stream (``/dev/null``, a named pipe),
                           never replaced
one of this process's      written through that descriptor, at its position, never
open descriptors           replaced nor truncated: ``/dev/stdout``, ``/dev/stderr``,
                           ``/dev/fd/N``, ``/proc/self/fd/N`` (so ``-o /dev/stdout
                           >> log`` appends to ``log``, as ``-o -`` does)
a directory or a socket    :class:`~predictkit.exceptions.OutputError`, nothing written
=========================  ==============================================================

A missing or unwritable folder, and an output that is the same file as one of
the ``inputs``, are an :class:`~predictkit.exceptions.OutputError` too: one
line naming the path, raised before anything is written.

The command line turns ``SIGTERM`` and ``SIGHUP`` into an interrupt, so that,
as on Ctrl-C, a temporary being written is removed. A writer killed before its
rename (``kill -9``, a power cut) leaves its temporary file behind. The next write to the same target removes those of its
temporaries whose writer is gone: the name holds the writer's host and process
id, and a temporary is stale when that process no longer runs on this host, or
when nothing has touched it for :data:`STALE_AFTER_SECONDS` (a process id
reused since, or a writer on another host sharing the folder). A live writer's
temporary is never removed, so concurrent writers of one target do not disturb
each other: the last rename wins.
"""

import contextlib
import gzip
import hashlib
import io
import os
import re
import secrets
import socket
import stat
import sys
import time
from pathlib import Path

from .exceptions import OutputError

__all__ = ["open_output", "write_result", "atomic_write", "check_output", "is_stream",
           "sync_directory",
           "same_file", "gzip_if_named", "refuse_inputs", "remove_stale_temporaries",
           "create_temporary", "STALE_AFTER_SECONDS"]

STALE_AFTER_SECONDS = 24 * 3600
"""A temporary untouched this long is stale whatever its process id says."""

_HOST = hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
_NAME_MAX = 255
# "." + name + ".HOST.PID.RANDOM.part", with room for a 10-digit process id
_TAIL_MAX = len(".12345678.1234567890.12345678.part")
_NAME_KEPT = _NAME_MAX - 1 - _TAIL_MAX


@contextlib.contextmanager
def open_output(path, mode="wb", *, inputs=()):
    """Open ``path`` for writing a result; on success the result is in place.

    Parameters
    ----------
    path : str or path
        The output: a file (created or replaced atomically), a symbolic link
        (its target is replaced), a FIFO or device (written as a stream), or
        ``"-"`` for standard output. See the module documentation.
    mode : {"wb", "w"}
        Binary, or text in UTF-8.
    inputs : iterable of str or path
        Files the result was computed from; an output that is the same file
        as one of them is refused (see :func:`refuse_inputs`).

    Yields
    ------
    file object
        Write the result to it. If the block raises, a file target is left
        as it was and the temporary file is removed.

    Raises
    ------
    OutputError
        The output is a directory or a socket, its folder is missing or not
        writable, or it is one of the ``inputs``.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w', got {mode!r}")
    refuse_inputs(path, inputs)
    kind, target, info = _plan(path)
    if kind == "stdout":
        with _standard_output(mode) as stream:
            yield stream
    elif kind == "descriptor":
        with _through_descriptor(target, mode, shown=path) as stream:
            yield stream
    elif kind == "stream":
        with _streaming(target, mode, shown=path) as stream:
            yield stream
    else:
        with _replacing(target, info, mode, shown=path) as stream:
            yield stream


atomic_write = open_output
"""The former name of :func:`open_output`, kept for existing callers."""


def write_result(target, payload, *, owner, parameter="path"):
    """Write the bytes ``payload`` to a path or a file object: what every writer does.

    Parameters
    ----------
    target : str, path or file object
        A path is written as :func:`open_output` writes it (atomically for a
        file; gzip-compressed, by :func:`gzip_if_named`, when its name ends
        in ``.gz``). A file object open for writing is written to directly,
        at its position, and left open: text (``io.StringIO``, a file opened
        with ``"w"``) gets the payload decoded from UTF-8, a binary one
        (``io.BytesIO``, ``"wb"``) the bytes as they are, never compressed.
    payload : bytes
        The whole result, in UTF-8 for text formats.
    owner, parameter : str
        The writer and its argument, for the message of a wrong ``target``.

    Returns
    -------
    pathlib.Path or file object
        ``target`` as a :class:`~pathlib.Path`, or the file object itself.

    Raises
    ------
    InvalidParameterError
        ``target`` is neither a path nor a file object open for writing
        (:func:`predictkit._validation.check_path_or_file`).
    OutputError
        As :func:`open_output` raises it, for a path.
    """
    from ._validation import check_path_or_file  # here: writing a path needs no scikit-learn

    check_path_or_file(target, parameter, owner, access="write")
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        with open_output(target) as stream, write_errors(path):
            stream.write(gzip_if_named(path, payload))
        return path
    with write_errors(getattr(target, "name", target)):
        target.write(payload if _is_binary(target) else payload.decode("utf-8"))
    return target


@contextlib.contextmanager
def write_errors(shown):
    """A failed write (a full disk, a file size limit) as an :class:`OutputError`
    naming the output; a reader gone (``BrokenPipeError``) as it is."""
    try:
        yield
    except (OutputError, BrokenPipeError):
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {exc.strerror or exc}") from None


def _is_binary(stream):
    """Whether a writable file object takes bytes (else text), as ``io`` classifies it."""
    if isinstance(stream, io.TextIOBase):
        return False
    if isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        return True
    return "b" in str(getattr(stream, "mode", ""))


def gzip_if_named(path, payload):
    """``payload`` gzip-compressed when ``path``'s name ends in ``.gz``, else unchanged.

    The gzip stream stores no file name nor time stamp, so equal payloads give
    equal bytes. Every writer whose output may be named ``*.gz`` passes its
    bytes through here, so that a ``.gz`` name always holds gzip data: the
    name of the file written, the target of a link.
    """
    if not resolve_output(path)[0].name.lower().endswith(".gz"):
        return payload
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0,
                       compresslevel=6) as stream:
        stream.write(payload)
    return buffer.getvalue()


_EFFECTIVE = os.access in os.supports_effective_ids
"""Whether access checks can use the effective ids (a set-uid process writes as its owner)."""


def check_output(path):
    """Raise :class:`OutputError` now for an output that :func:`open_output` would refuse.

    For checking a command's output before long work: a directory, a socket,
    a missing folder, or a folder this process may not write in.
    """
    kind, target, _ = _plan(path)
    if kind == "replace":
        folder = target.parent
        if not os.access(folder, os.W_OK | os.X_OK, effective_ids=_EFFECTIVE):
            raise OutputError(f"cannot write {path}: the folder {folder} is not writable")


def is_stream(path):
    """Whether ``path`` is written as a stream: ``"-"``, one of this process's open
    descriptors, a FIFO or a device (links followed)."""
    if os.fspath(path) == "-" or _open_descriptor(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def _plan(path):
    """How to write ``path``: ``("stdout" | "descriptor" | "stream" | "replace", file,
    status)`` (for ``"descriptor"``, the descriptor's number instead of a file)."""
    if os.fspath(path) == "-":
        return "stdout", None, None
    descriptor = _open_descriptor(path)
    if descriptor is not None:
        return "descriptor", descriptor, None
    name = str(os.fspath(path))
    _, slash, last = name.replace(os.sep, "/").rpartition("/")
    if slash and last in ("", ".", "..") and not os.path.isdir(path):
        raise OutputError(f"cannot write {name}: a name ending in /{last} is a folder's, "
                          "and there is no such folder")
    target, info = resolve_output(path)
    if info is None or stat.S_ISREG(info.st_mode):
        folder = target.parent
        if not folder.is_dir():
            what = "is not a directory" if folder.exists() else "does not exist"
            raise OutputError(f"cannot write {path}: the folder {folder} {what}")
        if info is not None and not os.access(target, os.W_OK, effective_ids=_EFFECTIVE):
            raise OutputError(f"cannot write {path}: it is read-only (make it writable to "
                              "let it be replaced)")
        return "replace", target, info
    if stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
        return "stream", target, info
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"cannot write {path}: it is a directory")
    raise OutputError(f"cannot write {path}: it is a socket or another special file")


_LINKS_FOLLOWED = 40
"""Symbolic links followed at most in naming a descriptor (as the kernel's limit)."""


def _open_descriptor(path):
    """The number of this process's open descriptor that ``path`` names, else None.

    ``/dev/stdout`` links to ``/proc/self/fd/1``, whose own link leads to
    whatever standard output is (a file the shell opened with ``>>``, say):
    opening that file anew would truncate it or write at its start, so such
    a path is recognised by the links that lead to it, before the last one.
    """
    try:
        current = os.path.abspath(os.fspath(path))
        own = {os.path.realpath("/proc/self/fd"), os.path.realpath("/dev/fd")}
        for _ in range(_LINKS_FOLLOWED):
            folder, name = os.path.split(current)
            if name.isdigit() and os.path.realpath(folder) in own:
                number = int(name)
                os.fstat(number)
                return number
            if not os.path.islink(current):
                return None
            current = os.path.normpath(os.path.join(folder, os.readlink(current)))
    except (OSError, ValueError, OverflowError):
        return None
    return None


@contextlib.contextmanager
def _through_descriptor(descriptor, mode, *, shown):
    """Write through a copy of the open ``descriptor``, which keeps its position and
    flags (appending, for a shell's ``>>``)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if stream.fileno() == descriptor:
                stream.flush()
    try:
        copy = os.dup(descriptor)
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {exc.strerror}") from None
    with _streaming(copy, mode, shown=shown) as stream:
        yield stream


def same_file(first, second):
    """Whether two paths name the same file.

    They do when they resolve (following symbolic links) to the same path,
    or when both exist on the same device with the same inode (hard links).
    """
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        one, other = os.stat(first), os.stat(second)
    except (OSError, ValueError):
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def refuse_inputs(output, inputs, *, name="output"):
    """Raise :class:`OutputError` when ``output`` is the same file as one of ``inputs``.

    Writing over an input would destroy what the result was computed from.
    ``"-"`` (standard input or output) and ``None`` are never compared, nor
    is an output that is a FIFO or a device (written as a stream, it
    replaces nothing).

    Parameters
    ----------
    output : str or path
        The output path.
    inputs : iterable of str or path
        Input paths.
    name : str
        How the message names the output, e.g. ``"-o"`` on the command line.
    """
    if output is None or os.fspath(output) == "-":
        return
    try:
        mode = os.stat(output).st_mode
    except (OSError, ValueError):
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return
    for source in inputs:
        if source is None or os.fspath(source) == "-":
            continue
        if same_file(output, source):
            raise OutputError(f"{name} {output} is the same file as the input {source}; "
                              "writing it would destroy the input, so choose another output")


def remove_stale_temporaries(target):
    """Remove the stale temporaries a killed writer of ``target`` left beside it.

    Only names of this module's own pattern (``.NAME.HOST.PID.RANDOM.part``)
    are considered, and only those whose writer is gone (see the module
    documentation). Returns the paths removed.
    """
    target = Path(target)
    directory = target.parent
    prefix = f".{_kept_name(target.name)}."
    pattern = re.compile(re.escape(prefix) + r"([0-9a-f]{8})\.(\d+)\.[0-9a-f]{8}\.part")
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        match = pattern.fullmatch(name) if name.startswith(prefix) else None
        if match is None:
            continue
        path = directory / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and _writer_gone(match.group(1), int(match.group(2)),
                                                       now - info.st_mtime):
            with contextlib.suppress(FileNotFoundError, PermissionError):
                os.unlink(path)
                removed.append(path)
    return removed


def _writer_gone(host, pid, age):
    if age > STALE_AFTER_SECONDS:
        return True
    if host != _HOST:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def _kept_name(name):
    """The target's name as it appears in its temporaries (cut to fit the name limit)."""
    return os.fsdecode(os.fsencode(name)[:_NAME_KEPT])


def resolve_output(path):
    """The file to write (a symbolic link followed) and its status, None when missing.

    A link to a pipe, socket or device (``/dev/stdout``, ``/dev/fd/63`` of a
    process substitution) is kept as it is: its target, such as
    ``/proc/PID/fd/pipe:[N]``, is no path to open.
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        return path, info
    target = Path(os.path.realpath(path)) if os.path.islink(path) else path
    return target, info


@contextlib.contextmanager
def _standard_output(mode):
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None and not isinstance(buffer, io.RawIOBase):
        stream = sys.stdout if mode == "w" else buffer
        yield stream
        stream.flush()
        return
    # Standard output replaced by a text-only stream (e.g. io.StringIO), or
    # unbuffered (PYTHONUNBUFFERED), where one write may write only part of
    # the result: collected, then written whole.
    collected = io.StringIO() if mode == "w" else io.BytesIO()
    yield collected
    data = collected.getvalue()
    if buffer is None:
        sys.stdout.write(data if mode == "w" else data.decode("utf-8"))
        sys.stdout.flush()
    else:
        _write_whole(buffer, data.encode("utf-8") if mode == "w" else data)


def _write_whole(raw, data):
    """Write all of ``data`` to the raw stream ``raw``, as many writes as it takes
    (a reader gone raises ``BrokenPipeError``)."""
    view = memoryview(data)
    while len(view):
        view = view[raw.write(view) or 0:]


@contextlib.contextmanager
def _streaming(target, mode, *, shown):
    try:
        stream = open(target, mode, **_text_options(mode))
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {exc.strerror}") from None
    written = False
    try:
        with stream:
            yield stream
            written = True
    except OSError as exc:
        if not written or isinstance(exc, (OutputError, BrokenPipeError)):
            raise
        # the last buffered bytes failed on closing (a full device)
        raise OutputError(f"cannot write {shown}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _replacing(target, info, mode, *, shown):
    directory = target.parent
    fd, temporary = create_temporary(target, shown=shown)
    try:
        with os.fdopen(fd, mode, **_text_options(mode)) as stream:
            if info is not None:
                _keep_owner_and_mode(stream.fileno(), info)
                _keep_extended_attributes(stream.fileno(), target)
            yield stream
            _finish(stream, shown)
        try:
            os.replace(temporary, target)
        except OSError as exc:
            raise OutputError(f"cannot write {shown}: {exc.strerror}") from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    sync_directory(directory)


def create_temporary(target, *, shown=None):
    """Create the temporary file that will replace ``target``; return ``(fd, path)``.

    For writers that must fill the file by path before renaming it into
    place themselves (as downloads do). Stale temporaries of ``target`` are
    removed first; the new one is named ``.NAME.HOST.PID.RANDOM.part`` beside
    ``target``, with mode ``0666 & ~umask``. Raises :class:`OutputError`
    naming ``shown`` (default ``target``) when the folder refuses it.
    """
    target = Path(target)
    shown = target if shown is None else shown
    remove_stale_temporaries(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        name = f".{_kept_name(target.name)}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.part"
        temporary = target.parent / name
        try:
            # 0o666: the kernel applies the umask (or the folder's default ACL)
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
        except OSError as exc:
            folder = target.parent if str(target.parent) else Path(".")
            raise OutputError(f"cannot write {shown}: {exc.strerror} "
                              f"(in the folder {folder})") from None


def _keep_owner_and_mode(fd, info):
    """Give the new file the replaced file's owner, group and permissions where allowed."""
    mode = stat.S_IMODE(info.st_mode)
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) != (info.st_uid, info.st_gid):
        try:
            os.fchown(fd, info.st_uid, info.st_gid)
        except PermissionError:
            with contextlib.suppress(PermissionError):
                os.fchown(fd, -1, info.st_gid)
            # never hand set-id bits to a file whose owner could not be kept
            mode &= ~(stat.S_ISUID | stat.S_ISGID)
    os.fchmod(fd, mode)


def _keep_extended_attributes(fd, path):
    """Copy the replaced file's extended attributes (user tags, POSIX ACLs, security
    labels) to the new file, each where this process may set it."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(path)
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            os.setxattr(fd, name, os.getxattr(path, name))


def _finish(stream, shown):
    try:
        stream.flush()
        os.fsync(stream.fileno())
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {exc.strerror}") from None


def sync_directory(directory):
    """Make the rename durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory if str(directory) else ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _text_options(mode):
    return {"encoding": "utf-8", "newline": ""} if mode == "w" else {}

"""Finding trace files on disk and downloading archive logs into a local cache.

A download goes to a temporary file in the cache directory; its length is
checked against ``Content-Length``, then :func:`._verify.verify_download`
checks its gzip stream, its checksum and job count where the catalogue knows
them, and that it is an SWF log at all. Only then is it moved to its final
name with :func:`os.replace`, so the cache never holds half a file, an error
page or the wrong log under a log's name, and a failed download leaves
nothing behind.
"""

import hashlib
import http.client
import os
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np

from .._atomic import create_temporary, resolve_output, sync_directory
from .._validation import check_path_or_file, invalid_parameter
from ..exceptions import DatasetError, DownloadError, PredictkitError
from ..io import read_swf
from ._catalogue import lookup
from ._verify import _known, verify_download

__all__ = ["get_data_home", "data_home_path", "fetch_pwa", "load_trace", "trace_folders",
           "find_trace"]

_RETRIES = 2
_BACKOFF_SECONDS = 1.0
_TIMEOUT_SECONDS = 60
_CHUNK = 1 << 16


def get_data_home(data_home=None):
    """Return the cache directory for downloaded traces, creating it if needed.

    Parameters
    ----------
    data_home : str or path, optional
        The directory. When omitted: the environment variable
        ``PREDICTKIT_DATA``, else ``~/.cache/predictkit``.

    Returns
    -------
    Path
    """
    path = data_home_path(data_home)
    _make_folder(path, "data_home")
    return path


def _make_folder(path, what):
    """Create the folder ``path`` (and its parents), or a :class:`DatasetError` naming it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "a file is in the way" if isinstance(exc, (FileExistsError,
                                                            NotADirectoryError)) else exc.strerror
        raise DatasetError(f"{what} {path}: cannot create the folder ({reason})") from None


def data_home_path(data_home=None):
    """The directory :func:`get_data_home` returns, without creating it."""
    if data_home is None:
        data_home = os.environ.get("PREDICTKIT_DATA") or Path.home() / ".cache" / "predictkit"
    check_path_or_file(data_home, "data_home", "get_data_home", files=False, what="a folder")
    return Path(data_home).expanduser()


def _cache_file(entry, data_home):
    return get_data_home(data_home) / "pwa" / entry["file"]


def fetch_pwa(name, *, data_home=None, download_if_missing=True, url=None):
    """Return a Parallel Workloads Archive log as a job table, downloading it once.

    Parameters
    ----------
    name : str
        A catalogue name, file name or unambiguous prefix (``"KTH-SP2"``);
        see :func:`list_traces`.
    data_home : str or path, optional
        Cache directory (see :func:`get_data_home`). The file is kept as
        ``<data_home>/pwa/<archive file name>``.
    download_if_missing : bool
        If False, raise :class:`DatasetError` instead of downloading a log
        that is not in the cache.
    url : str, optional
        Where to download from instead of the archive (a mirror).

    Returns
    -------
    DataFrame
        The job table read by :func:`predictkit.io.read_swf`.

    Raises
    ------
    DatasetError
        Unknown name (with close matches), a log that is not downloadable, a
        missing file with ``download_if_missing=False``, or a cache entry that
        is a folder.
    InvalidParameterError
        A ``download_if_missing`` other than True or False, or a ``url`` that
        is not text (a :class:`~predictkit.exceptions.ConfigError`).
    OutputError
        A cache folder that cannot be written (read-only, or a file in the
        way of the file), naming it.
    DownloadError
        Network failure, HTTP error or truncated response (after retries), or
        content that is not an SWF log (such as an HTML error page).
    ChecksumError
        The downloaded file does not match the catalogue's checksum or job
        count.

    Warns
    -----
    UserWarning
        When the catalogue has neither a checksum nor a job count for the
        log, so the download could only be checked to be SWF.

    Notes
    -----
    Nothing is cached unless every check passes. A cached file is reused
    without network access; it was verified when it was written, and a
    cached file that no longer reads, or holds another number of jobs than
    the catalogue's, is said to be (an error, a warning). Delete it to
    download again.
    """
    _check_download_arguments("fetch_pwa", download_if_missing, url)
    entry = lookup(name)
    target = _cache_file(entry, data_home)
    if target.is_dir():
        raise DatasetError(f"the cache entry of {entry['name']}, {target}, is a folder, not the "
                           "log: remove it to download the log again")
    if not target.is_file():
        if not download_if_missing:
            raise DatasetError(f"trace {entry['name']} is not in the cache ({target}) and "
                               f"download_if_missing is False")
        source = url or entry["url"]
        if not source:
            raise DatasetError(f"trace {entry['name']} is not an archive log and cannot be "
                               f"downloaded ({entry['caveats'].split('.')[0]}); put "
                               f"{entry['file']} in a directory listed in PREDICTKIT_TRACES")
        jobs = download(source, target, entry)
        jobs.attrs["source"] = str(target)
        return jobs
    return _read_cached(entry, target)


def _check_download_arguments(owner, download_if_missing, url=None):
    """Refuse a ``download_if_missing`` that is not True or False (``"no"`` would read as
    yes and go to the network) and a ``url`` that is not text."""
    if not isinstance(download_if_missing, (bool, np.bool_)):
        raise invalid_parameter("download_if_missing", owner, "True or False",
                                download_if_missing)
    if url is not None and not isinstance(url, str):
        raise invalid_parameter("url", owner, "an address such as 'https://...' (a str)", url)


def _read_cached(entry, target):
    """A cached log, with a hint to download it again when it cannot be read or
    does not hold the catalogue's number of jobs (a copy cut short or replaced)."""
    try:
        jobs = read_swf(target)
    except PredictkitError as exc:
        raise DatasetError(f"the cached copy of {entry['name']} cannot be read ({exc}); "
                           f"delete {target} to download it again") from None
    expected = entry.get("jobs")
    if _known(expected) and len(jobs) != int(expected):
        source = entry.get("jobs_source") or "the catalogue"
        warnings.warn(f"the cached copy of {entry['name']} ({target}) has "
                      f"{len(jobs):,} jobs but the catalogue expects {int(expected):,} "
                      f"({source}): it may be cut short or another version; delete it to "
                      f"download it again", UserWarning, stacklevel=3)
    return jobs


def download(url, target, entry=None):
    """Download ``url`` to ``target`` atomically, verifying length, checksum and content.

    Parameters
    ----------
    url : str
        The address.
    target : Path
        Final file name; its directory is created if needed.
    entry : dict, optional
        Catalogue row; its checksums are enforced when ``verify_checksum``,
        its job count whenever it has one.

    Returns
    -------
    DataFrame
        The downloaded log, read while it was verified.

    Raises
    ------
    DownloadError, ChecksumError
        With nothing left under ``target`` or in temporary files.
    """
    target, _ = resolve_output(target)  # a link in the cache is written through
    _make_folder(target.parent, "the cache folder")
    handle, temporary = create_temporary(target)
    os.close(handle)
    what = f"{entry['name']} from {url}" if entry is not None else url
    try:
        digest = _retrying(url, Path(temporary), what)
        jobs = verify_download(Path(temporary), digest=digest, entry=entry, url=url,
                               compressed=target.name.endswith(".gz"))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_directory(target.parent)
    return jobs


def _retrying(url, temporary, what):
    """Download ``url`` into ``temporary``, trying again after a server or network error;
    ``what`` names the download in errors (the log and the address)."""
    for attempt in range(_RETRIES + 1):
        try:
            return _get(url, temporary)
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or attempt == _RETRIES:
                raise DownloadError(f"download of {what} failed: HTTP {exc.code} "
                                    f"{exc.reason}") from None
        except (ValueError, http.client.InvalidURL) as exc:  # no attempt can succeed
            raise DownloadError(f"download of {what} failed: not an address urllib can "
                                f"open ({exc})") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException,
                DownloadError) as exc:
            if attempt == _RETRIES:
                reason = getattr(exc, "reason", None) or exc
                raise DownloadError(f"download of {what} failed after {_RETRIES + 1} "
                                    f"attempts: {reason}") from None
        time.sleep(_BACKOFF_SECONDS * (attempt + 1))
    raise AssertionError("unreachable")


def _get(url, temporary):
    """One attempt; returns the sha256 of what was written to ``temporary``."""
    digest = hashlib.sha256()
    received = 0
    with urllib.request.urlopen(url, timeout=_TIMEOUT_SECONDS) as response, \
            open(temporary, "wb") as out:
        length = response.headers.get("Content-Length")
        while True:
            try:
                chunk = response.read(_CHUNK)
            except http.client.IncompleteRead as exc:
                out.write(exc.partial)
                received += len(exc.partial)
                chunk = b""
            if not chunk:
                break
            out.write(chunk)
            digest.update(chunk)
            received += len(chunk)
        out.flush()
        os.fsync(out.fileno())  # on disk before the rename makes it the cached log
    if length is not None and length.strip().isdigit() and received != int(length):
        raise DownloadError(f"truncated response: received {received} of {length} bytes")
    return digest.hexdigest()


def trace_folders():
    """The local trace folders named by ``PREDICTKIT_TRACES``, in order.

    The variable holds one folder or several separated by ``os.pathsep``
    (``:`` on Unix, ``;`` on Windows); empty entries are ignored and ``~`` is
    expanded. Folders are returned whether or not they exist.

    Returns
    -------
    list of pathlib.Path
    """
    value = os.environ.get("PREDICTKIT_TRACES", "")
    return [Path(p).expanduser() for p in value.split(os.pathsep) if p]


def find_trace(name, *, folders=None, data_home=None):
    """Return the file of a trace on disk, or None when it is nowhere local.

    The one lookup of trace files by name (used by :func:`load_trace`, the
    experiments and the test and benchmark helpers). Looks in each folder
    (default: :func:`trace_folders`), then in the download cache, for the
    catalogue file name, the name plus ``.swf.gz`` or ``.swf``, and the name
    itself.

    Parameters
    ----------
    name : str
        A catalogue name or prefix such as ``"KTH-SP2"``, or a file stem.
    folders : list of path, optional
        The folders to search before the cache, instead of
        ``PREDICTKIT_TRACES``.
    data_home : str or path, optional
        Cache directory (see :func:`get_data_home`).

    Returns
    -------
    pathlib.Path or None

    Raises
    ------
    InvalidParameterError
        If ``name`` is neither a string nor a path, naming it.
    """
    check_path_or_file(name, "name", "find_trace", files=False, what="a trace name or a path")
    try:
        entry = lookup(name)
    except DatasetError:
        entry = None
    bases = [entry["name"]] if entry is not None else []
    bases.append(str(name))
    candidates = [b + s for b in dict.fromkeys(bases) for s in (".swf.gz", ".swf", "")]
    folders = trace_folders() if folders is None else [Path(f).expanduser() for f in folders]
    for directory in [*folders, data_home_path(data_home) / "pwa"]:
        for candidate in candidates:
            path = directory / candidate
            if path.is_file():
                return path
    return None


def load_trace(name, *, data_home=None, download_if_missing=False):
    """Read a trace from a path, local trace directories, the cache or the archive.

    Parameters
    ----------
    name : str or path
        An existing file, or a trace name (a catalogue name or prefix such as
        ``"KTH-SP2"``, or the stem of a file in a trace directory).
    data_home : str or path, optional
        Cache directory (see :func:`get_data_home`).
    download_if_missing : bool
        Whether to download a catalogue log found nowhere on disk.

    Returns
    -------
    DataFrame
        The job table.

    Raises
    ------
    DatasetError
        If the trace is not on disk and may not (or cannot) be downloaded;
        the message says where it looked.
    InvalidParameterError
        If ``name`` is neither a string nor a path (``None``, a number, a
        file object), or ``download_if_missing`` is not True or False, naming
        it (a :class:`~predictkit.exceptions.ConfigError`).
    """
    check_path_or_file(name, "name", "load_trace", files=False, what="a trace name or a path")
    _check_download_arguments("load_trace", download_if_missing)
    if Path(name).is_file():
        return read_swf(name)
    path = find_trace(name, data_home=data_home)
    if path is not None:
        return read_swf(path)
    try:
        entry = lookup(name)
    except DatasetError as exc:
        raise DatasetError(f"no file {str(name)!r} and {exc}") from None
    if download_if_missing:
        return fetch_pwa(entry["name"], data_home=data_home)
    places = [str(d) for d in trace_folders()] + [str(data_home_path(data_home) / "pwa")]
    raise DatasetError(f"trace {entry['name']} not found in {', '.join(places)}; set "
                       f"PREDICTKIT_TRACES to a directory holding {entry['file']}, or use "
                       f"fetch_pwa({entry['name']!r}) or download_if_missing=True")

"""Checking a downloaded log before it enters the cache.

A download is kept only when every check that the catalogue allows passes:

1. a ``.gz`` file is a complete gzip stream;
2. where the catalogue enforces a checksum, the sha256 of the file or of its
   uncompressed text matches it;
3. the content parses as SWF and holds at least one job (an HTML error page
   served with status 200, gzipped or not, fails here);
4. where the catalogue gives a job count, the log holds exactly that many jobs
   (the wrong log, or a truncated one that still ends cleanly, fails here).

An entry with neither an enforced checksum nor a job count is accepted after
step 3 with a warning that it could not be verified.
"""

import gzip
import hashlib
import warnings

import pandas as pd

from ..exceptions import ChecksumError, DownloadError, PredictkitError
from ..io import read_swf

__all__ = ["verify_download"]

_CHUNK = 1 << 16


def _text_sha256(path, name, url):
    with open(path, "rb") as handle:
        head = handle.read(40)
    if not head.startswith(b"\x1f\x8b"):
        shown = head.decode("utf-8", "replace").split("\n")[0]
        raise DownloadError(f"download of {name} from {url} is not a gzip file (it begins "
                            f"{shown!r}); nothing was kept")
    digest = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as stream:
            for chunk in iter(lambda: stream.read(_CHUNK), b""):
                digest.update(chunk)
    except (OSError, EOFError) as exc:
        raise DownloadError(f"download of {name} from {url} is not a complete gzip file "
                            f"(truncated or corrupt: {exc}); nothing was kept") from None
    return digest.hexdigest()


def _known(value):
    """Whether a catalogue value is given (not None, ``""`` or a missing number)."""
    if isinstance(value, str):
        return bool(value)
    return value is not None and not pd.isna(value)


def verify_download(path, *, digest, entry, url, compressed):
    """Check a downloaded file and return its job table.

    Parameters
    ----------
    path : Path
        The temporary file holding the download.
    digest : str
        sha256 of the file as received.
    entry : dict or None
        Catalogue row (:func:`predictkit.datasets._catalogue.lookup`);
        ``None`` checks the gzip stream and the SWF content only.
    url : str
        Where it came from (for messages).
    compressed : bool
        Whether the file must be a gzip stream.

    Returns
    -------
    DataFrame
        The log read with :func:`predictkit.io.read_swf`.

    Raises
    ------
    DownloadError
        Incomplete gzip stream, or content that is not an SWF log with jobs.
    ChecksumError
        Checksum or job count different from the catalogue's.
    """
    entry = entry or {}
    name = entry.get("name") or url
    text_digest = _text_sha256(path, name, url) if compressed else None
    checksums = ({entry.get("sha256"), entry.get("swf_sha256")} - {"", None}
                 if entry.get("verify_checksum") else set())
    if checksums and not ({digest, text_digest} & checksums):
        raise ChecksumError(f"download of {name} from {url} does not match the catalogue's "
                            f"sha256 {entry['sha256']} (got {digest}); nothing was kept")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jobs = read_swf(path)
    except (PredictkitError, ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        reason = reason.replace(f"{path}, ", "").replace(f"{path}: ", "")
        raise DownloadError(f"download of {name} from {url} is not an SWF log ({reason}); "
                            f"nothing was kept") from None
    if len(jobs) == 0:
        raise DownloadError(f"download of {name} from {url} holds no jobs; nothing was kept")
    expected = entry.get("jobs")
    if _known(expected) and len(jobs) != int(expected):
        source = entry.get("jobs_source") or "the catalogue"
        raise ChecksumError(f"download of {name} from {url} has {len(jobs):,} jobs but the "
                            f"catalogue expects {int(expected):,} (from {source}); "
                            f"nothing was kept")
    if entry and not checksums and not _known(expected):
        warnings.warn(f"download of {name} from {url} could not be verified: the catalogue "
                      f"has neither a checksum nor a job count for it (it parses as SWF with "
                      f"{len(jobs):,} jobs)", UserWarning, stacklevel=4)
    return jobs

"""Where numba caches compiled kernels (``@njit(cache=True)``) when the package is read-only.

numba caches compiled code beside the source (``__pycache__``), else in the
user's cache folder (``~/.cache/numba``); when neither is writable, as for a
package installed by root and used with a read-only or missing ``$HOME``, it
refuses to decorate the kernels and ``import predictkit`` fails. Before any
kernel is defined, :func:`configure_numba_cache` checks those two places the
way numba does (create the folder, create a file in it) and, when both fail
and the user has not chosen ``NUMBA_CACHE_DIR``, points numba at a private
folder ``<temp>/predictkit-numba-<uid>`` (mode 0700, owned by the user; a
fresh private temporary folder when that one cannot be trusted).
"""

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

__all__ = ["configure_numba_cache", "choose_numba_cache_dir", "cache_folder_usable",
           "private_temporary_cache"]

_PACKAGE = Path(__file__).resolve().parent


def cache_folder_usable(folder):
    """Whether ``folder`` can hold a cache: it exists or can be made, and takes a new file."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def private_temporary_cache(temporary_root=None):
    """A folder under the temporary directory that only this user can write.

    ``<temp>/predictkit-numba-<uid>`` is reused across runs when it is a real
    folder owned by the user and writable by nobody else (anyone who could
    write there could plant compiled code); otherwise a fresh private folder
    is made for this run. Returns None when no temporary folder is usable.
    """
    try:
        root = Path(temporary_root or tempfile.gettempdir())
    except OSError:
        return None
    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = root / f"predictkit-numba-{uid if uid is not None else 'user'}"
    with contextlib.suppress(OSError):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        trusted = (stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o022
                   and (uid is None or info.st_uid == uid))
        if trusted and cache_folder_usable(folder):
            return folder
    try:
        return Path(tempfile.mkdtemp(prefix="predictkit-numba-", dir=root))
    except OSError:
        return None


def _numba_user_cache_dir(environ):
    """numba's user-wide cache folder (``numba.misc.appdirs``), without importing numba."""
    if sys.platform.startswith("linux") or sys.platform.startswith("freebsd"):
        base = environ.get("XDG_CACHE_HOME") or os.path.join(
            environ.get("HOME") or os.path.expanduser("~"), ".cache")
        return Path(base) / "numba"
    from numba.misc.appdirs import AppDirs

    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def choose_numba_cache_dir(package_dir=_PACKAGE, *, environ=None, temporary_root=None):
    """The folder to give numba as ``NUMBA_CACHE_DIR``, or None to leave numba's choice.

    None when the user set ``NUMBA_CACHE_DIR``, when ``package_dir/__pycache__``
    is usable (numba's first choice) or when numba's user-wide cache folder is
    (its second); else :func:`private_temporary_cache`.
    """
    environ = os.environ if environ is None else environ
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    if cache_folder_usable(Path(package_dir) / "__pycache__"):
        return None
    if cache_folder_usable(_numba_user_cache_dir(environ)):
        return None
    return private_temporary_cache(temporary_root)


def configure_numba_cache():
    """Set ``NUMBA_CACHE_DIR`` when numba could not cache anywhere else; return the folder or None.

    Runs at ``import predictkit``, before any kernel is defined. When numba
    is already imported its configuration is reloaded so the setting applies.
    """
    folder = choose_numba_cache_dir()
    if folder is None:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.reload_config()
    return folder

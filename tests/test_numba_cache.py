"""``predictkit._numba_cache``: importing and running kernels from a read-only installation."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from predictkit._numba_cache import (cache_folder_usable, choose_numba_cache_dir,
                                     private_temporary_cache)

REPO = Path(__file__).resolve().parents[1]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def unusable(tmp_path):
    """A folder no one can create, root included: its parent is a regular file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / "folder"


def test_usable_and_unusable_folders(tmp_path, unusable):
    assert cache_folder_usable(tmp_path / "new" / "cache")
    assert (tmp_path / "new" / "cache").is_dir()
    assert not cache_folder_usable(unusable)


def test_numba_keeps_its_own_choice_when_it_can_cache(tmp_path, unusable):
    package = tmp_path / "pkg"
    package.mkdir()
    home = {"HOME": str(unusable)}
    assert choose_numba_cache_dir(package, environ=home) is None           # in-tree cache
    assert choose_numba_cache_dir(unusable, environ={"HOME": str(tmp_path)}) is None  # ~/.cache
    assert choose_numba_cache_dir(unusable, environ={"NUMBA_CACHE_DIR": "/x", **home}) is None


def test_private_temporary_folder_when_neither_place_is_writable(tmp_path, unusable):
    env = {"HOME": str(unusable), "XDG_CACHE_HOME": str(unusable)}
    chosen = choose_numba_cache_dir(unusable, environ=env, temporary_root=tmp_path)
    assert chosen == tmp_path / f"predictkit-numba-{os.getuid()}"
    info = os.lstat(chosen)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.getuid()
    # the same folder next time
    assert choose_numba_cache_dir(unusable, environ=env, temporary_root=tmp_path) == chosen


@pytest.mark.parametrize("plant", ["writable by others", "symlink", "file"])
def test_an_untrusted_shared_folder_is_not_used(tmp_path, plant):
    shared = tmp_path / f"predictkit-numba-{os.getuid()}"
    if plant == "writable by others":
        shared.mkdir()
        shared.chmod(0o777)
    elif plant == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        shared.symlink_to(tmp_path / "elsewhere")
    else:
        shared.write_text("")
    chosen = private_temporary_cache(tmp_path)
    assert chosen is not None and chosen != shared and chosen.parent == tmp_path
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700 and cache_folder_usable(chosen)


RUN_A_KERNEL = """
import os, sys
import numpy as np
if sys.argv[2] == "numba first":
    import numba  # its configuration is read before predictkit sets NUMBA_CACHE_DIR
import predictkit
from predictkit.runtime._kernels import quantile_sorted
assert predictkit.__file__.startswith(sys.argv[1]), predictkit.__file__
print(quantile_sorted(np.array([1.0, 2.0, 3.0, 4.0]), 4, 0.5))
print(os.environ.get("NUMBA_CACHE_DIR", ""))
"""


def read_only_command(folders, command):
    """``command`` in a private mount namespace where ``folders`` are read-only bind mounts."""
    mounts = " && ".join(f'mount --bind "{f}" "{f}" && mount -o remount,bind,ro "{f}"'
                         for f in folders)
    return ["unshare", "-m", "sh", "-c", mounts + ' && exec "$@"', "sh", *command]


@pytest.mark.parametrize("order", ["predictkit first", "numba first"])
def test_import_and_run_from_a_read_only_copy_with_a_read_only_home(tmp_path, order):
    """A read-only package and $HOME: import works and a compiled kernel runs and is cached."""
    copy, home, scratch = tmp_path / "site", tmp_path / "home", tmp_path / "tmp"
    shutil.copytree(REPO / "predictkit", copy / "predictkit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    home.mkdir()
    scratch.mkdir()
    command = [sys.executable, "-c", RUN_A_KERNEL, str(copy), order]
    if IS_ROOT:
        probe = shutil.which("unshare") and subprocess.run(
            read_only_command([home], ["touch", str(home / "x")]), capture_output=True)
        if not probe or probe.returncode == 0 or b"Read-only" not in probe.stderr:
            pytest.skip("root, and no private read-only mount available")
        command = read_only_command([copy, home], command)
    else:
        for path in [copy, *copy.rglob("*"), home]:
            path.chmod(path.stat().st_mode & ~0o222)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NUMBA_") and k not in ("XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(HOME=str(home), TMPDIR=str(scratch), PYTHONPATH=str(copy),
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    value, cache = done.stdout.split("\n")[:2]
    assert float(value) == 2.5
    assert Path(cache) == scratch / f"predictkit-numba-{os.getuid()}"
    assert list(Path(cache).rglob("*.nbi")), "the kernel was not cached"
    assert not list(copy.rglob("__pycache__"))

"""Where the real Parallel Workloads Archive traces are, for tests.

Traces are read from the ``$PREDICTKIT_TRACES`` folders
(:func:`predictkit.datasets.trace_folders`) or ``../shared/traces`` next to the
repository, looked up by :func:`predictkit.datasets.find_trace`. Outside CI a missing folder skips the tests that need it; in CI
(``CI=true``) it fails them, since CI always has the traces.
"""

import functools
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def in_ci():
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def trace_folders():
    """The folders searched for traces: ``$PREDICTKIT_TRACES``, then ``../shared/traces``."""
    from predictkit.datasets import trace_folders as library_folders

    return [*library_folders(), REPO.parent / "shared" / "traces"]


def traces_dir():
    """Return the first of :func:`trace_folders` holding SWF files, or None."""
    for candidate in trace_folders():
        if candidate.is_dir() and any(candidate.glob("*.swf*")):
            return candidate
    return None


def trace_names():
    """Names (file name without ``.swf.gz``) of every shared trace, smallest file first."""
    folder = traces_dir()
    if folder is None:
        return []
    files = sorted(folder.glob("*.swf*"), key=lambda p: p.stat().st_size)
    return [p.name.split(".swf")[0] for p in files]


def require_traces():
    """Skip (or fail in CI) when the shared traces are missing; return their folder."""
    folder = traces_dir()
    if folder is None:
        message = ("shared traces not found (set PREDICTKIT_TRACES or put "
                   "../shared/traces beside the repository)")
        if in_ci():
            pytest.fail(message + "; CI must have them")
        pytest.skip(message)
    return folder


def trace_file(name):
    """Path of one shared trace by name."""
    from predictkit.datasets import find_trace

    require_traces()
    folders = [f for f in trace_folders() if f.is_dir()]
    path = find_trace(name, folders=folders)
    if path is None:
        pytest.fail(f"trace {name!r} not found in {', '.join(map(str, folders))}")
    return path


@functools.lru_cache(maxsize=3)
def _load(path):
    from predictkit.io import read_swf

    return read_swf(path)


def load_trace(name, n_jobs=None):
    """Read one shared trace (cached per process); a copy, optionally its first ``n_jobs`` rows."""
    jobs = _load(str(trace_file(name)))
    out = jobs.iloc[:n_jobs].copy() if n_jobs is not None else jobs.copy()
    out.attrs = dict(jobs.attrs)
    return out


# Parametrising over names needs them at collection time; when the folder is
# missing the placeholder makes each test skip (or fail in CI) at run time.
TRACE_NAMES = trace_names() or ["<no traces>"]

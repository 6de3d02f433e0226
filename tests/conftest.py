"""Test settings: hypothesis profiles; trace helpers live in ``tracedata.py``."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, max_examples=50,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config):
    """Under ``pytest -n``, compile the numba kernels once before the workers start.

    Two processes share the work (``_numba_warmup.warm_up``); with a warm
    cache they only load it (seconds). A failure here is only reported: the
    tests that use the failing path show the real error.
    """
    import subprocess
    import sys
    from pathlib import Path

    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers:
        return
    here = Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(here), str(here.parent), os.environ.get("PYTHONPATH", "")]))
    parts = [subprocess.Popen([sys.executable, "-c", f"import _numba_warmup; "
                               f"_numba_warmup.warm_up({part})"], env=env, cwd=here.parent,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for part in (0, 1)]
    for part, process in enumerate(parts):
        _, err = process.communicate()
        if process.returncode:
            last = err.strip().splitlines()[-1:] or ["no message"]
            print(f"numba warm-up part {part} failed ({last[0]}); the tests compile as they go",
                  file=sys.stderr)

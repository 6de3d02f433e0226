"""predictkit: runtime prediction, queue-delay bounds and workload modeling for batch schedulers."""

__version__ = "0.2.0"

from ._numba_cache import configure_numba_cache  # noqa: E402

configure_numba_cache()  # before any compiled kernel is defined

from . import datasets, exceptions, jobs, metrics  # noqa: E402
from .exceptions import PredictkitError  # noqa: E402
from .io import read_log, read_sacct, read_swf, write_swf  # noqa: E402
from .jobs import clean_jobs, summarize, validate_jobs  # noqa: E402

__all__ = [
    "__version__",
    "datasets",
    "exceptions",
    "jobs",
    "metrics",
    "PredictkitError",
    "read_log",
    "read_swf",
    "write_swf",
    "read_sacct",
    "clean_jobs",
    "summarize",
    "validate_jobs",
]

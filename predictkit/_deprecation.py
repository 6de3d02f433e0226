"""Old spellings of renamed public names, accepted with a warning for one release.

Renamed in 0.2 (removed in 0.3): the machine size ``n_procs`` became
``machine_procs`` (``n_procs`` is the job-table column of allocated
processors), the worker count ``n_jobs`` of experiment grids became
``n_workers`` (``n_jobs`` counts HPC jobs), and ``QBETS.predict_proba``
became ``QBETS.start_probability``.
"""

import importlib
import warnings

from ._sklearn_compat import Constraint
from .exceptions import ConfigError

__all__ = ["NOT_PASSED", "UNSET", "moved_names", "renamed_argument", "warn_renamed"]

REMOVED_IN = "0.3"


class _Unset:
    """Default of a deprecated keyword: tells "not passed" from any value."""

    def __repr__(self):
        return "<unset>"


UNSET = _Unset()


class _NotPassed(Constraint):
    """The constraint a deprecated keyword's default meets; left out of error messages."""

    def __init__(self):
        super().__init__()
        self.hidden = True

    def is_satisfied_by(self, val):
        return val is UNSET

    def __str__(self):
        return "not passed"


NOT_PASSED = _NotPassed()
"""Add to the constraints of a deprecated keyword whose default is :data:`UNSET`."""


def warn_renamed(old, new, *, stacklevel=3):
    """Warn that ``old`` is deprecated in favour of ``new``."""
    warnings.warn(f"{old} is deprecated and will be removed in predictkit {REMOVED_IN}; "
                  f"use {new}", DeprecationWarning, stacklevel=stacklevel)


def moved_names(module, moved):
    """A module ``__getattr__`` that serves names moved elsewhere, with a warning.

    The new home is imported only when an old name is used, so a moved name
    never brings its new module's imports (and their cycles) back.

    Parameters
    ----------
    module : str
        The module that used to hold the names (its ``__name__``).
    moved : dict
        ``{old name: "new.module.name"}``.
    """
    def __getattr__(name):
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target, _, attribute = moved[name].rpartition(".")
        value = getattr(importlib.import_module(target), attribute)
        warn_renamed(f"{module}.{name}", moved[name])
        return value

    return __getattr__


def renamed_argument(owner, old, new, old_value, new_value, *, new_default=None, stacklevel=4):
    """The value of a renamed keyword argument, warning when the old name is used.

    Parameters
    ----------
    owner : str
        The function or class, for messages (``"simulate"``).
    old, new : str
        The deprecated and the current keyword.
    old_value : object
        What was passed as ``old`` (:data:`UNSET` when nothing was).
    new_value : object
        What was passed as ``new``.
    new_default : object
        The default of ``new``: passing both keywords with ``new`` changed
        from it is an error.
    stacklevel : int
        Passed to :func:`warnings.warn` from here: 4 points at the caller of
        the function that calls this one (5 when that function is decorated).

    Returns
    -------
    object
        ``new_value``, or ``old_value`` when the old keyword was used.

    Raises
    ------
    ConfigError
        Both keywords were given.
    """
    if old_value is UNSET:
        return new_value
    if new_value is not new_default and new_value != new_default:
        raise ConfigError(f"{owner}: give {new}= only ({old}= is its deprecated name)")
    warn_renamed(f"{owner}({old}=...)", f"{new}=", stacklevel=stacklevel)
    return old_value

"""Checks of command-line values, and library errors re-worded for the command line."""

import contextlib
import re

from .._format import format_given
from .._validation import MAX_SEED
from ..exceptions import ConfigError, JobTableError, PredictkitError

__all__ = ["flag_names", "cli_wording", "check_positive", "check_procs", "check_seed",
           "check_count", "check_load", "warn_ungrouped", "refuse_repeats", "tang_keys",
           "unusable_tang_keys",
           "os_errors", "is_given", "refuse_inapplicable", "MAX_PROCS",
           "MAX_SEED", "check_fraction", "check_tang_quantile", "refuse_without_waits"]


@contextlib.contextmanager
def flag_names(mapping):
    """Re-word the library's parameter names as command-line flags in errors raised inside.

    ``mapping`` is ``{"n_jobs": "--jobs", ...}``; each whole-word occurrence
    of a parameter name in the message of a :class:`ConfigError`,
    :class:`SimulationError`, :class:`JobTableError` or :class:`DatasetError`
    becomes the flag, and remaining Python wording (``truncate=True``,
    ``fetch_pwa('X')``) is replaced by the command-line way to say it.
    """
    try:
        yield
    except PredictkitError as exc:
        text = str(exc)
        worded = cli_wording(text, mapping)
        if worded == text:
            raise
        raise _same_kind(exc, worded) from exc


def cli_wording(text, mapping=None):
    """``text`` with parameter names replaced by flags (see :func:`flag_names`)."""
    for python, flag in _PYTHON_WORDING:
        text = re.sub(python, flag, text)
    for name, flag in (mapping or {}).items():
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w(])", flag, text)
    return text


_PYTHON_WORDING = (
    (r"pass truncate=True", "give --truncate"),
    (r"predictkit\.datasets\.list_traces\(\) or ", ""),
    (r"fetch_pwa\('([^']*)'\) or download_if_missing=True", r"predictkit fetch \1"),
    (r"errors='skip'", "--skip-bad-lines"),
    (r" with predictkit\.clean_jobs\(jobs, for_simulation=True\), which reports what it removed",
     ""),
)


def _same_kind(exc, message):
    try:
        new = type(exc)(message)
    except TypeError:
        new = ConfigError(message)
    if str(new) != message:
        new = ConfigError(message)
    return new


def check_positive(value, flag, *, allow_zero=False):
    """Refuse a negative (or zero) integer or number given to ``flag``."""
    if value is None:
        return value
    if allow_zero and value < 0:
        raise ConfigError(f"{flag} must be 0 or more, got {value}")
    if not allow_zero and not value > 0:
        raise ConfigError(f"{flag} must be positive, got {value}")
    return value


MAX_PROCS = 2**53 - 1
"""Largest machine a command accepts (processor counts are exact in float64 up to it, and
the writers take it)."""


def check_procs(value, flag="--machine-procs"):
    """Refuse a machine size that is not positive or too large to count exactly."""
    check_positive(value, flag)
    if value is not None and value > MAX_PROCS:
        raise ConfigError(f"{flag} must be at most {MAX_PROCS:,}, got {value:,}")
    return value


def check_seed(value, flag="--seed"):
    """Refuse a seed that not every random generator takes (scikit-learn's range)."""
    if value is not None and not 0 <= value <= MAX_SEED:
        raise ConfigError(f"{flag} must be a whole number from 0 to {MAX_SEED:,}, got {value}")
    return value


def check_fraction(value, flag):
    """Refuse a quantile, confidence or probability outside the open interval (0, 1)."""
    if not 0.0 < value < 1.0:  # also refuses NaN
        raise ConfigError(f"{flag} must be in (0, 1), got {value!r}")
    return value


def check_load(value):
    """Refuse an offered load ``--load`` outside ``(0, MAX_LOAD]`` (``make_workload``'s range)."""
    from ..workload._synthetic import MAX_LOAD

    if not 0 < value <= MAX_LOAD:  # also refuses NaN
        raise ConfigError(f"--load must be above 0 and at most {MAX_LOAD:g} (the offered load "
                          f"per week, in machines), got {format_given(value)}")
    return value


def check_tang_quantile(value, flag):
    """Refuse a quantile of run/request for Tang's adjuster outside [0.5, 1] (the range of
    :class:`~predictkit.runtime.WalltimeAdjuster`'s ``quantile``)."""
    if not 0.5 <= value <= 1.0:  # also refuses NaN
        raise ConfigError(f"{flag} must be in [0.5, 1] for Tang's adjuster, got "
                          f"{format_given(value)}")
    return value


def check_count(value, flag, *, low=1):
    """Refuse a count below ``low`` or beyond what a compiled kernel can hold (int64)."""
    if value is not None and not low <= value < 2**62:
        raise ConfigError(f"{flag} must be a whole number from {low} to {2**62 - 1:,}, "
                          f"got {value}")
    return value


def refuse_repeats(values, flag, what="a value"):
    """Refuse a list option that gives the same value twice (it would repeat a result row)."""
    if len(set(values)) != len(values):
        raise ConfigError(f"{flag} gives {what} twice")
    return values


def tang_keys(keys, jobs, trace, *, given, note):
    """Tang's similarity keys that group jobs of this log (``--keys``).

    A key that groups no job (the log lacks the column or gives it for no
    job) would leave every job unadjusted. Keys the user gave are refused,
    naming the key and the log; default keys are left out, and ``note``
    (a function of one line of text) says which.

    Returns
    -------
    tuple of str
        The key columns to use.
    """
    from ..runtime._walltime_adjuster import grouping_keys

    unusable = unusable_tang_keys(keys, jobs, trace, given=given)
    kept = grouping_keys(jobs, keys)
    if not kept:
        unusable_tang_keys(keys, jobs, trace, given=True, default=not given)
    if unusable:
        note(f"Tang's keys leave out {', '.join(unusable)}: {trace} gives "
             f"{'it' if len(unusable) == 1 else 'them'} for no job")
    return kept


def warn_ungrouped(estimator, jobs, trace, name, warn):
    """Warn (``warn``, a function of one line) when ``estimator`` learns from the past jobs
    of each user (or group) and the log gives that column for no job: it keeps every
    request, as a sweep's cells and the report say too."""
    from ..runtime._base import ungrouped_reason

    reason = ungrouped_reason(estimator, jobs)
    if reason is not None:
        warn(f"{trace}: {name} {reason}")


def unusable_tang_keys(keys, jobs, trace, *, given, default=False):
    """The keys of ``keys`` that group no job of the log; refused when the user ``given`` them
    (or, ``default``, when they are the default keys and none groups a job).

    Returns
    -------
    dict
        Key column -> why it groups no job (see
        :func:`predictkit.runtime._walltime_adjuster.unusable_keys`).
    """
    from ..runtime._walltime_adjuster import unusable_keys

    unusable = unusable_keys(jobs, keys)
    if unusable and given:
        key, reason = next(iter(unusable.items()))
        text = keys if isinstance(keys, str) else ",".join(keys)
        if default:
            raise ConfigError(f"Tang's default keys ({text}): {trace} {reason}, and none of "
                              "them groups a job, so Tang would adjust no job (give --keys "
                              "with queue, partition, app or procs, or another method)")
        raise ConfigError(f"--keys {text}: {trace} {reason}, so Tang would adjust no job "
                          "(leave the key out, or use user, group, request, queue, partition, "
                          "app or procs)")
    return unusable


def refuse_without_waits(jobs, trace):
    """Refuse a log in which no job has a known wait (QBETS learns from waits).

    Returns the flags of the jobs that have one
    (:func:`predictkit.queue._replay.known_wait_rows`).
    """
    from ..queue._replay import known_wait_rows

    usable = known_wait_rows(jobs)
    if not usable.any():
        raise JobTableError(f"{trace}: no job has a known wait time; QBETS needs waits "
                            "(predictkit simulate TRACE -o waits.swf gives a log simulated ones)")
    return usable


def is_given(args, dest):
    """Whether an option that defaults to None (or a flag) was given on the command line."""
    value = getattr(args, dest)
    return value is not None and value is not False


def refuse_inapplicable(args, options, chosen, choice_flag):
    """Refuse an option given on the command line that the chosen variant would ignore.

    ``options`` holds ``(dest, flag, variants that use it)``; an option counts
    as given when its value is neither None nor False (so such options
    default to None and get their default after this check). ``chosen`` is
    the value of ``choice_flag`` (``--model``, ``--method``, ``--policy``),
    or the list of values of a flag that takes several (``--predictors``):
    then an option is refused when none of them uses it.
    """
    several = not isinstance(chosen, str)
    values = list(chosen) if several else [chosen]
    for dest, flag, users in options:
        if is_given(args, dest) and not set(values) & set(users):
            named = " or ".join([", ".join(users[:-1]), users[-1]] if len(users) > 1 else users)
            got = " ".join(values)
            raise ConfigError(f"{flag} applies to {choice_flag} {named} only, "
                              + (f"and {choice_flag} {got} has none" if several
                                 else f"not {choice_flag} {got}"))


@contextlib.contextmanager
def os_errors(flag, path=None):
    """Turn an operating-system error on the file ``path`` given to ``flag`` into one line.

    Missing files and folders, folders and permissions are left to
    :func:`predictkit.cli.main`, which words them already, and so is a
    reader of the output gone away (``BrokenPipeError``).
    """
    try:
        yield
    except (FileNotFoundError, IsADirectoryError, PermissionError, BrokenPipeError):
        raise
    except OSError as exc:
        name = path if path is not None else exc.filename
        where = f" {name}" if name is not None else ""
        raise ConfigError(f"{flag}{where}: {exc.strerror or exc}") from None

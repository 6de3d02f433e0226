"""One validation path for the parameters of every estimator and public function.

Estimators declare ``_parameter_constraints`` (scikit-learn's format) and
inherit :class:`ParamsValidatedMixin`, whose ``_validate_params`` runs in
``fit`` / the first ``partial_fit``. Public functions declare theirs with
:func:`validate_params`, checked at each call. Both go through
:func:`check_parameters`, which runs scikit-learn's constraint machinery and
re-raises its error as :class:`~predictkit.exceptions.InvalidParameterError`
(a ``ConfigError`` and a ``ValueError``) with one line naming the parameter::

    The 'quantile' parameter of WalltimeAdjuster must be ... Got 7 instead.

Checks that constraints cannot express (a value depending on another one)
raise through :func:`invalid_parameter`, in the same words. Validation runs
once per ``fit`` or call, never per job.
"""

import functools
import inspect
import math
import numbers
import os
import re

import numpy as np
from sklearn.utils import check_random_state

from ._sklearn_compat import (
    Constraint,
    HasMethods,
    Interval,
    Options,
    RealNotInt,
    SklearnInvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)
from ._time import parse_duration, timedelta64_seconds
from .exceptions import ConfigError, InvalidParameterError, NotFittedError

__all__ = ["ParamsValidatedMixin", "check_parameters", "validate_params", "invalid_parameter",
           "check_path_or_file", "check_instance", "short_repr", "RANDOM_STATE", "Duration",
           "ColumnNames", "FAIRSHARE_DECAY", "FAIRSHARE_FACTOR", "WholeNumber", "NumericArray", "as_generator", "as_seed", "HasMethods",
           "Interval", "Options", "RealNotInt", "StrOptions"]


def check_parameters(constraints, params, owner):
    """Check ``params`` (name -> value) against ``constraints`` for ``owner``.

    Raises
    ------
    InvalidParameterError
        For the first parameter that satisfies none of its constraints, or
        that is a class where an object with methods (``HasMethods``) is
        expected (:func:`check_instance`).
    """
    for name, value in params.items():
        if isinstance(value, type) and any(isinstance(c, HasMethods)
                                           for c in constraints.get(name, ())):
            check_instance(value, name, owner)  # a class has the methods, but is no estimator
        if isinstance(value, (bool, np.bool_)) and _is_numeric_only(constraints.get(name, ())):
            # scikit-learn's Interval takes True for 1: a number was meant
            raise invalid_parameter(name, owner, "a number, not a bool", value)
        if isinstance(value, (np.timedelta64, np.datetime64)) and not any(
                isinstance(c, Duration) for c in constraints.get(name, ())):
            # numpy counts a timedelta64 as an integer, which scikit-learn's Interval
            # then fails to compare
            raise invalid_parameter(name, owner, "a number (of seconds for a duration: "
                                    "value / numpy.timedelta64(1, 's'))", value)
        for constraint in constraints.get(name, ()):
            if isinstance(constraint, ColumnNames) and isinstance(value, str):
                raise invalid_parameter(name, owner, f"a tuple of column names, e.g. "
                                        f"({value!r},), not one string", value)
            refused = constraint.refused_in(value) if isinstance(constraint, ColumnNames) else []
            if refused:
                also = " (or None)" if None in constraints[name] else ""
                raise invalid_parameter(
                    name, owner, f"column names known when a job is submitted{also}: "
                    f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} known only "
                    "once a job has started or ended, and predictions grouped by "
                    f"{'it' if len(refused) == 1 else 'them'} would peek at the outcome",
                    value)
    try:
        validate_parameter_constraints(constraints, params, caller_name=owner)
    except SklearnInvalidParameterError as exc:
        message = str(exc)
        named = re.match(r"The '(\w+)' parameter of ", message)
        name = named and named.group(1)
        if name in params:  # scikit-learn's repr of the value may span lines
            message = message[:message.rindex(". Got ")]
            message += f". Got {short_repr(params[name])} instead."
        raise InvalidParameterError(message, parameter=name, owner=owner) from None


def _is_numeric_only(constraints):
    """Whether ``constraints`` take numbers (an ``Interval``) and no bool."""
    return any(isinstance(c, Interval) for c in constraints) and not any(
        c == "boolean" or c is bool or (isinstance(c, type) and issubclass(bool, c)
                                        and c is not object)
        for c in constraints)


def invalid_parameter(name, owner, expected, value):
    """The error for a parameter that fails a check constraints cannot express."""
    return InvalidParameterError(
        f"The {name!r} parameter of {owner} must be {expected}. Got {short_repr(value)} "
        "instead.", parameter=name, owner=owner)


def check_path_or_file(value, name, owner, *, access="read", files=True, what="a path"):
    """``value`` if it is a path, or a file object open for ``access``; else the error.

    The one check of the file arguments of the readers and writers (``read_swf``,
    ``write_swf``, ``load_trace``, ...): what they accept, said in one line.

    Parameters
    ----------
    value : object
        The argument.
    name, owner : str
        The parameter's name and the function it belongs to, for the message.
    access : {"read", "write"}
        What the function does with a file object: it must have that method
        (``read`` or ``write``), not be closed, and not say it cannot
        (``readable()`` / ``writable()`` false).
    files : bool
        Whether file objects are accepted at all (else only paths).
    what : str
        What the function calls a path, for the message (e.g. ``"a trace
        name or a path"``).

    Returns
    -------
    value
        Unchanged.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, its owner and what it accepts (also a
        ``TypeError``, as the former error was); also for an empty path and
        one holding a NUL byte, which no file name can.
    """
    if isinstance(value, (str, os.PathLike)):
        text = str(os.fspath(value))
        if text == "":
            raise InvalidParameterError(
                f"The {name!r} parameter of {owner} is an empty path ('')", parameter=name,
                owner=owner)
        if "\0" in text:
            raise InvalidParameterError(
                f"The {name!r} parameter of {owner} holds a NUL byte ({short_repr(value)}), "
                "which no file name can hold", parameter=name, owner=owner)
        return value
    doing = "reading" if access == "read" else "writing"
    if files and not isinstance(value, type) and callable(getattr(value, access, None)):
        able = getattr(value, "readable" if access == "read" else "writable", None)
        if getattr(value, "closed", False) is True:
            problem = "is a closed file object"
        elif able is None or _answers_yes(able):
            return value
        else:
            problem = f"is a file object not open for {doing}"
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} {problem} ({short_repr(value)}); pass a path "
            f"or a file object open for {doing}.", parameter=name, owner=owner)
    expected = f"{what} (str or os.PathLike)"
    if files:
        expected += f" or a file object open for {doing}"
    raise invalid_parameter(name, owner, expected, value)


def _answers_yes(method):
    try:
        return bool(method())
    except (OSError, ValueError):  # io.UnsupportedOperation, a closed file
        return False


def check_fitted(estimator, attributes=None):
    """scikit-learn's ``check_is_fitted``, raising predictkit's :class:`NotFittedError`.

    Parameters
    ----------
    estimator : estimator
    attributes : str or list of str, optional
        Attributes that ``fit`` sets (default: any attribute ending in ``_``).

    Raises
    ------
    NotFittedError
        Also scikit-learn's ``NotFittedError``: the message is scikit-learn's.
    """
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimator, attributes)
    except SklearnNotFittedError as error:
        raise NotFittedError(str(error)) from None


def finite_time(value, name, owner):
    """``value`` as a float number of seconds, or a one-line error naming it.

    Raises
    ------
    InvalidParameterError
        For a value that is no number (text that is no number, a bool, None)
        or is not finite.
    """
    seconds = math.nan
    if not isinstance(value, (bool, np.bool_)):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            pass
    if not math.isfinite(seconds):
        raise invalid_parameter(name, owner, "a finite time in seconds", value)
    return seconds


def seconds_per_job(value, n_jobs, name, owner):
    """``value`` -- seconds ``>= 0``, one number or one per job -- as a float64 array
    of ``n_jobs``, or a one-line error naming it (bools, text that is no number,
    ``NaN``, negative values or the wrong length). Numeric text reads as its
    number, as :func:`finite_time` reads it, and one duration text (``"10min"``) as
    :func:`~predictkit._time.parse_duration` does; durations (``pandas.Timedelta``,
    ``numpy.timedelta64`` in weeks down to nanoseconds, ``datetime.timedelta``, or
    arrays and Series of them) as their seconds.

    Raises
    ------
    InvalidParameterError
    """
    expected = (f"seconds >= 0 (not NaN) or a duration such as '10min', one value or one "
                f"per job ({n_jobs})")
    if value is None:
        raise InvalidParameterError(f"{owner} needs {name!r} (seconds)", parameter=name,
                                    owner=owner)
    if isinstance(value, str):
        try:
            value = parse_duration(value, name=name)
        except ConfigError:
            raise invalid_parameter(name, owner, expected, value) from None
    if hasattr(value, "total_seconds") and not hasattr(value, "dtype"):
        value = value.total_seconds()  # datetime.timedelta, pandas.Timedelta
    array = np.asarray(value)
    if array.dtype.kind == "O" and any(hasattr(v, "total_seconds") for v in array.ravel()):
        array = np.array([v.total_seconds() if hasattr(v, "total_seconds") else v
                          for v in array.ravel()], dtype=object).reshape(array.shape)
    if array.dtype.kind == "m":
        array = timedelta64_seconds(array)
        if array is None:
            raise invalid_parameter(name, owner, "seconds, or durations in days, hours, minutes "
                                    "or seconds (months and years have no fixed length)", value)
    if array.dtype.kind == "b" or array.ndim > 1 or (array.dtype.kind == "O" and any(
            isinstance(v, (bool, np.bool_)) for v in array.ravel().tolist())):
        raise invalid_parameter(name, owner, expected, value)
    try:
        array = np.broadcast_to(array.astype(np.float64), (n_jobs,))
    except (TypeError, ValueError):
        raise invalid_parameter(name, owner, expected, value) from None
    bad = np.isnan(array) | (array < 0)
    if bad.any():
        where = f"; {int(bad.sum())} of the {n_jobs} jobs' values are not" if n_jobs > 1 else ""
        raise invalid_parameter(name, owner, expected + where, float(array[int(np.argmax(bad))]))
    return array


def check_instance(estimator, name, owner):
    """``estimator`` unless it is a class: the one check of every estimator argument.

    Passing ``RecentAverage`` where ``RecentAverage()`` is meant would
    otherwise fail deep inside scikit-learn (``clone``) or the estimator.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, its owner, and the call that makes an instance.
    """
    if isinstance(estimator, type):
        kind = estimator.__name__
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} must be an estimator instance, not the class "
            f"{kind}: pass {kind}() (with its parameters) instead.", parameter=name, owner=owner)
    return estimator


def python_scalar(value):
    """A NumPy scalar as the Python value it holds (anything else as it is): what
    messages show and what parsers that take Python numbers accept."""
    # a timedelta64's item() is a timedelta, or a bare count of nanoseconds
    keep = (np.timedelta64, np.datetime64)
    return value.item() if isinstance(value, np.generic) and not isinstance(value, keep) \
        else value


def short_repr(value, limit=80):
    """A one-line representation of ``value`` for error messages (arrays by shape)."""
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return f"a {type(value).__name__} of shape {tuple(shape)}"
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class ParamsValidatedMixin:
    """Makes ``_validate_params`` raise :class:`~predictkit.exceptions.InvalidParameterError`.

    Put it before :class:`sklearn.base.BaseEstimator` among the bases; the
    estimator calls ``self._validate_params()`` at the start of ``fit`` (and
    of a first ``partial_fit``).
    """

    def _validate_params(self):
        check_parameters(self._parameter_constraints, self.get_params(deep=False),
                         type(self).__name__)

    def set_params(self, **params):
        """scikit-learn's ``set_params``; a name the estimator does not have is an
        :class:`~predictkit.exceptions.InvalidParameterError` (also a ``ValueError``)
        naming it and the parameters there are."""
        own = self.get_params(deep=False)
        for key in params:
            name = key.split("__", 1)[0]
            if name not in own:
                have = f"its parameters are {', '.join(sorted(own))}" if own else "it has none"
                raise InvalidParameterError(
                    f"{type(self).__name__} has no parameter {name!r}; {have}")
        return super().set_params(**params)


def validate_params(constraints):
    """Decorate a public function so that its arguments are checked at each call.

    Parameters
    ----------
    constraints : dict
        ``name -> list of constraints`` in scikit-learn's format; parameters
        not listed are not checked, nor are defaults (a test checks them once).
    """
    def decorator(func):
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"constraints of {func.__qualname__} name unknown parameters "
                            f"{sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:  # name the function, as a plain call would
                raise TypeError(f"{func.__qualname__}() {exc}") from None
            check_parameters(constraints, bound.arguments, func.__qualname__)
            return func(*args, **kwargs)

        wrapper._parameter_constraints = constraints
        return wrapper

    return decorator


MAX_SEED = 2**32 - 1
"""The largest seed every random state takes (NumPy's ``RandomState`` stops there)."""


class _RandomStates(Constraint):
    """None, an int in [0, :data:`MAX_SEED`], a numpy RandomState or a numpy Generator."""

    def is_satisfied_by(self, val):
        if val is None or isinstance(val, (np.random.RandomState, np.random.Generator)):
            return True
        return (isinstance(val, numbers.Integral) and not isinstance(val, (bool, np.bool_))
                and 0 <= val <= MAX_SEED)

    def __str__(self):
        return ("None, an int in the range [0, 4294967295], a numpy RandomState "
                "or a numpy Generator")


RANDOM_STATE = _RandomStates()
"""The constraint of every ``random_state`` parameter."""


def as_generator(random_state):
    """A :class:`numpy.random.Generator` from any valid ``random_state``.

    ``None`` and ints seed a new Generator, a Generator is used as is, and a
    RandomState seeds a new Generator from its next draw.
    """
    check_parameters({"random_state": [RANDOM_STATE]}, {"random_state": random_state},
                     "as_generator")
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    return np.random.default_rng(random_state)


def as_seed(random_state):
    """An int seed in ``[0, 2**31 - 1)`` from any valid ``random_state``.

    For ``None``, ints and RandomState this is scikit-learn's
    ``check_random_state(random_state).randint(2**31 - 1)``; a Generator
    gives its next integer draw.
    """
    check_parameters({"random_state": [RANDOM_STATE]}, {"random_state": random_state},
                     "as_seed")
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    return int(check_random_state(random_state).randint(2**31 - 1))


class Duration(Constraint):
    """A duration :func:`predictkit._time.parse_duration` accepts (seconds or ``"30D"``).

    Parameters
    ----------
    positive : bool
        Refuse a zero duration.
    minimum : float
        Smallest accepted number of seconds.
    unlimited : bool
        Also accept the strings ``"none"``, ``"all"`` and ``"inf"`` (no limit).
        ``None`` itself is a separate constraint.
    """

    def __init__(self, *, positive=False, minimum=0.0, unlimited=False):
        super().__init__()
        self.positive = positive
        self.minimum = minimum
        self.unlimited = unlimited

    def is_satisfied_by(self, val):
        if val is None:
            return False
        try:
            seconds = parse_duration(python_scalar(val), name="duration", allow_none=self.unlimited)
        except ConfigError:
            return False
        if seconds is None:
            return True
        return seconds >= self.minimum and not (self.positive and seconds <= 0)

    def __str__(self):
        if self.minimum >= 3600 and self.minimum % 3600 == 0:
            low = f"of at least {self.minimum / 3600:g} h ({self.minimum:g} s)"
        elif self.minimum > 0:
            low = f"of at least {self.minimum:g} s"
        else:
            low = "> 0" if self.positive else ">= 0"
        text = f"a duration {low} (seconds, or a string such as '90min', '18h', '30D')"
        return text + (" or 'all'" if self.unlimited else "")


FAIRSHARE_DECAY = Duration(positive=True)
"""The constraint of every ``fairshare_decay``: the period after which usage decays."""

FAIRSHARE_FACTOR = Interval(numbers.Real, 0, 1, closed="both")
"""The constraint of every ``fairshare_factor``: what is left of usage after a period."""


class RegisteredName(Constraint):
    """The name of an entry of a registry, looked up when the value is checked.

    Unlike ``StrOptions``, entries registered after import (a third-party
    policy, say) are accepted.

    Parameters
    ----------
    registry : Mapping
        Names to entries; its current keys are the accepted values.
    """

    def __init__(self, registry):
        super().__init__()
        self.registry = registry

    def is_satisfied_by(self, val):
        return isinstance(val, str) and val in self.registry

    def __str__(self):
        return "one of " + ", ".join(repr(name) for name in self.registry)


class ColumnNames(Constraint):
    """A non-empty tuple or list of column names (strings) to group jobs by.

    Parameters
    ----------
    refused : tuple of str
        Names that may not be among them: the estimators that group the
        jobs they predict pass :data:`~predictkit._table.OUTCOME_COLUMNS`,
        which a prediction grouped by would peek at.
    """

    def __init__(self, refused=()):
        super().__init__()
        self.refused = tuple(refused)

    def is_satisfied_by(self, val):
        return (isinstance(val, (tuple, list)) and len(val) > 0
                and all(isinstance(v, str) and v not in self.refused for v in val))

    def refused_in(self, val):
        """The refused names among ``val`` (a tuple or list), in their order."""
        if not isinstance(val, (tuple, list)):
            return []
        return list(dict.fromkeys(v for v in val if isinstance(v, str) and v in self.refused))

    def __str__(self):
        if not self.refused:
            return "a non-empty tuple of column names (str)"
        return ("a non-empty tuple of column names (str) known when a job is submitted "
                f"(not {', '.join(self.refused)})")


class WholeNumber(Constraint):
    """An int, or a float holding a whole number, at least ``low`` (never a bool).

    With ``integral=True`` only ints are accepted. ``high`` (default ``2**62``)
    keeps the value within the int64 arithmetic of the compiled code.
    """

    def __init__(self, low, *, integral=False, high=2**62):
        super().__init__()
        self.low = low
        self.high = high
        self.integral = integral

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, numbers.Real):
            return False
        if not isinstance(val, numbers.Integral) and (
                self.integral or not np.isfinite(val) or not float(val).is_integer()):
            return False
        return self.low <= val <= self.high

    def __str__(self):
        kind = "an int" if self.integral else "a whole number"
        return f"{kind} in the range [{self.low}, {self.high}]"


class NumericArray(Constraint):
    """A one-dimensional array-like of numbers (not a string)."""

    def is_satisfied_by(self, val):
        if isinstance(val, (str, bytes)) or not hasattr(val, "__len__"):
            return False
        try:
            values = np.asarray(val, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        return values.ndim == 1

    def __str__(self):
        return "a one-dimensional array-like of numbers"

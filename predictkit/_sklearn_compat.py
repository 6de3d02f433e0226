"""The one place predictkit imports private scikit-learn names.

scikit-learn's parameter-constraint machinery lives in the private module
``sklearn.utils._param_validation``; should it move, only this file changes.
Everything else imports these names from :mod:`predictkit._validation`.
"""

from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError as SklearnInvalidParameterError,
    Options,
    RealNotInt,
    StrOptions as _SklearnStrOptions,
    make_constraint,
    validate_parameter_constraints,
)

__all__ = ["Constraint", "HasMethods", "Interval", "Options", "RealNotInt", "StrOptions",
           "SklearnInvalidParameterError", "make_constraint",
           "validate_parameter_constraints"]


class Constraint(Options):
    """Base of predictkit's own constraints.

    scikit-learn's ``make_constraint`` only accepts its own constraint classes,
    so ours derive from ``Options`` and override ``is_satisfied_by`` and
    ``__str__`` (its common checks find no invalid value to generate for them
    and skip them).
    """

    def __init__(self):
        super().__init__(object, set())


class StrOptions(_SklearnStrOptions):
    """scikit-learn's ``StrOptions``, naming its options in sorted order.

    scikit-learn prints the set as it iterates, and the order of a set of
    strings changes from one run to the next (hash randomisation).
    """

    def __str__(self):
        names = ", ".join(self._mark_if_deprecated(o) for o in sorted(self.options))
        return f"a str among {{{names}}}"

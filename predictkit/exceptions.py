"""Exceptions raised by predictkit.

Every error that a user can cause (bad files, bad arguments, impossible values)
subclasses :class:`PredictkitError`, so the command line can print it as one
line and exit with status 2.

Invalid parameters of estimators and functions raise
:class:`InvalidParameterError`: a :class:`ConfigError` (so also a
``ValueError``) that is also scikit-learn's ``InvalidParameterError``, so
scikit-learn's own tooling (``check_param_validation``) recognises it.
"""

from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from ._sklearn_compat import SklearnInvalidParameterError

__all__ = [
    "PredictkitError",
    "JobTableError",
    "SWFFormatError",
    "SacctFormatError",
    "SqueueFormatError",
    "DatasetError",
    "DownloadError",
    "ChecksumError",
    "SimulationError",
    "ConfigError",
    "OutputError",
    "InputFileError",
    "InvalidParameterError",
    "NotFittedError",
]


class PredictkitError(Exception):
    """Base class of every error predictkit raises on bad input."""


class JobTableError(PredictkitError, ValueError):
    """A job table lacks required columns or holds impossible values."""


class SWFFormatError(PredictkitError, ValueError):
    """A Standard Workload Format file is malformed.

    Parameters
    ----------
    message : str
        What is wrong.
    source : str, optional
        The file (or ``"<buffer>"``) being read.
    line_number : int, optional
        1-based line number in the file.
    line : str, optional
        The offending text.
    """

    def __init__(self, message, *, source=None, line_number=None, line=None):
        self.source = source
        self.line_number = line_number
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}"
            if line_number is not None:
                where += f", line {line_number}"
            where += ": "
        text = f"{where}{message}"
        if line is not None:
            shown = line if len(line) <= 120 else line[:117] + "..."
            text += f": {shown!r}"
        super().__init__(text)


class SacctFormatError(SWFFormatError):
    """Slurm ``sacct`` output is malformed (same fields as :class:`SWFFormatError`)."""


class SqueueFormatError(SWFFormatError):
    """A Slurm ``squeue`` snapshot is malformed (same fields as :class:`SWFFormatError`)."""


class DatasetError(PredictkitError):
    """A trace is unknown or cannot be found."""


class DownloadError(DatasetError):
    """Downloading a trace failed (network error or truncated response)."""


class ChecksumError(DownloadError):
    """A downloaded file does not match its known checksum."""


class SimulationError(PredictkitError, ValueError):
    """A simulation cannot run on the given jobs or parameters."""


class _NotEnoughHistoryError(PredictkitError, ValueError):
    """Deprecated: nothing raises it (estimators answer from the history they have)."""


_NotEnoughHistoryError.__name__ = _NotEnoughHistoryError.__qualname__ = "NotEnoughHistoryError"


class ConfigError(PredictkitError, ValueError):
    """An argument or a configuration file holds an invalid value."""


class OutputError(PredictkitError, OSError):
    """An output cannot be written where it was asked to go.

    Raised before anything is written when the output is a directory or a
    socket, its folder is missing or not writable, or it is the same file as
    one of the inputs (which writing would destroy). It is also an
    :class:`OSError`, so code that catches file errors keeps working; its
    message is one line naming the path.
    """


class InputFileError(PredictkitError, OSError):
    """An input file cannot be opened: it does not exist, is a folder, or may not be read.

    The readers raise it as the matching ``OSError`` too
    (``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError``), so
    code that catches those keeps working; ``errno``, ``strerror`` and
    ``filename`` are those of the failed ``open``.
    """

    @staticmethod
    def from_os_error(error):
        """The :class:`InputFileError` (and ``type(error)``) standing for ``error``."""
        kind = _INPUT_FILE_ERRORS.get(type(error), InputFileError)
        return kind(error.errno, error.strerror, error.filename)


class _MissingInputFile(InputFileError, FileNotFoundError):
    pass


class _InputFileIsAFolder(InputFileError, IsADirectoryError):
    pass


class _UnreadableInputFile(InputFileError, PermissionError):
    pass


_INPUT_FILE_ERRORS = {FileNotFoundError: _MissingInputFile, IsADirectoryError: _InputFileIsAFolder,
                      PermissionError: _UnreadableInputFile}


class NotFittedError(PredictkitError, SklearnNotFittedError):
    """An estimator was asked for predictions (or its fitted state) before ``fit``.

    Also scikit-learn's ``NotFittedError`` (hence ``ValueError`` and
    ``AttributeError``), so scikit-learn's tooling and code that catches it
    keep working.
    """


class InvalidParameterError(ConfigError, SklearnInvalidParameterError):
    """A parameter of an estimator or function has an invalid type or value.

    The message is one line naming the parameter and its owner. Subclasses
    both :class:`ConfigError` (hence ``ValueError``) and scikit-learn's
    ``InvalidParameterError``.

    Parameters
    ----------
    message : str
        The one-line message.
    parameter : str, optional
        The parameter's name (so that the command line can name its flag).
    owner : str, optional
        The estimator, function or method it belongs to.
    """

    def __init__(self, message, *, parameter=None, owner=None):
        super().__init__(message)
        self.parameter = parameter
        self.owner = owner


def __getattr__(name):
    # Deprecated name, kept importable for one release.
    if name == "NotEnoughHistoryError":
        import warnings

        warnings.warn("predictkit.exceptions.NotEnoughHistoryError is never raised and will be "
                      "removed in the next release", DeprecationWarning, stacklevel=2)
        return _NotEnoughHistoryError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

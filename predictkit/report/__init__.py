"""The end-to-end study of a log and its static HTML report (matplotlib figures, no server)."""

from ._analysis import DEFAULT_PREDICTORS, Analysis, analyze
from ._build import build_report

__all__ = ["analyze", "build_report", "Analysis", "DEFAULT_PREDICTORS"]

"""The built-in site's parameters: :func:`default_site`.

Read from ``predictkit/workload/data/default_site.json`` (the equal-weight
mixture of the sites fitted to nine archive logs, see ``docs/workload.md``),
apart from :mod:`._site` so that the unfitted :class:`JointEstimates` can read
it without importing the models that fit it.
"""

import functools
import json
from importlib import resources

import numpy as np

__all__ = ["DEFAULT_SITE_FILE", "DefaultSite", "default_site"]

DEFAULT_SITE_FILE = "default_site.json"
"""The built-in site's parameters, in ``predictkit/workload/data``."""


class DefaultSite:
    """The built-in site's parameters (read from :data:`DEFAULT_SITE_FILE`).

    Attributes
    ----------
    runtime_log_quantiles : ndarray, shape (6, 101)
        As :attr:`RuntimeDistribution.log_quantiles_`.
    padding_quantiles : ndarray, shape (10, 101)
        As :attr:`JointEstimates.padding_quantiles_`.
    user_share, session_share : float
    sources : list of str
        The logs it was fitted to.
    """

    def __init__(self, data):
        self.runtime_log_quantiles = np.asarray(data["runtime_log_quantiles"], dtype=float)
        self.padding_quantiles = np.asarray(data["padding_quantiles"], dtype=float)
        self.user_share = float(data["user_share"])
        self.session_share = float(data["session_share"])
        self.sources = list(data["sources"])
        self.estimates_ = self  # the attribute names JointEstimates reads
        self.padding_quantiles_ = self.padding_quantiles
        self.user_share_ = self.user_share
        self.session_share_ = self.session_share


@functools.lru_cache(maxsize=1)
def default_site():
    """The built-in site (cached)."""
    text = resources.files("predictkit.workload").joinpath("data", DEFAULT_SITE_FILE).read_text(
        encoding="utf-8")
    return DefaultSite(json.loads(text))

"""A site's workload model: runtimes per size class, requests and sessions, fitted together.

:class:`SiteModel` fits a :class:`RuntimeDistribution`, a
:class:`JointEstimates` and the session parameters (:mod:`._session_fit`) to
one log, so that :func:`make_workload` can generate jobs that look like that
site's. :func:`default_site` is the built-in site
used by ``make_workload`` when no site is given: the equal-weight mixture of
the sites fitted to nine archive logs (see ``docs/workload.md``).
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator

from .._validation import RANDOM_STATE, Duration, Interval, ParamsValidatedMixin
from ..exceptions import JobTableError, NotFittedError
from ._base import as_rng
from ._default_site import DefaultSite, default_site
from ._joint import JointEstimates
from ._locality import runtime_locality
from ._runtimes import RuntimeDistribution
from ._session_fit import DEFAULT_SESSIONS, FIT_JOBS, FIT_SEEDS
from ._session_fit import fit_sessions as fit_session_parameters
from ._sessions import DEFAULT_THINK_TIME
from ._synthetic import make_workload

__all__ = ["SiteModel", "default_site", "DefaultSite"]

class SiteModel(ParamsValidatedMixin, BaseEstimator):
    """Runtimes and requests of one site, fitted to its log, for :func:`make_workload`.

    Parameters
    ----------
    min_jobs : int, default=50
        Smallest size class or runtime bin that gets its own distribution.
    think_time : float or str
        Session threshold used to measure how consistent a user's sessions are.
    fit_sessions : bool, default=True
        Fit the session parameters of :func:`make_workload` (how much a
        user's runtimes repeat, when the next job comes) to the log's
        :func:`runtime_locality` (about 15 s on two cores); else, or when the log has no
        two consecutive jobs of a known user or one user only (whose log says nothing
        of how users differ), keep the built-in site's.
    random_state : int, RandomState, Generator or None

    Attributes
    ----------
    runtimes_ : RuntimeDistribution
    estimates_ : JointEstimates
        Fitted with ``user_requests=False``: the site's requests come from its
        paddings per runtime bin and its users' consistency, which carry to
        synthetic users, not from copies of the log's users' requests.
    machine_procs_ : int
    locality_ : dict or None
        The log's :func:`runtime_locality` (None without user ids or pairs).
    sessions_ : SessionParameters
        The session parameters :func:`make_workload` uses with this site,
        fitted so that a generated workload's locality matches ``locality_``
        (see :func:`~predictkit.workload._session_fit.fit_sessions`).

    Examples
    --------
    >>> from predictkit.datasets import make_workload
    >>> log = make_workload(3000, random_state=1)
    >>> site = SiteModel().fit(log)
    >>> jobs = make_workload(3000, site=site, random_state=2)
    >>> bool((jobs["req_time"] >= jobs["run_time"]).all())
    True
    """

    _parameter_constraints = {"min_jobs": [Interval(Integral, 1, None, closed="left")],
                              "think_time": [Duration()], "fit_sessions": ["boolean"],
                              "random_state": [RANDOM_STATE]}

    def __init__(self, *, min_jobs=50, think_time=DEFAULT_THINK_TIME, fit_sessions=True,
                 random_state=None):
        self.min_jobs = min_jobs
        self.think_time = think_time
        self.fit_sessions = fit_sessions
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit the runtime distribution (every job with a runtime and width), the
        request model (every job that also has a request) and the session parameters
        (every job with a runtime and a user)."""
        self._validate_params()
        runtimes = RuntimeDistribution(min_jobs=self.min_jobs,
                                       random_state=self.random_state).fit(X)
        usable = int(runtimes.class_jobs_.sum())  # the jobs it was fitted to
        if usable < self.min_jobs:
            raise JobTableError(
                f"SiteModel needs at least min_jobs={self.min_jobs} jobs with a positive runtime "
                f"and width to fit a site, the log has {usable:,}: a site fitted to fewer would "
                "repeat those few jobs (in Python, a lower SiteModel(min_jobs=...) fits it anyway)")
        self.runtimes_ = runtimes
        # the site describes a population, not the log's users: its synthetic users
        # draw from the paddings rather than copy a real user's requests
        self.estimates_ = JointEstimates(min_jobs=self.min_jobs, think_time=self.think_time,
                                         user_requests=False,
                                         random_state=self.random_state).fit(X)
        self.machine_procs_ = self.runtimes_.machine_procs_
        self.locality_ = runtime_locality(X) if {"user_id", "submit_time"} <= set(X) else None
        self.sessions_ = DEFAULT_SESSIONS
        if self.fit_sessions and self.locality_ is not None and _n_users(X) >= 2:
            seeds = as_rng(self.random_state).integers(2**31, size=FIT_SEEDS)
            self.sessions_ = fit_session_parameters(self._generator(seeds), self.locality_)
        return self

    def _generator(self, seeds):
        """``generate(parameters, k)`` for :func:`fit_session_parameters`: :data:`FIT_JOBS`
        jobs of this site drawn from ``seeds[k]``."""

        def generate(parameters, k):
            return make_workload(FIT_JOBS, machine_procs=self.machine_procs_, site=self,
                                 random_state=int(seeds[k]), **parameters._asdict())

        return generate

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimates_")

    def to_dict(self):
        """The fitted parameters as plain lists and numbers (JSON-ready)."""
        if not hasattr(self, "estimates_"):
            raise NotFittedError("SiteModel must be fitted before to_dict")
        est = self.estimates_
        return {"machine_procs": self.machine_procs_,
                "runtime_log_quantiles": np.round(self.runtimes_.log_quantiles_, 4).tolist(),
                "padding_quantiles": np.round(est.padding_quantiles_, 4).tolist(),
                "user_share": round(est.user_share_, 4),
                "session_share": round(est.session_share_, 4),
                "tail_share": round(est.tail_share_, 4), "t_max": est.t_max_,
                "modes": est.mode_values_.tolist(), "head": est.mode_head_.tolist(),
                "sessions": {name: round(value, 4)
                             for name, value in self.sessions_._asdict().items()}}


def _n_users(X):
    """Distinct known users of the jobs of ``X`` that have a runtime."""
    if "user_id" not in X or "run_time" not in X:
        return 0
    ran = np.asarray(X["run_time"], dtype=float) >= 0
    return int(X.loc[ran, "user_id"].dropna().nunique())

"""The estimate models the modal model is compared with (Tsafrir et al. 2005, section 11.3).

* :class:`FModel` — Mu'alem and Feitelson's f-model: uniform in ``[R, (f+1)R]``.
* :class:`PhiModel` — their accuracy-histogram model ("phi-model" after Zhang
  et al.): ``R / E`` uniform, a share ``phi`` of exact estimates, truncated.
* :class:`DoubledEstimates` — X2: the real estimates doubled.
* :class:`ShuffledEstimates` — the real estimates randomly shuffled between
  jobs under the estimate >= runtime constraint (section 11.2), the
  independence baseline.
"""

from numbers import Real

import numpy as np

from .._time import parse_duration
from .._table import MAX_EXACT
from .._validation import RANDOM_STATE, Duration, Interval, StrOptions, invalid_parameter
from ..exceptions import ConfigError
from ._assignment import assign
from ._base import EstimateModel, as_rng, check_estimates, check_sample_inputs
from ._sessions import DEFAULT_THINK_TIME, session_ids

__all__ = ["FModel", "PhiModel", "DoubledEstimates", "ShuffledEstimates"]

MIN_REQUEST = 1.0
"""Seconds: the shortest request the runtime-based models give (a zero runtime's
would be 0, which no scheduler accepts and simulators such as CQSim drop)."""


class FModel(EstimateModel):
    """The f-model: each estimate uniform in ``[R, (f + 1) R]`` (Tsafrir et al., section 1.2).

    ``f = 0`` gives exact estimates. The paper evaluates f in {0, 1, 3, 10,
    100, 300} and shows the model is too optimistic: estimates stay strongly
    correlated with runtimes.

    Parameters
    ----------
    f : float, default=1.0
        Non-negative inaccuracy factor.
    random_state : int, RandomState, Generator or None

    Examples
    --------
    >>> import numpy as np
    >>> FModel(f=0).sample(np.array([10.0, 20.0])).tolist()
    [10.0, 20.0]
    """

    _parameter_constraints = {"f": [Interval(Real, 0, None, closed="left")],
                              "random_state": [RANDOM_STATE]}

    def __init__(self, *, f=1.0, random_state=None):
        self.f = f
        self.random_state = random_state

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """Estimates ``R * (1 + f * U)`` with ``U`` uniform on [0, 1], at least 1 s."""
        self._check_params()
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        if self.f == 0:
            return np.maximum(run, MIN_REQUEST)
        with np.errstate(over="ignore"):
            requests = np.maximum(
                run * (1.0 + float(self.f) * as_rng(self.random_state).random(run.size)),
                MIN_REQUEST)
        if not (requests < MAX_EXACT).all():
            raise invalid_parameter("f", "FModel", f"small enough that R * (1 + f) stays below "
                                    f"2**53 s for the longest runtime ({run.max():g} s)", self.f)
        return requests


class PhiModel(EstimateModel):
    """Mu'alem and Feitelson's accuracy model, truncated at the maximal estimate.

    Accuracy ``R / E`` is uniform on (0, 1], so ``E = R / u``; a share ``phi``
    of the jobs estimate exactly (the 100% peak of the accuracy histogram);
    estimates are truncated at ``t_max`` (24 h in the original), but never
    below the runtime (Tsafrir et al., section 1.2).

    Section 1.2 says the model "also created [...] the hump at low values",
    the jobs that fail at start-up (under 90 s) in real histograms. It gives
    neither the hump's share nor its shape, and estimates here are given to
    the runtimes a log or model already has, so the hump is not added: a
    job's accuracy is its ``u`` (or 1 for the exact share), whatever its
    runtime.

    Parameters
    ----------
    phi : float, default=0.15
        Share of exact estimates, in [0, 1].
    t_max : float or str, default=86400.0
        Truncation point (24 h in the original).
    random_state : int, RandomState, Generator or None
    """

    _parameter_constraints = {"phi": [Interval(Real, 0, 1, closed="both")],
                              "t_max": [Duration(positive=True)],
                              "random_state": [RANDOM_STATE]}

    def __init__(self, *, phi=0.15, t_max=86400.0, random_state=None):
        self.phi = phi
        self.t_max = t_max
        self.random_state = random_state

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """Estimates ``max(R, min(R / u, t_max), 1 s)``, exact for a share ``phi``."""
        self._check_params()
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        rng = as_rng(self.random_state)
        t_max = parse_duration(self.t_max, name="t_max")
        u = 1.0 - rng.random(run.size)
        exact = rng.random(run.size) < self.phi
        with np.errstate(divide="ignore"):
            est = np.where(exact, run, np.minimum(run / u, t_max))
        return np.maximum(np.maximum(est, run), MIN_REQUEST)


class DoubledEstimates(EstimateModel):
    """X2: the real estimates doubled (Tsafrir et al., section 11.3).

    Needs the real estimates (``req_time``); runtimes alone are an error.
    """

    _parameter_constraints = {}
    _needs_estimates = True

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """Twice ``estimates``."""
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        return 2.0 * check_estimates(estimates, run.size)


class ShuffledEstimates(EstimateModel):
    """A log's own estimates shuffled between its jobs (section 11.2, "shfl").

    Each job, in descending runtime order, takes a random remaining estimate
    at least its runtime: the distribution stays exactly the log's, the
    link between a job and its estimate is gone. With
    ``assignment="sessions"`` the jobs of one user session share an estimate.

    Parameters
    ----------
    assignment : {"shuffle", "sessions"}
    think_time : float or str
        Session threshold (default 20 min).
    truncate : bool
        Runtimes above the largest estimate are an error by default; with
        ``True`` they get the largest estimate (and :meth:`transform` caps
        their ``run_time``, keeping ``orig_run_time``).
    random_state : int, RandomState, Generator or None

    Attributes
    ----------
    estimates_ : ndarray
        The estimates of the table given to :meth:`fit`, used by
        :meth:`sample` when it is not given ``estimates``.
    """

    _parameter_constraints = {"assignment": [StrOptions({"shuffle", "sessions"})],
                              "think_time": [Duration()], "truncate": ["boolean"],
                              "random_state": [RANDOM_STATE]}
    _needs_estimates = True
    _stateless = False

    def __init__(self, *, assignment="shuffle", think_time=DEFAULT_THINK_TIME,
                 truncate=False, random_state=None):
        self.assignment = assignment
        self.think_time = think_time
        self.truncate = truncate
        self.random_state = random_state

    def __sklearn_is_fitted__(self):
        return True

    def fit(self, X, y=None):
        """Store the estimates of ``X`` (``req_time``, no missing values)."""
        super().fit(X)
        self.estimates_ = check_estimates(X["req_time"].to_numpy(dtype=float), len(X),
                                          name="req_time")
        return self

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """The estimates, shuffled over the jobs so that each covers its runtime."""
        self._check_params()
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        if estimates is None and hasattr(self, "estimates_"):
            estimates = self.estimates_
        est = check_estimates(estimates, run.size)
        if run.size == 0:
            return np.zeros(0)
        largest = est.max()
        if run.max() > largest:
            if not self.truncate:
                raise ConfigError(
                    f"{int((run > largest).sum())} runtime(s) exceed the largest estimate "
                    f"({largest:g} s); pass truncate=True to cap them")
            run = np.minimum(run, largest)
        rng = as_rng(self.random_state)
        groups = None
        if self.assignment == "sessions":
            users, submit = self._sessions_input(users, submit_times, run.size)
            groups = session_ids(users, submit, run,
                                 parse_duration(self.think_time, name="think_time"))
        return assign(est, run, rng, groups=groups)

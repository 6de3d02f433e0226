"""The modal model of user runtime estimates as an estimator/transformer.

D. Tsafrir, Y. Etsion, D. G. Feitelson, "Modeling user runtime estimates",
JSSPP 2005: sections 5-10 build the modes (:mod:`._tsafrir_modes`),
section 11.2 assigns them to jobs (:mod:`._assignment`).
"""

from numbers import Integral, Real

import numpy as np
import pandas as pd

from .._time import parse_duration
from .._validation import (RANDOM_STATE, Duration, Interval, StrOptions, check_parameters,
                           invalid_parameter, python_scalar)
from ..exceptions import ConfigError, InvalidParameterError
from ..jobs import validate_jobs
from ._assignment import assign_modes, mode_counts
from ._base import EstimateModel, as_rng, check_sample_inputs
from ._sessions import DEFAULT_THINK_TIME, session_ids
from ._tsafrir_modes import N_HEAD, make_modes

__all__ = ["TsafrirEstimates"]


def _modes_error(message):
    return InvalidParameterError(
        f"The 'modes' parameter of TsafrirEstimates is invalid: {message}",
        parameter="modes", owner="TsafrirEstimates")


class TsafrirEstimates(EstimateModel):
    """Synthetic user runtime estimates from the Tsafrir-Etsion-Feitelson modal model.

    The estimates of ``N`` jobs form ``K`` modes: ``K`` grows with ``N``
    (section 6, Table 3), mode times follow ``F_tim`` (section 7), sizes follow
    ``F_pop`` (section 8), the 20 head modes sit at human "round" times mapped
    to sizes by the pool algorithm (section 9) and ``t_max`` is the most
    popular mode. Estimates are then paired with jobs by the random-shuffle
    algorithm (section 11.2) so that every estimate covers its job's runtime.

    Parameters
    ----------
    t_max : float or str, optional
        Maximal estimate (seconds or a duration such as ``"18h"``; at least
        1 h). Mandatory unless the model is fitted on a real log.
    p_max : float, optional
        Percent of jobs whose estimate is ``t_max``, in [0, 100]. ``None`` keeps
        the model's ``F_pop(1)``, about 21.7% (the reference default). It sets
        the size of the ``t_max`` mode, and the other head modes are rescaled
        so the head still holds 89% of the jobs (section 9.4). ``t_max`` stays
        an estimate value whatever ``p_max`` (as in the paper, the model always
        has its mode): a job that no shorter estimate covers gets ``t_max``, so
        with a small ``p_max`` (or few jobs) the share of jobs at ``t_max`` may
        exceed ``p_max``.
    modes : sequence of (time, percent), optional
        Up to 20 user-supplied modes (section 9.4): each time replaces the
        closest default head time, each percent the closest default head size;
        ``t_max`` keeps the largest size unless given here. Times are seconds or
        durations, at most ``t_max``; percents, with ``p_max``, sum to <= 100.
    k_model : {"linear", "power"}
        Number of modes from the number of jobs: Table 3 or ``1.1 N^0.5`` (Fig. 7).
    assignment : {"shuffle", "sessions"}
        ``"shuffle"`` is the paper's random shuffle (independent jobs).
        ``"sessions"`` (beyond the paper, its future work of section 11.4) gives
        every job of one user session the same estimate; it needs users and
        submit times.
    think_time : float or str
        Session threshold for ``assignment="sessions"`` (default 20 min).
    n_fit_modes : int
        How many of a real log's most popular estimates besides ``t_max``
        :meth:`fit` embeds as user modes (the paper's "improved" setting uses
        1-3; 0 gives the "vanilla" setting).
    truncate : bool
        Runtimes above ``t_max`` are an error by default. With ``True`` they are
        capped at ``t_max`` as the reference implementation does (those jobs
        get ``t_max``, and :meth:`transform` caps their ``run_time`` too, keeping
        the original in ``orig_run_time``).
    random_state : int, RandomState, Generator or None

    Attributes
    ----------
    t_max_, p_max_ : float
        Learned by :meth:`fit` (or the parameters when given).
    modes_ : list of (float, float)
        Modes embedded after :meth:`fit`.
    n_jobs_seen_ : int
        Jobs in the table given to :meth:`fit`.

    Notes
    -----
    :meth:`mode_table` gives the modes themselves (the paper's first function;
    it is not called ``modes`` because that is the name of the parameter).
    Without :meth:`fit`, :meth:`sample` and :meth:`transform` use the
    parameters directly.

    Examples
    --------
    >>> import numpy as np
    >>> model = TsafrirEstimates(t_max="18h", random_state=0)
    >>> runtimes = np.array([30.0, 600.0, 4000.0, 60000.0])
    >>> estimates = model.sample(runtimes)
    >>> bool((estimates >= runtimes).all())
    True
    """

    _parameter_constraints = {
        "t_max": [Duration(minimum=3600), None],
        "p_max": [Interval(Real, 0, 100, closed="both"), None],
        "modes": ["array-like", None],
        "k_model": [StrOptions({"linear", "power"})],
        "assignment": [StrOptions({"shuffle", "sessions"})],
        "think_time": [Duration()],
        "n_fit_modes": [Interval(Integral, 0, N_HEAD - 1, closed="both")],
        "truncate": ["boolean"],
        "random_state": [RANDOM_STATE],
    }
    _stateless = False

    def __init__(self, *, t_max=None, p_max=None, modes=None, k_model="linear",
                 assignment="shuffle", think_time=DEFAULT_THINK_TIME, n_fit_modes=3,
                 truncate=False, random_state=None):
        self.t_max = t_max
        self.p_max = p_max
        self.modes = modes
        self.k_model = k_model
        self.assignment = assignment
        self.think_time = think_time
        self.n_fit_modes = n_fit_modes
        self.truncate = truncate
        self.random_state = random_state

    def __sklearn_is_fitted__(self):
        return hasattr(self, "t_max_") or self.t_max is not None

    def _settings(self):
        """(t_max, p_max, modes): fitted values, else the validated parameters."""
        if hasattr(self, "t_max_"):
            return self.t_max_, self.p_max_, self.modes_
        if self.t_max is None:
            raise invalid_parameter(
                "t_max", "TsafrirEstimates",
                "given (the maximal estimate, e.g. t_max='18h') unless the model is fitted "
                "on a log with estimates", None)
        t_max = self._check_t_max(self.t_max)
        p_max = self._check_p_max(self.p_max)
        return t_max, p_max, self._check_modes(self.modes, t_max, p_max)

    def _check_params(self):
        super()._check_params()
        if self.modes is not None:
            t_max = 0.0 if self.t_max is None else parse_duration(self.t_max, name="t_max")
            self._check_modes(self.modes, t_max or np.inf, self.p_max)

    @staticmethod
    def _check_t_max(t_max):
        value = parse_duration(t_max, name="t_max")
        if value < 3600:
            raise ConfigError(f"t_max must be at least 1 h (3600 s), got {value:g} s")
        return value

    @staticmethod
    def _check_p_max(p_max):
        return None if p_max is None else float(p_max)

    @staticmethod
    def _check_modes(modes, t_max, p_max):
        if modes is None:
            return []
        pairs = []
        for item in (modes.itertuples(index=False) if isinstance(modes, pd.DataFrame) else modes):
            try:
                time, percent = item
                t = parse_duration(python_scalar(time),
                                   name="mode time")
                p = float(percent)
            except (TypeError, ValueError):  # a ConfigError of parse_duration is a ValueError
                raise _modes_error(f"modes must be (time, percent) pairs of a duration and a "
                                   f"percent, got {item!r}") from None
            if not 0 < t <= t_max:
                raise _modes_error(f"mode time {t:g} s must be in (0, t_max={t_max:g} s]")
            if not 0 < p <= 100:
                raise _modes_error(f"mode percent must be in (0, 100], got {p:g} for {t:g} s")
            if t == t_max and p_max is not None and p != p_max:
                raise _modes_error(f"t_max is given with two percents: p_max={p_max:g} and {p:g}")
            pairs.append((t, p))
        times = [t for t, _ in pairs]
        if len([t for t in times if t != t_max]) > N_HEAD - 1:
            raise _modes_error(f"at most {N_HEAD} user modes are allowed, {N_HEAD - 1} of them "
                              f"below t_max; got {len(pairs)}")
        if len(set(times)) != len(times):
            raise _modes_error("modes repeat a time value")
        extra = p_max if p_max is not None and t_max not in times else 0.0
        total = sum(p for _, p in pairs) + extra
        if total > 100 + 1e-9:
            raise _modes_error(f"user modes (with p_max) sum to {total:g}% of jobs, above 100%")
        return pairs

    def fit(self, X, y=None):
        """Learn ``t_max``, ``p_max`` and the top modes from a log with estimates.

        ``t_max_`` is the longest of the log's 20 most popular estimates (the
        maximal estimate is always a popular value, section 2), unless given;
        ``p_max_`` its share of jobs, unless given (with ``t_max`` given, the
        share of jobs at the log's maximum, or, for a ``t_max`` below it, of
        jobs asking for ``t_max`` or more: the jobs at the log's limit ask for
        the given one, and the modes are below both); ``modes_`` the
        ``n_fit_modes`` most popular other estimates (the "improved" setting,
        section 11.1), unless ``modes`` is given.

        Raises
        ------
        JobTableError
            If ``req_time`` is missing or has missing values.
        """
        self._check_params()
        validate_jobs(X, required=("req_time",))
        requests = np.asarray(X["req_time"], dtype=float)
        if requests.size == 0:
            raise ConfigError("cannot fit TsafrirEstimates on an empty job table")
        values, counts = np.unique(requests[requests > 0], return_counts=True)
        if values.size == 0:
            raise ConfigError("the log has no positive requested times to learn from")
        by_popularity = np.argsort(-counts, kind="stable")
        if self.t_max is not None:
            t_max = self._check_t_max(self.t_max)
        else:
            t_max = self._check_t_max(values[by_popularity[:N_HEAD]].max())
        # a given maximum takes the jobs at the log's own (or above the given one)
        log_max = float(values[by_popularity[:N_HEAD]].max())
        at_limit = min(t_max, log_max)
        p_max = self._check_p_max(self.p_max)
        if p_max is None:
            at_max = requests == log_max if t_max >= log_max else requests >= t_max
            p_max = 100.0 * float(np.mean(at_max))
        if self.modes is not None:
            modes = self._check_modes(self.modes, t_max, p_max)
        else:
            top = [i for i in by_popularity if values[i] < at_limit]
            modes = [(float(values[i]), 100.0 * counts[i] / requests.size)
                     for i in top[:self.n_fit_modes]]
            modes = self._check_modes(modes, t_max, p_max)
        self.t_max_, self.p_max_, self.modes_ = t_max, p_max, modes
        self.n_jobs_seen_ = int(requests.size)
        return self

    def mode_table(self, n_jobs):
        """The ``K`` modes for ``n_jobs`` jobs (sections 6-10).

        Returns
        -------
        DataFrame
            ``estimate`` (seconds, ascending), ``percent`` (of jobs; sums to
            100), ``rank`` (popularity rank in the model) and ``head`` (one of
            the 20 head modes).
        """
        self._check_params()
        check_parameters({"n_jobs": [Interval(Integral, 1, None, closed="left")]},
                         {"n_jobs": n_jobs}, "TsafrirEstimates.mode_table")
        t_max, p_max, modes = self._settings()
        return make_modes(int(n_jobs), t_max, p_max=p_max, user_modes=modes,
                          k_model=self.k_model, rng=as_rng(self.random_state))

    def sample(self, runtimes, users=None, submit_times=None, estimates=None):
        """One estimate per job, each at least the job's runtime (section 11.2).

        Parameters
        ----------
        runtimes : array-like of float, shape (n,)
        users, submit_times : array-like, shape (n,), optional
            Needed by ``assignment="sessions"``.
        estimates : ignored
            Accepted for a common interface with the models built on real estimates.

        Returns
        -------
        ndarray of float, shape (n,)

        Raises
        ------
        ConfigError
            If a runtime exceeds ``t_max`` (unless ``truncate=True``), or the
            parameters are invalid.
        """
        self._check_params()
        run, users, submit_times = check_sample_inputs(runtimes, users, submit_times, estimates)
        t_max, p_max, modes = self._settings()
        if run.size == 0:
            return np.zeros(0)
        longest = run.max()
        if longest > t_max:
            if not self.truncate:
                raise ConfigError(
                    f"t_max ({t_max:g} s) is below the longest runtime ({longest:g} s, "
                    f"{int((run > t_max).sum()):,} job(s)); raise t_max or pass truncate=True "
                    "to cap runtimes at t_max as the reference implementation does")
            run = np.minimum(run, t_max)
        rng = as_rng(self.random_state)
        table = make_modes(run.size, t_max, p_max=p_max, user_modes=modes,
                           k_model=self.k_model, rng=rng)
        counts = mode_counts(table["percent"].to_numpy(), run.size)
        groups = None
        if self.assignment == "sessions":
            users, submit = self._sessions_input(users, submit_times, run.size)
            groups = session_ids(users, submit, run,
                                 parse_duration(self.think_time, name="think_time"))
        return assign_modes(table["estimate"].to_numpy(), counts, run, rng, groups=groups)

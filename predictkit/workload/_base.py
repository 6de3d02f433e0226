"""What every estimate model shares: input checks, randomness, the transformer form."""

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from .._validation import ParamsValidatedMixin, as_generator
from ..exceptions import ConfigError, JobTableError
from .._table import as_numbers, check_aligned, per_job_numbers
from ..jobs import validate_jobs

__all__ = ["EstimateModel", "as_rng", "check_runtimes", "check_sample_inputs",
           "check_estimates"]

as_rng = as_generator
"""A :class:`numpy.random.Generator` from any valid ``random_state`` (see
:func:`predictkit._validation.as_generator`)."""


def check_runtimes(runtimes, name="runtimes"):
    """Runtimes as a float array; missing, negative or infinite values are an error."""
    values = per_job_numbers(runtimes, name)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        first = int(np.argmax(bad))
        raise JobTableError(
            f"{name} must be finite and >= 0: {int(bad.sum())} bad value(s), "
            f"first at position {first} ({float(values[first])!r})")
    return values


def check_sample_inputs(runtimes, users=None, submit_times=None, estimates=None):
    """What every model's ``sample`` is given: the runtimes (:func:`check_runtimes`),
    and the users and submit times, when given, as numbers, one per runtime.

    Values are paired with the runtimes by position; when the runtimes are a
    Series, a Series of users, submit times or ``estimates`` must carry the
    same index (labelled for other jobs, or the same jobs in another order,
    it would pair each job with another's values).

    Raises
    ------
    JobTableError
        For bad runtimes, users or submit times that are not numbers, or a
        Series labelled otherwise than the runtimes.
    ConfigError
        For users or submit times of another length than the runtimes.
    """
    run = check_runtimes(runtimes)
    if isinstance(runtimes, pd.Series):
        for values, name in ((users, "users"), (submit_times, "submit_times"),
                             (estimates, "estimates")):
            check_aligned(values, runtimes, name, table="runtimes")
    given = []
    for values, name in ((users, "users"), (submit_times, "submit_times")):
        if values is not None:
            values = as_numbers(values, name)
            if values.shape != run.shape:
                raise ConfigError(f"{name} must have one value per runtime ({run.size}), got "
                                  f"shape {values.shape}")
        given.append(values)
    return run, given[0], given[1]


def check_estimates(estimates, n, name="estimates"):
    """The real estimates a model builds on; missing ones are an error."""
    if estimates is None:
        raise JobTableError(
            f"this model needs the jobs' own estimates ({name}, the req_time column); "
            "runtimes alone are not enough")
    values = as_numbers(estimates, name)
    if values.shape != (n,):
        raise JobTableError(
            f"{name} must have one value per runtime ({n}), got shape {values.shape}")
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        raise JobTableError(
            f"{name} has {int(bad.sum())} missing or invalid value(s) (first at position "
            f"{int(np.argmax(bad))}); runtimes without estimates cannot be used — "
            "drop those jobs first, e.g. jobs[jobs.req_time.notna()]")
    return values


class EstimateModel(ParamsValidatedMixin, TransformerMixin, BaseEstimator):
    """Base of the estimate models: ``sample`` for arrays, ``transform`` for job tables.

    Subclasses implement ``sample(runtimes, users=None, submit_times=None,
    estimates=None)``. ``transform`` returns a copy of the job table whose
    ``req_time`` holds the generated estimates and whose new column
    ``orig_req_time`` keeps the original ones (``NaN`` where unknown), ready
    for :func:`predictkit.io.write_swf` (which writes the SWF columns only).

    Parameters are checked against ``_parameter_constraints`` by ``fit``, and
    by ``sample``/``transform`` of a model used without ``fit``.
    """

    _needs_estimates = False
    _stateless = True

    def fit(self, X, y=None):
        """Check ``X``; stateless models learn nothing. Returns ``self``."""
        self._check_params()
        self._check_table(X)
        return self

    def __sklearn_is_fitted__(self):
        return self._stateless or hasattr(self, "n_jobs_seen_")

    def _check_params(self):
        """Validate the parameters (raise InvalidParameterError); subclasses extend."""
        self._validate_params()

    def _required_columns(self):
        columns = ["run_time"]
        if self._needs_estimates:
            columns.append("req_time")
        return tuple(columns)

    def _check_table(self, X):
        validate_jobs(X, required=self._required_columns())
        if getattr(self, "assignment", "shuffle") == "sessions":
            missing = [c for c in ("user_id", "submit_time") if c not in X.columns]
            if missing:
                raise JobTableError(
                    f"assignment='sessions' needs column(s) {', '.join(missing)} "
                    "(jobs with an unknown user form sessions of one job)")

    def transform(self, X):
        """Return ``X`` with generated estimates in ``req_time``.

        The original requests move to ``orig_req_time``. Models with
        ``truncate=True`` also cap ``run_time`` at their maximal estimate and keep
        the original runtimes in ``orig_run_time``; a capped job ran into its
        limit, so its ``status`` becomes 0 (killed), as in :func:`make_workload`.
        """
        self._check_table(X)
        run = np.asarray(X["run_time"], dtype=float)
        users = np.asarray(X["user_id"], dtype=float) if "user_id" in X.columns else None
        submit = np.asarray(X["submit_time"], dtype=float) if "submit_time" in X.columns else None
        real = np.asarray(X["req_time"], dtype=float) if "req_time" in X.columns else None
        estimates = self.sample(run, users=users, submit_times=submit,
                                estimates=real if self._needs_estimates else None)
        out = X.copy()
        out["orig_req_time"] = real if real is not None else np.nan
        out["req_time"] = estimates
        if getattr(self, "truncate", False):
            out["orig_run_time"] = run
            out["run_time"] = np.minimum(run, estimates)
            if "status" in out.columns:
                out.loc[run > estimates, "status"] = 0.0
        return out

    def _sessions_input(self, users, submit_times, n):
        if users is None or submit_times is None:
            raise ConfigError(
                "assignment='sessions' needs users and submit_times (user_id and "
                "submit_time columns)")
        return users, submit_times  # checked by check_sample_inputs

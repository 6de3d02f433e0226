"""Runtimes fitted to a log: the distribution of log-runtime per job-size class.

Lublin and Feitelson (JPDC 2003) model runtimes as a hyper-gamma whose mixing
depends on the job size; their parameters describe the logs of the 1990s,
whose median runtime (18 s in the model) is far below most archive logs'.
:class:`RuntimeDistribution` keeps their idea (runtime depends on size)
without their parametric form: it stores the quantile function of
``log10(run_time)`` in each size class, and samples by inverse transform.
Quantiles are kept at every percent, so a spike holding one percent of the
jobs or more (runtimes killed at a popular limit) is reproduced exactly.
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import ndtr
from sklearn.base import BaseEstimator

from .._table import as_numbers
from .._validation import RANDOM_STATE, Interval, ParamsValidatedMixin, invalid_parameter
from ..exceptions import ConfigError, JobTableError, NotFittedError
from ..jobs import job_width, validate_jobs
from ._base import as_rng, check_runtimes

__all__ = ["RuntimeDistribution", "PROBABILITIES", "size_class", "SIZE_CLASSES"]

PROBABILITIES = np.linspace(0.0, 1.0, 101)
"""Probabilities at which quantile functions are stored (every percent)."""

SIZE_CLASSES = ("serial", "up to 1/64", "up to 1/16", "up to 1/4", "above 1/4")
"""Job-size classes, as a share of the machine's processors."""

_SHARE_EDGES = np.array([1 / 64, 1 / 16, 1 / 4])


def size_class(sizes, machine_procs):
    """Class index (0 .. 4, see :data:`SIZE_CLASSES`) of each job size."""
    sizes = np.asarray(sizes, dtype=float)
    share = sizes / float(machine_procs)
    classes = 1 + np.searchsorted(_SHARE_EDGES, share, side="left")
    classes[sizes <= 1] = 0
    return classes.astype(np.int64)


def quantile_table(values, groups, n_groups, min_jobs):
    """Quantiles of ``values`` at :data:`PROBABILITIES` per group, plus the pooled row.

    Rows ``0 .. n_groups - 1`` are the groups (a group with fewer than
    ``min_jobs`` values takes the pooled row), row ``n_groups`` is the pooled
    distribution. Also returns the job count of each group.
    """
    pooled = np.quantile(values, PROBABILITIES)
    table = np.tile(pooled, (n_groups + 1, 1))
    counts = np.bincount(groups, minlength=n_groups)[:n_groups]
    for g in range(n_groups):
        if counts[g] >= min_jobs:
            table[g] = np.quantile(values[groups == g], PROBABILITIES)
    return table, counts


def inverse_transform(table, groups, u):
    """Values at probabilities ``u`` from the quantile rows ``table[groups]`` (linear)."""
    position = np.clip(u, 0.0, 1.0) * (PROBABILITIES.size - 1)
    low = np.minimum(np.floor(position).astype(np.int64), PROBABILITIES.size - 2)
    frac = position - low
    left = table[groups, low]
    right = table[groups, low + 1]
    return left + frac * (right - left)


class RuntimeDistribution(ParamsValidatedMixin, BaseEstimator):
    """Runtimes whose distribution per job-size class is a log's (inverse transform).

    ``fit`` stores, for each size class of :data:`SIZE_CLASSES` (share of the
    machine), the quantile function of ``log10(run_time)`` at every percent;
    ``sample`` draws runtimes for given job sizes. Classes with fewer than
    ``min_jobs`` jobs use the whole log's distribution. Sizes are compared as
    shares of the machine, so a model fitted on one machine can generate for
    another.

    Parameters
    ----------
    min_jobs : int, default=50
        Smallest class that gets its own distribution.
    random_state : int, RandomState, Generator or None

    Attributes
    ----------
    log_quantiles_ : ndarray, shape (6, 101)
        ``log10`` runtime quantiles per class; the last row is the pooled one.
    class_jobs_ : ndarray of int, shape (5,)
        Jobs of the fitted log in each class.
    machine_procs_ : int
        Processors of the fitted machine (``attrs["max_procs"]``, else the
        widest job).

    Examples
    --------
    >>> from predictkit.datasets import make_workload
    >>> log = make_workload(2000, random_state=0)
    >>> model = RuntimeDistribution(random_state=0).fit(log)
    >>> runtimes = model.sample(log["n_procs"].to_numpy(), machine_procs=128)
    >>> bool((runtimes >= 1).all())
    True
    """

    _parameter_constraints = {"min_jobs": [Interval(Integral, 1, None, closed="left")],
                              "random_state": [RANDOM_STATE]}

    def __init__(self, *, min_jobs=50, random_state=None):
        self.min_jobs = min_jobs
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the runtime quantiles per size class from a job table.

        Jobs without a positive runtime or width are left out.

        Raises
        ------
        JobTableError
            If a column is missing or no job has a positive runtime and width.
        """
        self._validate_params()
        validate_jobs(X, present=("run_time",))
        run = X["run_time"].to_numpy(dtype=float)
        size = job_width(X)
        keep = np.isfinite(run) & np.isfinite(size) & (run > 0) & (size > 0)
        if not keep.any():
            raise JobTableError("no job has a positive run_time and width (n_procs, else "
                                "req_procs) to fit runtimes on")
        run, size = run[keep], size[keep]
        machine = X.attrs.get("max_procs") or size.max()
        self.machine_procs_ = int(max(machine, size.max()))
        classes = size_class(size, self.machine_procs_)
        self.log_quantiles_, self.class_jobs_ = quantile_table(
            np.log10(run), classes, len(SIZE_CLASSES), self.min_jobs)
        return self

    @classmethod
    def from_quantiles(cls, log_quantiles, *, machine_procs=128, random_state=None):
        """A model with given quantile rows (as stored in ``log_quantiles_``)."""
        table = np.asarray(log_quantiles, dtype=float)
        if table.shape != (len(SIZE_CLASSES) + 1, PROBABILITIES.size):
            raise ConfigError(f"log_quantiles must have shape "
                              f"({len(SIZE_CLASSES) + 1}, {PROBABILITIES.size}), got "
                              f"{table.shape}")
        if (np.diff(table, axis=1) < 0).any():
            raise ConfigError("each row of log_quantiles must be non-decreasing")
        model = cls(random_state=random_state)
        model.log_quantiles_ = table
        model.class_jobs_ = np.zeros(len(SIZE_CLASSES), dtype=np.int64)
        model.machine_procs_ = int(machine_procs)
        return model

    def __sklearn_is_fitted__(self):
        return hasattr(self, "log_quantiles_")

    def sample(self, sizes, *, machine_procs=None, scores=None):
        """Runtimes (whole seconds, at least 1) for jobs of the given sizes.

        Parameters
        ----------
        sizes : array-like, shape (n,)
            Processors of each job.
        machine_procs : int, optional
            Processors of the machine the jobs run on (default: the fitted one).
        scores : array-like, shape (n,), optional
            Standard normal scores to use instead of fresh draws (a job's
            runtime quantile is ``Phi(score)``); correlated scores give
            correlated runtimes with the same distribution.
        """
        if not hasattr(self, "log_quantiles_"):
            raise NotFittedError("RuntimeDistribution must be fitted (or made with "
                              "from_quantiles) before sample")
        sizes = check_runtimes(sizes, "sizes")
        if (sizes <= 0).any():
            first = int(np.argmax(sizes <= 0))
            raise JobTableError(f"sizes must be positive numbers of processors: "
                                f"{int((sizes <= 0).sum())} are not, first at position {first} "
                                f"({float(sizes[first])!r})")
        machine = self.machine_procs_ if machine_procs is None else machine_procs
        if (isinstance(machine, bool) or not isinstance(machine, Real)
                or not 1 <= machine < np.inf):
            raise invalid_parameter("machine_procs", "RuntimeDistribution.sample",
                                    "a number of processors >= 1", machine)
        if scores is None:
            u = as_rng(self.random_state).random(sizes.size)
        else:
            scores = as_numbers(scores, "scores")
            if scores.shape != sizes.shape:
                raise ConfigError(f"scores must have one value per size ({sizes.size}), got "
                                  f"shape {scores.shape}")
            if not np.isfinite(scores).all():
                first = int(np.argmax(~np.isfinite(scores)))
                raise JobTableError(f"scores must be finite normal scores: "
                                    f"{int((~np.isfinite(scores)).sum())} are not, first at "
                                    f"position {first} ({float(scores[first])!r})")
            u = ndtr(scores)
        log_run = inverse_transform(self.log_quantiles_, size_class(sizes, machine), u)
        return np.maximum(np.round(10.0 ** log_run), 1.0)

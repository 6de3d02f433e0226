"""Scheduling-level scoring of runtime predictors (for ``cross_validate`` / ``GridSearchCV``)."""

from .._deprecation import renamed_argument
from ..exceptions import ConfigError
from ..metrics import schedule_metrics

__all__ = ["make_schedule_scorer"]

_ALIASES = {
    "wait": "mean_wait", "response": "mean_response", "slowdown": "mean_slowdown",
    "bounded_slowdown": "mean_bounded_slowdown",
}
_GREATER_IS_BETTER = {"utilization", "backfill_ratio"}


class _ScheduleScorer:
    def __init__(self, metric, simulate_kwargs):
        self.metric = metric
        self.simulate_kwargs = simulate_kwargs

    def __call__(self, estimator, X, y=None):
        from ..simulate import simulate

        schedule = simulate(X, estimates=estimator, **self.simulate_kwargs)
        table = schedule_metrics(schedule)
        values = table.set_index("metric")["value"]
        if self.metric not in values.index:
            raise ConfigError(
                f"metric {self.metric!r} is not reported for this schedule; available: "
                f"{', '.join(values.index)}")
        value = float(values[self.metric])
        return value if self.metric in _GREATER_IS_BETTER else -value

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.simulate_kwargs.items())
        return f"make_schedule_scorer(metric={self.metric!r}, {args})"


def make_schedule_scorer(policy="easy", metric="bounded_slowdown", selective=True, **simulate_kwargs):
    """Score a runtime predictor by the schedule its predictions produce.

    The scorer simulates the evaluation fold ``X`` with
    :func:`predictkit.simulate.simulate`, using the (fitted) estimator as the
    online estimate source: its training history is kept and the fold's
    completed jobs are added in simulated time. Use it as ``scoring=`` in
    :func:`sklearn.model_selection.cross_validate` or ``GridSearchCV`` with
    :class:`predictkit.model_selection.TraceSplit`.

    Parameters
    ----------
    policy : str, default "easy"
        Backfilling policy of the simulation.
    metric : str, default "bounded_slowdown"
        A metric of :func:`predictkit.metrics.schedule_metrics` (``"wait"``,
        ``"slowdown"``, ``"bounded_slowdown"`` and ``"response"`` name the
        means). Lower-is-better metrics are negated, as sklearn maximises.
    selective : bool, default True
        Tang et al. (2013) section 5.2 selective use of the predictions.
    **simulate_kwargs
        Other :func:`~predictkit.simulate.simulate` arguments (pass
        ``machine_procs``: folds may lack the trace header; the deprecated
        ``n_procs`` is renamed here, with a warning).

    Returns
    -------
    callable
        ``scorer(estimator, X, y=None) -> float``.
    """
    if not isinstance(metric, str):
        raise ConfigError(f"metric must be a string, got {metric!r}")
    if "estimates" in simulate_kwargs:
        raise ConfigError("the scorer supplies estimates= itself (the estimator being scored)")
    if "n_procs" in simulate_kwargs:
        simulate_kwargs["machine_procs"] = renamed_argument(
            "make_schedule_scorer", "n_procs", "machine_procs", simulate_kwargs.pop("n_procs"),
            simulate_kwargs.get("machine_procs"), stacklevel=4)
    name = _ALIASES.get(metric, metric)
    kwargs = dict(policy=policy, selective=selective, **simulate_kwargs)
    return _ScheduleScorer(name, kwargs)

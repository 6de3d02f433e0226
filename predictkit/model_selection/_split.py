"""Time-ordered cross-validation on submit times (Tang et al. 2013 evaluate month by month)."""

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import BaseCrossValidator
from sklearn.pipeline import Pipeline

from .._table import (cancelled_before_running, check_target, known_after_submission,
                      known_time, validate_jobs)
from .._time import parse_duration
from .._validation import (Duration, Interval, StrOptions, check_instance, check_parameters,
                           invalid_parameter)
from ..exceptions import ConfigError, JobTableError, PredictkitError
from ._replay import replay

__all__ = ["TraceSplit", "replay_cross_validate"]


class TraceSplit(BaseCrossValidator):
    """Split a job table into consecutive periods of submit time; test on the last ones.

    Submit times are cut into periods of length ``period`` starting at the
    first submission (period ``i`` holds ``t0 + i period <= submit < t0 + (i+1)
    period``). The last ``n_splits`` non-empty periods are the test folds, in
    time order. The training set of a fold is every earlier job
    (``train="expanding"``) or the jobs submitted within ``train_window``
    before the fold (``train="sliding"``; default one ``period``). Rows need
    not be sorted; indices refer to rows of ``X``.

    Unlike :class:`sklearn.model_selection.TimeSeriesSplit`, which cuts by row
    count and assumes equally spaced samples, the folds follow the calendar,
    as in Tang et al. (2013) section 6.1 (one workload per month).

    With ``cross_validate`` or ``GridSearchCV`` the model is fitted on the
    training set and predicts the test fold from that history only (a test job
    never sees another test job: no peeking, but less information than a
    scheduler has). :func:`replay_cross_validate` also lets each test job use
    the test jobs that ended before its submission.

    Parameters
    ----------
    n_splits : int, default=5
        Number of test folds (>= 1).
    period : str or float, default="30D"
        Length of one period (duration string or seconds).
    train : {"expanding", "sliding"}, default="expanding"
        Training set: all earlier jobs, or only the recent ones.
    train_window : str, float or None, default=None
        For ``"sliding"``: how far back before the fold's start training jobs
        were submitted (default: one ``period``). Ignored for ``"expanding"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from predictkit.model_selection import TraceSplit
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 86400.0 * 40, 86400.0 * 70]})
    >>> [(tr.tolist(), te.tolist()) for tr, te in TraceSplit(n_splits=2).split(jobs)]
    [([0], [1]), ([0, 1], [2])]
    """

    def __init__(self, n_splits=5, *, period="30D", train="expanding", train_window=None):
        self.n_splits = n_splits
        self.period = period
        self.train = train
        self.train_window = train_window

    _parameter_constraints = {
        "n_splits": [Interval(Integral, 1, None, closed="left")],
        "period": [Duration(positive=True)],
        "train": [StrOptions({"expanding", "sliding"})],
        "train_window": [Duration(unlimited=True), None],
    }

    def _check(self):
        check_parameters(self._parameter_constraints,
                         {name: getattr(self, name) for name in self._parameter_constraints},
                         "TraceSplit")
        period = parse_duration(self.period, name="period")
        window = parse_duration(self.train_window, name="train_window", allow_none=True)
        return period, (period if window is None else window)

    def _folds(self, X):
        period, window = self._check()
        if not isinstance(X, pd.DataFrame) or "submit_time" not in X.columns:
            raise JobTableError("TraceSplit needs a job table (DataFrame) with submit_time")
        # seconds, none missing nor infinite (a datetime column would be read as nanoseconds)
        validate_jobs(X, required=("submit_time",), columns=("job_id",), check_values=False,
                      name="TraceSplit: job table")
        submit = np.asarray(X["submit_time"], dtype=np.float64)
        if len(submit) == 0:
            raise JobTableError("TraceSplit: the job table is empty")
        t0 = submit.min()
        index = np.floor((submit - t0) / period).astype(np.int64)
        used = np.unique(index)
        if len(used) < self.n_splits + 1:
            raise ConfigError(
                f"TraceSplit: {len(used)} non-empty period(s) of {self.period} "
                f"cannot give {self.n_splits} test folds after a training period")
        return submit, t0, period, window, index, used[-self.n_splits:]

    def split(self, X, y=None, groups=None):
        """Yield ``(train, test)`` row indices, test folds in time order."""
        submit, t0, period, window, index, tests = self._folds(X)
        rows = np.arange(len(submit))
        for fold in tests:
            start = t0 + fold * period
            test = rows[index == fold]
            if self.train == "expanding":
                train = rows[index < fold]
            else:
                train = rows[(index < fold) & (submit >= start - window)]
            if len(train) == 0:
                raise ConfigError(
                    f"TraceSplit: the test fold starting at submit time {start:.0f} has no "
                    f"training jobs within train_window before it; widen train_window")
            yield train, test

    def _iter_test_indices(self, X=None, y=None, groups=None):
        for _, test in self.split(X, y, groups):
            yield test

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of folds (``n_splits``)."""
        self._check()
        return self.n_splits


def _add_history(model, X, y):
    """Feed ``X, y`` to every history-keeping step (``partial_fit`` of online steps)."""
    if hasattr(model, "target_known_at"):
        model.partial_fit(X, y)
        return True
    if isinstance(model, Pipeline):
        fed = False
        current = X
        for _, step in model.steps[:-1]:
            if step is None or step == "passthrough":
                continue
            if hasattr(step, "target_known_at"):
                step.partial_fit(current, y)
                fed = True
            current = step.transform(current)
        return _add_history(model.steps[-1][1], current, y) or fed
    return False


def _on_replay_clock(X, y):
    """``X`` with the end times of :func:`~.replay`'s clock: a job that ends at its
    submission is known just after it (so not to itself nor to the jobs submitted
    with it)."""
    submit = np.asarray(X["submit_time"], dtype=np.float64)
    known = known_time(X, "end", y=y)
    with np.errstate(invalid="ignore"):
        if not (known <= submit).any():
            return X
    return X.assign(end_time=known_after_submission(known, submit))


class _ReplayedFold(RegressorMixin, BaseEstimator):
    """A test fold's replayed predictions, given to a scorer as the estimator's.

    A wait estimator's state holds every wait fed to it, so predicting a fold
    after feeding it would show jobs later waits; the fold is replayed
    instead, and a scorer asking for the fold's predictions gets them.
    """

    def __init__(self, X=None, predictions=None):
        self.X = X
        self.predictions = predictions

    def predict(self, X):
        if X is not self.X:
            raise ConfigError("replay_cross_validate: a scorer of a wait estimator can only "
                              "score the test fold's jobs it is given (their bounds come "
                              "from a replay)")
        return self.predictions


def replay_cross_validate(estimator, X, y, *, cv, scoring=None, return_predictions=False):
    """Cross-validate on time-ordered folds, letting test jobs use the test jobs already ended.

    For each ``(train, test)`` fold of ``cv`` (usually :class:`TraceSplit`):
    clone and ``fit`` on the training jobs, then add the test jobs to the
    history of every online step (``partial_fit`` of estimators and pipeline
    steps with ``target_known_at``) and predict the test jobs. Because online
    steps use only jobs that ended before each job's submission, a test job
    sees the training history and the test jobs that finished before it was
    submitted, never later ones nor itself (a job that ends at its
    submission counts as ended just after it, as in :func:`~.replay`) --
    what a scheduler deploying the model would see. Learned parts (e.g. a
    gradient-boosting regressor) are trained on the training fold only.

    A queue-wait estimator (``target_known_at = "start"``, e.g.
    :class:`~predictkit.queue.QBETS`) keeps every wait it is fed, so its
    test jobs are predicted by :func:`~.replay` over the training and test
    jobs instead, and the scorers are given those predictions (a scorer
    must then score the fold's jobs it is handed, through ``predict``).

    Parameters
    ----------
    estimator : estimator
        A runtime predictor or a pipeline starting with online steps (an
        instance: a class is refused with an
        :class:`~predictkit.exceptions.InvalidParameterError`).
    X : DataFrame
        Job table.
    y : array-like of shape (n_jobs,)
        Runtimes; test jobs with unknown ``y`` are predicted but not scored,
        nor are jobs cancelled before they ran (status 5, a recorded wait, a
        ``y`` of 0: no runtime; :func:`~predictkit.jobs.cancelled_before_running`).
    cv : cross-validator
        Gives ``(train, test)`` row indices.
    scoring : str, callable, dict or None
        sklearn scoring (``None``: the estimator's ``score``); a dict gives
        one entry per name.
    return_predictions : bool, default=False
        Also return the test predictions (``NaN`` outside test folds).

    Returns
    -------
    dict
        ``"test_<name>"`` arrays of one score per fold (``"test_score"`` for a
        single scorer), ``"fold"`` test sizes, and ``"predictions"`` if asked.
    """
    owner = "replay_cross_validate"
    check_instance(estimator, "estimator", owner)
    if not isinstance(X, pd.DataFrame):
        raise JobTableError(f"{owner}: X must be a pandas DataFrame job table, got "
                            f"{type(X).__name__}")
    if not callable(getattr(cv, "split", None)) or isinstance(cv, type):
        # an int would make sklearn's shuffled-free KFold, which ignores time order
        raise invalid_parameter("cv", owner, "a cross-validator instance with split(X, y), "
                                "such as TraceSplit(n_splits=5)", cv)
    target = "waits" if getattr(estimator, "target_known_at", None) == "start" else "runtimes"
    y = check_target(y, X, what=target, missing=True, owner=owner)
    if scoring is None and not callable(getattr(estimator, "score", None)):
        raise invalid_parameter(
            "scoring", owner, f"a scorer: {type(estimator).__name__} has no score method for "
            "None to use (e.g. scoring=sklearn.metrics.make_scorer(bound_correctness), with "
            "bound_correctness from predictkit.metrics, for bounds)", scoring)
    try:
        if isinstance(scoring, dict):
            scorers = {name: check_scoring(estimator, scoring=s) for name, s in scoring.items()}
        else:
            scorers = {"score": check_scoring(estimator, scoring=scoring)}
    except (ValueError, TypeError):
        raise invalid_parameter("scoring", owner, "None, a scorer name of "
                                "sklearn.metrics.get_scorer_names(), a callable or a dict of "
                                "them", scoring) from None
    results = {f"test_{name}": [] for name in scorers}
    results["fold"] = []
    predictions = np.full(len(X), np.nan)
    unscored = (cancelled_before_running(X, y) if target == "runtimes"
                else np.zeros(len(X), dtype=bool))
    for train, test in cv.split(X, y):
        scored = test[np.isfinite(y[test]) & ~unscored[test]]
        shown = X.iloc[scored]
        if target == "waits":
            rows = np.union1d(train, test)
            replayed = replay(estimator, X.iloc[rows], y[rows])
            predictions[test] = replayed[np.searchsorted(rows, test)]
            model = _ReplayedFold(shown, predictions[scored])
        else:
            model = clone(estimator)
            keep = train[np.isfinite(y[train])]
            model.fit(X.iloc[keep], y[keep])
            done = test[np.isfinite(y[test])]
            _add_history(model, _on_replay_clock(X.iloc[done], y[done]), y[done])
            predictions[test] = model.predict(X.iloc[test])
        for name, scorer in scorers.items():
            results[f"test_{name}"].append(_score(scorer, model, shown, y[scored], scoring,
                                                  target, owner))
        results["fold"].append(len(test))
    out = {k: np.asarray(v) for k, v in results.items()}
    if return_predictions:
        out["predictions"] = predictions
    return out


def _score(scorer, model, X, y, scoring, target, owner):
    """``scorer(model, X, y)``; a scorer that cannot score numbers (scikit-learn's
    classification metrics) is an error naming ``scoring``, not scikit-learn's."""
    try:
        return scorer(model, X, y)
    except (ValueError, TypeError) as error:
        if isinstance(error, PredictkitError):
            raise
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise invalid_parameter("scoring", owner, f"a scorer of {target} in seconds, a "
                                f"regression metric (scoring it failed: {reason})",
                                scoring) from None


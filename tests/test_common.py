"""scikit-learn's common checks on every public predictkit estimator.

The estimators are discovered, not listed: every :class:`~sklearn.base.BaseEstimator`
subclass named in the ``__all__`` of a predictkit subpackage (as
``sklearn.utils.discovery.all_estimators`` does for scikit-learn), so a new
estimator is checked as soon as it is exported.

Each check must pass, or fail exactly as listed in :func:`expected_failed_checks`:
with the listed exception type, a message matching the listed pattern and, where
scikit-learn wraps our error in its own, the listed cause. A listed check that
passes, or fails for another reason, fails the test, so the list never hides a
new failure nor goes stale. (scikit-learn's own ``expected_failed_checks``
marks a check xfail whatever it raises, so the matching is done here.)
"""

import importlib
import pkgutil
import re
from dataclasses import dataclass

import pytest
from sklearn.base import BaseEstimator, is_regressor
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import predictkit
from predictkit._validation import ParamsValidatedMixin
from predictkit.exceptions import InvalidParameterError, JobTableError
from predictkit.queue import QBETS
from predictkit.workload._base import EstimateModel


def all_estimators():
    """``[(name, class)]`` of every estimator a predictkit subpackage exports, by name."""
    found = {}
    for info in pkgutil.iter_modules(predictkit.__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"predictkit.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return sorted(found.items())


# Instances checked beyond the default one (default constructor for the others).
_INSTANCES = {QBETS: [QBETS(clustering=None), QBETS(random_state=0)]}


def _instances():
    return [est for _, cls in all_estimators() for est in _INSTANCES.get(cls, [cls()])]


@dataclass(frozen=True)
class Expected:
    """How a common check is expected to fail, and why."""

    exception: type
    match: str
    reason: str
    cause: type = None
    cause_match: str = None


_NOT_A_TABLE = r"job table.*, got (ndarray|memmap|_NotAnArray|csr_array|csr_matrix)"
_TABLE = ("X must be a job table (a DataFrame with named SWF columns): the check passes a "
          "bare numeric array, whose columns mean nothing to a job model")
_MESSAGE = ("the check wants scikit-learn's own error text for a bare array; the job-table "
            "error naming the problem comes first")


def _table(reason=_TABLE):
    return Expected(JobTableError, _NOT_A_TABLE, reason)


def _wrapped(match, exception=AssertionError, reason=_MESSAGE):
    return Expected(exception, match, reason, cause=JobTableError, cause_match=_NOT_A_TABLE)


_ON_TABLES = {name: _table() for name in [
    "check_fit_score_takes_y", "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters", "check_estimators_fit_returns_self",
    "check_readonly_memmap_input", "check_estimators_dtypes", "check_dtype_object",
    "check_pipeline_consistency", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_dict_unchanged", "check_fit_idempotent",
    "check_fit2d_predict1d", "check_fit_check_is_fitted"]}
_ON_TABLES.update({
    "check_n_features_in": _table("n_features_in_ is meaningless: extra columns of a job "
                                  "table are ignored by design"),
    "check_n_features_in_after_fitting": _table("n_features_in_ is meaningless: extra columns "
                                                "are ignored by design"),
    "check_positive_only_tag_during_fit": _wrapped(r"raised JobTableError unexpectedly"),
    "check_complex_data": _wrapped(r"Complex data not supported"),
    "check_estimators_empty_data_messages": _wrapped(r"0 feature"),
    "check_fit2d_1sample": _wrapped(r"1 sample"),
    "check_fit2d_1feature": _wrapped(r"1 feature"),
    "check_estimator_sparse_tag": _wrapped(
        r"sparse input is not supported",
        reason="job tables are dense DataFrames; sparse input is a job-table error"),
    "check_estimator_sparse_array": _wrapped(r"fail gracefully on sparse data"),
    "check_estimator_sparse_matrix": _wrapped(r"fail gracefully on sparse data"),
})
_NEEDS_Y = {"check_requires_y_none": _wrapped(r"incorrect or incomplete error message",
                                              exception=ValueError)}
_REGRESSOR = {name: _table() for name in [
    "check_regressors_train", "check_regressor_data_not_an_array",
    "check_regressors_no_decision_function", "check_supervised_y_2d", "check_regressors_int"]}
_REGRESSOR["check_estimators_partial_fit_n_features"] = _table(
    "partial_fit takes job tables; their number of columns may change between calls")
_TRANSFORMER = {name: _table() for name in [
    "check_transformer_data_not_an_array", "check_transformer_general",
    "check_transformer_preserve_dtypes"]}
_ESTIMATE_MODEL = {
    "check_estimators_nan_inf": _wrapped(r"doesn't check for NaN and inf in fit"),
}
_STATELESS = {
    "check_fit_check_is_fitted": Expected(
        AssertionError, r"passes check_is_fitted before being fit",
        "a stateless estimate model samples without fit, so it counts as fitted"),
}


def expected_failed_checks(estimator):
    """``{check name: Expected}`` for one estimator, from what it is.

    Every predictkit estimator reads job tables (DESIGN: ``X`` is a job table),
    so the checks that pass bare arrays fail with a job-table error; which
    checks those are follows from its tags and kind (target required,
    regressor, transformer, estimate model), so a new estimator needs no entry
    here unless it fails in a new way.
    """
    expected = dict(_ON_TABLES)
    if get_tags(estimator).target_tags.required:
        expected.update(_NEEDS_Y)
    if is_regressor(estimator):
        expected.update(_REGRESSOR)
    if hasattr(estimator, "transform"):
        expected.update(_TRANSFORMER)
    if isinstance(estimator, EstimateModel) or not hasattr(estimator, "predict"):
        # estimate models and the models of a log (runtimes, sites) fit job tables only
        expected.update(_ESTIMATE_MODEL)
    if isinstance(estimator, EstimateModel):
        if estimator.__sklearn_is_fitted__():
            expected.update(_STATELESS)
    return expected


def _run_check(estimator, check, expected):
    func = getattr(check, "func", check)
    name = getattr(func, "__name__", str(func))
    listed = expected.get(name)
    if listed is None:
        check(estimator)
        return
    try:
        check(estimator)
    except Exception as exc:  # compared with the listed failure below
        raised = exc
    else:
        pytest.fail(f"{name} passes now; remove it from the expected failures "
                    f"({listed.reason})")
    assert isinstance(raised, listed.exception), (
        f"{name} raised {type(raised).__name__}, listed as {listed.exception.__name__}: {raised}")
    assert re.search(listed.match, str(raised)), (
        f"{name}: {str(raised)[:300]!r} does not match {listed.match!r}")
    if listed.cause is not None:
        cause = raised.__cause__ or raised.__context__
        assert isinstance(cause, listed.cause), (
            f"{name}: caused by {type(cause).__name__}, listed {listed.cause.__name__}")
        assert re.search(listed.cause_match, str(cause)), f"{name}: cause {cause}"


@parametrize_with_checks(_instances())
def test_sklearn_common_checks(estimator, check):
    """Every check passes, or fails with the listed type and reason."""
    _run_check(estimator, check, expected_failed_checks(estimator))


KNOWN = {"RequestedTime", "WalltimeAdjuster", "RecentUsageMax", "RecentAverage",
         "HistoryFeatures", "QBETS", "TsafrirEstimates", "FModel", "PhiModel",
         "DoubledEstimates", "ShuffledEstimates", "JointEstimates", "RuntimeDistribution",
         "SiteModel"}


def test_discovery_finds_every_known_estimator():
    names = {name for name, _ in all_estimators()}
    assert KNOWN <= names


def test_a_newly_exported_estimator_is_discovered(monkeypatch):
    import predictkit.workload as workload

    class BrandNewModel(EstimateModel):
        _parameter_constraints = {}

    monkeypatch.setattr(workload, "BrandNewModel", BrandNewModel, raising=False)
    monkeypatch.setattr(workload, "__all__", [*workload.__all__, "BrandNewModel"])
    assert ("BrandNewModel", BrandNewModel) in all_estimators()
    assert any(isinstance(est, BrandNewModel) for est in _instances())


@pytest.mark.parametrize("name, cls", all_estimators())
def test_every_estimator_validates_through_one_path(name, cls):
    """Constraints cover exactly the parameters, and errors are our InvalidParameterError."""
    assert issubclass(cls, ParamsValidatedMixin), f"{name} bypasses the validation path"
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))
    cls()._validate_params()  # the defaults are valid


@pytest.mark.parametrize("name, cls", all_estimators())
def test_set_params_with_an_unknown_name_is_our_error(name, cls):
    estimator = cls()
    with pytest.raises(InvalidParameterError, match=rf"^{name} has no parameter 'bogus'; "
                                                    r"(its parameters are \w|it has none$)"):
        estimator.set_params(bogus=1)
    with pytest.raises(ValueError):  # what scikit-learn's callers catch
        estimator.set_params(bogus__inner=1)
    assert estimator.set_params(**estimator.get_params(deep=False)) is estimator


def test_expected_failure_mismatch_is_reported():
    """The runner refuses a failure of another type than the listed one."""
    def check(estimator):
        raise KeyError("unrelated")

    expected = {"check": Expected(JobTableError, _NOT_A_TABLE, "a reason")}
    with pytest.raises(AssertionError, match="raised KeyError"):
        _run_check(None, check, expected)


def test_expected_failure_that_passes_is_reported():
    def check(estimator):
        return None

    expected = {"check": Expected(JobTableError, _NOT_A_TABLE, "a reason")}
    with pytest.raises(pytest.fail.Exception, match="passes now"):
        _run_check(None, check, expected)


def test_invalid_parameter_error_is_scikit_learns_too():
    from predictkit._sklearn_compat import SklearnInvalidParameterError

    assert issubclass(InvalidParameterError, SklearnInvalidParameterError)
    assert issubclass(InvalidParameterError, ValueError)


def test_every_listed_failure_names_a_check_that_runs():
    """No stale entries: each listed check is run on some estimator that lists it."""
    from sklearn.utils.estimator_checks import estimator_checks_generator

    listed, run = set(), set()
    for estimator in _instances():
        names = {getattr(check, "func", check).__name__
                 for _, check in estimator_checks_generator(estimator, mark=None)}
        expected = set(expected_failed_checks(estimator))
        listed |= expected
        run |= names & expected
    assert listed == run, sorted(listed - run)

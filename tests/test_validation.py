"""One validation path: every invalid parameter is an InvalidParameterError naming it.

The error is a ``ConfigError`` (so a ``PredictkitError`` and a ``ValueError``)
and scikit-learn's ``InvalidParameterError``, raised in ``fit`` (estimators)
or at the call (functions), with one line naming the parameter.
"""

import datetime
import inspect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.utils import check_random_state
from test_common import all_estimators

from predictkit import summarize
from predictkit._sklearn_compat import SklearnInvalidParameterError, make_constraint
from predictkit._table import OUTCOME_COLUMNS
from predictkit._validation import (RANDOM_STATE, ColumnNames, Duration, NumericArray, WholeNumber,
                                    _is_numeric_only, as_generator, as_seed, seconds_per_job)
from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError, InvalidParameterError, PredictkitError
from predictkit.metrics import (adjustment_outcomes, bound_correctness_confint, bound_summary,
                                bound_tightness, estimate_accuracy)
from predictkit.model_selection import TraceSplit, replay
from predictkit.queue import QBETS, VARQ, min_history, order_statistic_index
from predictkit.runtime import RecentAverage, WalltimeAdjuster, make_predictor
from predictkit.simulate import simulate
from predictkit.workload import FModel, PhiModel, ShuffledEstimates, TsafrirEstimates

JOBS = make_workload(60, random_state=0)
JOBS_WITH_WAITS = JOBS.assign(wait_time=0.0)


def _assert_parameter_error(exc, name, owner):
    assert isinstance(exc, InvalidParameterError)
    assert isinstance(exc, ConfigError) and isinstance(exc, PredictkitError)
    assert isinstance(exc, ValueError) and isinstance(exc, SklearnInvalidParameterError)
    text = str(exc)
    assert f"'{name}' parameter of {owner}" in text, text
    assert "\n" not in text
    assert (exc.parameter, exc.owner) == (name, owner)


def _raised(call):
    with pytest.raises(InvalidParameterError) as info:
        call()
    return info.value


# -- the examples of the issue -------------------------------------------------------------

@pytest.mark.parametrize("call, name, owner", [
    (lambda: WalltimeAdjuster(quantile=7).fit(JOBS, JOBS["run_time"]), "quantile",
     "WalltimeAdjuster"),
    (lambda: QBETS(quantile=1.5).fit(JOBS, JOBS["run_time"]), "quantile", "QBETS"),
    (lambda: TsafrirEstimates(random_state=-1).fit(JOBS), "random_state", "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h", random_state=-1).sample([1.0, 2.0]), "random_state",
     "TsafrirEstimates"),
    (lambda: FModel(random_state=-1).sample([1.0]), "random_state", "FModel"),
    (lambda: simulate(JOBS, machine_procs="8"), "machine_procs", "simulate"),
    (lambda: simulate(JOBS, machine_procs=True), "machine_procs", "simulate"),
    (lambda: simulate(JOBS, machine_procs=7.5), "machine_procs", "simulate"),
    (lambda: simulate(JOBS, machine_procs=2**70), "machine_procs", "simulate"),
    (lambda: simulate(JOBS, machine_procs=1e30), "machine_procs", "simulate"),
    (lambda: simulate(JOBS, estimates=["a"] * len(JOBS)), "estimates", "simulate"),
    (lambda: simulate(JOBS, estimates=np.ones((len(JOBS), 2))), "estimates", "simulate"),
    (lambda: simulate(JOBS, policy="easy++"), "policy", "simulate"),
    (lambda: simulate(JOBS, fairshare_factor="0.5"), "fairshare_factor", "simulate"),
    (lambda: simulate(JOBS, max_runtime="-1h"), "max_runtime", "simulate"),
    (lambda: simulate(JOBS, policy="fcfs", reservation_depth=2), "reservation_depth",
     "simulate"),
    (lambda: simulate(JOBS, reservation_depth=True), "reservation_depth", "simulate"),
    (lambda: simulate(JOBS, reservation_depth=2.0), "reservation_depth", "simulate"),
    (lambda: make_workload(n_jobs=-1), "n_jobs", "make_workload"),
    (lambda: make_workload("abc"), "n_jobs", "make_workload"),
    (lambda: make_workload(True), "n_jobs", "make_workload"),
    (lambda: make_workload(10, random_state=-1), "random_state", "make_workload"),
    (lambda: make_workload(10**15), "n_jobs", "make_workload"),
    (lambda: make_workload(10, t_max="30min"), "t_max", "make_workload"),
    (lambda: replay(RecentAverage(), JOBS_WITH_WAITS, JOBS["run_time"], method="quick"),
     "method", "replay"),
    (lambda: summarize(JOBS, name=3), "name", "summarize"),
    (lambda: list(TraceSplit(n_splits=0).split(JOBS)), "n_splits", "TraceSplit"),
    (lambda: list(TraceSplit(period="0s").split(JOBS)), "period", "TraceSplit"),
    (lambda: list(TraceSplit(train="rolling").split(JOBS)), "train", "TraceSplit"),
    (lambda: list(TraceSplit(train_window="soon").split(JOBS)), "train_window", "TraceSplit"),
    (lambda: make_predictor("tang", quantile=7), "quantile", "WalltimeAdjuster"),
    (lambda: make_predictor("magic"), "name", "make_predictor"),
    (lambda: make_predictor("learned", max_train=10), "max_train", "LearnedRuntime"),
    (lambda: min_history(1.5, 0.95), "q", "min_history"),
    (lambda: order_statistic_index(100, 0.95, 0.95, index="median"), "index",
     "order_statistic_index"),
    (lambda: order_statistic_index(-1, 0.95, 0.95), "n", "order_statistic_index"),
    (lambda: TsafrirEstimates(t_max="18h", modes=[(300, 60), (600, 50)]).fit(JOBS), "modes",
     "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h", modes=[1, 2]).fit(JOBS), "modes", "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h", modes=[("soon", 5)]).sample([1.0]), "modes",
     "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h", modes=[(300, "a")]).sample([1.0]), "modes",
     "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h", modes=[(300, 5, 1)]).sample([1.0]), "modes",
     "TsafrirEstimates"),
    (lambda: TsafrirEstimates().mode_table(100), "t_max", "TsafrirEstimates"),
    (lambda: TsafrirEstimates(t_max="18h").mode_table(0), "n_jobs",
     "TsafrirEstimates.mode_table"),
    (lambda: QBETS(clustering=([4, -1], [3600])).fit(JOBS, JOBS["run_time"]), "clustering",
     "QBETS"),
    (lambda: QBETS(by=()).fit(JOBS, JOBS["run_time"]), "by", "QBETS"),
    (lambda: WalltimeAdjuster(keys=("user_id", 3)).fit(JOBS, JOBS["run_time"]), "keys",
     "WalltimeAdjuster"),
    (lambda: WalltimeAdjuster(window="30 parsecs").fit(JOBS, JOBS["run_time"]), "window",
     "WalltimeAdjuster"),
])
def test_named_bad_parameters(call, name, owner):
    _assert_parameter_error(_raised(call), name, owner)


def test_a_workload_too_large_for_memory_states_the_estimate():
    with pytest.raises(InvalidParameterError, match=r"1,000,000,000,000,000 jobs need about "
                                                    r"[\d,.]+ TiB .*, this machine has"):
        make_workload(10**15)


class _Bounds:
    def start_probability(self, X, within=None):
        return np.full(len(X), 0.5)


@pytest.mark.parametrize("step, args, name, owner", [
    (0, {}, "step", "VARQ"),
    ("30", {}, "step", "VARQ"),
    (30, {"nodes": "4"}, "nodes", "VARQ"),
    (30, {"walltime": math.inf}, "walltime", "VARQ"),
    (30, {"deadline": 10, "now": 20}, "deadline", "VARQ"),
    (30, {"probability": 1.5}, "probability", "VARQ.plan"),
    (30, {"probability": None}, "probability", "VARQ.plan"),
    (30, {"mode": "earliest"}, "mode", "VARQ.plan"),
])
def test_varq_arguments(step, args, name, owner):
    call = dict(nodes=4, walltime=3600, deadline=3600, probability=0.5, now=0)
    call.update(args)
    _assert_parameter_error(_raised(lambda: VARQ(_Bounds(), step=step).plan(**call)),
                            name, owner)


def test_varq_bounds_need_start_probability():
    _assert_parameter_error(_raised(lambda: VARQ(object()).trajectory(4, 3600, 3600, 0)),
                            "bounds", "VARQ")


# -- every parameter of every estimator and function, with generated invalid values ---------

_ODD = [object(), "not a valid value", "", -1, -0.5, 0, 0.5, 1.5, 7, 2**40, -2**40, math.nan,
        math.inf, -math.inf, True, None, [], (), {}, b"bytes", [1, "a"], np.float64(-3.0)]
_BAD_VALUES = st.one_of(st.sampled_from(_ODD), st.integers(), st.floats(allow_nan=True),
                        st.text(max_size=6), st.lists(st.integers(), max_size=2))


def _violates(constraints, value):
    if constraints == "no_validation":
        return False
    if isinstance(value, (bool, np.bool_)) and _is_numeric_only(constraints):
        return True  # a bool where a number is meant is refused, though Interval takes it
    try:
        return not any(make_constraint(c).is_satisfied_by(value) for c in constraints)
    except (TypeError, ValueError):
        return True


def _estimator_cases():
    for name, cls in all_estimators():
        for param, constraints in cls._parameter_constraints.items():
            yield pytest.param(cls, param, id=f"{name}-{param}")


def _fit(estimator):
    if isinstance(estimator, QBETS) or hasattr(estimator, "target_known_at"):
        return estimator.fit(JOBS_WITH_WAITS, JOBS["run_time"])
    return estimator.fit(JOBS)


_FUNCTIONS = {
    "simulate": (simulate, lambda **kw: simulate(JOBS, **kw)),
    "make_workload": (make_workload, lambda **kw: make_workload(**{"n_jobs": 10, **kw})),
    "replay": (replay, lambda **kw: replay(RecentAverage(), JOBS_WITH_WAITS, JOBS["run_time"],
                                           **kw)),
    "summarize": (summarize, lambda **kw: summarize(JOBS, **kw)),
    "bound_tightness": (bound_tightness, lambda **kw: bound_tightness([1.0], [2.0], **kw)),
    "bound_correctness_confint": (bound_correctness_confint,
                                  lambda **kw: bound_correctness_confint([1.0], [2.0], **kw)),
    "bound_summary": (bound_summary, lambda **kw: bound_summary([1.0], [2.0], **kw)),
    "estimate_accuracy": (estimate_accuracy, lambda **kw: estimate_accuracy([1.0], [2.0], **kw)),
    "adjustment_outcomes": (adjustment_outcomes,
                            lambda **kw: adjustment_outcomes([1.0], [2.0], [2.0], **kw)),
}


def _function_cases():
    for owner, (func, _) in _FUNCTIONS.items():
        for param in func._parameter_constraints:
            yield pytest.param(owner, param, id=f"{owner}-{param}")


_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.filter_too_much,
                                            HealthCheck.too_slow])


@pytest.mark.parametrize("cls, param", list(_estimator_cases()))
@_SETTINGS
@given(data=st.data())
def test_every_estimator_parameter(cls, param, data):
    constraints = cls._parameter_constraints[param]
    value = data.draw(_BAD_VALUES.filter(lambda v: _violates(constraints, v)), label=param)
    estimator = cls(**{param: value})  # __init__ stores only: no error yet
    clone(estimator)
    _assert_parameter_error(_raised(lambda: _fit(estimator)), param, cls.__name__)


@pytest.mark.parametrize("owner, param", list(_function_cases()))
@_SETTINGS
@given(data=st.data())
def test_every_function_parameter(owner, param, data):
    func, call = _FUNCTIONS[owner]
    constraints = func._parameter_constraints[param]
    value = data.draw(_BAD_VALUES.filter(lambda v: _violates(constraints, v)), label=param)
    _assert_parameter_error(_raised(lambda: call(**{param: value})), param, owner)


@pytest.mark.parametrize("owner", sorted(_FUNCTIONS))
def test_function_defaults_satisfy_their_constraints(owner):
    func = _FUNCTIONS[owner][0]
    signature = inspect.signature(func)
    for name, constraints in func._parameter_constraints.items():
        default = signature.parameters[name].default
        if default is not inspect.Parameter.empty:
            assert not _violates(constraints, default), (owner, name, default)


@pytest.mark.parametrize("name, cls", all_estimators())
def test_defaults_fit(name, cls):
    """The default parameters pass validation and the estimator fits a job table."""
    _fit(cls())


# -- random_state: one constraint, one conversion ------------------------------------------

@pytest.mark.parametrize("value", [None, 0, 2**32 - 1, np.int64(5), np.random.RandomState(1),
                                   np.random.default_rng(1)])
def test_random_state_accepts_the_advertised_kinds(value):
    assert RANDOM_STATE.is_satisfied_by(value)
    assert isinstance(as_generator(value), np.random.Generator)
    assert 0 <= as_seed(value) < 2**31 - 1


@pytest.mark.parametrize("value", [-1, 2**32, True, 1.0, "0", object()])
def test_random_state_refuses_the_rest(value):
    assert not RANDOM_STATE.is_satisfied_by(value)
    _assert_parameter_error(_raised(lambda: as_generator(value)), "random_state", "as_generator")


@given(st.integers(0, 2**32 - 1))
def test_seed_of_an_int_is_unchanged(seed):
    """QBETS seeds its mixtures exactly as before for ints (results pages stay valid)."""
    assert as_seed(seed) == int(check_random_state(seed).randint(2**31 - 1))


def test_generators_are_accepted_by_every_model():
    rng = np.random.default_rng(3)
    run = JOBS["run_time"].to_numpy()
    assert (TsafrirEstimates(t_max="18h", random_state=rng).sample(run) >= run).all()
    assert (FModel(random_state=np.random.default_rng(1)).sample(run) >= run).all()
    ShuffledEstimates(random_state=np.random.default_rng(2)).fit(JOBS).transform(JOBS)
    model = QBETS(clustering=None, random_state=np.random.default_rng(4))
    model.fit(JOBS_WITH_WAITS, np.arange(len(JOBS), dtype=float))
    same = [make_workload(50, random_state=np.random.default_rng(9)) for _ in range(2)]
    assert same[0].equals(same[1])


def test_a_generator_gives_the_same_workload_as_its_seed_did_before():
    """An int seed and the Generator built from it give one workload (one conversion)."""
    assert make_workload(80, random_state=5).equals(
        make_workload(80, random_state=np.random.default_rng(5)))


# -- keyword-only parameters ----------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: make_workload(10, 64),
    lambda: make_workload(10, 64, 0),
    lambda: TsafrirEstimates("18h"),
    lambda: FModel(1.0),
    lambda: PhiModel(0.1),
    lambda: VARQ(_Bounds(), 30),
    lambda: VARQ(_Bounds()).plan(4, 3600, 7200, 0.5, 0, "max"),
])
def test_configuration_is_keyword_only(call):
    with pytest.raises(TypeError, match="positional"):
        call()


# -- the constraints themselves -------------------------------------------------------------

@given(st.floats(0, 1e7), st.sampled_from(["s", "min", "h", "D"]))
def test_duration_constraint_accepts_what_parse_duration_accepts(number, unit):
    assert Duration().is_satisfied_by(f"{number:f}{unit}")
    assert Duration().is_satisfied_by(number)
    assert not Duration().is_satisfied_by(-number - 1)


def test_duration_constraint_bounds():
    assert not Duration(positive=True).is_satisfied_by(0)
    assert not Duration(minimum=3600).is_satisfied_by("59min")
    assert Duration(minimum=3600).is_satisfied_by("1h")
    assert Duration(unlimited=True).is_satisfied_by("all")
    assert not Duration().is_satisfied_by("all")
    assert not Duration().is_satisfied_by(None)
    assert "1 h" in str(Duration(minimum=3600))


@pytest.mark.parametrize("value", ["-1h", "-90min", "-3600", " -2 D", "-1e3"])
def test_a_negative_duration_is_named_negative_not_misspelt(value):
    from predictkit._time import parse_duration

    with pytest.raises(ConfigError, match=r"^x must be a non-negative finite duration, got "):
        parse_duration(value, name="x")


@pytest.mark.parametrize("value", [np.timedelta64(2, "h"), np.timedelta64(120, "m"),
                                   np.timedelta64(7200, "s"), np.timedelta64(7200 * 10**9, "ns"),
                                   np.timedelta64(7_200_000, "ms")])
def test_a_numpy_duration_reads_as_its_seconds_in_any_unit(value):
    # its .item() is a timedelta, or (ns) a bare count that would read as seconds
    from predictkit._time import parse_duration

    assert parse_duration(value) == 7200.0
    assert Duration(minimum=7200).is_satisfied_by(value)
    assert not Duration(minimum=7201).is_satisfied_by(value)
    assert_array_equal(seconds_per_job(value, 2, "within", "f"), [7200.0] * 2)


@pytest.mark.parametrize("value", [np.timedelta64("NaT"), np.datetime64("2020-01-01"),
                                   -np.timedelta64(1, "s"), np.timedelta64(1, "M"),
                                   np.timedelta64(1, "Y"), np.timedelta64(5)])
def test_a_duration_that_is_no_duration_is_refused(value):
    from predictkit._time import parse_duration

    with pytest.raises(ConfigError, match=r"^x (must be a|is a numpy.timedelta64 (without a "
                                          r"unit|in months or years))"):
        parse_duration(value, name="x")


@pytest.mark.parametrize("within", [pd.Timedelta("10min"), np.timedelta64(600 * 10**9, "ns"),
                                    datetime.timedelta(minutes=10),
                                    pd.to_timedelta([600, 600], unit="s"),
                                    [pd.Timedelta("10min"), np.timedelta64(600, "s")],
                                    pd.Series(pd.to_timedelta([600, 600], unit="s"))])
def test_durations_per_job_read_as_seconds(within):
    assert_array_equal(seconds_per_job(within, 2, "within", "f"), [600.0, 600.0])


def test_a_call_with_an_unknown_keyword_names_the_function():
    with pytest.raises(TypeError, match=r"^simulate\(\) got an unexpected keyword argument "
                                        r"'predictor'$"):
        simulate(make_workload(20, random_state=0), predictor=None)


def test_a_duration_with_a_sign_reads_as_its_number():
    from predictkit._time import parse_duration

    assert parse_duration("+2h") == 7200.0
    zero = parse_duration("-0")
    assert zero == 0.0 and math.copysign(1.0, zero) == 1.0


def test_string_options_are_named_in_one_order_whatever_the_hash_seed():
    import subprocess
    import sys

    code = ("from predictkit.simulate import simulate\n"
            "try:\n    simulate(None, priority='x')\n"
            "except Exception as e:\n    print(e)")
    said = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)},
                           check=True).stdout for seed in (1, 2, 3)}
    assert len(said) == 1
    assert "among {'fairshare', 'fcfs', 'sjf', 'wfp'}" in said.pop()


def test_column_names_and_whole_numbers():
    assert ColumnNames().is_satisfied_by(("user_id",))
    assert not ColumnNames().is_satisfied_by(())
    assert not ColumnNames().is_satisfied_by("user_id")
    keys = ColumnNames(refused=OUTCOME_COLUMNS)
    assert keys.is_satisfied_by(("user_id", "n_procs", "think_time"))
    for outcome in OUTCOME_COLUMNS:  # a key known only after the job started would peek
        assert not keys.is_satisfied_by(("user_id", outcome))
        assert ColumnNames().is_satisfied_by(("user_id", outcome))
    assert WholeNumber(1).is_satisfied_by(8.0) and WholeNumber(1).is_satisfied_by(np.int32(8))
    assert not WholeNumber(1).is_satisfied_by(True)
    assert not WholeNumber(1).is_satisfied_by(0)
    assert not WholeNumber(1).is_satisfied_by(math.inf)
    assert not WholeNumber(0, integral=True).is_satisfied_by(2.0)
    assert WholeNumber(0, integral=True).is_satisfied_by(np.int64(2))
    assert not WholeNumber(1).is_satisfied_by(2**63)
    assert NumericArray().is_satisfied_by([1, 2.5]) and NumericArray().is_satisfied_by(np.ones(3))
    assert not NumericArray().is_satisfied_by("12")
    assert not NumericArray().is_satisfied_by([[1.0]])
    assert not NumericArray().is_satisfied_by(5.0)


@pytest.mark.parametrize(("make", "name"), [
    (lambda keys: WalltimeAdjuster(keys=keys), "keys"),
    (lambda keys: QBETS(by=keys), "by"),
])
def test_grouping_keys_known_only_after_a_job_started_are_named(make, name):
    exc = _raised(lambda: make(("user_id", "status", "wait_time", "status")).fit(
        JOBS, JOBS["run_time"]))
    _assert_parameter_error(exc, name, type(make(("user_id",))).__name__)
    also = " (or None)" if name == "by" else ""
    assert (f"known when a job is submitted{also}: status, wait_time are known only once a job "
            "has started or ended") in str(exc)


def test_simulate_still_accepts_a_whole_float_machine_size():
    jobs = JOBS.iloc[:20]
    assert simulate(jobs, machine_procs=128.0).jobs.equals(simulate(jobs, machine_procs=128).jobs)


@pytest.mark.parametrize("call", [
    lambda: make_workload(10, load=True),
    lambda: make_predictor("usage-max", n_recent=True).fit(JOBS, JOBS["run_time"]),
    lambda: make_predictor("tang", quantile=np.True_).fit(JOBS, JOBS["run_time"]),
])
def test_a_bool_is_not_taken_for_a_number(call):
    with pytest.raises(InvalidParameterError,
                       match=r"must be a number, not a bool\. Got (np\.)?True"):
        call()


@pytest.mark.parametrize("value", [np.ones((500, 2)), ["a"] * 500, "x" * 1000])
def test_messages_stay_one_short_line_whatever_the_value(value):
    exc = _raised(lambda: simulate(JOBS, estimates=value))
    _assert_parameter_error(exc, "estimates", "simulate")
    assert len(str(exc)) < 400


_NEED_FIT = {"RuntimeDistribution": lambda est, jobs: est.sample(np.ones(3)),
             "SiteModel": lambda est, jobs: est.to_dict()}
"""The workload models that need fitting; the others transform with their defaults."""


@pytest.mark.parametrize("name, cls", [(name, cls) for name, cls in all_estimators()
                                       if not cls.__module__.startswith("predictkit.workload")
                                       or name in _NEED_FIT])
def test_predicting_before_fit_is_a_predictkit_not_fitted_error(name, cls):
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    from predictkit.exceptions import NotFittedError

    jobs = make_workload(n_jobs=20, random_state=0)
    method = "predict" if hasattr(cls, "predict") else "transform"
    call = _NEED_FIT.get(name, lambda est, jobs: getattr(est, method)(jobs))
    with pytest.raises(NotFittedError) as caught:
        call(cls(), jobs)
    assert isinstance(caught.value, PredictkitError)
    assert isinstance(caught.value, SklearnNotFittedError)  # sklearn's tooling still sees it
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("now", ["x", None, math.nan, math.inf, [1.0, 2.0]])
def test_a_time_that_is_no_finite_number_is_named(now):
    from predictkit._validation import finite_time

    with pytest.raises(InvalidParameterError, match="'now' parameter of owner must be a finite "
                                                    "time in seconds"):
        finite_time(now, "now", "owner")
    assert finite_time("12.5", "now", "owner") == 12.5


@pytest.mark.parametrize("value", [np.timedelta64(1, "M"), np.array([1, 2], dtype="m8[Y]")])
def test_durations_per_job_of_no_fixed_length_are_refused(value):
    with pytest.raises(InvalidParameterError, match=r"must be seconds, or durations in days, "
                                                    r"hours, minutes or seconds"):
        seconds_per_job(value, 2, "within", "f")
    assert not Duration().is_satisfied_by(np.timedelta64(1, "M"))

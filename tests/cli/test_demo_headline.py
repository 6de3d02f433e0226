"""The demo's synthetic workload gives the headline a real log gives."""

from predictkit.cli._demo import DEMO_LOAD
from predictkit.datasets import make_workload
from predictkit.report import analyze


def test_default_demo_workload_meets_the_qbets_quantile_and_predictors_beat_requests():
    jobs = make_workload(n_jobs=5000, machine_procs=128, random_state=0, load=DEMO_LOAD)
    analysis = analyze(jobs, max_jobs=5000, random_state=0, policies=(), fairness=False)
    bounds = analysis.bound_table.set_index("method")
    assert bounds["meets quantile"].all(), bounds["correctness"]  # QBETS and WaitPredictor
    table = analysis.predictor_table.set_index("predictor")
    request = table.loc["request", "accuracy"]
    # every predictor, as on real logs: those repeating a user's last runtimes too
    assert len(table) == 5 and (table["accuracy"].drop("request") > request).all(), table
    summary = analysis.summary
    assert 0.27 <= summary["accuracy_mean"] <= 0.58
    assert 0.05 <= summary["frac_at_request"] <= 0.4


def test_demo_refuses_a_load_that_is_not_positive(capsys):
    from predictkit.cli import main

    assert main(["demo", "--load", "0", "-q", "-o", "unused"]) == 2
    err = capsys.readouterr().err
    assert "--load must be above 0 and at most 100" in err and "Traceback" not in err

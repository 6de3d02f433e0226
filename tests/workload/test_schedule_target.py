"""The schedule target of the workload validation: which logs a request model keeps
within 10% of the real requests' EASY bounded slowdown."""

import pytest

from predictkit.datasets import make_workload


def _row(trace, real, joint_seeds):
    return {"trace": trace, "schedule": {
        "bsld_real": real, "bsld_joint": sum(joint_seeds) / len(joint_seeds),
        "bsld_joint_seeds": joint_seeds}}


def test_logs_within_the_tolerance_are_counted_on_the_seed_mean_and_per_seed():
    from benchmarks.workload_validation import slowdown_close, slowdown_close_per_seed

    queued = [_row("in", 10.0, [10.4, 11.4]),          # mean 10.9: in; seed 1 alone out
              _row("out", 10.0, [12.0, 10.4]),         # mean 11.2: out; seed 1 alone in
              _row("low", 10.0, [8.0, 9.05])]          # mean 8.5: out; seed 1 alone in
    assert slowdown_close(queued, "joint") == ["in"]
    assert slowdown_close_per_seed(queued, "joint") == [["in"], ["out", "low"]]


@pytest.mark.parametrize("n_jobs", [None, 600])
def test_schedules_run_every_model_on_the_jobs_asked_for(n_jobs):
    from benchmarks.workload_validation import SCHEDULE_MODELS, schedules

    log = make_workload(1500, machine_procs=64, random_state=2, load=0.9)
    out = schedules(log, n_jobs, [0, 1])
    assert out["jobs"] == (len(log) if n_jobs is None else n_jobs)
    for label, _ in SCHEDULE_MODELS:
        assert len(out[f"bsld_{label}_seeds"]) == 2
        assert out[f"bsld_{label}"] == pytest.approx(sum(out[f"bsld_{label}_seeds"]) / 2)
        assert out[f"bsld_{label}"] >= 1.0

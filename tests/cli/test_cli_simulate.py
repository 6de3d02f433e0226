import json

import pandas as pd

from predictkit.cli import main
from tracedata import trace_file


def test_simulate_prints_metrics_next_to_the_request_baseline(capsys):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["simulate", path, "--max-jobs", "1500", "--policy", "easy", "--priority",
                 "wfp", "--predictor", "usage-max", "--selective"]) == 0
    captured = capsys.readouterr()
    assert "requested" in captured.out and "usage-max" in captured.out
    assert "mean_bounded_slowdown" in captured.out


def test_simulate_json_and_schedule_file(capsys, tmp_path):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    out = tmp_path / "schedule.csv"
    assert main(["simulate", path, "--max-jobs", "500", "--policy", "conservative",
                 "--predictor", "perfect", "--json", "-o", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["params"]["policy"] == "conservative"
    assert set(data["metrics"]["mean_wait"]) == {"requested", "perfect"}
    schedule = pd.read_csv(out)
    assert len(schedule) == 500 and schedule["promised_start"].notna().all()


def test_simulate_bad_argument_is_one_line(capsys):
    path = str(trace_file("KTH-SP2-1996-2.1-cln"))
    assert main(["simulate", path, "--max-jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-jobs" in err

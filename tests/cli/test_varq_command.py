"""``predictkit varq``: a tiny run and argument errors."""

import pandas as pd
import pytest
from tracedata import load_trace

from predictkit.cli import main
from predictkit.io import write_swf


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("varq") / "kth.swf"
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 5000), path)
    return path


def test_varq_runs_and_writes_csv(small_trace, tmp_path, capsys):
    out = tmp_path / "varq.csv"
    assert main(["varq", str(small_trace), "--fractions", "0.5", "--probabilities", "0.5",
                 "--start", "20D", "--days", "2D", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "predicted" in text and "observed" in text
    assert out.read_text().startswith("fraction,probability")


def test_a_probability_where_every_request_is_refused_says_how_close_they_came(
        small_trace, tmp_path, capsys):
    from predictkit.experiments import varq_experiment
    from predictkit.io import read_swf

    out = tmp_path / "varq.csv"
    assert main(["varq", str(small_trace), "--fractions", "0.5", "--probabilities", "0.5,0.99",
                 "--period", "10min", "--start", "20D", "--days", "2D", "-o", str(out)]) == 0
    table = pd.read_csv(out)
    accepted, refused_all = table.iloc[0], table.iloc[1]
    assert accepted["count"] > 0 and refused_all["count"] == 0 < refused_all["refused"]
    jobs = read_swf(small_trace)
    first = jobs["submit_time"].min()
    expected = varq_experiment(jobs, fractions=(0.99,), probabilities=(0.99,), period=600,
                               window=(first + 20 * 86400, first + 22 * 86400))
    err = capsys.readouterr().err
    assert (f"warning: every request drawn was refused at probability 0.99: the highest "
            f"probability any of them reached was {refused_all['highest_refused']:.3g}, as each "
            "must start by the next deadline (every --period 10min) and the simulated jobs wait "
            ) in err
    assert refused_all["highest_refused"] < 0.99
    assert expected["highest_refused"].iloc[0] >= refused_all["highest_refused"]


@pytest.mark.parametrize("args, message", [
    (["--fractions", "1.5"], "--fractions"),
    (["--probabilities", "x"], "--probabilities"),
    (["--days", "0"], "--days"),
])
def test_bad_arguments(small_trace, capsys, args, message):
    assert main(["varq", str(small_trace), *args]) == 2
    assert message in capsys.readouterr().err


def test_a_window_past_the_end_of_the_log_is_refused(tmp_path, capsys):
    from predictkit.datasets import make_workload

    log = tmp_path / "short.swf"
    jobs = make_workload(50, machine_procs=32, random_state=2)
    write_swf(jobs, log)
    span = jobs["submit_time"].max() - jobs["submit_time"].min()
    assert span < 30 * 86400  # shorter than the default --start of 30 days
    assert main(["varq", str(log), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert ("--start 30D (--days 7D) begins the request window after the last submission "
            f"of {log}, whose jobs span ") in err


def test_jobs_wider_than_the_machine_are_counted_not_dropped_silently(small_trace, capsys):
    from predictkit.io import read_swf

    jobs = read_swf(small_trace)
    wider = int((jobs["n_procs"] > 10).sum())
    assert wider > 0
    assert main(["varq", str(small_trace), "--fractions", "0.5", "--probabilities", "0.5",
                 "--start", "20D", "--days", "2D", "--machine-procs", "10", "-q"]) == 0
    err = capsys.readouterr().err  # a warning that --quiet keeps
    assert (f"warning: {wider:,} jobs wider than the machine (10 processors) were not "
            "simulated") in err


def test_a_window_where_no_job_becomes_a_request_says_so(tmp_path, capsys):
    from predictkit.io import read_swf

    log = tmp_path / "one.swf"
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 1), log)
    assert len(read_swf(log)) == 1
    assert main(["varq", str(log), "--start", "0s", "--days", "1D", "-q"]) == 0
    err = capsys.readouterr().err
    assert ("predictkit varq: warning: no job became a VARQ request: of the 1 job submitted "
            "in the request window (--start 0s, --days 1D) none") in err

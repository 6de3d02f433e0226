"""``predictkit varq``: a tiny run and argument errors."""

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


@pytest.mark.parametrize("args, message", [
    (["--fractions", "1.5"], "--fractions"),
    (["--probabilities", "x"], "--probabilities"),
    (["--days", "0"], "--days"),
])
def test_bad_arguments(small_trace, capsys, args, message):
    assert main(["varq", str(small_trace), *args]) == 2
    assert message in capsys.readouterr().err

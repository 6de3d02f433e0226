import json
import re

import pytest

from predictkit.cli import main
from tracedata import trace_file


def test_info_prints_a_readable_table(capsys):
    assert main(["info", str(trace_file("KTH-SP2-1996-2.1-cln"))]) == 0
    out = capsys.readouterr().out
    assert "KTH-SP2-1996-2.1-cln" in out and "28,476" in out
    assert "distinct requests (modes)" in out and "271" in out


def test_info_json_has_the_summary(capsys):
    assert main(["info", "--json", str(trace_file("lublin_256"))]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_jobs"] == 10000 and data["accuracy_mean"] is None


def test_missing_file_is_one_line_and_status_2(capsys, tmp_path):
    assert main(["info", str(tmp_path / "nope.swf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.swf" in err and "Traceback" not in err


def test_bad_format_is_one_line_and_debug_shows_traceback(capsys, tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text("1 2 3\n")
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "expected 18 fields" in err
    with pytest.raises(Exception, match="expected 18 fields"):
        main(["--debug", "info", str(path)])


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and "predictkit" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["info", "--help"])
    assert "TRACE" in capsys.readouterr().out


def test_logs_with_the_same_name_keep_their_own_columns(capsys, tmp_path):
    from predictkit.io import write_swf
    from predictkit.workload import make_workload

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_swf(make_workload(300, random_state=1), tmp_path / "a" / "log.swf")
    write_swf(make_workload(200, random_state=2), tmp_path / "b" / "log.swf")
    paths = [str(tmp_path / "a" / "log.swf"), str(tmp_path / "b" / "log.swf")]
    assert main(["info", "-q", "--json", *paths]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out) == sorted(paths)
    assert {out[p]["n_jobs"] for p in paths} == {300, 200}
    assert main(["info", "-q", paths[0], paths[0]]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert f"{paths[0]} (2)" in header


def test_info_shows_mean_durations_with_their_units(capsys):
    assert main(["info", "datasets/sacct_sample.txt", "-q"]) == 0
    rows = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1)
                for line in capsys.readouterr().out.splitlines()[1:])
    for label in ("mean runtime", "mean request", "mean wait"):
        assert re.fullmatch(r"\d+ (s|min|h|d)( \d+ (s|min|h))?", rows[label].strip()), label


def test_a_log_counting_nodes_labels_its_widths_in_nodes(capsys, tmp_path):
    log = tmp_path / "nodes.txt"
    log.write_text("JobID|Submit|Start|End|Elapsed|NNodes|State\n"
                   "1|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:11:00|00:10:00|2|"
                   "COMPLETED\n")
    assert main(["info", str(log)]) == 0
    captured = capsys.readouterr()
    assert re.search(r"machine size \(nodes\) +2", captured.out)
    assert "most nodes busy at once" in captured.out and "procs" not in captured.out
    assert "read 1 job from" in captured.err
    # beside a log counting processors, the labels stay in processors
    swf = tmp_path / "procs.swf"
    swf.write_text("1 0 5 60 2 -1 -1 2 600 -1 1 1 1 -1 1 1 -1 -1\n")
    assert main(["info", str(log), str(swf)]) == 0
    assert re.search(r"machine size \(procs\) +2 +2", capsys.readouterr().out)


def test_a_log_is_named_by_its_archive_name_as_sweeps_name_it(tmp_path, monkeypatch, capsys):
    from predictkit.io import write_swf
    from tracedata import load_trace

    folder = tmp_path / "traces"
    folder.mkdir()
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 300), folder / "KTH-SP2-1996-2.1-cln.swf.gz")
    monkeypatch.setenv("PREDICTKIT_TRACES", str(folder))
    monkeypatch.chdir(tmp_path)
    assert main(["info", "KTH-SP2", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["n_jobs"] == 300
    assert (f"read 300 jobs from KTH-SP2 ({folder / 'KTH-SP2-1996-2.1-cln.swf.gz'})"
            in captured.err)
    # a file of that name in the working folder is the file named
    write_swf(load_trace("KTH-SP2-1996-2.1-cln", 100), tmp_path / "KTH-SP2")
    assert main(["info", "KTH-SP2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_jobs"] == 100
    assert main(["info", "no-such-log"]) == 2
    assert capsys.readouterr().err.endswith("error: No such file or directory: no-such-log\n")

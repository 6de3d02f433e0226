"""``predictkit fetch`` run in-process."""

import gzip

import pytest
from tracedata import trace_file

from predictkit.cli import main
from predictkit.datasets import list_traces


def test_list_prints_the_catalogue(capsys, tmp_path):
    assert main(["fetch", "--list", "--data-home", str(tmp_path / "nowhere")]) == 0
    out = capsys.readouterr().out
    assert "KTH-SP2-1996-2.1-cln" in out and "CTC-SP2-1996-3.1-cln" in out
    assert " 28,476 " in out  # counts print as in every table
    assert f"cache: {tmp_path / 'nowhere'}" in out
    assert not (tmp_path / "nowhere").exists()


def test_list_with_names_shows_only_the_logs_they_name(capsys, tmp_path):
    catalogue = list_traces()["name"]
    llnl = [n for n in catalogue if n.lower().startswith("llnl")]
    assert main(["fetch", "--list", "kth-sp2", "LLNL", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = out.split("\n\n")[0].splitlines()[1:]
    assert sorted(row.split()[0] for row in rows) == sorted(["KTH-SP2-1996-2.1-cln", *llnl])
    assert out.split("\n\n")[1].startswith(f"{len(llnl) + 1} logs; ")


def test_list_with_an_unknown_name_is_an_error(capsys, tmp_path):
    assert main(["fetch", "--list", "KHT-SP2", "--data-home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("predictkit fetch: error: unknown trace 'KHT-SP2'")
    assert err.endswith(f"('predictkit fetch --list' shows all {len(list_traces())} known "
                        "names)\n")
    assert err.count("\n") == 1 and "list_traces()" not in err


def test_fetch_uses_the_cache_without_network(capsys, tmp_path):
    cached = tmp_path / "pwa" / "KTH-SP2-1996-2.1-cln.swf.gz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(trace_file("KTH-SP2-1996-2.1-cln").read_bytes())
    assert main(["fetch", "KTH-SP2", "--data-home", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"KTH-SP2: 28,476 jobs in {cached}\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["fetch"], "name at least one log"),
    (["fetch", "KHT-SP2-1996"], "unknown trace 'KHT-SP2-1996'; close matches: "),
    (["fetch", "lublin_256"], "not an archive log"),
])
def test_user_errors_are_one_line_with_status_2(capsys, tmp_path, argv, message):
    assert main([*argv, "--data-home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("predictkit fetch: error: ") and message in err
    assert err.count("\n") == 1


def test_corrupt_cached_file_is_reported(capsys, tmp_path):
    cached = tmp_path / "pwa" / "CTC-SP2-1996-3.1-cln.swf.gz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(gzip.compress(b"1 2 3\n"))
    assert main(["fetch", "CTC-SP2-1996", "--data-home", str(tmp_path)]) == 2
    assert "expected 18 fields" in capsys.readouterr().err


def test_help_is_clear(capsys):
    with pytest.raises(SystemExit) as info:
        main(["fetch", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--data-home" in out and "--list" in out and "sha256" in out

"""datasets/make_catalogue.py fills checksums and job counts from copies of the logs."""

import csv
import gzip
import hashlib
import importlib.util
import shutil

import pytest
from tracedata import REPO, require_traces

SCRIPT = REPO / "datasets" / "make_catalogue.py"
CATALOGUE = REPO / "predictkit" / "datasets" / "data" / "pwa_catalogue.csv"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("make_catalogue", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows_by_name(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return {row["name"]: row for row in csv.DictReader(handle)}


def swf_text(n_jobs):
    header = "; Version: 2.2\n; MaxJobs: %d\n" % n_jobs
    body = "".join(f"{j} {10 * j} 5 100 4 -1 -1 4 600 -1 1 {j % 3 + 1} 1 -1 1 1 -1 -1\n"
                   for j in range(1, n_jobs + 1))
    return (header + body).encode()


def test_measure_gives_the_checksums_and_the_job_lines(script, tmp_path):
    text = swf_text(7)
    packed = gzip.compress(text)
    (tmp_path / "a.swf.gz").write_bytes(packed)
    (tmp_path / "a.swf").write_bytes(text)
    assert script.measure(tmp_path / "a.swf.gz") == {
        "size_bytes": len(packed), "sha256": hashlib.sha256(packed).hexdigest(),
        "swf_sha256": hashlib.sha256(text).hexdigest(), "jobs": 7}
    assert script.measure(tmp_path / "a.swf")["jobs"] == 7
    assert script.measure(tmp_path / "a.swf")["sha256"] == ""


def test_a_folder_of_logs_fills_missing_entries_and_keeps_published_counts(script, tmp_path,
                                                                          capsys):
    catalogue = tmp_path / "catalogue.csv"
    shutil.copy(CATALOGUE, catalogue)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "LCG-2005-1.swf.gz").write_bytes(gzip.compress(swf_text(12)))
    (logs / "CTC-SP2-1996-3.1-cln.swf.gz").write_bytes(gzip.compress(swf_text(5)))
    assert script.main(["--catalogue", str(catalogue), "--from", str(logs)]) == 0
    before, after = rows_by_name(CATALOGUE), rows_by_name(catalogue)
    lcg = after["LCG-2005-1"]
    assert (lcg["jobs"], lcg["jobs_source"], lcg["checked"], lcg["verify_checksum"]) == (
        "12", "counted", "yes", "yes")
    assert len(lcg["sha256"]) == 64 and len(lcg["swf_sha256"]) == 64
    # A copy that contradicts the archive's published count is reported and not used.
    assert after["CTC-SP2-1996-3.1-cln"] == before["CTC-SP2-1996-3.1-cln"]
    assert "has 5 jobs but the catalogue says 77222" in capsys.readouterr().err
    unchanged = set(before) - {"LCG-2005-1"}
    assert all(after[name] == before[name] for name in unchanged)
    script.main(["--catalogue", str(catalogue), "--from", str(logs), "--force"])
    assert rows_by_name(catalogue)["CTC-SP2-1996-3.1-cln"]["jobs"] == "5"


def test_the_shared_copies_reproduce_the_catalogue(script, tmp_path):
    folder = require_traces()
    catalogue = tmp_path / "catalogue.csv"
    shutil.copy(CATALOGUE, catalogue)
    script.main(["--catalogue", str(catalogue), "--from", str(folder),
                 "--only", "KTH-SP2-1996-2.1-cln", "--only", "lublin_256",
                 "--only", "RICC-2010-2"])
    assert catalogue.read_bytes() == CATALOGUE.read_bytes()


def test_report_lists_what_is_missing(script, capsys):
    assert script.main(["--report"]) == 0
    out = capsys.readouterr().out
    assert "40 downloadable entries: 10 with an enforced checksum, 27 with a job count" in out
    assert "no job count: SDSC-Par-1995-3.1-cln" in out

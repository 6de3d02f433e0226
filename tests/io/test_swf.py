import gzip
import io
import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.pandas import column, data_frames, range_indexes

from predictkit.exceptions import SWFFormatError
from predictkit.io import read_swf, write_swf
from predictkit.jobs import SWF_COLUMNS
from tracedata import TRACE_NAMES, trace_file

LINE = "1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1"


def _independent_parse(path):
    """Parse a SWF file with plain pandas, keeping -1 as it is."""
    return pd.read_csv(path, sep=r"\s+", comment=";", header=None).to_numpy(dtype=float)


def _assert_same_jobs(a, b):
    assert list(a.columns[:18]) == list(SWF_COLUMNS)
    for name in SWF_COLUMNS:
        np.testing.assert_array_equal(a[name].to_numpy(), b[name].to_numpy(), err_msg=name)


@pytest.mark.parametrize("name", TRACE_NAMES)
def test_every_trace_reads_and_writes_back_unchanged(name, tmp_path):
    path = trace_file(name)
    jobs = read_swf(path)
    raw = _independent_parse(path)
    assert len(jobs) == len(raw)
    assert jobs["job_id"].dtype == np.int64
    for k, name in enumerate(SWF_COLUMNS[1:], start=1):
        expected = np.where(raw[:, k] == -1, np.nan, raw[:, k])
        np.testing.assert_array_equal(jobs[name].to_numpy(), expected, err_msg=name)
    out = write_swf(jobs, tmp_path / "out.swf.gz")
    again = read_swf(out)
    _assert_same_jobs(jobs, again)
    assert again.attrs["header"] == jobs.attrs["header"]
    # Every field of every line holds the same value as in the original file.
    np.testing.assert_array_equal(_independent_parse(out), raw)
    with gzip.open(path, "rt") as original, gzip.open(out, "rt") as written:
        header_in = [line.rstrip("\n") for line in original if line.startswith(";")]
        header_out = [line.rstrip("\n") for line in written if line.startswith(";")]
    assert header_out == [h for h in header_in if h.strip()]


finite = st.floats(min_value=0, max_value=2**40, allow_nan=False, allow_infinity=False)
maybe = st.one_of(st.just(np.nan), finite, st.integers(0, 10**9).map(float))


@given(data_frames(
    [column("job_id", elements=st.integers(0, 2**40), dtype=np.int64)]
    + [column(c, elements=maybe, dtype=float) for c in SWF_COLUMNS[1:] if c not in
       {"n_procs", "req_procs", "status", "user_id", "group_id", "app_id", "queue_id",
        "partition_id", "preceding_job_id"}]
    + [column(c, elements=st.one_of(st.just(np.nan), st.integers(0, 10**6).map(float)),
              dtype=float) for c in ("n_procs", "req_procs", "status", "user_id", "group_id",
                                     "app_id", "queue_id", "partition_id", "preceding_job_id")],
    index=range_indexes(max_size=30)))
def test_write_then_read_loses_nothing(frame):
    frame = frame[list(SWF_COLUMNS)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.swf")
        write_swf(frame, path)
        back = read_swf(path)
    assert len(back) == len(frame)
    _assert_same_jobs(frame.reset_index(drop=True), back)


def test_gzip_is_detected_from_content_and_buffers_work(tmp_path):
    text = f"; MaxProcs: 8\n{LINE}\n".encode()
    plain = read_swf(io.BytesIO(text))
    zipped = read_swf(io.BytesIO(gzip.compress(text)))
    _assert_same_jobs(plain, zipped)
    assert plain.attrs["max_procs"] == 8
    assert np.isnan(plain.loc[0, "avg_cpu_time"]) and plain.loc[0, "run_time"] == 60


@pytest.mark.parametrize("bad, problem", [
    ("1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1", "expected 18 fields, found 17"),
    ("1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1 7", "expected 18 fields, found 19"),
    ("1 0 5 sixty 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1", "field 4 is not a number"),
    ("1 0 5 nan 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1", "field 4 is not a number"),
])
def test_malformed_line_names_file_line_and_text(tmp_path, bad, problem):
    path = tmp_path / "bad.swf"
    path.write_text(f"; Version: 2\n{LINE}\n{LINE.replace('1 0', '2 9', 1)}\n{bad}\n")
    with pytest.raises(SWFFormatError) as info:
        read_swf(path)
    message = str(info.value)
    assert str(path) in message and "line 4" in message and problem in message
    assert bad[:20] in message
    assert info.value.line_number == 4


def test_skip_reports_count_and_line_numbers(tmp_path):
    path = tmp_path / "bad.swf"
    lines = [LINE] * 3 + ["garbage"] + [LINE] * 2 + ["1 2 3"]
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"skipped 2 malformed line\(s\) \(lines 4, 7\)"):
        jobs = read_swf(path, errors="skip")
    assert len(jobs) == 5
    assert jobs.attrs["skipped_lines"] == 2
    assert jobs.attrs["skipped_line_numbers"] == [4, 7]


def test_empty_and_header_only_files_give_empty_tables(tmp_path):
    for text in ("", "; MaxProcs: 4\n;\n"):
        path = tmp_path / "empty.swf"
        path.write_text(text)
        jobs = read_swf(path)
        assert len(jobs) == 0 and list(jobs.columns) == list(SWF_COLUMNS)


def test_truncated_gzip_is_a_clear_error(tmp_path):
    data = gzip.compress((LINE + "\n").encode() * 1000)
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SWFFormatError, match="corrupt or truncated gzip"):
        read_swf(path)


def test_missing_job_number_is_an_error(tmp_path):
    path = tmp_path / "noid.swf"
    path.write_text(LINE.replace("1 0 5", "-1 0 5", 1) + "\n")
    with pytest.raises(SWFFormatError, match="invalid job number"):
        read_swf(path)


def test_header_parsing_keeps_everything():
    text = "\n".join([
        ";   --- free text ---",
        "; Version: 2.2",
        "; Information: http://a.example/",
        ";              http://b.example/",
        ";        MaxProcs: 140",
        "; MaxRuntime: 259200 (3 days)",
        "; Note: first",
        ";       continued",
        "; Note: second",
        "; Partition: 1 batch",
        "; Partition: 2 debug",
        "; SiteSpecific: kept",
        LINE,
    ]).encode()
    attrs = read_swf(io.BytesIO(text)).attrs
    assert attrs["version"] == "2.2"
    assert attrs["information"] == "http://a.example/\nhttp://b.example/"
    assert attrs["max_procs"] == 140 and attrs["max_runtime"] == 259200
    assert attrs["note"] == ["first\ncontinued", "second"]
    assert attrs["partition"] == ["1 batch", "2 debug"]
    assert attrs["site_specific"] == "kept"
    assert attrs["comments"] == ["--- free text ---"]


def test_header_is_rebuilt_from_attrs_when_no_raw_header(tmp_path):
    jobs = read_swf(io.BytesIO(f"{LINE}\n".encode()))
    jobs.attrs = {"max_procs": 64, "unix_start_time": 1000, "note": ["made here"]}
    out = read_swf(write_swf(jobs, tmp_path / "x.swf", comments=["extra"]))
    assert out.attrs["max_procs"] == 64 and out.attrs["unix_start_time"] == 1000
    assert out.attrs["note"] == ["made here", "extra"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "keep.swf"
    path.write_text("old\n")
    jobs = read_swf(io.BytesIO(f"{LINE}\n".encode()))
    jobs.loc[0, "run_time"] = np.inf
    with pytest.raises(SWFFormatError, match="infinite"):
        write_swf(jobs, path)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.swf"]


def test_integer_fields_must_be_whole(tmp_path):
    jobs = read_swf(io.BytesIO(f"{LINE}\n".encode()))
    jobs.loc[0, "user_id"] = 1.5
    with pytest.raises(SWFFormatError, match="user_id"):
        write_swf(jobs, tmp_path / "x.swf")


def test_fractional_times_survive(tmp_path):
    jobs = read_swf(io.BytesIO(f"{LINE}\n".encode()))
    jobs.loc[0, "avg_cpu_time"] = 12.345678901234
    back = read_swf(write_swf(jobs, tmp_path / "x.swf"))
    assert back.loc[0, "avg_cpu_time"] == 12.345678901234


def test_no_warning_on_clean_files(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_swf(io.BytesIO(f"{LINE}\n".encode()))


def test_whole_numbers_are_integers_even_in_a_fractional_column(tmp_path):
    jobs = read_swf(io.BytesIO(f"{LINE}\n{LINE.replace('1 0', '2 0', 1)}\n".encode()))
    jobs["req_time"] = [53940.0, 100.25]
    text = write_swf(jobs, tmp_path / "x.swf").read_text()
    assert text.split("\n")[0].split()[8] == "53940"
    assert text.split("\n")[1].split()[8] == "100.25"

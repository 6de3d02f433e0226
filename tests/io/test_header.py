import io

import pytest

from predictkit.exceptions import SWFFormatError
from predictkit.io import read_swf, write_swf
from predictkit.io._header import parse_header

LINE = "1 0 5 60 4 -1 -1 4 120 -1 1 3 1 -1 -1 -1 -1 -1"


def _read(*header):
    return read_swf(io.BytesIO(("\n".join(header) + f"\n{LINE}\n").encode()))


@pytest.mark.parametrize("text, value", [
    ("; MaxProcs: 128", 128),
    ("; MaxRuntime: 259200 (3 days)", 259200),
    ("; MaxProcs: 1664 (72, 1368, 224)", 1664),   # SDSC-DS
    ("; MaxNodes: 70  (dual)", 70),               # LPC-EGEE
    (";        TimeZone: 3600\t # DEPRECATED", 3600),
    ("; TimeZone: -28800", -28800),
    ("; MaxProcs: 1e3", 1000),
    ("; MaxRuntime: 90.5", 90.5),
    ("; UnixStartTime: 0", 0),
    (f"; MaxJobs: {2**53 - 1}", 2**53 - 1),
])
def test_numeric_header_values_that_are_sane_numbers(text, value):
    key = {"MaxProcs": "max_procs", "MaxRuntime": "max_runtime", "MaxNodes": "max_nodes",
           "TimeZone": "time_zone", "UnixStartTime": "unix_start_time", "MaxJobs": "max_jobs"}
    name = next(v for k, v in key.items() if f"{k}:" in text)
    got = _read(text).attrs[name]
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("value, problem", [
    ("abc", "'abc' is not a number"),
    ("1,024", "'1,024' is not a number"),
    ("1.5.3", "'1.5.3' is not a number"),
    ("12abc", "'12abc' is not a number"),
    ("inf", "'inf' is not a number"),
    ("nan", "'nan' is not a number"),
    ("1e30", "1e30 is out of range (allowed: 1 to 9,007,199,254,740,991)"),
    ("1" * 23, f"{'1' * 23} is out of range"),
    (str(2**53), f"{2**53} is out of range"),
    ("0", "0 is out of range"),
    ("-5", "-5 is out of range"),
    ("12.5", "12.5 is not a whole number"),
])
def test_a_bad_number_names_the_header_line(value, problem):
    with pytest.raises(SWFFormatError) as info:
        _read("; Version: 2.2", f"; MaxProcs: {value}")
    message = str(info.value)
    assert message.startswith(f"<buffer>, line 2: header MaxProcs: {problem}")
    assert message.endswith(f": '; MaxProcs: {value}'") and len(message.splitlines()) == 1
    assert info.value.line_number == 2


@pytest.mark.parametrize("text, problem", [
    ("; UnixStartTime: 1e30", "UnixStartTime: 1e30 is out of range"),
    ("; TimeZone: 999999", "TimeZone: 999999 is out of range (allowed: -86,400 to 86,400)"),
    ("; MaxJobs: -3", "MaxJobs: -3 is out of range"),
    ("; MaxNodes: 2.5", "MaxNodes: 2.5 is not a whole number"),
])
def test_other_numeric_keys_are_checked_too(text, problem):
    with pytest.raises(SWFFormatError, match=f"line 1: header {problem}".replace("(", r"\(")
                       .replace(")", r"\)")):
        _read(text)


@pytest.mark.parametrize("value", ["N/A", "n/a", "NA", "unknown", "None", "?", "-1", ""])
def test_a_value_that_says_unknown_is_none_and_the_line_is_kept(value, tmp_path):
    jobs = _read(f";MaxRuntime: {value}", "; MaxProcs: 16")  # Sandia-Ross writes N/A
    assert jobs.attrs["max_runtime"] is None and jobs.attrs["max_procs"] == 16
    back = read_swf(write_swf(jobs, tmp_path / "x.swf"))
    assert back.attrs["header"] == jobs.attrs["header"]


def test_repeated_keys():
    attrs = _read("; MaxProcs: 8", "; MaxProcs: 8", "; MaxQueues: 4", "; MaxQueues: 3",
                  "; Computer: a", "; Computer: b").attrs
    assert attrs["max_procs"] == 8                   # an identical repeat is one value
    assert attrs["max_queues"] == [4, 3]             # Sandia-Ross gives MaxQueues twice
    assert attrs["computer"] == ["a", "b"]


@pytest.mark.parametrize("key", ["MaxProcs", "MaxNodes", "UnixStartTime", "TimeZone"])
def test_conflicting_values_of_a_key_predictkit_computes_with_name_both_lines(key):
    with pytest.raises(SWFFormatError) as info:
        _read(f"; {key}: 8", "; Version: 2", f"; {key}: 16")
    message = str(info.value)
    assert message.startswith(f"<buffer>, line 3: header {key} is given twice with different "
                              f"values: line 1 ('; {key}: 8') and line 3")
    assert len(message.splitlines()) == 1


def test_unknown_keys_are_kept_as_text():
    attrs = _read("; SiteSpecific: 12", "; Foo: 1,024").attrs
    assert attrs["site_specific"] == "12" and attrs["foo"] == "1,024"


def test_parse_header_without_a_source_counts_lines_from_one():
    with pytest.raises(SWFFormatError, match="^header MaxProcs: 'x' is not a number") as info:
        parse_header(["; Version: 2", "; MaxProcs: x"])
    assert info.value.line_number == 2
    assert parse_header(["; MaxProcs: 4"]) == {"max_procs": 4}


def test_whole_numbers_held_as_floats_are_written_as_integers_and_a_tuple_as_its_items(
        tmp_path):
    import numpy as np

    from predictkit.datasets import make_workload

    jobs = make_workload(30, machine_procs=16, random_state=0)
    jobs.attrs.pop("header", None)
    jobs.attrs["max_procs"] = np.float64(jobs["n_procs"].max())  # as a float column gives it
    jobs.attrs["unix_start_time"] = 1.7e9
    jobs.attrs["time_zone"] = -3600.0
    jobs.attrs["note"] = ("first note", "second note")
    write_swf(jobs, tmp_path / "a.swf")
    header = [line for line in (tmp_path / "a.swf").read_text().splitlines()
              if line.startswith(";")]
    assert f"; MaxProcs: {int(jobs['n_procs'].max())}" in header
    assert "; UnixStartTime: 1700000000" in header and "; TimeZone: -3600" in header
    assert header[-2:] == ["; Note: first note", "; Note: second note"]
    back = read_swf(tmp_path / "a.swf")
    assert back.attrs["note"] == ["first note", "second note"]
    assert back.attrs["max_procs"] == jobs["n_procs"].max()
    # a fraction stays a fraction, and an edited float field replaces the log's line
    jobs = read_swf(tmp_path / "a.swf")
    jobs.attrs["max_procs"] = 20.0
    jobs.attrs["unix_start_time"] = 1.5
    write_swf(jobs, tmp_path / "b.swf")
    text = (tmp_path / "b.swf").read_text()
    assert "; MaxProcs: 20\n" in text and "; UnixStartTime: 1.5\n" in text

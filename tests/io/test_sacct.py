"""Tests of read_sacct on sacct text written here (no Slurm needed)."""

import datetime as dt
import gzip
import io
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from predictkit.exceptions import ConfigError, InvalidParameterError, SacctFormatError
from predictkit.io._sacct import read_sacct
from predictkit.io._sacct_text import looks_like_sacct
from predictkit.io._slurm_fields import parse_slurm_duration
from predictkit.jobs import SWF_COLUMNS

HEADER = ("JobID|JobIDRaw|JobName|User|Account|Partition|QOS|Submit|Start|End|Elapsed|"
          "Timelimit|NNodes|NCPUS|ReqCPUS|State|ExitCode|TotalCPU|MaxRSS")

EXAMPLE = """\
JobID|JobIDRaw|JobName|User|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqCPUS|State|ExitCode|TotalCPU|MaxRSS
100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0|00:00:00|
100.batch|100.batch|batch||chem||||2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00||1|4||COMPLETED|0:0|01:00.500|2048K
100.extern|100.extern|extern||chem||||2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00||1|4||COMPLETED|0:0|00:00.001|100K
100.0|100.0|a.out||chem||||2023-01-05T10:02:00|2023-01-05T11:00:00|00:58:00||1|4||COMPLETED|0:0|03:50:00|1.5G
101_1|102|arr|bob|phys|debug|high|2023-01-05T09:00:00|2023-01-05T09:00:10|2023-01-05T09:10:10|00:10:00|UNLIMITED|2|16|16|TIMEOUT|0:15||
101_[2-5]|101|arr|bob|phys|debug|high|2023-01-05T09:00:00|Unknown|Unknown|00:00:00|Partition_Limit|2|16|16|PENDING|0:0||
103+0|103|het|carol||batch|normal|2023-01-06T00:00:00|None|2023-01-06T00:10:00|00:00:00|1-00:00:00|1|0|8|CANCELLED by 1000|0:0||
103+1|104|het|carol||batch|normal|2023-01-06T00:00:00|None|2023-01-06T00:10:00|00:00:00|1-00|1|0|2|CANCELLED by 1000|0:0||
"""


def read(text, **kwargs):
    return read_sacct(io.StringIO(text), **kwargs)


def test_example_maps_every_field():
    jobs = read(EXAMPLE)
    assert list(jobs.columns[:18]) == list(SWF_COLUMNS)
    assert list(jobs.columns[18:]) == ["slurm_job_id", "slurm_state"]
    assert jobs["job_id"].dtype == np.int64
    assert all(jobs[c].dtype == np.float64 for c in SWF_COLUMNS[1:])
    # 101_[2-5] is four pending tasks: the first keeps the line's JobIDRaw,
    # the others are numbered after the largest id
    assert jobs["job_id"].tolist() == [100, 102, 101, 105, 106, 107, 103, 104]
    assert jobs["slurm_job_id"].tolist() == ["100", "101_1", "101_2", "101_3", "101_4",
                                             "101_5", "103+0", "103+1"]
    first = jobs.iloc[0]
    assert first["submit_time"] == 3600 and first["wait_time"] == 60
    assert first["run_time"] == 3600 and first["req_time"] == 7200
    assert first["n_procs"] == 4 and first["req_procs"] == 4 and first["status"] == 1
    # TotalCPU: allocation line 0, steps 60.5 + 0.001 + 13800 seconds over 4 CPUs.
    assert first["avg_cpu_time"] == pytest.approx((60.5 + 0.001 + 13800) / 4)
    assert first["used_memory"] == 1.5 * 1024 * 1024  # largest MaxRSS, in KB
    pending = [np.nan] * 4
    np.testing.assert_array_equal(jobs["status"], [1, 0, *pending, 5, 5])
    np.testing.assert_array_equal(jobs["req_time"], [7200, np.nan, *pending, 86400, 86400])
    np.testing.assert_array_equal(jobs["wait_time"], [60, 10, *pending, np.nan, np.nan])
    np.testing.assert_array_equal(jobs["run_time"], [3600, 600, *pending, np.nan, np.nan])
    np.testing.assert_array_equal(jobs["n_procs"], [4, 16, 16, 16, 16, 16, np.nan, np.nan])
    np.testing.assert_array_equal(jobs["user_id"], [1, 2, 2, 2, 2, 2, 3, 3])
    np.testing.assert_array_equal(jobs["group_id"], [1, 2, 2, 2, 2, 2, np.nan, np.nan])
    np.testing.assert_array_equal(jobs["partition_id"], [1, 2, 2, 2, 2, 2, 1, 1])
    np.testing.assert_array_equal(jobs["queue_id"], [1, 2, 2, 2, 2, 2, 1, 1])
    assert jobs["slurm_state"].iloc[6] == "CANCELLED by 1000"
    attrs = jobs.attrs
    assert attrs["user_ids"] == {"alice": 1, "bob": 2, "carol": 3}
    assert attrs["account_ids"] == {"chem": 1, "phys": 2}
    assert attrs["partition_ids"] == {"batch": 1, "debug": 2}
    assert attrs["qos_ids"] == {"normal": 1, "high": 2}
    assert attrs["n_unlimited_req_time"] == 5
    assert attrs["unmapped_states"] == {"PENDING": 4}
    assert attrs["unix_start_time"] == int(dt.datetime(2023, 1, 5, 9, tzinfo=dt.UTC).timestamp())
    assert attrs["time_zone_string"] == "UTC" and attrs["processor_unit"] == "cpus"


def test_parsable_with_trailing_pipes_reads_the_same():
    trailing = "\n".join(line + "|" for line in EXAMPLE.splitlines()) + "\n"
    pd.testing.assert_frame_equal(read(trailing), read(EXAMPLE))


def test_without_jobidraw_compound_ids_are_numbered_after_the_largest_plain_id():
    text = "\n".join("|".join(f for k, f in enumerate(line.split("|")) if k != 1)
                     for line in EXAMPLE.splitlines())
    jobs = read(text)
    assert jobs["job_id"].tolist() == [100, 101, 102, 103, 104, 105, 106, 107]
    assert jobs["slurm_job_id"].tolist() == ["100", "101_1", "101_2", "101_3", "101_4",
                                             "101_5", "103+0", "103+1"]


REQUEUED_RUNS = (
    "JobID|JobIDRaw|Submit|Start|End|Elapsed|NCPUS|State|TotalCPU\n"
    "5|5|2023-01-01T00:00:00|2023-01-01T00:00:00|2023-01-01T00:01:00|00:01:00|1|NODE_FAIL|\n"
    "5.batch|5.batch||2023-01-01T00:00:00|2023-01-01T00:01:00|00:01:00|1|NODE_FAIL|00:30\n"
    "6|6|2023-01-01T00:00:30|2023-01-01T00:00:40|2023-01-01T00:00:50|00:00:10|2|COMPLETED|\n"
    "5|5|2023-01-01T00:01:00|2023-01-01T00:02:00|2023-01-01T00:04:00|00:02:00|1|COMPLETED|\n"
    "5.batch|5.batch||2023-01-01T00:02:00|2023-01-01T00:04:00|00:02:00|1|COMPLETED|01:40\n")


@pytest.mark.parametrize("raw", [True, False])
def test_runs_of_a_requeued_job_keep_the_last_with_its_steps(raw):
    text = REQUEUED_RUNS if raw else "\n".join(
        "|".join(f for k, f in enumerate(line.split("|")) if k != 1)
        for line in REQUEUED_RUNS.splitlines())
    with pytest.warns(UserWarning, match="dropped 1 earlier run"):
        jobs = read(text)
    assert jobs["job_id"].tolist() == [6, 5]
    assert jobs["slurm_job_id"].tolist() == ["6", "5"]
    np.testing.assert_array_equal(jobs["avg_cpu_time"], [np.nan, 100])
    np.testing.assert_array_equal(jobs["wait_time"], [10, 60])
    np.testing.assert_array_equal(jobs["status"], [1, 1])
    assert jobs.attrs["n_earlier_runs_dropped"] == 1


@pytest.mark.parametrize("errors", ["raise", "skip"])
def test_the_same_run_listed_twice_is_an_error_naming_both_lines(errors):
    row = ("418201|418201|2024-01-01T07:00:00|2024-01-01T08:00:00|2024-01-01T09:00:00|"
           "01:00:00|4|COMPLETED|\n")
    other = ("418300|418300|2024-01-01T07:00:00|2024-01-01T08:00:00|2024-01-01T09:00:00|"
             "01:00:00|4|COMPLETED|\n")
    text = REQUEUED_RUNS.splitlines(keepends=True)[0] + row + other + row.replace(
        "COMPLETED", "FAILED")
    with pytest.raises(SacctFormatError, match=r"lines 2 and 4 both list JobID 418201 "
                                               r"with the same Submit and Start") as info:
        read(text, errors=errors)
    assert info.value.line_number == 4
    assert "concatenated" in str(info.value) and "\n" not in str(info.value)


def test_raw_columns_and_end_minus_start():
    text = ("jobidraw|submit|start|end|elapsedraw|timelimitraw|ncpus|state\n"
            "9|2023-01-01T00:00:00|2023-01-01T00:00:05|2023-01-01T00:10:05|600|30|2|FAILED\n"
            "10|2023-01-01T00:00:01|2023-01-01T00:00:05|2023-01-01T00:00:06|1|UNLIMITED|2|"
            "OUT_OF_MEMORY\n")
    jobs = read(text)
    np.testing.assert_array_equal(jobs["run_time"], [600, 1])
    np.testing.assert_array_equal(jobs["req_time"], [1800, np.nan])
    np.testing.assert_array_equal(jobs["status"], [0, 0])
    no_elapsed = read(text.replace("elapsedraw|", "").replace("|600|", "|").replace("|1|UN", "|UN"))
    np.testing.assert_array_equal(no_elapsed["run_time"], [600, 1])
    empty_elapsed = read(text.replace("|600|", "||"))
    np.testing.assert_array_equal(empty_elapsed["run_time"], [600, 1])


def test_an_empty_elapsed_field_falls_back_to_end_minus_start_per_line():
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2024-03-01T09:00:00|2024-03-01T09:02:00|2024-03-01T09:12:00||4|COMPLETED\n"
            "2|2024-03-01T09:00:00|2024-03-01T09:02:00|2024-03-01T09:12:00|00:05:00|4|COMPLETED\n"
            "3|2024-03-01T09:00:00|2024-03-01T09:02:00|Unknown||4|RUNNING\n")
    np.testing.assert_array_equal(read(text)["run_time"], [600, 300, np.nan])


@pytest.mark.parametrize("job_id", ["9223372036854775807", "9007199254740993",
                                    "12345678901", "5_12345678901"])
def test_a_job_number_slurm_cannot_give_is_a_malformed_line(job_id):
    text = ("JobID|Submit|Start|End|NCPUS|State\n"
            f"{job_id}|2024-03-01T09:00:00|2024-03-01T09:02:00|2024-03-01T09:12:00|4|COMPLETED\n")
    with pytest.raises(SacctFormatError, match=rf"line 2: not a Slurm job id \('{job_id}'\)"):
        read(text)
    assert read(text.replace(job_id, "4294967295"))["job_id"].tolist() == [4294967295]


@pytest.mark.parametrize("zone", [None, 5, 3600.0, "", b"UTC"])
def test_a_time_zone_that_is_not_a_name_is_a_config_error(zone):
    from predictkit.io import read_log

    text = ("JobID|Submit|Start|End|NCPUS|State\n"
            "1|2024-03-01T09:00:00|2024-03-01T09:02:00|2024-03-01T09:12:00|4|COMPLETED\n")
    for reader in (read_sacct, read_log):
        with pytest.raises(ConfigError, match=r"time_zone must be the name of a time zone.*got"):
            reader(io.StringIO(text), time_zone=zone)


def test_nodes_only_gives_processor_unit_nodes():
    text = ("JobID|Submit|Start|End|Elapsed|NNodes|ReqNodes|State\n"
            "1|2023-01-01T00:00:00|2023-01-01T00:00:00|2023-01-01T00:00:09|00:09|3|4|COMPLETED\n")
    jobs = read(text)
    assert jobs.attrs["processor_unit"] == "nodes"
    assert jobs.loc[0, "n_procs"] == 3 and jobs.loc[0, "req_procs"] == 4
    assert jobs.loc[0, "run_time"] == 9


def test_group_used_when_no_account_and_running_job_has_no_run_time():
    text = ("JobID|User|Group|Submit|Start|Elapsed|AllocCPUS|State\n"
            "1|u|g|2023-01-01T00:00:00|2023-01-01T00:00:00|00:09|1|RUNNING\n"
            "2|u|h|2023-01-01T00:00:00|2023-01-01T00:00:00|00:09|1|COMPLETED\n")
    jobs = read(text)
    assert jobs.attrs["group_ids"] == {"g": 1, "h": 2}
    np.testing.assert_array_equal(jobs["run_time"], [np.nan, 9])


@pytest.mark.parametrize(("text", "seconds"), [
    ("1-02:03:04", 93784), ("02:03:04", 7384), ("03:04", 184), ("00:01.234", 1.234),
    ("1-02", 93600), ("1-02:03", 93780), ("12-00:00:00", 12 * 86400),
    ("1-02:03:04.5", 93784.5),
])
def test_duration_formats(text, seconds):
    assert parse_slurm_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("token", ["UNLIMITED", "Partition_Limit", "INVALID", "None",
                                   "Unknown", ""])
def test_duration_tokens_are_unknown(token):
    assert math.isnan(parse_slurm_duration(token))


@pytest.mark.parametrize("text", ["5", "1-25:00:00", "00:61", "1:2:3:4", "abc", "-01:00"])
def test_bad_durations_are_refused(text):
    with pytest.raises(ValueError, match="not a Slurm duration"):
        parse_slurm_duration(text)


def test_time_zone_shifts_origin_and_is_recorded():
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2023-07-01T12:00:00|2023-07-01T12:00:00|2023-07-01T12:00:01|00:01|1|COMPLETED\n")
    paris = read(text, time_zone="Europe/Paris")
    assert paris.attrs["time_zone_string"] == "Europe/Paris"
    assert read(text).attrs["unix_start_time"] - paris.attrs["unix_start_time"] == 7200
    with pytest.raises(ConfigError, match="Mars/Olympus"):
        read(text, time_zone="Mars/Olympus")


def test_daylight_saving_change_gives_true_durations():
    # 2023-03-26 02:00 Europe/Paris jumps to 03:00: one real hour between these.
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2023-03-26T01:30:00|2023-03-26T03:30:00|2023-03-26T03:30:01|00:01|1|COMPLETED\n")
    assert read(text, time_zone="Europe/Paris").loc[0, "wait_time"] == 3600
    assert read(text).loc[0, "wait_time"] == 7200


def test_repeated_local_hour_is_counted():
    # 2023-10-29 02:30 happens twice in Europe/Paris; read as the first (summer) one.
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2023-10-29T02:30:00|2023-10-29T03:30:00|2023-10-29T03:30:01|00:01|1|COMPLETED\n")
    jobs = read(text, time_zone="Europe/Paris")
    assert jobs.attrs["n_ambiguous_local_times"] == 1
    assert jobs.loc[0, "wait_time"] == 7200
    assert "n_ambiguous_local_times" not in read(text).attrs


@pytest.mark.parametrize("field", ["Submit", "Start", "End"])
def test_a_local_time_skipped_by_the_clocks_is_an_error(field):
    # 2024-03-31 02:00 Europe/Paris jumps to 03:00: 02:30 never happened there.
    times = {"Submit": "2024-03-31T01:50:00", "Start": "2024-03-31T03:10:00",
             "End": "2024-03-31T03:40:00"}
    times[field] = "2024-03-31T02:30:00"
    if field == "End":
        times["Start"] = "2024-03-31T01:55:00"
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2024-03-31T01:00:00|2024-03-31T01:00:00|2024-03-31T01:10:00|00:10:00|1|COMPLETED\n"
            f"2|{times['Submit']}|{times['Start']}|{times['End']}|00:01:00|1|COMPLETED\n")
    with pytest.raises(SacctFormatError,
                       match=rf"line 3: field {field} \(2024-03-31T02:30:00\) does not exist "
                             r"in Europe/Paris: clocks moved forward"):
        read(text, time_zone="Europe/Paris")
    with pytest.warns(UserWarning, match="skipped 1 malformed line"):
        assert read(text, time_zone="Europe/Paris", errors="skip")["job_id"].tolist() == [1]
    assert len(read(text)) == 2


@pytest.mark.parametrize(("submit", "start", "end", "elapsed", "wait", "run_span"), [
    # Submit in the first 02:50 (summer time), Start and End in the second 02:xx.
    ("02:50", "02:10", "02:40", "00:30:00", 1200, 1800),
    # End in the second 02:10: 01:30 -> 02:10 (winter time) is 1 h 40 min.
    ("01:00", "01:30", "02:10", "01:40:00", 1800, 6000),
    # All in the first repeated hour: the summer reading is kept.
    ("02:10", "02:20", "02:40", "00:20:00", 600, 1200),
    # Start in the repeated hour after a Submit in winter time.
    ("03:10", "02:20", "03:40", "01:20:00", None, None),
])
def test_times_in_the_repeated_hour_are_read_in_real_time_order(
        submit, start, end, elapsed, wait, run_span):
    # 2024-10-27 03:00 Europe/Paris goes back to 02:00: 02:00-02:59 happen twice.
    day = "2024-10-27T"
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            f"1|{day}{submit}:00|{day}{start}:00|{day}{end}:00|{elapsed}|1|COMPLETED\n")
    if wait is None:
        # No reading puts 02:20 after 03:10 (winter time): a Start before its Submit.
        with pytest.raises(SacctFormatError, match=r"field Start \(2024-10-27T02:20:00\) "
                                                   r"is before Submit"):
            read(text, time_zone="Europe/Paris")
        return
    jobs = read(text, time_zone="Europe/Paris")
    assert jobs.loc[0, "wait_time"] == wait
    assert jobs.loc[0, "run_time"] == parse_slurm_duration(elapsed) == run_span


@given(st.lists(st.tuples(st.integers(-7200, 7200), st.integers(0, 5400),
                          st.integers(0, 5400)), min_size=1, max_size=10))
def test_jobs_in_order_in_real_time_are_accepted_across_the_fall_back(rows):
    """Jobs around the 2024-10-27 fall-back in Paris, printed in local time."""
    from zoneinfo import ZoneInfo
    paris = ZoneInfo("Europe/Paris")
    change = dt.datetime(2024, 10, 27, 1, 0, tzinfo=dt.UTC)  # 03:00 summer -> 02:00 winter

    def local(instant):
        return instant.astimezone(paris).strftime("%Y-%m-%dT%H:%M:%S")

    lines = ["JobID|Submit|Start|End|ElapsedRaw|NCPUS|State"]
    for number, (offset, wait, run) in enumerate(rows, start=1):
        submit = change + dt.timedelta(seconds=offset)
        start = submit + dt.timedelta(seconds=wait)
        end = start + dt.timedelta(seconds=run)
        lines.append(f"{number}|{local(submit)}|{local(start)}|{local(end)}|{run}|1|COMPLETED")
    jobs = read("\n".join(lines) + "\n", time_zone="Europe/Paris")
    np.testing.assert_array_equal(jobs["run_time"], [run for _, _, run in rows])
    # A wall-clock time in the repeated hour that no ordering pins down is read
    # as its summer-time occurrence: off by exactly the hour, never negative.
    error = jobs["wait_time"].to_numpy() - [wait for _, wait, _ in rows]
    assert set(np.abs(error)) <= {0.0, 3600.0}
    assert (jobs["wait_time"] >= 0).all()


@pytest.mark.parametrize(("elapsed", "ok"), [
    ("01:00:00", True), ("00:30:00", True), ("01:00:01", True), ("01:00:02", False),
    ("05:00:00", False)])
def test_elapsed_longer_than_end_minus_start_is_malformed(elapsed, ok):
    text = ("JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|State\n"
            "418201|2024-01-01T07:00:00|2024-01-01T08:00:00|2024-01-01T09:00:00|"
            f"{elapsed}|02:00:00|4|COMPLETED\n")
    if ok:
        # Shorter is allowed: Elapsed leaves out the time a job was suspended.
        assert read(text).loc[0, "run_time"] == parse_slurm_duration(elapsed)
        return
    with pytest.raises(SacctFormatError,
                       match=rf"line 2: field Elapsed \({elapsed}\) is longer than End - Start "
                             r"\(2024-01-01T09:00:00 - 2024-01-01T08:00:00 = 3600 s\)"):
        read(text)
    good = ("7|2024-01-01T07:00:00|2024-01-01T08:00:00|2024-01-01T09:00:00|00:59:59|"
            "02:00:00|4|FAILED\n")
    with pytest.warns(UserWarning, match="skipped 1 malformed line"):
        assert read(text + good, errors="skip")["job_id"].tolist() == [7]


@given(st.lists(st.tuples(st.integers(0, 10**5), st.integers(-5, 5), st.booleans()),
                min_size=1, max_size=20))
def test_elapsed_check_matches_a_reference(rows):
    """Reference: a line is malformed exactly when ElapsedRaw > End - Start + 1 s."""
    lines = ["JobID|Submit|Start|End|ElapsedRaw|NCPUS|State"]
    for number, (span, extra, ended) in enumerate(rows, start=1):
        end = fmt_time(100 + span) if ended else "Unknown"
        state = "COMPLETED" if ended else "RUNNING"
        lines.append(f"{number}|{fmt_time(0)}|{fmt_time(100)}|{end}|{max(span + extra, 0)}|1|"
                     f"{state}")
    text = "\n".join(lines) + "\n"
    bad = [k for k, (span, extra, ended) in enumerate(rows) if ended and extra > 1]
    if bad:
        with pytest.raises(SacctFormatError, match="is longer than End - Start") as info:
            read(text)
        assert info.value.line_number == bad[0] + 2
        if len(bad) == len(rows):  # no job left: refused, as read_swf refuses it
            with pytest.raises(SacctFormatError, match=rf"no jobs: every job line is malformed "
                               rf"\({len(bad)} line\(s\) left out"):
                read(text, errors="skip")
            return
        with pytest.warns(UserWarning, match=rf"skipped {len(bad)} malformed"):
            jobs = read(text, errors="skip")
    else:
        jobs = read(text)
    kept = [row for k, row in enumerate(rows) if k not in bad]
    np.testing.assert_array_equal(
        jobs["run_time"], [max(span + extra, 0) if ended else np.nan
                           for span, extra, ended in kept])


def test_gzip_file_and_binary_buffer(tmp_path):
    path = tmp_path / "sacct.txt.gz"
    path.write_bytes(gzip.compress(EXAMPLE.encode()))
    from_file = read_sacct(path)
    assert from_file.attrs["source"] == str(path)
    from_bytes = read_sacct(io.BytesIO(EXAMPLE.encode()))
    pd.testing.assert_frame_equal(from_file, from_bytes)
    plain = tmp_path / "sacct.txt"
    plain.write_text(EXAMPLE)
    np.testing.assert_array_equal(read_sacct(plain)["job_id"], from_bytes["job_id"])


# --- error paths ---------------------------------------------------------------

BAD_LINES = [
    ("100|100|sim|alice", "expected 19 '|'-separated fields"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05 10:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||",
     "field Submit is not a time in Slurm's standard form 2024-03-04T10:00:00 .*"
     "SLURM_TIME_FORMAT=standard"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|60|02:00:00|1|4|4|COMPLETED|0:0||", "field Elapsed is not a Slurm duration"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|2 hours|1|4|4|COMPLETED|0:0||", "field Timelimit is not"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|four|4|COMPLETED|0:0||", "field NCPUS is not a count"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||lots", "field MaxRSS is not"),
    ("100|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0|1 min|", "field TotalCPU is not"),
    ("job7|7|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||", "not a Slurm job id"),
    ("7|x7|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||", "JobIDRaw is not an integer"),
    # a plain job id is its own raw id: another raw id would silently renumber the job
    ("200|100|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||",
     "JobIDRaw is not an integer job id matching JobID"),
    ("555.batch|555.batch|batch||chem||||2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00||1|4||"
     "COMPLETED|0:0|00:01|", r"job step before \(or without\) its job"),
    ("300|300|sim|alice|chem|batch|normal|Unknown|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||", "field Submit is unknown"),
    ("301|301|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|99999999999999999999999|4|COMPLETED|0:0||",
     "field NCPUS is not a count"),
    ("302|302|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|99999999-00:00:00|02:00:00|1|4|4|COMPLETED|0:0||",
     "field Elapsed is not a Slurm duration"),
    ("303|303|sim|alice|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:01:00|"
     "2023-01-05T11:01:00|01:00:00|02:00:00|1|4|4|COMPLETED|0:0||99999999999P",
     "field MaxRSS is not"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_malformed_line_raises_with_place(line, message):
    lines = EXAMPLE.splitlines()
    text = "\n".join(lines[:3] + [line] + lines[3:]) + "\n"
    with pytest.raises(SacctFormatError, match=message) as info:
        read(text)
    assert info.value.line_number == 4
    assert info.value.line == line
    assert info.value.source == "<buffer>"
    assert "line 4" in str(info.value)


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_malformed_line_skipped_with_warning(line, message):
    lines = EXAMPLE.splitlines()
    text = "\n".join(lines[:3] + [line] + lines[3:]) + "\n"
    with pytest.warns(UserWarning, match=r"skipped 1 malformed line \(line 4\)"):
        jobs = read(text, errors="skip")
    assert jobs.attrs["skipped_lines"] == 1 and jobs.attrs["skipped_line_numbers"] == [4]
    expected = read(EXAMPLE)
    np.testing.assert_array_equal(jobs["job_id"], expected["job_id"])
    np.testing.assert_array_equal(jobs["avg_cpu_time"], expected["avg_cpu_time"])


def test_skipping_an_allocation_line_skips_its_steps():
    lines = EXAMPLE.splitlines()
    lines[1] = lines[1].replace("01:00:00|02:00:00", "01:00:00|soon")
    with pytest.warns(UserWarning, match=r"skipped 4 malformed lines \(lines 2, 3, 4, 5\)"):
        jobs = read("\n".join(lines), errors="skip")
    assert jobs["job_id"].tolist() == [102, 101, 105, 106, 107, 103, 104]


def test_missing_required_columns_are_named():
    with pytest.raises(SacctFormatError, match=r"Submit; Start; State; ElapsedRaw or "
                                                r"Elapsed or End; NCPUS or AllocCPUS"):
        read("JobID|User\n1|a\n")
    with pytest.raises(SacctFormatError, match="JobID or JobIDRaw"):
        read(EXAMPLE.replace("JobID|JobIDRaw", "Id|Raw"))


def test_header_with_repeated_field_and_empty_input():
    with pytest.raises(SacctFormatError, match="twice: State"):
        read("JobID|Submit|Start|End|NCPUS|State|state\n")
    with pytest.raises(SacctFormatError, match="no header line"):
        read("\n\n")
    with pytest.raises(ConfigError, match="errors must be"):
        read(EXAMPLE, errors="ignore")
    with pytest.raises(InvalidParameterError,
                       match="'path_or_buffer' parameter of read_sacct must be a path"):
        read_sacct(42)
    with pytest.raises(SacctFormatError, match="corrupt or truncated gzip"):
        read_sacct(io.BytesIO(gzip.compress(EXAMPLE.encode())[:40]))
    with pytest.raises(SacctFormatError, match="not UTF-8"):
        read_sacct(io.BytesIO(b"JobID\xff|Submit\n"))


def test_unreadable_sources_are_one_line_errors_naming_them(tmp_path):
    compressed = bytearray(gzip.compress(EXAMPLE.encode() * 20, mtime=0))
    compressed[30:60] = bytes(b ^ 0x55 for b in compressed[30:60])  # a broken deflate stream
    with pytest.raises(SacctFormatError, match=r"<buffer>: corrupt or truncated gzip data"):
        read_sacct(io.BytesIO(bytes(compressed)))
    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    with pytest.raises(SacctFormatError, match=f"{loop}: cannot read the file: Too many levels"):
        read_sacct(loop)
    with pytest.raises(SacctFormatError, match="is UTF-16 text; job logs are read as UTF-8"):
        read_sacct(io.BytesIO(EXAMPLE.encode("utf-16")))


def test_bytes_that_are_not_utf8_are_named_by_line_and_column():
    text = EXAMPLE.encode().replace(b"alice", b"al\xefce", 1)
    number = EXAMPLE[:EXAMPLE.index("alice")].count("\n") + 1
    column = len(EXAMPLE[:EXAMPLE.index("alice")].rsplit("\n", 1)[-1]) + 3
    with pytest.raises(SacctFormatError, match=rf"<buffer>, line {number}: not UTF-8 text "
                                               rf"\(byte 0xef at column {column};") as info:
        read_sacct(io.BytesIO(text))
    assert len(str(info.value).splitlines()) == 1 and "al\ufffdce" in str(info.value)


def test_header_only_is_an_error_naming_the_header_line():
    with pytest.raises(SacctFormatError, match=r"<buffer>, line 2: no job lines after the "
                                               r"header") as info:
        read("\n" + HEADER + "\n\n")
    assert len(str(info.value).splitlines()) == 1


@pytest.mark.parametrize("text", ["", "\n", "   \n\r\n", "\ufeff"])
def test_empty_input_is_an_error(text):
    with pytest.raises(SacctFormatError, match="no header line"):
        read(text)
    with pytest.raises(SacctFormatError, match="no header line"):
        read_sacct(io.BytesIO(gzip.compress(text.encode("utf-8"))))


def test_byte_order_mark_is_ignored(tmp_path):
    expected = read(EXAMPLE)
    with_bom = b"\xef\xbb\xbf" + EXAMPLE.encode()
    pd.testing.assert_frame_equal(read_sacct(io.BytesIO(with_bom)), expected)
    pd.testing.assert_frame_equal(read("\ufeff" + EXAMPLE), expected)
    path = tmp_path / "bom.txt.gz"
    path.write_bytes(gzip.compress(with_bom))
    np.testing.assert_array_equal(read_sacct(path)["wait_time"], expected["wait_time"])


START_BEFORE_SUBMIT = ("200|200|sim|alice|chem|batch|normal|2023-01-05T12:00:00|"
                       "2023-01-05T11:59:00|2023-01-05T12:30:00|00:31:00|02:00:00|1|4|4|"
                       "COMPLETED|0:0||")
END_BEFORE_START = ("201|201|sim|alice|chem|batch|normal|2023-01-05T12:00:00|"
                    "2023-01-05T12:10:00|2023-01-05T12:05:00|00:00:00|02:00:00|1|4|4|"
                    "FAILED|1:0||")


START_LOST = ("202|202|sim|alice|chem|batch|normal|2023-01-05T12:00:00|Unknown|"
              "2023-01-05T12:11:00|00:10:00|02:00:00|1|4|4|COMPLETED|0:0|00:01:00|")
END_LOST = ("203|203|sim|alice|chem|batch|normal|2023-01-05T12:00:00|2023-01-05T12:01:00|"
            "None|00:10:00|02:00:00|1|4|4|CANCELLED by 0|0:0||")


@pytest.mark.parametrize(("line", "message"), [
    (START_LOST, r"line 10: field Start is unknown but Elapsed \(00:10:00\) says the job ran"),
    (END_LOST, r"line 10: field End is unknown but State \(CANCELLED by 0\) says the job "
               r"started and ended"),
    (START_BEFORE_SUBMIT, r"line 10: field Start \(2023-01-05T11:59:00\) is before Submit "
                          r"\(2023-01-05T12:00:00\)"),
    (END_BEFORE_START, r"line 10: field End \(2023-01-05T12:05:00\) is before Start "
                       r"\(2023-01-05T12:10:00\)"),
])
def test_negative_wait_or_runtime_or_a_lost_time_is_a_malformed_line(line, message):
    text = EXAMPLE + line + "\n"
    with pytest.raises(SacctFormatError, match=message) as info:
        read(text)
    assert info.value.line_number == 10 and len(str(info.value).splitlines()) == 1
    with pytest.warns(UserWarning, match=r"skipped 1 malformed line \(line 10\)"):
        jobs = read(text, errors="skip")
    assert jobs.attrs["skipped_line_numbers"] == [10]
    assert (jobs["wait_time"].dropna() >= 0).all() and (jobs["run_time"].dropna() >= 0).all()
    assert jobs["job_id"].tolist() == read(EXAMPLE)["job_id"].tolist()


@pytest.mark.parametrize("state", ["RUNNING", "PENDING", "COMPLETING"])
def test_a_job_not_yet_ended_has_no_end_and_a_runtime_unknown(state):
    line = END_LOST.replace("CANCELLED by 0", state)
    jobs = read(EXAMPLE + line + "\n")
    assert np.isnan(jobs["run_time"].iloc[-1])


def test_a_job_cancelled_before_it_started_has_no_start_and_no_runtime():
    jobs = read(EXAMPLE)
    cancelled = jobs["slurm_state"].str.startswith("CANCELLED")
    assert cancelled.sum() == 2 and jobs.loc[cancelled, "run_time"].isna().all()


def test_a_step_starting_before_its_jobs_submit_is_not_an_error():
    # Step lines carry the step's own times; only allocation lines are checked.
    lines = EXAMPLE.splitlines()
    lines[2] = lines[2].replace("|2023-01-05T10:01:00|2023-01-05T11:01:00|",
                                "|2023-01-05T09:00:00|2023-01-05T11:01:00|", 1)
    assert read("\n".join(lines))["wait_time"].iloc[0] == 60


def test_a_state_that_is_no_slurm_state_is_warned_about_and_kept():
    text = (HEADER + "\n"
            "302|302|done|dave|chem|batch|normal|2023-01-05T10:01:00|2023-01-05T10:02:00|"
            "2023-01-05T10:03:00|00:01:00|01:00:00|1|8|8|COMPLETED|0:0|00:00:00|0\n"
            "303|303|done|dave|chem|batch|normal|2023-01-05T10:01:00|2023-01-05T10:02:00|"
            "2023-01-05T10:03:00|00:01:00|01:00:00|1|8|8|COMPLETE|0:0|00:00:00|0\n"
            "304|304|done|dave|chem|batch|normal|2023-01-05T10:01:00|2023-01-05T10:02:00|"
            "2023-01-05T10:03:00|00:01:00|01:00:00|1|8|8||0:0|00:00:00|0\n"
            "305|305|wait|dave|chem|batch|normal|2023-01-05T10:01:00|Unknown|"
            "Unknown|00:00:00|01:00:00|0|8|8|PENDING|0:0|00:00:00|\n"
            "306|306|wait|dave|chem|batch|normal|2023-01-05T10:01:00|Unknown|"
            "Unknown|00:00:00|01:00:00|0|8|8|RESV_DEL_HOLD|0:0|00:00:00|\n")
    with pytest.warns(UserWarning, match=r"<buffer>: 2 jobs with a State that is no Slurm "
                                         r"job state \(COMPLETE: 1, \(empty\): 1\)"):
        jobs = read(text)
    np.testing.assert_array_equal(jobs["status"], [1, np.nan, np.nan, np.nan, np.nan])
    assert jobs["slurm_state"].tolist() == ["COMPLETED", "COMPLETE", "", "PENDING",
                                            "RESV_DEL_HOLD"]


def test_pending_and_running_jobs_have_unknown_results_not_zero():
    text = (HEADER + "\n"
            "300|300|run|dave|chem|batch|normal|2023-01-05T10:00:00|2023-01-05T10:05:00|"
            "Unknown|00:20:00|01:00:00|1|8|8|RUNNING|0:0|00:00:00|\n"
            "300.batch|300.batch|batch||chem||||2023-01-05T10:05:00|Unknown|00:20:00||1|8||"
            "RUNNING|0:0|00:00:00|1024K\n"
            "301|301|wait|dave|chem|batch|normal|2023-01-05T10:01:00|2023-01-05T11:00:00|"
            "Unknown|00:00:00|01:00:00|0|8|8|PENDING|0:0|00:00:00|\n"
            "302|302|done|dave|chem|batch|normal|2023-01-05T10:01:00|2023-01-05T10:02:00|"
            "2023-01-05T10:03:00|00:01:00|01:00:00|1|8|8|COMPLETED|0:0|00:00:00|0\n")
    jobs = read(text)
    # The pending job's Start is Slurm's expected start, not a start: no wait yet.
    np.testing.assert_array_equal(jobs["wait_time"], [300, np.nan, 60])
    np.testing.assert_array_equal(jobs["run_time"], [np.nan, np.nan, 60])
    np.testing.assert_array_equal(jobs["avg_cpu_time"], [np.nan, np.nan, 0])
    np.testing.assert_array_equal(jobs["used_memory"], [np.nan, np.nan, 0])
    np.testing.assert_array_equal(jobs["status"], [np.nan, np.nan, 1])
    # Without an End column the state alone says the job has not ended.
    no_end = "\n".join("|".join(f for k, f in enumerate(line.split("|")) if k != 9)
                       for line in text.splitlines())
    np.testing.assert_array_equal(read(no_end)["run_time"], [np.nan, np.nan, 60])


def test_error_messages_are_one_line_with_the_line_number():
    bad = EXAMPLE.replace("2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|02:00:00",
                          "2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|2h\x00", 1)
    with pytest.raises(SacctFormatError) as info:
        read(bad)
    assert str(info.value).startswith("<buffer>, line 2: field Timelimit is not a Slurm duration")
    assert len(str(info.value).splitlines()) == 1


@pytest.mark.parametrize(("head", "expected"), [
    (b"JobID|User|Submit\n", True), (b"\xef\xbb\xbf\n\njobidraw|state|\n", True),
    ("User|JobID\n", True), (b"; Version: 2.2\n", False), (b"1 0 10 100 4\n", False),
    (b"JobID User Submit\n", False), (b"", False), (b"JobIDs|x\n", False),
])
def test_looks_like_sacct(head, expected):
    assert looks_like_sacct(head) is expected


# --- round trip of hypothesis-generated jobs -----------------------------------

ORIGIN = dt.datetime(2023, 3, 1)


def fmt_duration(seconds, style):
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if style == "days" or days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if style == "short" and not hours:
        return f"{minutes:02d}:{secs:02d}"
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def fmt_limit(seconds, style):
    if seconds is None:
        return style and "UNLIMITED" or "Partition_Limit"
    days, rest = divmod(seconds, 86400)
    hours, minutes = divmod(rest // 60, 60)
    if days and minutes == 0 and style:
        return f"{days}-{hours:02d}"
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}"
    return f"{hours:02d}:{minutes:02d}:00"


def fmt_cpu(milliseconds):
    seconds, millis = divmod(milliseconds, 1000)
    return f"{fmt_duration(seconds, 'short')}.{millis:03d}"


def fmt_time(offset):
    return (ORIGIN + dt.timedelta(seconds=offset)).strftime("%Y-%m-%dT%H:%M:%S")


step_strategy = st.fixed_dictionaries({
    "name": st.sampled_from(["batch", "extern", "0", "1", "2"]),
    "cpu_ms": st.integers(0, 10**8),
    "rss_kb": st.integers(0, 10**7),
})
job_strategy = st.fixed_dictionaries({
    "user": st.sampled_from(["alice", "bob", "carol", "dave"]),
    "account": st.sampled_from(["chem", "phys", ""]),
    "partition": st.sampled_from(["batch", "debug"]),
    "submit": st.integers(0, 10**7),
    "wait": st.integers(0, 10**6),
    "run": st.integers(0, 10**6),
    "limit_minutes": st.one_of(st.none(), st.integers(1, 60 * 24 * 30)),
    "ncpus": st.integers(1, 4096),
    "reqcpus": st.integers(1, 4096),
    "state": st.sampled_from(["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 12",
                              "NODE_FAIL", "OUT_OF_MEMORY"]),
    "steps": st.lists(step_strategy, max_size=3, unique_by=lambda s: s["name"]),
    "style": st.sampled_from(["plain", "days", "short"]),
    "array_task": st.one_of(st.none(), st.integers(0, 50)),
    "total_on_allocation": st.booleans(),
})


@given(jobs=st.lists(job_strategy, min_size=1, max_size=25), trailing=st.booleans())
def test_round_trip_of_generated_jobs(jobs, trailing):
    lines = [HEADER]
    for number, job in enumerate(jobs, start=1):
        job_text = f"{1000 + number}" if job["array_task"] is None else \
            f"{900 + number}_{job['array_task']}"
        start, end = job["submit"] + job["wait"], job["submit"] + job["wait"] + job["run"]
        limit = None if job["limit_minutes"] is None else job["limit_minutes"] * 60
        # Newer Slurm prints the total CPU time of the steps on the allocation line too.
        total = fmt_cpu(sum(s["cpu_ms"] for s in job["steps"])) \
            if job["total_on_allocation"] and job["steps"] else ""
        lines.append("|".join([
            job_text, str(1000 + number), "j", job["user"], job["account"], job["partition"],
            "normal", fmt_time(job["submit"]), fmt_time(start), fmt_time(end),
            fmt_duration(job["run"], job["style"]), fmt_limit(limit, number % 2),
            "1", str(job["ncpus"]), str(job["reqcpus"]), job["state"], "0:0", total, ""]))
        for step in job["steps"]:
            cpu = fmt_cpu(step["cpu_ms"])
            lines.append("|".join([
                f"{job_text}.{step['name']}", f"{1000 + number}.{step['name']}", step["name"],
                "", job["account"], "", "", "", fmt_time(start), fmt_time(end),
                fmt_duration(job["run"], "plain"), "", "1", str(job["ncpus"]), "",
                job["state"].split()[0], "0:0", cpu, f"{step['rss_kb']}K"]))
    text = "\n".join(line + "|" * trailing for line in lines) + "\n"
    table = read(text)

    assert table["job_id"].tolist() == [1000 + k for k in range(1, len(jobs) + 1)]
    submits = np.array([j["submit"] for j in jobs], dtype=float)
    np.testing.assert_array_equal(table["submit_time"], submits - submits.min())
    assert table.attrs["unix_start_time"] == int(
        (ORIGIN + dt.timedelta(seconds=submits.min())).replace(tzinfo=dt.UTC).timestamp())
    np.testing.assert_array_equal(table["wait_time"], [j["wait"] for j in jobs])
    np.testing.assert_array_equal(table["run_time"], [j["run"] for j in jobs])
    np.testing.assert_array_equal(table["n_procs"], [j["ncpus"] for j in jobs])
    np.testing.assert_array_equal(table["req_procs"], [j["reqcpus"] for j in jobs])
    np.testing.assert_array_equal(
        table["req_time"],
        [np.nan if j["limit_minutes"] is None else j["limit_minutes"] * 60 for j in jobs])
    assert table.attrs["n_unlimited_req_time"] == sum(j["limit_minutes"] is None for j in jobs)
    codes = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "CANCELLED": 5, "NODE_FAIL": 0,
             "OUT_OF_MEMORY": 0}
    np.testing.assert_array_equal(table["status"], [codes[j["state"].split()[0]] for j in jobs])
    assert table["slurm_state"].tolist() == [j["state"] for j in jobs]
    cpu = [sum(s["cpu_ms"] for s in j["steps"]) / 1000 / j["ncpus"] if j["steps"] else np.nan
           for j in jobs]
    np.testing.assert_allclose(table["avg_cpu_time"], cpu, rtol=1e-12)
    rss = [max(s["rss_kb"] for s in j["steps"]) if j["steps"] else np.nan for j in jobs]
    np.testing.assert_array_equal(table["used_memory"], rss)
    users = list(dict.fromkeys(j["user"] for j in jobs))
    assert table.attrs["user_ids"] == {u: k for k, u in enumerate(users, start=1)}
    np.testing.assert_array_equal(table["user_id"], [users.index(j["user"]) + 1 for j in jobs])
    accounts = list(dict.fromkeys(j["account"] for j in jobs if j["account"]))
    np.testing.assert_array_equal(
        table["group_id"],
        [accounts.index(j["account"]) + 1 if j["account"] else np.nan for j in jobs])


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(-10**5, 10**5),
                          st.sampled_from(["COMPLETED", "PENDING", "RUNNING", "FAILED"])),
                min_size=1, max_size=20))
def test_negative_waits_are_never_kept(rows):
    """Reference: the first line whose Start is before its Submit is the one named."""
    lines = ["JobID|Submit|Start|End|Elapsed|NCPUS|State|TotalCPU"]
    for number, (submit, wait, state) in enumerate(rows, start=1):
        start = submit + wait
        end = "Unknown" if state in ("PENDING", "RUNNING") else fmt_time(max(start, 0) + 60)
        elapsed = "00:00:00" if state == "PENDING" else "00:01:00"
        lines.append(f"{number}|{fmt_time(submit)}|{fmt_time(start)}|{end}|{elapsed}|2|"
                     f"{state}|00:30")
    text = "\n".join(lines) + "\n"
    bad = [k for k, (_, wait, _) in enumerate(rows) if wait < 0]
    if bad:
        with pytest.raises(SacctFormatError, match="is before Submit") as info:
            read(text)
        assert info.value.line_number == bad[0] + 2
        if len(bad) == len(rows):  # no job left: refused, as read_swf refuses it
            with pytest.raises(SacctFormatError, match=rf"no jobs: every job line is malformed "
                               rf"\({len(bad)} line\(s\) left out"):
                read(text, errors="skip")
            return
        with pytest.warns(UserWarning, match=rf"skipped {len(bad)} malformed"):
            jobs = read(text, errors="skip")
    else:
        jobs = read(text)
    kept = [row for k, row in enumerate(rows) if k not in bad]
    assert len(jobs) == len(kept)
    assert (jobs["wait_time"].dropna() >= 0).all()
    expected_wait = [np.nan if state == "PENDING" else wait for _, wait, state in kept]
    np.testing.assert_array_equal(jobs["wait_time"], expected_wait)
    expected_run = [60.0 if state in ("COMPLETED", "FAILED") else np.nan
                    for _, _, state in kept]
    np.testing.assert_array_equal(jobs["run_time"], expected_run)
    expected_cpu = [15.0 if state in ("COMPLETED", "FAILED") else np.nan
                    for _, _, state in kept]
    np.testing.assert_array_equal(jobs["avg_cpu_time"], expected_cpu)


# --- a job array's pending tasks on one line (123_[4-9]) ---------------------------

ARRAY_HEADER = "JobID|JobIDRaw|User|Partition|Submit|Start|Elapsed|Timelimit|NCPUS|ReqCPUS|State"
ARRAY_REST = "|alice|cpu|2024-04-02T11:23:41|Unknown|00:00:00|04:00:00|0|128|PENDING"


def array_text(job_ids, raw="7"):
    finished = ("1|1|bob|cpu|2024-04-02T10:00:00|2024-04-02T10:01:00|00:10:00|01:00:00|4|4|"
                "COMPLETED\n")
    return ARRAY_HEADER + "\n" + finished + "".join(f"{job_id}|{raw}{ARRAY_REST}\n"
                                                   for job_id in job_ids)


@pytest.mark.parametrize(("job_id", "tasks"), [
    ("7_[10-15]", [10, 11, 12, 13, 14, 15]),
    ("7_[1,3,5-7]", [1, 3, 5, 6, 7]),
    ("7_[1-50%5]", list(range(1, 51))),
    ("7_[2-18:2%9]", list(range(2, 19, 2))),
    ("7_[4]", [4]),
])
def test_an_array_line_is_one_row_per_task(job_id, tasks):
    jobs = read(array_text([job_id]))
    assert jobs["slurm_job_id"].tolist() == ["1"] + [f"7_{task}" for task in tasks]


@pytest.mark.parametrize("raw", [True, False])
def test_expanded_tasks_are_the_tasks_listed_one_a_line(raw):
    one_line, listed = array_text(["7_[1,3-5%2]"]), array_text(["7_1", "7_3", "7_4", "7_5"])
    if not raw:
        one_line, listed = (
            "\n".join("|".join(f for k, f in enumerate(line.split("|")) if k != 1)
                      for line in text.splitlines()) for text in (one_line, listed))
    expanded, expected = read(one_line), read(listed)
    pd.testing.assert_frame_equal(expanded, expected)
    # with JobIDRaw the first task keeps the line's raw id, as a task listed with it would
    assert expanded["job_id"].tolist() == ([1, 7, 8, 9, 10] if raw else [1, 2, 3, 4, 5])


def test_expanded_tasks_copy_the_lines_fields():
    jobs = read(array_text(["7_[0-2]"])).iloc[1:]
    assert len(jobs) == 3 and (jobs["slurm_state"] == "PENDING").all()
    for column in ("submit_time", "req_procs", "req_time", "user_id", "partition_id"):
        assert jobs[column].nunique() == 1, column
    first = jobs.iloc[0]
    assert first["submit_time"] == 5021 and first["req_procs"] == 128
    assert first["req_time"] == 14400 and np.isnan(first["wait_time"])
    assert np.isnan(first["n_procs"]) and jobs.attrs["user_ids"] == {"bob": 1, "alice": 2}


@pytest.mark.parametrize(("job_id", "message"), [
    ("7_[5-2]", r"range '5-2' is empty"),
    ("7_[a-b]", r"term 'a-b' is not a task id or range"),
    ("7_[5-9", r"not a job array's pending tasks in the form JOB_\[TASKS\]"),
    ("7_[1,,3]", r"term '' is not a task id"),
    ("7_[1-3%]", r"throttle after '%' is not a count"),
    ("7_[1-9:0]", r"range '1-9:0' is empty"),
    ("7_[1-3,2]", r"lists a task twice"),
    ("7_[0,2,4,6,...]",
     r"task list cut short by Slurm \('\.\.\.'; run it with SLURM_BITSTR_LEN=0"),
    ("7_[1-3].batch", r"not a job array's pending tasks"),
    ("7_[0-1000000%10]", r"stands for 1,000,001 tasks, more than the 1,000,000 read "
                         r"from one line"),
])
def test_a_malformed_array_line_is_named(job_id, message, tmp_path):
    path = tmp_path / "arrays.txt"
    path.write_text(array_text([job_id]))
    with pytest.raises(SacctFormatError, match=rf"arrays.txt, line 3: field JobID "
                       rf"\({re.escape(job_id)}\): {message}") as info:
        read_sacct(path)
    assert len(str(info.value).splitlines()) == 1
    assert info.value.line_number == 3 and job_id in info.value.line


def test_a_malformed_array_line_is_skipped_once():
    text = array_text(["7_[1-3]", "8_[5-2]", "9_[0-1]"])
    with pytest.warns(UserWarning, match=r"skipped 1 malformed line \(line 4\)"):
        jobs = read(text, errors="skip")
    assert jobs["slurm_job_id"].tolist() == ["1", "7_1", "7_2", "7_3", "9_0", "9_1"]


def test_a_skipped_field_of_an_array_line_counts_the_line_once():
    text = array_text(["7_[1-3]"]).replace("04:00:00|0|128", "04:00:00|0|many")
    with pytest.warns(UserWarning, match=r"skipped 1 malformed line \(line 3\)"):
        jobs = read(text, errors="skip")
    assert jobs.attrs["skipped_line_numbers"] == [3] and len(jobs) == 1


def test_the_samples_array_lines_are_their_tasks():
    jobs = read_sacct(Path(__file__).resolve().parents[2] / "datasets" / "sacct_sample.txt")
    ids = jobs["slurm_job_id"]
    assert not ids.str.contains(r"\[").any()
    # the tasks that had started are listed one a line, the pending ones on one line
    assert ids[ids.str.startswith("420121_")].tolist() == [f"420121_{k}" for k in range(16)]
    assert ids[ids.str.startswith("420183_")].tolist() == [f"420183_{k}" for k in range(12)]
    assert jobs["job_id"].is_unique


# --- what real sites produce: clusters, reused ids, concatenated outputs ----------

CLUSTERS = (
    "Cluster|JobID|JobIDRaw|User|Submit|Start|End|Elapsed|NCPUS|State\n"
    "alpha|500|500|alice|2024-03-04T08:00:00|2024-03-04T08:01:00|2024-03-04T09:01:00|"
    "01:00:00|4|COMPLETED\n"
    "alpha|501|501|alice|2024-03-04T08:05:00|2024-03-04T08:06:00|2024-03-04T08:36:00|"
    "00:30:00|4|COMPLETED\n"
    "beta|500|500|bob|2024-03-04T10:00:00|2024-03-04T12:00:00|2024-03-04T12:10:00|"
    "00:10:00|8|COMPLETED\n")


@pytest.mark.parametrize("errors", ["raise", "skip"])
def test_jobs_of_several_clusters_are_refused(errors):
    with pytest.raises(SacctFormatError, match=r"jobs of 2 clusters \(alpha, beta\).*"
                                               r"--clusters=NAME") as info:
        read(CLUSTERS, errors=errors)
    assert info.value.line_number == 4 and "\n" not in str(info.value)


def test_one_cluster_is_read_whole():
    one = "".join(line for line in CLUSTERS.splitlines(keepends=True) if "beta" not in line)
    assert read(one)["job_id"].tolist() == [500, 501]


def test_an_id_given_out_again_to_another_user_is_another_job():
    text = CLUSTERS.replace("beta", "alpha")
    with pytest.warns(UserWarning, match=r"1 job has the job id of an earlier job that is not "
                                         r"one of its requeued runs \(another user's job, or"):
        jobs = read(text)
    assert jobs["slurm_job_id"].tolist() == ["500", "501", "500"]
    assert jobs["job_id"].tolist() == [500, 501, 502]
    assert jobs["user_id"].tolist() == [1, 1, 2]
    assert jobs.attrs["n_reused_job_ids"] == 1
    assert "n_earlier_runs_dropped" not in jobs.attrs
    # the same user's job listed again is a requeued job's earlier run
    with pytest.warns(UserWarning, match="dropped 1 earlier run"):
        same_user = read(text.replace("bob", "alice"))
    assert same_user["wait_time"].tolist() == [60, 7200]


@pytest.mark.parametrize("submit, requeue", [
    ("2024-03-04T08:01:00", True),   # at the earlier run's Start
    ("2024-03-05T09:01:00", True),   # a day after its End
    ("2024-03-04T08:00:00", True),   # its Submit kept
    ("2024-03-05T09:01:01", False),  # more than a day after its End: the id wrapped
    ("2024-03-04T08:00:30", False),  # before its Start, after its Submit
])
def test_an_id_listed_again_for_the_same_user_is_a_requeue_only_right_after_the_run(
        submit, requeue):
    first = CLUSTERS.splitlines(keepends=True)[:2]
    again = (f"alpha|500|500|alice|{submit}|2024-07-15T00:00:30|2024-07-15T00:01:30|"
             f"00:01:00|4|COMPLETED\n")
    if requeue:
        with pytest.warns(UserWarning, match="dropped 1 earlier run"):
            jobs = read("".join(first) + again)
        assert jobs["job_id"].tolist() == [500]
        assert jobs["run_time"].tolist() == [60]
        return
    with pytest.warns(UserWarning, match="1 job has the job id of an earlier job"):
        jobs = read("".join(first) + again)
    assert jobs["job_id"].tolist() == [500, 501]
    assert jobs["slurm_job_id"].tolist() == ["500", "500"]
    assert jobs["run_time"].tolist() == [3600, 60]
    assert jobs.attrs["n_reused_job_ids"] == 1
    assert "n_earlier_runs_dropped" not in jobs.attrs


def test_a_run_that_never_started_is_an_earlier_run_whenever_the_id_comes_again():
    text = ("JobID|User|Submit|Start|End|Elapsed|NCPUS|State\n"
            "7|alice|2024-03-04T08:00:00|None|Unknown|00:00:00|4|REQUEUED\n"
            "7|alice|2024-03-09T08:00:00|2024-03-09T08:10:00|2024-03-09T08:20:00|"
            "00:10:00|4|COMPLETED\n")
    with pytest.warns(UserWarning, match="dropped 1 earlier run"):
        jobs = read(text)
    assert jobs["wait_time"].tolist() == [600]


def test_a_repeated_header_is_no_job_and_another_header_is_an_error():
    header, first, second = CLUSTERS.replace("beta", "alpha").splitlines(keepends=True)[:3]
    assert read(header + first + header + second)["job_id"].tolist() == [500, 501]
    names = header.rstrip("\n").split("|")
    names[-2], names[-3] = names[-3], names[-2]
    for errors in ("raise", "skip"):
        with pytest.raises(SacctFormatError, match="a second header, naming other fields or "
                                                   "another order than line 1's") as info:
            read(header + first + "|".join(names) + "\n" + second, errors=errors)
        assert info.value.line_number == 3


def test_a_line_with_more_fields_suggests_a_field_holding_the_separator():
    header, first = CLUSTERS.splitlines(keepends=True)[:2]
    with pytest.raises(SacctFormatError, match="found 11 .*SubmitLine"):
        read(header + first.replace("alice", "alice|x"))
    with pytest.raises(SacctFormatError, match=r"found 9$|found 9:") as info:
        read(header + first.replace("alice|", ""))
    assert "SubmitLine" not in str(info.value)


def test_a_utc_file_read_in_a_zone_whose_clocks_change_suggests_another_zone():
    # 01:30 to 03:30 UTC across Paris's spring change: one hour in Paris time
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2024-03-31T01:00:00|2024-03-31T01:30:00|2024-03-31T03:30:00|02:00:00|4|COMPLETED\n")
    with pytest.raises(SacctFormatError) as info:
        read(text, time_zone="Europe/Paris")
    assert "an hour off, read in Europe/Paris" in str(info.value)
    assert "such as UTC, give that zone" in str(info.value)
    assert read(text).loc[0, "run_time"] == 7200


@pytest.mark.parametrize(("line", "hint"), [
    # Submit 02:50, Start 02:10 of the repeated hour: in UTC a 40-minute negative wait
    ("1|2024-10-27T02:50:00|2024-10-27T02:10:00|2024-10-27T02:20:00|00:10:00|4|COMPLETED",
     True),
    # Elapsed two hours across the change, End - Start one hour in UTC
    ("1|2024-10-27T01:00:00|2024-10-27T01:30:00|2024-10-27T02:30:00|02:00:00|4|COMPLETED",
     True),
    # more than an hour apart: no daylight-saving change explains it
    ("1|2024-10-27T05:50:00|2024-10-27T02:10:00|2024-10-27T02:20:00|00:10:00|4|COMPLETED",
     False),
])
def test_times_an_hour_apart_suggest_the_files_zone(line, hint):
    text = "JobID|Submit|Start|End|Elapsed|NCPUS|State\n" + line + "\n"
    with pytest.raises(SacctFormatError) as info:
        read(text)
    assert ("give its zone, time_zone= or --time-zone" in str(info.value)) == hint
    if hint:  # read in the zone it was written in, the job is accepted
        with pytest.warns(UserWarning, match=r"in an hour Europe/Paris repeats"):
            assert read(text, time_zone="Europe/Paris").loc[0, "run_time"] > 0
    else:  # a zone given: no hint to give one
        with pytest.raises(SacctFormatError) as info:
            read(text, time_zone="Europe/Paris")
        assert "--time-zone" not in str(info.value)


def test_times_in_the_repeated_hour_are_warned_about_with_their_count():
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            "1|2024-10-27T01:50:00|2024-10-27T02:10:00|2024-10-27T02:20:00|00:10:00|4|"
            "COMPLETED\n")
    with pytest.warns(UserWarning, match=r"2 times in an hour Europe/Paris repeats .*an hour "
                                         r"off"):
        jobs = read(text, time_zone="Europe/Paris")
    assert jobs.attrs["n_ambiguous_local_times"] == 2


def test_carriage_returns_alone_are_refused():
    with pytest.raises(SacctFormatError, match="carriage return alone") as info:
        read(CLUSTERS.replace("\n", "\r"))
    assert info.value.line_number == 1
    one = "".join(line for line in CLUSTERS.splitlines(keepends=True) if "beta" not in line)
    assert len(read(one.replace("\n", "\r\n"))) == 2


@pytest.mark.parametrize("value", ["²", "٣", "１２"])
@pytest.mark.parametrize("field", ["ElapsedRaw", "NCPUS"])
def test_digits_that_are_not_ascii_are_not_numbers(field, value):
    # str.isdigit takes them and int() then fails (²) or reads them (٣ as 3)
    header = "JobID|Submit|Start|ElapsedRaw|NCPUS|State"
    fields = {"ElapsedRaw": "600", "NCPUS": "4", field: value}
    text = (f"{header}\n1|2024-01-01T00:00:00|2024-01-01T00:01:00|{fields['ElapsedRaw']}|"
            f"{fields['NCPUS']}|COMPLETED\n")
    with pytest.raises(SacctFormatError, match=rf"line 2: .*{field}"):
        read_sacct(io.StringIO(text))


def test_node_counts_in_units_of_1024_as_sacct_prints_them():
    text = ("JobID|User|Submit|Start|End|Elapsed|Timelimit|AllocNodes|ReqNodes|State\n"
            "1|a|2024-03-04T08:00:00|2024-03-04T08:00:10|2024-03-04T09:00:10|01:00:00|"
            "02:00:00|1.50K|64K|COMPLETED\n"
            "2|a|2024-03-04T08:00:00|2024-03-04T08:00:10|2024-03-04T09:00:10|01:00:00|"
            "02:00:00|1000|1000|COMPLETED\n")
    jobs = read(text)
    assert jobs["n_procs"].tolist() == [1536, 1000]
    assert jobs["req_procs"].tolist() == [65536, 1000]
    with pytest.raises(SacctFormatError, match=r"line 2: field AllocNodes is not a count "
                                               r"\('1.3K'\)"):
        read(text.replace("1.50K", "1.3K"))


@pytest.mark.parametrize("same_submit", [True, False])
def test_runs_of_a_requeued_job_are_paired_in_time_whatever_their_order_in_the_file(
        same_submit):
    header = "JobID|User|Submit|Start|End|Elapsed|NCPUS|State\n"
    earlier = ("100|alice|2024-03-04T10:00:00|2024-03-04T10:01:00|2024-03-04T11:00:00|"
               "00:59:00|4|REQUEUED\n")
    final = ("100|alice|{}|2024-03-04T11:05:00|2024-03-04T12:00:00|00:55:00|4|COMPLETED\n"
             .format("2024-03-04T10:00:00" if same_submit else "2024-03-04T11:00:30"))
    for text in (header + earlier + final, header + final + earlier):
        with pytest.warns(UserWarning, match="dropped 1 earlier run"):
            jobs = read(text)
        assert jobs["slurm_state"].tolist() == ["COMPLETED"]
        assert jobs["run_time"].tolist() == [3300]


def test_a_started_run_without_end_is_an_earlier_run_within_a_day_of_its_start():
    header = "JobID|User|Submit|Start|End|Elapsed|NCPUS|State\n"
    first = "7|alice|2024-03-04T08:00:00|2024-03-04T08:10:00|Unknown|00:00:00|4|REQUEUED\n"
    for submit, requeue in (("2024-03-05T08:10:00", True), ("2024-03-05T08:10:01", False)):
        again = f"7|alice|{submit}|{submit}|2024-03-09T08:20:00|00:10:00|4|COMPLETED\n"
        with pytest.warns(UserWarning, match="dropped 1 earlier run" if requeue
                          else "1 job has the job id of an earlier job"):
            jobs = read(header + first + again)
        assert len(jobs) == (1 if requeue else 2)


# --- the column splitter against splitting each line -------------------------------

_SPLIT_HEADER = ["JobID", "JobName", "Submit", "Other", "Start", "State", "End", "NCPUS"]
_FIELD_TEXT = st.text(alphabet=st.sampled_from(list('ab7 "#\'\\,;\t\r\x00\x0b\x1c\x85é\u2028')),
                      max_size=6).filter(lambda text: not text.endswith("\r"))


def _split_reference(text, trailing):
    """Each non-blank line after the header split at '|', as the reader once did
    (``Other`` is a field the reader does not keep)."""
    rows = []
    for line in text.split("\n")[1:]:
        line = line.rstrip("\r")
        if line.strip():
            body = line[:-1] if trailing and line.endswith("|") else line
            rows.append(body.split("|"))
    return rows


@given(rows=st.lists(st.lists(_FIELD_TEXT, min_size=8, max_size=8), min_size=1, max_size=30),
       blank=st.lists(st.sampled_from(["", " ", "\t", "\r"]), max_size=30),
       trailing=st.booleans(), crlf=st.booleans())
def test_columns_are_the_fields_each_line_splits_into(rows, blank, trailing, crlf):
    from predictkit.io._sacct_text import split_fields

    end = "|" if trailing else ""
    lines = ["|".join(_SPLIT_HEADER) + end]
    for k, row in enumerate(rows):
        if not "|".join(row).strip():
            row = ["x", *row[1:]]  # a line of blanks is no job line
        lines.append("|".join(row) + end)
        if k < len(blank):
            lines.append(blank[k])
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    header, table, numbers, texts, skipped = split_fields(text, "<test>", "raise")
    assert "Other" not in table
    expected = _split_reference(text, trailing)
    assert header == _SPLIT_HEADER and skipped == []
    read = [k for k, name in enumerate(header) if name != "Other"]
    assert [list(row) for row in zip(*(table[header[k]] for k in read))] == [
        [row[k] for k in read] for row in expected]
    assert [text.split("\n")[n - 1].rstrip("\r") for n in numbers] == list(texts)


def test_the_first_problem_in_the_file_is_the_one_named():
    header = "JobID|Submit|Start|End|State|NCPUS"
    good = "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|COMPLETED|1"
    other_header = "JobID|Start|Submit|End|State|NCPUS"
    with pytest.raises(SacctFormatError, match="line 3: expected 6"):
        read("\n".join([header, good, "2|x", other_header, good]))
    with pytest.raises(SacctFormatError, match="line 3: a second header"):
        read("\n".join([header, good, other_header, "2|x", good]))
    # skipping the short line still refuses the other header
    with pytest.raises(SacctFormatError, match="line 4: a second header"):
        read("\n".join([header, good, "2|x", other_header, good]), errors="skip")


def test_a_byte_order_mark_in_a_job_line_is_part_of_its_field():
    # read_csv takes a mark at the start of what it reads for the file's own
    head = "User|JobID|Submit|Start|End|NCPUS|State\n"
    line = "alice|1|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:02:00|4|COMPLETED"
    assert read(head + "\ufeff" + line).attrs["user_ids"] == {"\ufeffalice": 1}
    with pytest.raises(SacctFormatError, match="line 3: not a Slurm job id"):
        read(head + line + "\n" + line.replace("alice|1", "bob|\ufeff2"))
    jobs = read(head + "x|y\n\ufeff" + line, errors="skip")
    assert jobs.attrs["user_ids"] == {"\ufeffalice": 1}


def test_lone_surrogates_in_text_are_kept():
    text = ("JobID|JobName|User|Submit|Start|End|NCPUS|State\n"
            "1|caf\udce9|u|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:02:00|4|"
            "COMPLETED\n")
    assert read(text).attrs["app_ids"] == {"caf\udce9": 1}


def test_an_unknown_time_zone_is_refused_before_the_log_is_read():
    from predictkit.io import read_log

    class NeverRead(io.StringIO):
        def read(self, *args):
            raise AssertionError("the log was read")

    for reader in (read_sacct, read_log):
        with pytest.raises(ConfigError, match=r"^time_zone: unknown time zone 'Mars/Olympus' "
                                              r"\(use an IANA name"):
            reader(NeverRead(), time_zone="Mars/Olympus")


def test_a_state_no_slurm_release_knows_with_no_end_is_kept_and_warned_about():
    line = END_LOST.replace("CANCELLED by 0", "FOOBAR")
    with pytest.warns(UserWarning, match="FOOBAR"):
        jobs = read(EXAMPLE + line + "\n")
    assert np.isnan(jobs["run_time"].iloc[-1]) and len(jobs) == len(read(EXAMPLE)) + 1


@pytest.mark.parametrize("submit", ["2023-01-05T10:00:60", "2023-01-04T23:59:60",
                                    "0001-01-01T00:00:00", "1969-12-31T23:59:59",
                                    "2100-01-01T00:00:00", "9999-12-31T23:59:59",
                                    "\u0662\u0660\u0662\u0663-01-05T10:00:00",
                                    "2023-01-05T10:00:00Z"])
def test_a_time_strptime_would_move_or_slurm_cannot_give_is_refused(submit):
    text = ("JobID|Submit|Start|End|Elapsed|NCPUS|State\n"
            f"1|{submit}|2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|4|COMPLETED\n")
    with pytest.raises(SacctFormatError, match=r"line 2: field Submit is not a time in Slurm's "
                       r"standard form 2024-03-04T10:00:00 .*, or lies outside the years "
                       r"1970-2099"):
        read(text)
    edges = text.replace(submit, "1970-01-01T00:00:00").replace(
        "2023-01-05T11:01:00", "2099-12-31T23:59:59").replace("01:00:00|", "|")
    jobs = read(edges)
    assert jobs.loc[0, "run_time"] == (dt.datetime(2099, 12, 31, 23, 59, 59)
                                       - dt.datetime(2023, 1, 5, 10, 1)).total_seconds()


RAW = "JobID|Submit|Start|End|Elapsed|ElapsedRaw|Timelimit|TimelimitRaw|NCPUS|State\n"
TIMES = "1|2023-01-05T10:00:00|2023-01-05T10:01:00|2023-01-05T11:01:00|"


@pytest.mark.parametrize("fields, run, limit", [
    ("01:00:00|3600|02:00:00|120", 3600, 7200),
    ("01:00:00||02:00:00|", 3600, 7200),
    ("|3600||120", 3600, 7200),     # Timelimit unknown: TimelimitRaw's minutes
    ("01:00:00|3600|02:00:00|", 3600, 7200),
    ("01:00:00|3600|UNLIMITED|UNLIMITED", 3600, np.nan),
])
def test_raw_and_formatted_times_are_read_where_either_is_known(fields, run, limit):
    jobs = read(RAW + TIMES + fields + "|4|COMPLETED\n")
    assert jobs.loc[0, "run_time"] == run
    np.testing.assert_array_equal(jobs["req_time"], [limit])
    assert jobs.attrs["n_unlimited_req_time"] == int(np.isnan(limit))


@pytest.mark.parametrize("fields, message", [
    ("01:00:00|60|02:00:00|120", r"fields ElapsedRaw \(60\) and Elapsed \(01:00:00\) disagree"),
    ("01:00:00|3600|02:00:00|5", r"fields TimelimitRaw \(5\) and Timelimit \(02:00:00\) disagree"),
    ("01:00:00|3600|UNLIMITED|5", r"fields TimelimitRaw \(5\) and Timelimit \(UNLIMITED\) "
                                  "disagree"),
])
def test_raw_and_formatted_times_that_disagree_are_malformed(fields, message):
    with pytest.raises(SacctFormatError, match="line 2: " + message):
        read(RAW + TIMES + fields + "|4|COMPLETED\n")


@pytest.mark.parametrize("body, first", [
    ("1|2023-01-05T10:00:00|2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|x|COMPLETED\n", 2),
    ("100.batch|2023-01-05T10:00:00|2023-01-05T10:01:00|2023-01-05T11:01:00|01:00:00|4|"
     "COMPLETED\n", 2),
])
def test_skipping_every_job_line_leaves_no_jobs_and_is_refused(body, first):
    with pytest.raises(SacctFormatError, match=rf"no jobs: every job line is malformed \(1 "
                       rf"line\(s\) left out with their steps, first at line {first}\)"):
        read("JobID|Submit|Start|End|Elapsed|NCPUS|State\n" + body, errors="skip")


def test_a_line_starting_with_a_semicolon_before_the_header_is_named():
    from predictkit.io import read_log

    with pytest.raises(SacctFormatError, match="line 2: a sacct header after a line starting "
                       "with ';'"):
        read_log(io.StringIO("; exported from the cluster\n" + EXAMPLE))

"""Slurm inputs of the wait and walltime commands: time limits, #SBATCH lines, squeue snapshots."""

import bz2
import gzip
import io
import lzma
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from predictkit.exceptions import ConfigError, SqueueFormatError
from predictkit.io._sbatch import read_sbatch_script
from predictkit.io._slurm_fields import (format_slurm_duration, parse_slurm_duration,
                                         parse_time_request)
from predictkit.io._squeue import read_squeue


@pytest.mark.parametrize(("text", "seconds"), [
    ("90", 5400), ("90 minutes", 5400), ("90min", 5400), ("30:00", 1800), ("2:00:00", 7200),
    ("1-12:00:00", 129600), ("1-12", 129600), ("1-12:30", 131400), ("2h", 7200),
    ("1.5 days", 129600), (" 45 ", 2700), ("00:00:30", 30),
])
def test_time_requests_as_sbatch_reads_them(text, seconds):
    assert parse_time_request(text) == seconds


@pytest.mark.parametrize("text", ["0", "00:00:00", "UNLIMITED", "infinite", "abc", "-5",
                                  "1:2:3:4", "5 parsecs", "1-25:00:00", "", "nan", "1e400",
                                  "1e3", "2e1h"])
def test_bad_time_requests_name_the_flag(text):
    with pytest.raises(ConfigError, match=r"^--limit must be a positive Slurm time") as info:
        parse_time_request(text, name="--limit")
    assert len(str(info.value).splitlines()) == 1
    no_limit = text in ("0", "00:00:00", "UNLIMITED", "infinite")
    assert str(info.value).endswith(
        "(no time limit in Slurm, where the partition's MaxTime applies, which a log does not "
        f"state: give that limit)" if no_limit else f"got {text!r}")
    if no_limit:
        assert parse_time_request(text, no_limit=True) == math.inf
    else:
        with pytest.raises(ConfigError):
            parse_time_request(text, no_limit=True)


@given(st.integers(1, 400 * 86400))
def test_slurm_format_round_trips(seconds):
    text = format_slurm_duration(seconds)
    assert parse_slurm_duration(text) == seconds == parse_time_request(text)


def script(tmp_path, text):
    path = tmp_path / "job.sh"
    path.write_text(text)
    return path


def test_sbatch_lines_until_the_first_command(tmp_path):
    path = script(tmp_path, "#!/bin/bash\n# a comment\n\n#SBATCH --time=1-00:00:00\n"
                  "#SBATCH -n 16 -c 2   # 32 CPUs\n#SBATCH -p gpu\n#SBATCH --account=chem\n"
                  "#SBATCH -J relax\nmodule load x\n#SBATCH --time=5\n")
    found = read_sbatch_script(path)
    assert found["time"] == 86400 and found["procs"] == 32
    assert (found["partition"], found["account"], found["job_name"]) == ("gpu", "chem", "relax")


@pytest.mark.parametrize(("lines", "time", "procs"), [
    ("#SBATCH -t 90\n", 5400, None),
    ("#SBATCH -t90\n#SBATCH --nodes=2-4 --ntasks-per-node=8\n", 5400, 16),
    ("#SBATCH --time 2:00:00\n#SBATCH --time=3:00:00\n#SBATCH -N 3\n", 10800, 3),
    ("#SBATCH --cpus-per-task=8\n", None, 8),
    ("#SBATCH --ntasks-per-node=8 -c 2\n", None, 16),  # on the one node sbatch gives
    ("#SBATCH --mem=4G --exclusive\n", None, None),
    ("#SBATCH --time=0 -n 4\n", math.inf, 4),  # Slurm's "no time limit"
    ("#SBATCH --time=UNLIMITED\n", math.inf, None),
])
def test_sbatch_option_spellings(tmp_path, lines, time, procs):
    found = read_sbatch_script(script(tmp_path, "#!/bin/sh\n" + lines))
    assert found["time"] == time and found["procs"] == procs


@pytest.mark.parametrize(("lines", "message"), [
    ("#SBATCH --time=soon\n", r"job.sh, line 2: #SBATCH --time must be a positive Slurm time"),
    ("#SBATCH -n zero\n", r"job.sh, line 2: #SBATCH -n must be a positive count"),
    ("#SBATCH -n 2-4\n", r"job.sh, line 2: #SBATCH -n must be a positive count \(at most "),
    ("#SBATCH --nodes=4-x\n", r"#SBATCH --nodes must be a positive count or a range min-max"),
    ("#SBATCH --nodes=4-2\n", r"#SBATCH --nodes must be a positive count or a range min-max"),
    ("#SBATCH --ntasks=100000000000000000000000000\n",
     r"#SBATCH --ntasks must be a positive count \(at most 4,294,967,295\)"),
    ("#SBATCH -t\n", r"job.sh, line 2: #SBATCH -t has no value"),
    ("#SBATCH --job-name='unclosed\n", r"job.sh, line 2: cannot read"),
    ("#SBATCH -n 4\n#SBATCH hetjob\n#SBATCH -n 8\n",
     r"job.sh, line 3: #SBATCH hetjob starts another component of a heterogeneous job"),
    ("#SBATCH -n 4\n#SBATCH packjob\n", r"job.sh, line 3: #SBATCH packjob starts another"),
])
def test_sbatch_errors_name_file_line_and_option(tmp_path, lines, message):
    with pytest.raises(ConfigError, match=message) as info:
        read_sbatch_script(script(tmp_path, "#!/bin/sh\n" + lines))
    assert len(str(info.value).splitlines()) == 1


SNAPSHOT = """\
JOBID|USER|ACCOUNT|PARTITION|CPUS|NODES|TIME_LIMIT|SUBMIT_TIME|STATE
501|alice|chem|cpu|64|2|4:00:00|2024-04-01T10:00:00|PENDING
502_3|bob|phys|gpu|8|1|1-00:00:00|2024-04-01T11:30:00|PENDING
503|alice|chem|cpu|32|1|30:00|2024-04-01T12:00:00|RUNNING
504|carol|bio|cpu|1|1|UNLIMITED|2024-04-01T12:01:00|PENDING
"""


def test_squeue_snapshot_keeps_pending_jobs():
    queue = read_squeue(io.StringIO(SNAPSHOT))
    assert queue["job_id"].tolist() == ["501", "502_3", "504"]
    np.testing.assert_array_equal(queue["req_procs"], [64, 8, 1])
    np.testing.assert_array_equal(queue["req_time"], [14400, 86400, np.nan])
    assert queue["user"].tolist() == ["alice", "bob", "carol"]
    assert queue["partition"].tolist() == ["cpu", "gpu", "cpu"]
    assert queue["submit"].iloc[1] - queue["submit"].iloc[0] == 5400
    paris = read_squeue(io.BytesIO(gzip.compress(SNAPSHOT.encode())), time_zone="Europe/Paris")
    np.testing.assert_array_equal(queue["submit"] - paris["submit"], 7200)


def test_squeue_min_cpus_is_per_node_and_not_the_jobs_width():
    text = ("JOBID|USER|MIN_CPUS|NODES|TIME_LIMIT|SUBMIT_TIME|STATE\n"
            "950|alice|32|4|2:00:00|2024-03-05T07:00:00|PENDING\n"
            "951|alice|0|2|2:00:00|2024-03-05T07:00:00|PENDING\n")
    queue = read_squeue(io.StringIO(text))
    assert queue["req_procs"].tolist() == [4, 2] and queue.attrs["width_unit"] == "node"


def test_squeue_time_limit_not_set_is_no_limit():
    queue = read_squeue(io.StringIO(SNAPSHOT.replace("1-00:00:00", "NOT_SET")))
    assert np.isnan(queue["req_time"].iloc[1])


def test_squeue_columns_in_any_order_and_without_state():
    text = "SUBMIT_TIME|TIME_LIMIT|NODES|JOBID\n2024-04-01T10:00:00|10:00|2|7\n"
    queue = read_squeue(io.StringIO(text))
    assert queue["req_procs"].tolist() == [2] and queue["req_time"].tolist() == [600]
    assert queue["user"].tolist() == [None]


def test_sacct_output_of_pending_jobs_is_a_snapshot_too():
    text = ("JobID|User|Partition|Submit|Start|Elapsed|Timelimit|NCPUS|ReqCPUS|State\n"
            "9|dan|cpu|2024-04-01T10:00:00|Unknown|00:00:00|02:00:00|4|4|PENDING\n"
            "10|dan|cpu|2024-04-01T09:00:00|2024-04-01T09:01:00|00:10:00|02:00:00|4|4|"
            "RUNNING\n")
    queue = read_squeue(io.StringIO(text))
    assert queue["job_id"].tolist() == ["9"] and queue["user"].tolist() == ["dan"]
    assert queue["req_time"].tolist() == [7200] and queue["partition"].tolist() == ["cpu"]


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty queue snapshot"),
    ("JOBID|USER\n1|a\n", r"squeue header lacks SUBMIT_TIME or SUBMIT; TIME_LIMIT or "
                          r"TIMELIMIT; CPUS or NODES"),
    (SNAPSHOT.replace("|PENDING\n502", "|PENDING|x\n502"), r"line 2: expected 9 '\|'"),
    (SNAPSHOT.replace("2024-04-01T11:30:00", "yesterday"),
     "line 3: SUBMIT_TIME 'yesterday' is not a time in Slurm's standard form "
     ".*SLURM_TIME_FORMAT=standard"),
    (SNAPSHOT.replace("1-00:00:00", "one day"), "line 3: TIME_LIMIT 'one day' is not"),
    (SNAPSHOT.replace("|8|1|", "|eight|1|"), "line 3: CPUS 'eight' is not a count"),
    (SNAPSHOT.replace("|8|1|", "|0|1|"), "line 3: CPUS is 0"),
    (SNAPSHOT.replace("|CPUS|", "|MIN_CPUS|").replace("|NODES|", "|X|"),
     r"CPUS or NODES \(MIN_CPUS, %c, counts processors per node"),
    (SNAPSHOT + SNAPSHOT.split("\n", 1)[1], r"line 6: lines 2 and 6 both list JOBID 501"),
    (SNAPSHOT.replace("502_3", "502_[9-3%2]"), r"line 3: JOBID 502_\[9-3%2\]: range '9-3'"),
    (SNAPSHOT.replace("502_3", "502_[3,5,7,9,11,13,15,17"),
     r"line 3: JOBID 502_\[3,5,7,9,11,13,15,17: not a job array's pending tasks"),
    (SNAPSHOT.replace("502_3", "502_[3-4]")
     + "502_4|bob|phys|gpu|8|1|1:00|2024-04-01T11:30:00|PENDING\n",
     r"line 6: lines 3 and 6 both list JOBID 502_4"),
])
def test_squeue_errors_are_one_line_with_place(text, message):
    with pytest.raises(SqueueFormatError, match=message) as info:
        read_squeue(io.StringIO(text))
    assert len(str(info.value).splitlines()) == 1


def test_squeue_reads_an_arrays_pending_tasks_on_one_line_as_its_tasks():
    queue = read_squeue(io.StringIO(SNAPSHOT.replace("502_3", "502_[3-5,8%2]")))
    assert queue["job_id"].tolist() == ["501", "502_3", "502_4", "502_5", "502_8", "504"]
    tasks = queue.iloc[1:5]
    assert (tasks["user"] == "bob").all() and (tasks["req_procs"] == 8).all()
    assert (tasks["req_time"] == 86400).all() and tasks["submit"].nunique() == 1


@pytest.mark.parametrize("states", [False, True])
def test_a_snapshot_of_only_the_header_is_an_empty_queue(states):
    header = SNAPSHOT.splitlines()[0] if states else "JOBID|CPUS|TIME_LIMIT|SUBMIT_TIME"
    queue = read_squeue(io.StringIO(header + "\n"))
    assert len(queue) == 0
    assert {"job_id", "submit", "req_procs", "req_time", "user", "partition"} <= set(queue)


def test_squeue_refuses_a_submit_time_skipped_when_clocks_move_forward():
    # Paris skipped 02:00-03:00 on 2024-03-31
    text = ("jobid|time_limit|cpus|submit_time\n7|10:00|2|2024-03-31T01:59:59\n"
            "8|10:00|2|2024-03-31T02:30:00\n9|10:00|2|2024-03-31T03:00:00\n")
    with pytest.raises(SqueueFormatError, match=r"line 3: field submit_time "
                       r"\(2024-03-31T02:30:00\) does not exist in Europe/Paris: clocks "
                       r"moved forward") as info:
        read_squeue(io.StringIO(text), time_zone="Europe/Paris")
    assert len(str(info.value).splitlines()) == 1
    utc = read_squeue(io.StringIO(text))  # the same wall clock exists in UTC
    assert np.diff(utc["submit"]).tolist() == [1801.0, 1800.0]


def test_squeue_reads_a_repeated_hour_as_its_later_occurrence():
    # Paris repeated 02:00-03:00 on 2024-10-27: 00:00-01:00 UTC (summer), 01:00-02:00 (winter)
    text = ("JOBID|TIME_LIMIT|CPUS|SUBMIT_TIME\n1|10:00|2|2024-10-27T01:59:00\n"
            "2|10:00|2|2024-10-27T02:30:00\n3|10:00|2|2024-10-27T03:00:00\n")
    queue = read_squeue(io.StringIO(text), time_zone="Europe/Paris")
    utc = read_squeue(io.StringIO(text.replace("2024-10-27T01:59", "2024-10-26T23:59")
                                  .replace("T02:30", "T01:30").replace("T03:00", "T02:00")))
    np.testing.assert_array_equal(queue["submit"], utc["submit"])
    assert queue.attrs["n_ambiguous_local_times"] == 1
    assert "n_ambiguous_local_times" not in utc.attrs


@pytest.mark.parametrize("value", ["²", "٣"])
def test_sbatch_and_squeue_counts_take_ascii_digits_only(tmp_path, value):
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/bash\n#SBATCH --ntasks={value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 2: #SBATCH --ntasks must be a positive count"):
        read_sbatch_script(script)
    text = f"JOBID|CPUS|TIME_LIMIT|SUBMIT_TIME\n1|{value}|1:00:00|2024-04-03T10:00:00\n"
    with pytest.raises(SqueueFormatError, match=r"line 2"):
        read_squeue(io.BytesIO(text.encode()))


def test_a_utf16_script_is_refused_by_name(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH --time=1:00:00\n", encoding="utf-16")
    with pytest.raises(ConfigError, match=r"job.sh: not a text script in UTF-8 or ASCII"):
        read_sbatch_script(script)


@pytest.mark.parametrize(("compress", "kind", "command"), [
    (gzip.compress, "gzip-compressed", "gunzip"),
    (bz2.compress, "bzip2-compressed", "bunzip2"),
    (lzma.compress, "xz-compressed", "unxz"),
])
def test_a_compressed_script_is_named_with_the_command_that_unpacks_it(tmp_path, compress,
                                                                     kind, command):
    script = tmp_path / "job.sh.z"
    script.write_bytes(compress(b"#!/bin/bash\n#SBATCH --time=1:00:00\n"))
    with pytest.raises(ConfigError, match=rf"job.sh.z: is {kind} data, not a text script.*"
                                          rf"e.g. with {command}\)$"):
        read_sbatch_script(script)


@pytest.mark.parametrize(("data", "message"), [
    (b"\xef\xbb\xbf#!/bin/bash\n#SBATCH -t 30\n", r"job.sh: starts with a UTF-8 byte-order "
                                                   r"mark.*e\.g\. with dos2unix$"),
    (b"", r"job.sh: the script is empty, so it has no #SBATCH lines"),
    (b"\n  \n\t\n", r"job.sh: the script holds only white space, so it has no #SBATCH lines"),
])
def test_a_script_sbatch_would_refuse_is_refused_by_name(tmp_path, data, message):
    script = tmp_path / "job.sh"
    script.write_bytes(data)
    with pytest.raises(ConfigError, match=message):
        read_sbatch_script(script)


def test_sbatch_lines_after_a_command_are_ignored_and_the_line_is_told(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH -n 4\n\nmodule load x\n#SBATCH -t 30\n")
    found = read_sbatch_script(script)
    assert (found["time"], found["procs"], found["ignored_after"]) == (None, 4, 4)
    script.write_text("#!/bin/bash\n#SBATCH -t 30\nsrun a.out\n# done\n")
    assert read_sbatch_script(script)["ignored_after"] is None


def test_a_script_starting_like_the_bzip2_magic_is_read_as_text(tmp_path):
    script = tmp_path / "job.sh"
    script.write_bytes(b"#SBATCH --time=BZh1\n")
    with pytest.raises(ConfigError, match=r"job.sh, line 1"):
        read_sbatch_script(script)
    script.write_bytes(b"BZh9 is a command, not an option\n#SBATCH --time=1:00:00\n")
    assert read_sbatch_script(script)["time"] is None


@pytest.mark.parametrize("zone", [5, None, ""])
def test_squeue_refuses_a_time_zone_that_is_no_name(zone):
    text = b"JOBID|CPUS|TIME_LIMIT|SUBMIT_TIME\n1|4|1:00:00|2024-03-04T10:00:00\n"
    with pytest.raises(ConfigError, match=r"time_zone must be the name of a time zone"):
        read_squeue(io.BytesIO(text), time_zone=zone)


def test_a_pending_state_is_the_first_word_in_any_case_long_or_short():
    from predictkit.io._slurm_fields import is_pending

    states = ["PENDING", "pending", "PD", "PENDING (Priority)", "CANCELLED by 12", "RUNNING",
              "", "R", "COMPLETED"]
    assert is_pending(states).tolist() == [True, True, True, True, False, False, False,
                                           False, False]
    assert is_pending([]).shape == (0,)
    assert is_pending(["", " "]).tolist() == [False, False]


@pytest.mark.parametrize("line, message", [
    ("501|alice|chem|cpu|64|2|4:00:00|2024-04-01T10:00:00|",
     r"line 2: STATE '' is empty \(squeue prints every job's state\)"),
    ("|alice|chem|cpu|64|2|4:00:00|2024-04-01T10:00:00|PENDING",
     r"line 2: JOBID is empty \(squeue prints every job's id\)"),
])
def test_a_snapshot_line_without_a_state_or_an_id_is_refused(line, message):
    header = "JOBID|USER|ACCOUNT|PARTITION|CPUS|NODES|TIME_LIMIT|SUBMIT_TIME|STATE\n"
    with pytest.raises(SqueueFormatError, match=message):
        read_squeue(io.StringIO(header + line + "\n"))


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x85", "\r", "\v"])
def test_sbatch_lines_end_at_newlines_only(tmp_path, separator):
    path = script(tmp_path, f"#!/bin/bash\n#SBATCH -t 10\n# was:{separator}#SBATCH -n 64\n"
                            "srun a.out\n")
    found = read_sbatch_script(path)
    assert found["time"] == 600 and found["ntasks"] is None and found["procs"] is None

"""read_log: one reader for any job log, its format detected from the first line."""

import gzip
import io
from pathlib import Path

import pandas as pd
import pytest

import predictkit
from predictkit.exceptions import ConfigError, SacctFormatError, SWFFormatError
from predictkit.io import read_batsim, read_log, read_sacct, read_swf, write_swf

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sacct_sample.txt"
SWF = b"; MaxProcs: 8\n1 0 5 60 2 -1 -1 2 600 -1 1 1 1 -1 1 1 -1 -1\n"
BATSIM = (b'\xef\xbb\xbf \n{"nb_res": 8, "jobs": [{"id": 1, "subtime": 0, "walltime": 600, '
          b'"res": 2, "profile": "delay_60"}], "profiles": {"delay_60": {"type": "delay", '
          b'"delay": 60}}}')


class Pipe(io.RawIOBase):
    """A readable stream that cannot seek, as standard input or a pipe."""

    def __init__(self, data):
        self._data = io.BytesIO(data)
        self.name = "<pipe>"

    def readable(self):
        return True

    def readinto(self, buffer):
        return self._data.readinto(buffer)


def test_read_log_is_exported_at_the_top_level():
    assert predictkit.read_log is read_log and "read_log" in predictkit.__all__


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("kind", ["path", "str", "buffer", "pipe"])
def test_formats_are_detected_in_files_and_buffers(tmp_path, compress, kind):
    for data, reader in ((SAMPLE.read_bytes(), read_sacct), (SWF, read_swf),
                         (BATSIM, read_batsim)):
        data = gzip.compress(data) if compress else data
        path = tmp_path / "log"
        path.write_bytes(data)
        source = {"path": path, "str": str(path), "buffer": io.BytesIO(data),
                  "pipe": Pipe(data)}[kind]
        expected = reader(path)
        pd.testing.assert_frame_equal(read_log(source), expected)


def test_a_seekable_buffer_is_read_from_where_it_stands():
    buffer = io.BytesIO(b"junk" + SWF)
    buffer.seek(4)
    assert read_log(buffer)["run_time"].tolist() == [60.0]


def test_a_batsim_workload_reads_as_what_generate_wrote(tmp_path):
    from predictkit.datasets import make_workload
    from predictkit.io import write_batsim

    jobs = make_workload(50, random_state=0)
    write_batsim(jobs, tmp_path / "w.json.gz")
    back = read_log(tmp_path / "w.json.gz")
    for column in ("submit_time", "run_time", "n_procs", "req_time"):
        assert back[column].tolist() == jobs[column].astype(float).tolist()
    assert back.attrs["max_procs"] == 128
    with pytest.raises(SWFFormatError, match="no jobs"):
        read_log(io.BytesIO(b'{"nb_res": 1, "jobs": [], "profiles": {}}'))
    with pytest.raises(SWFFormatError, match="line 1"):  # forced, it is no SWF
        read_log(tmp_path / "w.json.gz", format="swf")


def test_forced_formats_and_time_zone():
    assert len(read_log(SAMPLE, format="sacct")) == len(read_sacct(SAMPLE))
    with pytest.raises(SWFFormatError, match="line 1"):
        read_log(SAMPLE, format="swf")
    with pytest.raises(SacctFormatError):
        read_log(io.BytesIO(SWF), format="sacct")
    # the first 200 lines end before the spring change of clocks (the sample is in UTC:
    # read whole as Paris time, a job crossing the change is refused, as it should be)
    head = b"".join(Path(SAMPLE).read_bytes().splitlines(keepends=True)[:200])
    paris = read_log(io.BytesIO(head), time_zone="Europe/Paris")
    utc = read_log(io.BytesIO(head))
    assert paris.attrs["time_zone_string"] == "Europe/Paris"
    assert paris.attrs["unix_start_time"] == utc.attrs["unix_start_time"] - 3600


def test_errors_skip_is_passed_on(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_bytes(SWF + b"2 0 5\n")
    with pytest.warns(UserWarning, match="skipped 1 malformed line"):
        assert len(read_log(path, errors="skip")) == 1


def test_a_bad_format_is_a_config_error():
    with pytest.raises(ConfigError, match="format must be one of 'auto', 'swf', 'sacct', "
                                          "'batsim', got 'csv'"):
        read_log(io.BytesIO(SWF), format="csv")


def test_a_written_swf_is_read_back(tmp_path):
    jobs = read_sacct(SAMPLE)
    write_swf(jobs, tmp_path / "x.swf")
    assert len(read_log(tmp_path / "x.swf")) == len(jobs)


def test_detection_needs_only_the_start_of_an_uncompressed_gzip_stream():
    from predictkit.io._log import detect_format

    # stored (level 0) gzip: the first 64 KiB of it decompress to less than 64 KiB
    text = SAMPLE.read_bytes().split(b"\n", 1)[0] + b"\n" + b"x" * 300_000
    buffer = io.BytesIO(gzip.compress(text, compresslevel=0))
    buffer.seek(0)
    assert detect_format(buffer) == "sacct" and buffer.tell() == 0


@pytest.mark.parametrize(("first", "message"), [
    ("1001|1001|alice|2024-03-04T08:00:00|2024-03-04T08:10:00|01:00:00|4|COMPLETED",
     "no header line naming JobID: sacct output printed with --noheader"),
    ("JobID,User,Submit,Start,Elapsed,NCPUS,State", "not separated by '|'"),
    ("jobid;user;submit;start;elapsed;ncpus;state", "another --delimiter"),
    ("JobID^User^Submit^Start^Elapsed^NCPUS^State", "another --delimiter"),
    ("JobID           JobName  Partition      State", "sacct's default fixed-width output"),
    ("JobID\tUser\tSubmit\tStart\tElapsed\tNCPUS\tState", "another --delimiter"),
])
def test_sacct_output_detection_cannot_read_is_named_as_such(tmp_path, first, message):
    path = tmp_path / "log.txt"
    path.write_text("\n" + first + "\n" + first + "\n")
    for source in (path, io.BytesIO(path.read_bytes())):
        with pytest.raises(SacctFormatError, match=message) as info:
            read_log(source)
        assert info.value.line_number == 2
    # forced, the SWF reader still reads it as SWF, and says what is wrong there
    with pytest.raises(SWFFormatError, match="expected 18 fields"):
        read_log(path, format="swf")


@pytest.mark.parametrize("text", ["[1, 2]", "\n  [{\"id\": 1}]"])
def test_a_json_array_is_read_as_json_and_refused_as_no_batsim_workload(text):
    with pytest.raises(SWFFormatError, match=r"a Batsim workload needs the members nb_res, "
                                             r"jobs and profiles"):
        read_log(io.BytesIO(text.encode()))


def test_several_gzip_members_on_a_stream_are_detected_as_one_stream():
    text = SAMPLE.read_bytes()
    for data in (gzip.compress(b"") + gzip.compress(text),
                 gzip.compress(text[:100]) + gzip.compress(text[100:])):
        jobs = read_log(Pipe(data))
        assert len(jobs) == len(read_sacct(SAMPLE))


def test_read_batsim_names_its_source(tmp_path):
    path = tmp_path / "w.json"
    path.write_bytes(BATSIM)
    assert read_batsim(path).attrs["source"] == str(path)

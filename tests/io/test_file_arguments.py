"""The file arguments of the readers and writers: what they accept, and one line for the rest."""

import gzip
import io

import pytest

from predictkit.datasets import make_workload
from predictkit.exceptions import InvalidParameterError, JobTableError
from predictkit.io import read_batsim, read_log, read_sacct, read_swf, write_batsim, write_swf
from predictkit.io._sbatch import read_sbatch_script
from predictkit.io._squeue import read_squeue

READERS = [(read_swf, "path_or_buffer"), (read_sacct, "path_or_buffer"),
           (read_squeue, "path_or_buffer"), (read_batsim, "path"), (read_log, "path_or_buffer")]
WRITERS = [write_swf, write_batsim]


@pytest.fixture(scope="module")
def jobs():
    return make_workload(40, machine_procs=16, random_state=2)


@pytest.mark.parametrize("reader, parameter", READERS, ids=lambda r: getattr(r, "__name__", r))
@pytest.mark.parametrize("value", [5, None, 2.5, ["log.swf"], io.BufferedReader, io.StringIO],
                         ids=repr)
def test_readers_name_a_wrong_typed_argument_in_one_line(reader, parameter, value):
    with pytest.raises(InvalidParameterError) as info:
        reader(value)
    message = str(info.value)
    assert message.startswith(f"The {parameter!r} parameter of {reader.__name__} must be a path "
                              "(str or os.PathLike) or a file object open for reading. Got ")
    assert "\n" not in message and info.value.parameter == parameter
    assert isinstance(info.value, TypeError)  # what it raised before, still caught as such


@pytest.mark.parametrize("reader, parameter", READERS, ids=lambda r: getattr(r, "__name__", r))
def test_readers_refuse_closed_and_write_only_files(reader, parameter, tmp_path):
    closed = open(tmp_path / "log", "w")
    closed.close()
    with pytest.raises(InvalidParameterError, match=f"{reader.__name__} is a closed file object"):
        reader(closed)
    with open(tmp_path / "out", "wb") as write_only:
        with pytest.raises(InvalidParameterError, match="not open for reading"):
            reader(write_only)


def test_read_sbatch_script_takes_a_path_only():
    with pytest.raises(InvalidParameterError,
                       match=r"'path' parameter of read_sbatch_script must be a path \(str or "
                             r"os.PathLike\)\. Got None"):
        read_sbatch_script(None)


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__)
def test_writers_write_text_and_binary_file_objects(writer, jobs, tmp_path):
    reader = read_swf if writer is write_swf else read_batsim
    text = io.StringIO("kept\n")
    text.seek(0, io.SEEK_END)
    assert writer(jobs, text) is text and not text.closed
    assert text.getvalue().startswith("kept\n")
    assert len(reader(io.StringIO(text.getvalue()[len("kept\n"):]))) == len(jobs)
    binary = io.BytesIO()
    assert writer(jobs, binary) is binary
    assert binary.getvalue()[:2] != b"\x1f\x8b"  # a file object is never compressed
    assert binary.getvalue().decode("utf-8") == text.getvalue()[len("kept\n"):]
    # open files of both kinds (a .gz name is not compressed: the caller chose the stream)
    for mode in ("w", "wb"):
        target = tmp_path / f"{mode}.log.gz"
        with open(target, mode) as stream:
            assert writer(jobs, stream) is stream
        assert target.read_bytes() == binary.getvalue()
    # paths keep their behaviour: a .gz name is compressed, and a Path comes back
    out = writer(jobs, tmp_path / "by-path.gz")
    assert out == tmp_path / "by-path.gz"
    assert gzip.decompress(out.read_bytes()) == binary.getvalue()


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__)
def test_writers_refuse_what_cannot_be_written_in_one_line(writer, jobs, tmp_path):
    name = writer.__name__
    for value in (5, None, b"out.swf"):
        with pytest.raises(InvalidParameterError,
                           match=rf"'path' parameter of {name} must be a path \(str or "
                                 r"os.PathLike\) or a file object open for writing\. Got "):
            writer(jobs, value)
    (tmp_path / "in").write_text("x")
    with open(tmp_path / "in") as read_only:
        with pytest.raises(InvalidParameterError, match=f"{name} is a file object not open "
                                                        "for writing"):
            writer(jobs, read_only)
    closed = io.StringIO()
    closed.close()
    with pytest.raises(InvalidParameterError, match=f"{name} is a closed file object"):
        writer(jobs, closed)


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__)
def test_an_invalid_table_writes_nothing_to_a_file_object(writer, jobs):
    stream = io.StringIO()
    with pytest.raises(JobTableError):
        writer(jobs.assign(submit_time=-jobs["submit_time"] - 5.0, run_time=-1.0,
                           job_id=-1.0), stream)
    assert stream.getvalue() == ""


def _path_taking_calls(jobs):
    from predictkit.datasets import fetch_pwa, get_data_home, load_trace
    from predictkit.experiments import evaluate_cell, load_grid, run_grid
    from predictkit.report import build_report

    yield from ((reader.__name__, parameter, lambda p, r=reader: r(p))
                for reader, parameter in READERS)
    yield from ((writer.__name__, "path", lambda p, w=writer: w(jobs, p)) for writer in WRITERS)
    yield "read_sbatch_script", "path", read_sbatch_script
    yield "load_trace", "name", load_trace
    yield "get_data_home", "data_home", get_data_home
    yield "get_data_home", "data_home", lambda p: fetch_pwa("KTH-SP2-1996-2.1-cln", data_home=p)
    yield "load_grid", "path", load_grid
    yield "run_grid", "results", lambda p: run_grid([{}], evaluate_cell, results=p + ".csv")
    yield "build_report", "output", lambda p: build_report(None, p)


def test_an_empty_path_or_one_holding_a_nul_byte_is_named_in_one_line(jobs, tmp_path):
    import pathlib

    calls = list(_path_taking_calls(jobs))
    assert len(calls) == 14
    for owner, parameter, call in calls:
        path = "a\0b"  # relative: refused before any folder is looked at
        with pytest.raises(InvalidParameterError) as info:
            call(path)
        assert str(info.value) == (f"The {parameter!r} parameter of {owner} holds a NUL "
                                   f"byte ({path + ('.csv' if owner == 'run_grid' else '')!r}), "
                                   "which no file name can hold")
        if owner != "run_grid":  # which takes a name ending in .csv here
            with pytest.raises(InvalidParameterError) as info:
                call("")  # Path("") is the working folder
            assert str(info.value) == (f"The {parameter!r} parameter of {owner} is an empty "
                                       "path ('')")
    with pytest.raises(InvalidParameterError, match="read_swf holds a NUL byte"):
        read_swf(pathlib.Path(tmp_path / "a\0b"))
    assert list(tmp_path.iterdir()) == []

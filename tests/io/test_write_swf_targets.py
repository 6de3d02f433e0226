"""``write_swf`` writes through :func:`predictkit._atomic.open_output`."""

import gzip
import io
import os
import stat
import threading

import pytest

from predictkit.datasets import make_workload
from predictkit.exceptions import OutputError
from predictkit.io import read_swf, write_swf


@pytest.fixture(scope="module")
def jobs():
    return make_workload(150, machine_procs=16, random_state=5)


def test_symlinked_gzip_target_is_replaced_and_the_link_kept(jobs, tmp_path):
    real = tmp_path / "real.swf.gz"
    real.write_bytes(b"old")
    real.chmod(0o644)
    link = tmp_path / "log.swf.gz"
    link.symlink_to("real.swf.gz")
    write_swf(jobs, link)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o644
    assert len(read_swf(gzip.open(real))) == len(jobs)


def test_dash_fifo_and_device(jobs, tmp_path, capfdbinary):
    write_swf(jobs, "-")
    assert len(read_swf(io.BytesIO(capfdbinary.readouterr().out))) == len(jobs)
    write_swf(jobs, os.devnull)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe.swf"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_swf(jobs, fifo)
    reader.join(60)
    assert len(read_swf(io.BytesIO(got[0]))) == len(jobs)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_directory_and_missing_folder_are_one_line_errors(jobs, tmp_path):
    with pytest.raises(OutputError, match="is a directory"):
        write_swf(jobs, tmp_path)
    with pytest.raises(OutputError, match="does not exist"):
        write_swf(jobs, tmp_path / "no" / "x.swf")
    assert list(tmp_path.iterdir()) == []

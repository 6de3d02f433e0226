"""``predictkit._atomic``: how every output reaches its target."""

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from predictkit._atomic import (STALE_AFTER_SECONDS, _HOST, atomic_write, check_output,
                                open_output, refuse_inputs, remove_stale_temporaries, same_file,
                                write_result)
from predictkit.exceptions import OutputError, PredictkitError

REPO = Path(__file__).resolve().parents[1]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@contextlib.contextmanager
def umask(value):
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.endswith(".part"))


def write(path, data=b"new\n", **kwargs):
    with open_output(path, **kwargs) as stream:
        stream.write(data)


# regular files ---------------------------------------------------------------------------

@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o027, 0o000])
def test_new_file_gets_0666_minus_the_umask(tmp_path, mask):
    with umask(mask):
        write(tmp_path / "out.txt")
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == 0o666 & ~mask
    assert (tmp_path / "out.txt").read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


@given(mode=st.integers(0, 0o7777), mask=st.sampled_from([0o022, 0o077]))
def test_replaced_file_keeps_its_mode(mode, mask):
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.txt"
        target.write_bytes(b"old\n")
        os.chmod(target, mode)
        expected = stat.S_IMODE(target.stat().st_mode)
        with umask(mask):
            write(target)
        assert stat.S_IMODE(target.stat().st_mode) == expected
        assert target.read_bytes() == b"new\n"
        assert leftovers(folder) == []


@pytest.mark.skipif(not IS_ROOT, reason="changing a file's owner needs root")
def test_replaced_file_keeps_its_owner_and_group(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(b"old\n")
    os.chown(target, 12345, 23456)
    write(target)
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (12345, 23456)


def test_replaced_file_keeps_its_extended_attributes(tmp_path):
    target = tmp_path / "out.swf"
    target.write_bytes(b"old\n")
    try:
        os.setxattr(target, "user.origin", b"site archive")
    except (OSError, AttributeError):
        pytest.skip("this file system keeps no user extended attributes")
    write(target)
    assert target.read_bytes() == b"new\n"
    assert os.getxattr(target, "user.origin") == b"site archive"


def test_file_is_replaced_not_rewritten_in_place(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(b"old\n")
    before = target.stat().st_ino
    with open(target, "rb") as reader:
        write(target)
        assert reader.read() == b"old\n"  # an open reader keeps the old file
    assert target.stat().st_ino != before and target.read_bytes() == b"new\n"


def test_failure_inside_the_block_leaves_the_target_alone(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(b"old\n")
    with pytest.raises(RuntimeError), open_output(target) as stream:
        stream.write(b"half")
        raise RuntimeError("writer failed")
    assert target.read_bytes() == b"old\n" and leftovers(tmp_path) == []


def test_text_mode_writes_utf8_and_keeps_newlines(tmp_path):
    with open_output(tmp_path / "t.csv", "w") as stream:
        stream.write("a,é\r\nb\n")
    assert (tmp_path / "t.csv").read_bytes() == "a,é\r\nb\n".encode()
    with pytest.raises(ValueError):
        write(tmp_path / "x", mode="ab")


def test_the_former_name_still_works(tmp_path):
    with atomic_write(tmp_path / "old-name.txt") as stream:
        stream.write(b"x")
    assert (tmp_path / "old-name.txt").read_bytes() == b"x"


# symbolic links ----------------------------------------------------------------------------

def test_symlink_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "real.txt"
    real.write_bytes(b"old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(Path("data") / "real.txt")        # relative, in another folder
    chain = tmp_path / "chain.txt"
    chain.symlink_to("link.txt")
    write(chain)
    assert chain.is_symlink() and link.is_symlink()
    assert os.readlink(link) == str(Path("data") / "real.txt")
    assert real.read_bytes() == b"new\n" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "data") == []


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.swf"
    link.symlink_to("made-by-writer.swf")
    write(link)
    assert link.is_symlink() and (tmp_path / "made-by-writer.swf").read_bytes() == b"new\n"


def test_dangling_symlink_into_a_missing_folder_is_one_line(tmp_path):
    link = tmp_path / "link.swf"
    link.symlink_to(tmp_path / "nowhere" / "x.swf")
    with pytest.raises(OutputError, match="nowhere does not exist") as info:
        write(link)
    assert "\n" not in str(info.value) and link.is_symlink()


def test_symlink_loop_is_one_line(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OutputError, match="symbolic links"):
        write(tmp_path / "a")
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()


# streams -----------------------------------------------------------------------------------

def test_fifo_is_written_as_a_stream(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write(fifo, b"through the pipe\n" * 1000)
    reader.join(timeout=60)
    assert received == [b"through the pipe\n" * 1000]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_link_to_an_anonymous_pipe_is_written_through(tmp_path):
    # /dev/stdout into a pipe, or the /dev/fd/63 of a process substitution: a link
    # whose target, /proc/PID/fd/pipe:[N], is no path to open
    read_end, write_end = os.pipe()
    link = Path(f"/proc/self/fd/{write_end}")
    assert not Path(os.path.realpath(link)).exists()
    received = []
    reader = threading.Thread(target=lambda: received.append(os.read(read_end, 1 << 16)))
    reader.start()
    try:
        write(link, b"through the pipe\n")
        reader.join(timeout=60)
    finally:
        os.close(write_end)
        os.close(read_end)
    assert received == [b"through the pipe\n"]


@pytest.mark.parametrize("name", ["/proc/self/fd/{}", "/dev/fd/{}", "{link}"])
def test_an_open_descriptor_is_written_through_at_its_position(tmp_path, name):
    # a file the shell opened with >> behind /dev/stdout, /dev/fd/N or a link to them:
    # replacing or reopening it would lose what it held
    log = tmp_path / "log.txt"
    log.write_bytes(b"kept\n")
    link = tmp_path / "out"
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND)
    link.symlink_to(f"/proc/self/fd/{descriptor}")
    inode = log.stat().st_ino
    try:
        write(name.format(descriptor, link=link), b"appended\n")
        write(name.format(descriptor, link=link), b"again\n")
    finally:
        os.close(descriptor)
    assert log.read_bytes() == b"kept\nappended\nagain\n"
    assert log.stat().st_ino == inode and leftovers(tmp_path) == []


def test_dev_stdout_appends_to_what_the_shell_redirected(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("first\n")
    command = ("from predictkit.cli import main; raise SystemExit(main(['generate', '--jobs', "
               "'20', '--seed', '1', '--format', 'swf', '-q', '-o', '/dev/stdout']))")
    script = f'{{ echo before; "{sys.executable}" -c "{command}"; echo after; }} >> "{log}"'

    subprocess.run(["bash", "-c", script], check=True, cwd=REPO, timeout=300)
    lines = log.read_text().splitlines()
    assert lines[:2] == ["first", "before"] and lines[-1] == "after"
    assert sum(not line.startswith(";") for line in lines[2:-1]) == 20


def test_device_is_written_as_a_stream_and_not_replaced():
    before = os.stat(os.devnull)
    write(os.devnull, b"discarded\n")
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode,
                                                            before.st_rdev)


def test_symlink_to_a_device_is_streamed(tmp_path):
    link = tmp_path / "sink"
    link.symlink_to(os.devnull)
    write(link)
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_dash_is_standard_output(capfdbinary, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write("-", b"to stdout\n")
    assert capfdbinary.readouterr().out == b"to stdout\n"
    assert not (tmp_path / "-").exists()
    with open_output("-", "w") as stream:
        stream.write("text too\n")
    assert capfdbinary.readouterr().out == b"text too\n"


def test_dash_with_a_text_only_stdout(monkeypatch):
    import io

    fake = io.StringIO()
    monkeypatch.setattr(sys, "stdout", fake)
    write("-", "ünïcode\n".encode())
    assert fake.getvalue() == "ünïcode\n"


# refused outputs -----------------------------------------------------------------------------

def test_directory_is_a_one_line_error(tmp_path):
    (tmp_path / "folder").mkdir()
    for path in (tmp_path / "folder", tmp_path):
        with pytest.raises(OutputError, match="is a directory") as info:
            write(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)
        assert isinstance(info.value, PredictkitError) and isinstance(info.value, OSError)
    assert (tmp_path / "folder").is_dir() and leftovers(tmp_path) == []


def test_socket_is_a_one_line_error(tmp_path):
    import socket

    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OutputError, match="socket"):
            write(path)
    finally:
        server.close()


def test_missing_folder_is_a_one_line_error_naming_it(tmp_path):
    with pytest.raises(OutputError, match=r"the folder .*missing does not exist"):
        write(tmp_path / "missing" / "out.swf")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="file"):
        write(tmp_path / "file" / "out.swf")
    with pytest.raises(OutputError):
        check_output(tmp_path / "missing" / "out.swf")
    assert not (tmp_path / "missing").exists()


def test_too_long_a_name_is_a_one_line_error_and_long_names_work(tmp_path):
    longest = "x" * 251 + ".swf"                         # 255 bytes, the usual limit
    write(tmp_path / longest)
    assert (tmp_path / longest).read_bytes() == b"new\n" and leftovers(tmp_path) == []
    with pytest.raises(OutputError, match="too long"):
        write(tmp_path / ("y" * 300 + ".swf"))


@pytest.mark.skipif(IS_ROOT, reason="root writes in any folder; see the read-only mount test")
def test_unwritable_folder_is_a_one_line_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="ro"):
            check_output(folder / "out.swf")
        with pytest.raises(OutputError, match="Permission denied"):
            write(folder / "out.swf")
    finally:
        folder.chmod(0o755)


READ_ONLY_SCRIPT = """
import sys
from predictkit._atomic import check_output, open_output
from predictkit.exceptions import OutputError
for check in (check_output, lambda p: open_output(p).__enter__()):
    try:
        check(sys.argv[1])
    except OutputError as exc:
        print(exc)
    else:
        print("written")
from predictkit.cli import main
sys.exit(main(["generate", "--jobs", "200", "--machine-procs", "16", "--seed", "1", "-o", sys.argv[1]]))
"""


def read_only_mount_command(folder, command):
    """``command`` run where ``folder`` is a read-only bind mount (a private mount namespace)."""
    script = (f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" '
              f'&& exec "$@"')
    return ["unshare", "-m", "sh", "-c", script, "sh", *command]


def can_mount_read_only(tmp_path):
    if not IS_ROOT or shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run(read_only_mount_command(probe, ["touch", str(probe / "x")]),
                          capture_output=True)
    return done.returncode != 0 and b"Read-only" in done.stderr


def test_read_only_folder_is_a_one_line_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    command = [sys.executable, "-c", READ_ONLY_SCRIPT, str(folder / "out.swf")]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if can_mount_read_only(tmp_path):
        command = read_only_mount_command(folder, command)
    elif IS_ROOT:
        pytest.skip("root, and no private read-only mount available")
    else:
        folder.chmod(0o555)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(str(folder) in line for line in lines), done.stdout
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert errors == [errors[0]] and "Traceback" not in done.stderr
    assert str(folder) in errors[0]
    assert list(folder.iterdir()) == []


# the same file as an input -------------------------------------------------------------------

def test_same_file_by_path_symlink_and_hard_link(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "log.swf"
    log.write_text("; log\n")
    (tmp_path / "soft.swf").symlink_to("log.swf")
    os.link(log, tmp_path / "hard.swf")
    (tmp_path / "other.swf").write_text("; log\n")
    for alias in ("log.swf", "./log.swf", str(log), "soft.swf", "hard.swf", "sub/../log.swf"):
        assert same_file(alias, "log.swf"), alias
    assert not same_file("other.swf", "log.swf")
    assert not same_file("missing.swf", "log.swf")
    for alias in ("log.swf", "soft.swf", "hard.swf"):
        with pytest.raises(OutputError, match="same file as the input"):
            write(alias, inputs=["unrelated.swf", "log.swf"])
        assert log.read_text() == "; log\n"
    write("other.swf", inputs=["log.swf", None, "-"])
    assert (tmp_path / "other.swf").read_bytes() == b"new\n"


def test_streams_and_stdout_are_never_the_same_as_an_input(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refuse_inputs(fifo, [fifo])
    refuse_inputs(os.devnull, [os.devnull])
    refuse_inputs("-", ["-"])


# stale temporaries ---------------------------------------------------------------------------

def dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def temporary_name(target, host=_HOST, pid=None, token="0123abcd"):
    return f".{target}.{host}.{pid if pid is not None else os.getpid()}.{token}.part"


def test_stale_temporaries_are_removed_on_the_next_write(tmp_path):
    dead = dead_pid()
    old = time.time() - STALE_AFTER_SECONDS - 60
    files = {
        "dead writer": (temporary_name("out.swf", pid=dead), None, True),
        "live writer (this process)": (temporary_name("out.swf"), None, False),
        "live writer, other host": (temporary_name("out.swf", host="0badc0de", pid=dead), None,
                                    False),
        "untouched for too long": (temporary_name("out.swf", host="0badc0de", token="feedbeef"),
                                   old, True),
        "another target": (temporary_name("other.swf", pid=dead), None, False),
        "not our pattern": (".out.swf.a1b2c3d4.part", old, False),
        "a user's file": ("out.swf.part", old, False),
    }
    for name, mtime, _ in files.values():
        (tmp_path / name).write_bytes(b"partial")
        if mtime is not None:
            os.utime(tmp_path / name, (mtime, mtime))
    write(tmp_path / "out.swf")
    for what, (name, _, removed) in files.items():
        assert (tmp_path / name).exists() != removed, what
    assert (tmp_path / "out.swf").read_bytes() == b"new\n"


KILLED_WRITER = """
import sys, time
from predictkit._atomic import open_output
with open_output(sys.argv[1]) as stream:
    stream.write(b"half a log")
    stream.flush()
    print("writing", flush=True)
    time.sleep(600)
"""


def test_temporary_of_a_killed_writer_is_cleaned_by_the_next_write(tmp_path):
    target = tmp_path / "big.swf"
    target.write_bytes(b"previous\n")
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)],
                              stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert writer.stdout.readline().strip() == "writing"
        assert len(leftovers(tmp_path)) == 1
        # a live writer's temporary survives another write of the same target
        write(target, b"concurrent\n")
        assert len(leftovers(tmp_path)) == 1 and target.read_bytes() == b"concurrent\n"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert target.read_bytes() == b"concurrent\n" and len(leftovers(tmp_path)) == 1
    write(target)
    assert leftovers(tmp_path) == [] and target.read_bytes() == b"new\n"


def test_concurrent_writers_do_not_remove_each_other(tmp_path):
    target = tmp_path / "table.csv"
    inside, release, errors = threading.Event(), threading.Event(), []

    def slow_writer():
        try:
            with open_output(target) as stream:
                stream.write(b"slow\n")
                inside.set()
                release.wait(60)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert inside.wait(60)
    write(target, b"fast\n")
    assert remove_stale_temporaries(target) == []
    release.set()
    thread.join(60)
    assert errors == [] and target.read_bytes() == b"slow\n" and leftovers(tmp_path) == []


_FULL = "/dev/full"


@pytest.mark.skipif(not os.path.exists(_FULL), reason="no /dev/full on this system")
@pytest.mark.parametrize("size", [10, 1 << 20])
def test_a_full_device_is_an_output_error_naming_it(size):
    # a small payload fails only when the stream's buffer is flushed on closing
    with pytest.raises(OutputError, match="cannot write /dev/full: No space left"):
        write_result(_FULL, b"x" * size, owner="test")


_FILE_SIZE_LIMIT = """
import resource, signal, sys
from predictkit.datasets import make_workload
from predictkit.io import write_batsim, write_swf
from predictkit.report._html import write_page
from predictkit.exceptions import OutputError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
jobs = make_workload(3000, random_state=0)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
for name, write in [("t.swf", write_swf), ("t.swf.gz", write_swf), ("t.json", write_batsim),
                    ("t.html", lambda _, p: write_page(p, "t", "x" * 50000, []))]:
    try:
        write(jobs, name)
    except OutputError as exc:
        print(exc)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="file size limits are POSIX")
def test_a_file_size_limit_is_an_output_error_and_leaves_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-c", _FILE_SIZE_LIMIT], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"cannot write {name}: File too large"
                                        for name in ("t.swf", "t.swf.gz", "t.json", "t.html")]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, ending", [("new.swf/", "/"), ("new/", "/"),
                                          ("new.swf/.", "/."), ("new.swf/..", "/..")])
def test_a_name_ending_in_a_slash_is_never_written_as_a_file(tmp_path, name, ending):
    # "x.swf/." would name the file x.swf once the path is normalized
    target = f"{tmp_path}/{name}"
    message = f"a name ending in {re.escape(ending)} is a folder's"
    with pytest.raises(OutputError, match=message):
        write_result(target, b"x\n", owner="test")
    with pytest.raises(OutputError, match=message):
        check_output(target)
    assert list(tmp_path.iterdir()) == []


def test_a_file_this_process_may_not_write_is_refused_not_replaced(tmp_path, monkeypatch):
    from predictkit import _atomic

    target = tmp_path / "kept.txt"
    target.write_text("before")
    real = os.access
    monkeypatch.setattr(_atomic.os, "access", lambda path, mode, **kw: (
        False if Path(path) == target and mode & os.W_OK else real(path, mode, **kw)))
    for attempt in (lambda: _atomic.check_output(target),
                    lambda: _atomic.write_result(target, b"after", owner="test")):
        with pytest.raises(OutputError, match=r"kept.txt: it is read-only \(make it writable "
                                              r"to let it be replaced\)$"):
            attempt()
    assert target.read_text() == "before"


@pytest.mark.parametrize("link, target, packed", [("plain.swf", "real.swf.gz", True),
                                                  ("named.swf.gz", "real.swf", False)])
def test_a_link_is_compressed_by_the_name_of_the_file_it_writes(tmp_path, link, target, packed):
    from predictkit.io import read_swf, write_swf
    from predictkit.workload import make_workload

    jobs = make_workload(30, machine_procs=8, random_state=1)
    (tmp_path / link).symlink_to(target)
    write_swf(jobs, tmp_path / link)
    assert (tmp_path / link).is_symlink()
    assert ((tmp_path / target).read_bytes()[:2] == b"\x1f\x8b") == packed
    assert len(read_swf(tmp_path / link)) == 30

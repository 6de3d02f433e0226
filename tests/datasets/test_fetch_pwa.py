"""Downloads against a real HTTP server on 127.0.0.1, the cache and local trace folders."""

import gzip
import http.server
import warnings
import io
import os
import socket
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tracedata import require_traces, trace_file

from predictkit.datasets import _fetch, fetch_pwa, find_trace, get_data_home, load_trace
from predictkit.exceptions import (ChecksumError, DatasetError, DownloadError,
                                   InvalidParameterError)
from predictkit.io import read_swf, write_swf

UNCHECKED = "CTC-SP2-1996-3.1-cln"  # in the catalogue with a job count but no checksum
UNVERIFIABLE = "LCG-2005-1"  # in the catalogue with neither a checksum nor a job count


def small_swf_gz(tmp_path, n=20):
    """A valid gzipped SWF log of ``n`` jobs."""
    rng = np.random.default_rng(0)
    jobs = pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.integers(0, 1000, n)),
        "wait_time": rng.integers(0, 100, n), "run_time": rng.integers(1, 500, n),
        "n_procs": rng.integers(1, 64, n), "req_time": np.full(n, 600), "status": np.ones(n),
    })
    from predictkit.jobs import as_job_table

    path = tmp_path / "small.swf.gz"
    write_swf(as_job_table(jobs), path)
    return path.read_bytes()


class Server:
    """Serves ``routes[path] = (status, body, mode)``; counts requests per path."""

    def __init__(self):
        self.routes = {}
        self.hits = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                server.hits[self.path] = server.hits.get(self.path, 0) + 1
                status, body, mode = server.routes.get(self.path, (404, b"not here", "ok"))
                if callable(status):
                    status = status(server.hits[self.path])
                self.send_response(status)
                if mode != "no-length":
                    self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body if mode == "ok" else body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(_fetch, "_BACKOFF_SECONDS", 0.0)
    running = Server()
    yield running
    running.close()


def cache_files(data_home):
    return sorted(p.relative_to(data_home) for p in Path(data_home).rglob("*") if p.is_file())


def expect_jobs(monkeypatch, n, **changes):
    """Make the catalogue expect ``n`` jobs (and ``changes``) for every log it looks up."""
    real_lookup = _fetch.lookup

    def patched(name):
        return {**real_lookup(name), "jobs": n, "jobs_source": "test", **changes}

    monkeypatch.setattr(_fetch, "lookup", patched)


def test_download_then_reuse_without_network(server, monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    body = small_swf_gz(tmp_path)
    server.routes["/ctc.swf.gz"] = (200, body, "ok")
    home = tmp_path / "home"
    jobs = fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/ctc.swf.gz")
    expected = read_swf(io.BytesIO(body))
    pd.testing.assert_frame_equal(jobs, expected)
    assert cache_files(home) == [Path("pwa", f"{UNCHECKED}.swf.gz")]
    assert (home / "pwa" / f"{UNCHECKED}.swf.gz").read_bytes() == body
    server.close()
    again = fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/ctc.swf.gz")
    pd.testing.assert_frame_equal(again, expected)
    assert server.hits["/ctc.swf.gz"] == 1
    pd.testing.assert_frame_equal(
        fetch_pwa(UNCHECKED, data_home=home, download_if_missing=False), expected)


@pytest.mark.parametrize(("mode", "message"), [
    ("short", "truncated response: received"),
    ("no-length", "not a complete gzip file"),
])
def test_truncated_response_leaves_nothing(server, tmp_path, mode, message):
    server.routes["/cut.swf.gz"] = (200, small_swf_gz(tmp_path), mode)
    home = tmp_path / "home"
    with pytest.raises(DownloadError, match=message):
        fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/cut.swf.gz")
    assert cache_files(home) == []
    expected_hits = 1 + _fetch._RETRIES if mode == "short" else 1
    assert server.hits["/cut.swf.gz"] == expected_hits


def test_checksum_mismatch_leaves_nothing(server, tmp_path):
    server.routes["/kth.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    home = tmp_path / "home"
    with pytest.raises(ChecksumError, match="does not match the catalogue's sha256 ca38b890"):
        fetch_pwa("KTH-SP2", data_home=home, url=server.base + "/kth.swf.gz")
    assert cache_files(home) == []


def test_checksum_accepts_the_log_and_a_recompressed_copy(server, tmp_path):
    original = trace_file("KTH-SP2-1996-2.1-cln").read_bytes()
    recompressed = gzip.compress(gzip.decompress(original), compresslevel=1)
    assert recompressed != original
    server.routes["/kth.swf.gz"] = (200, original, "ok")
    server.routes["/kth1.swf.gz"] = (200, recompressed, "ok")
    first = fetch_pwa("KTH-SP2", data_home=tmp_path / "a", url=server.base + "/kth.swf.gz")
    second = fetch_pwa("KTH-SP2", data_home=tmp_path / "b", url=server.base + "/kth1.swf.gz")
    assert len(first) == 28476
    pd.testing.assert_frame_equal(first, second, check_like=True)


def test_http_404_is_not_retried_and_leaves_nothing(server, tmp_path):
    home = tmp_path / "home"
    with pytest.raises(DownloadError, match=f"^download of {UNCHECKED} from .* failed: HTTP 404"):
        fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/missing.swf.gz")
    assert server.hits["/missing.swf.gz"] == 1
    assert cache_files(home) == []


def test_transient_server_error_is_retried(server, monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    body = small_swf_gz(tmp_path)
    server.routes["/flaky.swf.gz"] = (lambda hit: 503 if hit == 1 else 200, body, "ok")
    jobs = fetch_pwa(UNCHECKED, data_home=tmp_path / "home", url=server.base + "/flaky.swf.gz")
    assert len(jobs) == 20 and server.hits["/flaky.swf.gz"] == 2


def test_unreachable_server_is_a_download_error(monkeypatch, tmp_path):
    monkeypatch.setattr(_fetch, "_BACKOFF_SECONDS", 0.0)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = tmp_path / "home"
    with pytest.raises(DownloadError, match="failed after 3 attempts"):
        fetch_pwa(UNCHECKED, data_home=home, url=f"http://127.0.0.1:{port}/x.swf.gz")
    assert cache_files(home) == []


def test_names_that_cannot_be_fetched(tmp_path):
    with pytest.raises(DatasetError, match="close matches: .*KTH-SP2-1996-2.1-cln"):
        fetch_pwa("KTH-SP9-1996", data_home=tmp_path)
    with pytest.raises(DatasetError, match="not an archive log"):
        fetch_pwa("lublin_256", data_home=tmp_path)
    with pytest.raises(DatasetError, match="not in the cache"):
        fetch_pwa("KTH-SP2", data_home=tmp_path, download_if_missing=False)
    assert cache_files(tmp_path) == []


def test_bad_download_arguments_are_refused_before_any_network_access(monkeypatch, tmp_path):
    from predictkit.exceptions import InvalidParameterError

    def no_network(*args, **kwargs):
        raise AssertionError("the network was reached")

    monkeypatch.setattr(_fetch, "_get", no_network)
    for value in ("no", "false", 0, None):
        with pytest.raises(InvalidParameterError, match="'download_if_missing' parameter of "
                                                        "fetch_pwa must be True or False"):
            fetch_pwa(UNCHECKED, data_home=tmp_path, download_if_missing=value)
        with pytest.raises(InvalidParameterError, match="of load_trace must be True or False"):
            load_trace(UNCHECKED, data_home=tmp_path, download_if_missing=value)
    with pytest.raises(InvalidParameterError, match="'url' parameter of fetch_pwa must be an "
                                                    "address"):
        fetch_pwa(UNCHECKED, data_home=tmp_path, url=123)
    assert cache_files(tmp_path) == []


@pytest.mark.parametrize("url", ["notaurl", "http://[::1", "https://exa mple.com/x"])
def test_an_address_no_attempt_can_open_is_refused_at_once_naming_the_log(monkeypatch, tmp_path,
                                                                          url):
    sleeps = []
    monkeypatch.setattr(_fetch.time, "sleep", sleeps.append)
    with pytest.raises(DownloadError, match=f"^download of {UNCHECKED} from .* failed: not an "
                                            "address urllib can open"):
        fetch_pwa(UNCHECKED, data_home=tmp_path, url=url)
    assert sleeps == [] and cache_files(tmp_path) == []


def test_a_cache_entry_that_is_a_folder_is_refused_before_downloading(tmp_path):
    entry = _fetch.lookup(UNCHECKED)
    (tmp_path / "pwa" / entry["file"]).mkdir(parents=True)
    with pytest.raises(DatasetError, match=f"the cache entry of {UNCHECKED}, .* is a folder, not "
                                           "the log: remove it"):
        fetch_pwa(UNCHECKED, data_home=tmp_path, url="http://127.0.0.1:9/never")


def test_get_data_home_order(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("PREDICTKIT_DATA", raising=False)
    assert get_data_home() == tmp_path / "user" / ".cache" / "predictkit"
    monkeypatch.setenv("PREDICTKIT_DATA", str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert (tmp_path / "arg").is_dir() and (tmp_path / "env").is_dir()


def test_load_trace_uses_predictkit_traces_first(monkeypatch, tmp_path):
    shared = require_traces()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PREDICTKIT_TRACES", os.pathsep.join([str(empty), str(shared)]))
    jobs = load_trace("lublin", data_home=tmp_path / "home")
    assert len(jobs) == 10000
    assert jobs.attrs["source"] == str(shared / "lublin_256.swf.gz")
    by_full_name = load_trace("KTH-SP2-1996-2.1-cln", data_home=tmp_path / "home")
    assert len(by_full_name) == 28476
    assert cache_files(tmp_path / "home") == []


def test_load_trace_paths_own_files_and_cache(monkeypatch, tmp_path):
    body = small_swf_gz(tmp_path)
    own = tmp_path / "own"
    own.mkdir()
    (own / "mysite-2024.swf.gz").write_bytes(body)
    monkeypatch.setenv("PREDICTKIT_TRACES", str(own))
    assert len(load_trace("mysite-2024", data_home=tmp_path / "home")) == 20
    assert len(load_trace(own / "mysite-2024.swf.gz")) == 20
    cached = tmp_path / "home" / "pwa" / f"{UNCHECKED}.swf.gz"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(body)
    assert len(load_trace("CTC-SP2-1996", data_home=tmp_path / "home")) == 20
    with pytest.raises(DatasetError, match=f"KTH-SP2-1996-2.1-cln not found in {own}"):
        load_trace("KTH-SP2", data_home=tmp_path / "home")
    with pytest.raises(DatasetError, match="no file 'nothing-like-it' and unknown trace"):
        load_trace("nothing-like-it", data_home=tmp_path / "home")


@pytest.mark.parametrize("name", [None, 5, io.BytesIO(b"")], ids=["None", "5", "buffer"])
def test_load_trace_and_find_trace_name_a_wrong_typed_name(name, tmp_path):
    for function in (load_trace, find_trace):
        with pytest.raises(InvalidParameterError) as info:
            function(name, data_home=tmp_path)
        assert str(info.value).startswith(
            f"The 'name' parameter of {function.__name__} must be a trace name or a path (str "
            "or os.PathLike). Got ")
        assert isinstance(info.value, TypeError)
    assert list(tmp_path.iterdir()) == []


def test_load_trace_downloads_only_when_allowed(server, monkeypatch, tmp_path):
    server.routes["/ctc.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    real_lookup = _fetch.lookup

    def mirrored(name):
        entry = real_lookup(name)
        return {**entry, "url": server.base + "/ctc.swf.gz", "jobs": 20}

    monkeypatch.setattr(_fetch, "lookup", mirrored)
    monkeypatch.delenv("PREDICTKIT_TRACES", raising=False)
    home = tmp_path / "home"
    with pytest.raises(DatasetError, match="not found in"):
        load_trace(UNCHECKED, data_home=home)
    assert server.hits == {}
    assert len(load_trace(UNCHECKED, data_home=home, download_if_missing=True)) == 20
    assert cache_files(home) == [Path("pwa", f"{UNCHECKED}.swf.gz")]


HTML = (b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n"
        b"<body><h1>Not Found</h1><p>The log was moved.</p></body></html>\n")


@pytest.mark.parametrize("name", ["KTH-SP2", UNCHECKED, UNVERIFIABLE])
@pytest.mark.parametrize("body", [gzip.compress(HTML), HTML], ids=["html-gz", "html"])
def test_an_error_page_served_with_status_200_is_refused(server, tmp_path, name, body):
    server.routes["/log.swf.gz"] = (200, body, "ok")
    home = tmp_path / "home"
    with pytest.raises(DownloadError) as caught:
        fetch_pwa(name, data_home=home, url=server.base + "/log.swf.gz")
    message = str(caught.value)
    assert "\n" not in message and "nothing was kept" in message
    assert message.startswith("download of " + _fetch.lookup(name)["name"])
    assert ("is not a gzip file (it begins '<!DOCTYPE html>')" in message if body == HTML
            else "is not an SWF log" in message or "does not match" in message)
    assert cache_files(home) == []


def test_the_wrong_log_is_refused_by_its_job_count(server, tmp_path):
    server.routes["/ctc.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    home = tmp_path / "home"
    with pytest.raises(ChecksumError, match=f"download of {UNCHECKED} from .* has 20 jobs but "
                                            f"the catalogue expects 77,222"):
        fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/ctc.swf.gz")
    assert cache_files(home) == []


def test_a_log_cut_at_a_line_end_is_refused_by_its_job_count(server, monkeypatch, tmp_path):
    text = gzip.decompress(small_swf_gz(tmp_path))
    lines = text.splitlines(keepends=True)
    cut = gzip.compress(b"".join(lines[:-5]))  # a complete gzip stream, five jobs short
    expect_jobs(monkeypatch, 20)
    server.routes["/cut.swf.gz"] = (200, cut, "ok")
    home = tmp_path / "home"
    with pytest.raises(ChecksumError, match="has 15 jobs but the catalogue expects 20"):
        fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/cut.swf.gz")
    assert cache_files(home) == []


def test_a_log_without_jobs_is_refused(server, tmp_path):
    server.routes["/empty.swf.gz"] = (200, gzip.compress(b"; Version: 2.2\n; MaxJobs: 0\n"), "ok")
    home = tmp_path / "home"
    with pytest.raises(DownloadError, match=f"download of {UNVERIFIABLE} .*"
                                            f"(holds no jobs|is not an SWF log)"):
        fetch_pwa(UNVERIFIABLE, data_home=home, url=server.base + "/empty.swf.gz")
    assert cache_files(home) == []


def test_a_valid_log_is_verified_by_its_job_count_without_warning(server, monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    body = small_swf_gz(tmp_path)
    server.routes["/ok.swf.gz"] = (200, body, "ok")
    home = tmp_path / "home"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobs = fetch_pwa(UNCHECKED, data_home=home, url=server.base + "/ok.swf.gz")
    assert len(jobs) == 20
    assert jobs.attrs["source"] == str(home / "pwa" / f"{UNCHECKED}.swf.gz")
    assert (home / "pwa" / f"{UNCHECKED}.swf.gz").read_bytes() == body


def test_a_log_the_catalogue_cannot_verify_is_kept_with_a_warning(server, tmp_path):
    body = small_swf_gz(tmp_path)
    server.routes["/lcg.swf.gz"] = (200, body, "ok")
    home = tmp_path / "home"
    with pytest.warns(UserWarning, match=f"download of {UNVERIFIABLE} .* could not be verified"):
        jobs = fetch_pwa(UNVERIFIABLE, data_home=home, url=server.base + "/lcg.swf.gz")
    assert len(jobs) == 20
    assert cache_files(home) == [Path("pwa", f"{UNVERIFIABLE}.swf.gz")]


def test_fetch_command_refuses_a_bad_download_in_one_line(server, monkeypatch, tmp_path, capsys):
    from predictkit.cli import main

    real_lookup = _fetch.lookup
    server.routes["/ctc.swf.gz"] = (200, gzip.compress(HTML), "ok")
    monkeypatch.setattr(_fetch, "lookup",
                        lambda name: {**real_lookup(name), "url": server.base + "/ctc.swf.gz"})
    home = tmp_path / "home"
    assert main(["fetch", "CTC-SP2-1996", "--data-home", str(home)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"predictkit fetch: error: download of {UNCHECKED} from ")
    assert "is not an SWF log" in err and "nothing was kept" in err
    assert cache_files(home) == []


def test_fetch_command_prints_the_unverified_warning_as_one_line(server, monkeypatch, tmp_path,
                                                                 capsys):
    from predictkit.cli import main

    real_lookup = _fetch.lookup
    server.routes["/lcg.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    monkeypatch.setattr(_fetch, "lookup",
                        lambda name: {**real_lookup(name), "url": server.base + "/lcg.swf.gz"})
    assert main(["fetch", UNVERIFIABLE, "--data-home", str(tmp_path / "home")]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "could not be verified" in warnings[0]
    assert warnings[0].startswith(f"predictkit fetch: warning: download of {UNVERIFIABLE}")
    assert f"{UNVERIFIABLE}: 20 jobs" in captured.out


def test_trace_lookup_honours_a_list_of_folders(monkeypatch, tmp_path):
    from predictkit.datasets import find_trace, trace_folders

    body = small_swf_gz(tmp_path)
    first, second, missing = tmp_path / "a", tmp_path / "b", tmp_path / "gone"
    for folder in (first, second):
        folder.mkdir()
    (second / "site-b.swf.gz").write_bytes(body)
    (first / "both.swf").write_bytes(gzip.decompress(body))
    (second / "both.swf.gz").write_bytes(body)
    monkeypatch.setenv("PREDICTKIT_TRACES", os.pathsep.join([str(missing), "", str(first),
                                                             str(second)]))
    assert trace_folders() == [missing, first, second]
    home = tmp_path / "home"
    assert find_trace("site-b", data_home=home) == second / "site-b.swf.gz"
    assert find_trace("both", data_home=home) == first / "both.swf"   # first folder wins
    assert find_trace("both", folders=[second], data_home=home) == second / "both.swf.gz"
    assert find_trace("elsewhere", data_home=home) is None
    assert len(load_trace("site-b", data_home=home)) == 20
    monkeypatch.delenv("PREDICTKIT_TRACES")
    assert trace_folders() == []


def test_a_cached_copy_cut_short_or_damaged_is_said_to_be(monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    cached = tmp_path / "pwa" / f"{UNCHECKED}.swf.gz"
    cached.parent.mkdir()
    cached.write_bytes(small_swf_gz(tmp_path, n=12))
    with pytest.warns(UserWarning, match=r"has 12 jobs but the catalogue expects 20 \(test\): "
                                         r"it may be cut short"):
        jobs = fetch_pwa(UNCHECKED, data_home=tmp_path, download_if_missing=False)
    assert len(jobs) == 12
    cached.write_bytes(gzip.compress(b"garbage\n"))
    with pytest.raises(DatasetError, match=r"cached copy of .* cannot be read .*line 1.*; "
                                           r"delete .* to download it again"):
        fetch_pwa(UNCHECKED, data_home=tmp_path, download_if_missing=False)


def test_a_data_home_that_cannot_be_a_folder_is_a_dataset_error(tmp_path):
    from predictkit.datasets import get_data_home
    from predictkit.exceptions import DatasetError

    blocker = tmp_path / "afile"
    blocker.write_text("x")
    for home in (blocker, blocker / "sub"):
        with pytest.raises(DatasetError, match=r"cannot create the folder \(a file is in the "
                                               r"way\)$"):
            get_data_home(home)
    with pytest.raises(DatasetError, match="a file is in the way"):
        fetch_pwa("KTH-SP2-1996-2.1-cln", data_home=blocker)
    assert blocker.read_text() == "x"


def test_a_download_is_on_disk_before_it_becomes_the_cached_log(server, monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    server.routes["/ctc.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(_fetch.os, "fsync", lambda fd: (events.append(
        ("fsync", os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))), real_fsync(fd))[1])
    monkeypatch.setattr(_fetch.os, "replace", lambda a, b: (events.append(
        ("replace", os.path.basename(b))), real_replace(a, b))[1])
    fetch_pwa(UNCHECKED, data_home=tmp_path / "home", url=server.base + "/ctc.swf.gz")
    name = f"{UNCHECKED}.swf.gz"
    assert events[:2] == [("fsync", events[0][1]), ("replace", name)]
    assert events[0][1].startswith(f".{name}.") and events[0][1].endswith(".part")
    assert events[-1] == ("fsync", "pwa")  # the folder, so that the rename lasts

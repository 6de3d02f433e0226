"""Downloaded logs are cached like every other output: readable modes, no stale temporaries."""

import os
import stat

from test_fetch_pwa import UNCHECKED, expect_jobs, server, small_swf_gz  # noqa: F401 (fixture)

from predictkit._atomic import _HOST
from predictkit.datasets import fetch_pwa


def test_cached_log_gets_the_umask_mode_and_stale_downloads_are_removed(server, monkeypatch,
                                                                       tmp_path):
    expect_jobs(monkeypatch, 20)
    server.routes["/ctc.swf.gz"] = (200, small_swf_gz(tmp_path), "ok")
    folder = tmp_path / "home" / "pwa"
    folder.mkdir(parents=True)
    stale = folder / f".{UNCHECKED}.swf.gz.{_HOST}.999999999.0123abcd.part"
    stale.write_bytes(b"half a download")
    old = os.umask(0o022)
    try:
        fetch_pwa(UNCHECKED, data_home=tmp_path / "home", url=server.base + "/ctc.swf.gz")
    finally:
        os.umask(old)
    cached = folder / f"{UNCHECKED}.swf.gz"
    assert stat.S_IMODE(cached.stat().st_mode) == 0o644
    assert sorted(p.name for p in folder.iterdir()) == [cached.name]


def test_a_cached_name_that_is_a_dangling_link_is_written_through(server, monkeypatch, tmp_path):
    expect_jobs(monkeypatch, 20)
    body = small_swf_gz(tmp_path)
    server.routes["/ctc.swf.gz"] = (200, body, "ok")
    folder = tmp_path / "home" / "pwa"
    folder.mkdir(parents=True)
    (tmp_path / "store").mkdir()
    link = folder / f"{UNCHECKED}.swf.gz"
    link.symlink_to(tmp_path / "store" / "log.swf.gz")
    fetch_pwa(UNCHECKED, data_home=tmp_path / "home", url=server.base + "/ctc.swf.gz")
    assert link.is_symlink() and (tmp_path / "store" / "log.swf.gz").read_bytes() == body
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["log.swf.gz"]

"""Where the report page goes: a folder, a link inside it, or standard output."""

import pytest

from predictkit.exceptions import OutputError
from predictkit.report._build import _report_folder
from predictkit.report._html import Section, write_page


def test_page_follows_a_symlink_and_writes_to_standard_output(tmp_path, capfd):
    real = tmp_path / "published.html"
    link = tmp_path / "index.html"
    link.symlink_to(real)
    write_page(link, "title", "sub", [Section("One", "text")])
    assert link.is_symlink() and real.read_text().startswith("<!DOCTYPE html>")
    write_page("-", "title", "sub", [Section("One", "text")])
    assert capfd.readouterr().out.startswith("<!DOCTYPE html>")


def test_report_folder_is_created_or_refused(tmp_path):
    assert _report_folder(tmp_path / "a").is_dir()
    # a mistyped path is refused, not created with every missing folder above it
    with pytest.raises(OutputError, match=r"the folder .*missing does not exist"):
        _report_folder(tmp_path / "missing" / "b")
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("keep")
    with pytest.raises(OutputError, match="not a folder"):
        _report_folder(tmp_path / "file")
    with pytest.raises(OutputError, match="cannot create"):
        _report_folder(tmp_path / "file" / "sub")
    assert (tmp_path / "file").read_text() == "keep"

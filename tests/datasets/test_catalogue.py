"""The catalogue agrees with the shared traces and resolves names clearly."""

import csv
import re

import pytest
from tracedata import require_traces

from predictkit.datasets import list_traces
from predictkit.datasets._catalogue import ARCHIVE_URL, lookup
from predictkit.exceptions import DatasetError

REQUIRED = {"CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln", "LANL-O2K-1999-2",
            "HPC2N-2002-2.2-cln", "ANL-Intrepid-2009-1", "PIK-IPLEX-2009-1"}


def test_catalogue_shape_and_urls():
    table = list_traces()
    assert len(table) >= 40
    assert table["name"].is_unique and table["file"].is_unique
    assert REQUIRED <= set(table["name"])
    archive = table[table["url"] != ""]
    for name, file, url in zip(archive["name"], archive["file"], archive["url"]):
        assert file == f"{name}.swf.gz"
        assert re.fullmatch(re.escape(ARCHIVE_URL) + r"/l_[a-z0-9_]+/" + re.escape(file), url)
    # Only the two entries that are not archive logs lack a URL.
    assert set(table.loc[table["url"] == "", "name"]) == {"ANL-Theta-2022", "lublin_256"}
    # Checksums only where a local copy was checked.
    assert (table.loc[~table["checked"], "sha256"] == "").all()
    assert not table.loc[~table["checked"], "verify_checksum"].any()


def test_every_shared_trace_is_catalogued_with_its_manifest_values():
    folder = require_traces()
    with open(folder / "MANIFEST.tsv", encoding="utf-8") as handle:
        manifest = list(csv.DictReader(handle, delimiter="\t"))
    table = list_traces().set_index("file")
    assert int(table["checked"].sum()) == len(manifest)
    for row in manifest:
        entry = table.loc[row["file"]]
        assert entry["checked"]
        assert entry["sha256"] == row["sha256_of_gz"]
        assert entry["jobs"] == int(row["jobs"])
        assert entry["size_bytes"] == (folder / row["file"]).stat().st_size
        assert len(entry["swf_sha256"]) == 64


@pytest.mark.parametrize(("query", "name"), [
    ("KTH-SP2", "KTH-SP2-1996-2.1-cln"),
    ("kth-sp2-1996-2.1-cln", "KTH-SP2-1996-2.1-cln"),
    ("KTH-SP2-1996-2.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln"),
    ("RICC", "RICC-2010-2"),
    ("CTC-SP2-1996", "CTC-SP2-1996-3.1-cln"),
])
def test_lookup_accepts_names_files_and_unique_prefixes(query, name):
    assert lookup(query)["name"] == name


def test_lookup_errors_name_the_candidates():
    with pytest.raises(DatasetError, match="ambiguous.*SDSC-Par-1995-3.1-cln, SDSC-Par-1996"):
        lookup("SDSC-Par")
    with pytest.raises(DatasetError, match="close matches: .*KTH-SP2-1996-2.1-cln"):
        lookup("KHT-SP2-1996-2.1")
    with pytest.raises(DatasetError, match="unknown trace ''"):
        lookup("")


def test_every_job_count_says_where_it_comes_from():
    table = list_traces()
    counted = table[table["jobs_source"] == "counted"]
    assert counted["checked"].all() and (counted["swf_sha256"].str.len() == 64).all()
    assert (table.loc[table["checked"], "jobs_source"] == "counted").all()
    with_jobs = table[table["jobs"].notna()]
    assert (with_jobs["jobs_source"] != "").all()
    assert (table.loc[table["jobs"].isna(), "jobs_source"] == "").all()
    # Every log that can be downloaded is verified by an enforced checksum or a job count,
    # except the ones listed here (see datasets/CATALOGUE.md).
    archive = table[table["url"] != ""]
    unverified = set(archive.loc[~archive["verify_checksum"] & archive["jobs"].isna(), "name"])
    assert unverified == {
        "SDSC-Par-1995-3.1-cln", "LLNL-T3D-1996-2", "LANL-O2K-1999-2", "OSC-Clust-2000-3.1-cln",
        "LCG-2005-1", "SHARCNET-Whale-2006-2", "LLNL-uBGL-2006-2", "Intel-NetbatchA-2012-1",
        "Intel-NetbatchB-2012-1", "Intel-NetbatchC-2012-1", "Intel-NetbatchD-2012-1",
        "METACENTRUM-2013-3", "CIEMAT-Euler-2008-1"}

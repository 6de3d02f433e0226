"""Fill the checksums and job counts of predictkit's log catalogue from the logs themselves.

The catalogue (``predictkit/datasets/data/pwa_catalogue.csv``) tells
``predictkit.datasets.fetch_pwa`` what a correct download of each Parallel
Workloads Archive log looks like: the sha256 of the ``.swf.gz`` file and of
its uncompressed SWF text, its size, and its number of jobs. This script
computes those values from copies of the logs, found in folders given with
``--from`` or downloaded from the archive with ``--download``, and writes them
into the catalogue. Entries it cannot find are left as they are.

Usage::

    python datasets/make_catalogue.py --from /path/to/traces          # local copies
    python datasets/make_catalogue.py --download --only KTH-SP2-1996-2.1-cln
    python datasets/make_catalogue.py --report                        # coverage only

A job count that the catalogue already holds from another source (the number
the archive publishes) is compared with the counted one; a difference is
reported and the entry is left unchanged unless ``--force`` is given, since it
usually means the copy is not the archive's file. Entries already marked
``checked`` with ``verify_checksum = no`` (copies known to differ from the
archive's file) keep that mark.

Only the standard library is used, so the script runs without predictkit.
"""

import argparse
import csv
import gzip
import hashlib
import io
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path

CATALOGUE = Path(__file__).resolve().parents[1] / "predictkit" / "datasets" / "data" / \
    "pwa_catalogue.csv"
ARCHIVE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload"
COUNTED = "counted"
_CHUNK = 1 << 20


def measure(path):
    """Return size, sha256 of the file, sha256 of the SWF text and the number of job lines.

    A plain ``.swf`` file has no ``.gz`` checksum or size (both ``""``).
    """
    path = Path(path)
    raw_digest = hashlib.sha256()
    with open(path, "rb") as handle:
        magic = handle.read(2)
        handle.seek(0)
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            raw_digest.update(chunk)
    compressed = magic == b"\x1f\x8b"
    text_digest = hashlib.sha256()
    jobs = 0
    opener = gzip.open if compressed else open
    with opener(path, "rb") as stream:
        tail = b""
        for chunk in iter(lambda: stream.read(_CHUNK), b""):
            text_digest.update(chunk)
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            jobs += sum(1 for line in lines if _is_job(line))
        jobs += _is_job(tail)
    if not compressed:
        return {"size_bytes": "", "sha256": "", "swf_sha256": text_digest.hexdigest(),
                "jobs": jobs}
    return {"size_bytes": path.stat().st_size, "sha256": raw_digest.hexdigest(),
            "swf_sha256": text_digest.hexdigest(), "jobs": jobs}


def _is_job(line):
    line = line.strip()
    return bool(line) and not line.startswith(b";")


def find_local(row, folders):
    """The first copy of an entry's log in ``folders``, or None."""
    for folder in folders:
        for candidate in (row["file"], f"{row['name']}.swf.gz", f"{row['name']}.swf"):
            path = Path(folder) / candidate
            if path.is_file():
                return path
    return None


def download(row, folder):
    """Download an entry's log from the archive into ``folder``; return the path or None."""
    if not row["directory"]:
        return None
    url = f"{ARCHIVE_URL}/{row['directory']}/{row['file']}"
    target = Path(folder) / row["file"]
    print(f"downloading {url}", file=sys.stderr)
    with urllib.request.urlopen(url, timeout=120) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)
    return target


def update(rows, *, folders=(), fetch=False, only=None, force=False, out=None):
    """Fill measured values into ``rows`` (dicts of catalogue text); return the names updated."""
    out = out or sys.stderr
    updated = []
    with tempfile.TemporaryDirectory() as scratch:
        for row in rows:
            if only and row["name"] not in only:
                continue
            path = find_local(row, folders)
            if path is None and fetch:
                path = download(row, scratch)
            if path is None:
                continue
            found = measure(path)
            published = row["jobs"] and row.get("jobs_source") != COUNTED
            if published and int(row["jobs"]) != found["jobs"] and not force:
                print(f"{row['name']}: {path} has {found['jobs']} jobs but the catalogue says "
                      f"{row['jobs']} ({row.get('jobs_source') or 'no source'}); left unchanged "
                      f"(--force to overwrite)", file=out)
                continue
            keep_unenforced = row["checked"] == "yes" and row["verify_checksum"] == "no"
            row.update({key: str(value) for key, value in found.items()})
            row["jobs_source"] = COUNTED
            row["checked"] = "yes"
            row["verify_checksum"] = "no" if keep_unenforced or not row["sha256"] else "yes"
            updated.append(row["name"])
    return updated


def coverage(rows):
    """Lines describing which downloadable entries have a checksum and a job count."""
    archive = [r for r in rows if r["directory"]]
    enforced = [r["name"] for r in archive if r["verify_checksum"] == "yes"]
    with_jobs = [r["name"] for r in archive if r["jobs"]]
    return [
        f"{len(archive)} downloadable entries: {len(enforced)} with an enforced checksum, "
        f"{len(with_jobs)} with a job count",
        "no enforced checksum: " + (", ".join(r["name"] for r in archive
                                              if r["name"] not in enforced) or "-"),
        "no job count: " + (", ".join(r["name"] for r in archive
                                      if r["name"] not in with_jobs) or "-"),
    ]


def read_catalogue(path):
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


def write_catalogue(path, fieldnames, rows):
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=fieldnames, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    temporary = Path(path).with_name(f".{Path(path).name}.part")
    temporary.write_text(text.getvalue(), encoding="utf-8")
    temporary.replace(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE,
                        help=f"the catalogue to update (default: {CATALOGUE})")
    parser.add_argument("--from", dest="folders", action="append", default=[], metavar="DIR",
                        help="a folder holding copies of logs (repeatable)")
    parser.add_argument("--download", action="store_true",
                        help="download logs not found in any --from folder from the archive")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="update only this entry (repeatable)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite a published job count that the copy contradicts")
    parser.add_argument("--report", action="store_true",
                        help="print the coverage and change nothing")
    args = parser.parse_args(argv)
    fieldnames, rows = read_catalogue(args.catalogue)
    if not args.report:
        updated = update(rows, folders=args.folders, fetch=args.download, only=args.only,
                         force=args.force)
        write_catalogue(args.catalogue, fieldnames, rows)
        print(f"updated {len(updated)} entries: {', '.join(updated) or '-'}")
    print("\n".join(coverage(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

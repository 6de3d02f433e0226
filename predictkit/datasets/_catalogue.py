"""The catalogue of Parallel Workloads Archive logs that predictkit knows by name.

The table lives in ``predictkit/datasets/data/pwa_catalogue.csv``. Entries
marked ``checked`` were measured from copies of the logs by
``datasets/make_catalogue.py`` (job counts counted in the files, checksums of
those copies); the others give what the archive publishes about the log
(``jobs_source`` says where a job count comes from), with blanks where
nothing is known. :func:`predictkit.datasets.fetch_pwa` refuses a download
that contradicts an enforced checksum or a job count.
"""

import difflib
from importlib import resources

import pandas as pd

from ..exceptions import DatasetError

__all__ = ["ARCHIVE_URL", "list_traces", "lookup"]

ARCHIVE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload"
"""Root of the Parallel Workloads Archive; a log is at ``<root>/<directory>/<file>``."""

_COLUMNS = ("name", "file", "machine", "site", "processors", "jobs", "jobs_source", "period",
            "url",
            "size_bytes", "sha256", "swf_sha256", "verify_checksum", "checked", "caveats")


def _read():
    source = resources.files("predictkit.datasets").joinpath("data", "pwa_catalogue.csv")
    with source.open("r", encoding="utf-8") as handle:
        table = pd.read_csv(handle, dtype=str, keep_default_na=False)
    for column in ("processors", "jobs", "size_bytes"):
        table[column] = pd.to_numeric(table[column].replace("", None)).astype("Int64")
    for column in ("verify_checksum", "checked"):
        table[column] = table[column] == "yes"
    table["url"] = [f"{ARCHIVE_URL}/{d}/{f}" if d else ""
                    for d, f in zip(table["directory"], table["file"])]
    return table.loc[:, list(_COLUMNS)]


def list_traces():
    """Return the catalogue of known logs as a DataFrame.

    Returns
    -------
    DataFrame
        One row per log: ``name`` (what :func:`fetch_pwa` and
        :func:`load_trace` accept), ``file`` (the archive's file name),
        ``machine``, ``site``, ``processors``, ``jobs`` (number of jobs in the
        file), ``jobs_source`` (``"counted"`` in a copy of the file, or the
        archive page that publishes the number), ``period``, ``url``
        (empty for the two entries that are not archive logs),
        ``size_bytes``, ``sha256`` (of the ``.gz`` file) and ``swf_sha256``
        (of its uncompressed text) where known, ``verify_checksum`` (whether
        a download is checked against them), ``checked`` (numbers and
        checksums come from a local copy) and ``caveats``.

    Examples
    --------
    >>> from predictkit.datasets import list_traces
    >>> catalogue = list_traces()
    >>> int(catalogue.set_index("name").loc["KTH-SP2-1996-2.1-cln", "jobs"])
    28476
    """
    return _read()


def _normalized(name):
    """A name as the catalogue compares it: stripped, lower case, without ``.swf[.gz]``."""
    wanted = str(name).strip().lower()
    for suffix in (".swf.gz", ".swf"):
        if wanted.endswith(suffix):
            return wanted[: -len(suffix)]
    return wanted


def matching_names(name, names):
    """The catalogue names that ``name`` stands for, in catalogue order.

    The one name equal to ``name`` (case and a ``.swf``/``.swf.gz`` ending
    aside), else every name that starts with it; empty when none does.
    """
    wanted = _normalized(name)
    if not wanted:
        return []
    exact = [n for n in names if n.lower() == wanted]
    return exact or [n for n in names if n.lower().startswith(wanted)]


def lookup(name):
    """Return the catalogue row (a dict) for a log name.

    ``name`` may be the full name (``"KTH-SP2-1996-2.1-cln"``), the file name
    (``"KTH-SP2-1996-2.1-cln.swf.gz"``) or any prefix that names one log only
    (``"KTH-SP2"``); case does not matter.

    Raises
    ------
    DatasetError
        If no log or more than one log matches; the message lists the
        closest names.
    """
    table = _read()
    names = table["name"].tolist()
    found = matching_names(name, names)
    if len(found) == 1:
        return table.iloc[names.index(found[0])].to_dict()
    if found:
        raise DatasetError(f"trace name {name!r} is ambiguous: it could be "
                           f"{', '.join(found)}")
    wanted = _normalized(name)
    lowered = [n.lower() for n in names]
    close = difflib.get_close_matches(wanted, lowered, n=5, cutoff=0.5)
    hint = (f"; close matches: {', '.join(names[lowered.index(c)] for c in close)}"
            if close else "")
    raise DatasetError(f"unknown trace {name!r}{hint} (predictkit.datasets.list_traces() "
                       f"or 'predictkit fetch --list' shows all {len(names)} known names)")

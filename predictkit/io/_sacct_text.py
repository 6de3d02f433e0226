"""From ``sacct`` output's text to its fields.

Recognizing ``sacct`` output (and what only looks like it), decoding the
text, the header's check, one column of field texts per field the job table
uses, each line's field count, repeated headers, one cluster, and lines
standing for a job array's pending tasks expanded into one row per task.
:func:`~predictkit.io.read_sacct` reads the fields these give.
"""

import csv
import io
import itertools
import re

import numpy as np
import pandas as pd

from ..exceptions import SacctFormatError
from ._slurm_fields import array_task_job_ids
from ._source import read_source

__all__ = ["looks_like_sacct", "sacct_lookalike", "read_text", "split_fields",
           "check_one_cluster", "expand_arrays"]


_REQUIRED = (("JobID", "JobIDRaw"), ("Submit",), ("Start",), ("State",),
             ("ElapsedRaw", "Elapsed", "End"),
             ("NCPUS", "AllocCPUS", "ReqCPUS", "NNodes", "AllocNodes", "ReqNodes"))


_FIELDS_READ = frozenset(name.lower() for name in (
    "JobID", "JobIDRaw", "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw",
    "Timelimit", "TimelimitRaw", "TotalCPU", "NCPUS", "AllocCPUS", "ReqCPUS", "NNodes",
    "AllocNodes", "ReqNodes", "MaxRSS", "State", "User", "Account", "Group", "JobName", "QOS",
    "Partition", "Cluster"))
"""The fields the job table is made of (others in the header are checked for their
count on each line, and not kept)."""


def looks_like_sacct(head):
    """Whether the start of a log is ``sacct`` output (its first line names ``JobID``).

    Parameters
    ----------
    head : bytes or str
        The first bytes of the (already decompressed) log; a UTF-8 byte-order
        mark and leading blank lines are ignored.

    Returns
    -------
    bool
        True when the first non-blank line is a ``|``-separated header naming
        ``JobID`` or ``JobIDRaw`` (any case), as ``sacct --parsable2`` and
        ``--parsable`` print it.

    Examples
    --------
    >>> looks_like_sacct(b"JobID|User|Submit|Start|State\\n1|a|...")
    True
    >>> looks_like_sacct("; Version: 2.2\\n1 0 10 100 4 -1")
    False
    """
    _, first = _first_line(head)
    fields = [field.strip().lower() for field in first.split("|")]
    return len(fields) > 1 and ("jobid" in fields or "jobidraw" in fields)


def sacct_lookalike(head):
    """Why the start of a log that :func:`looks_like_sacct` refuses is still
    ``sacct`` output (printed without its header, or with another
    ``--delimiter``), or None.

    Returns
    -------
    tuple or None
        ``(problem, line number, line)`` of its first line that is no SWF
        comment; None for anything else (SWF, binary or UTF-16 data are left
        to their reader).
    """
    if isinstance(head, bytes) and b"\x00" in head:
        return None
    number, first = _first_line(head, skip=";")
    fields = [field.strip().lower() for field in first.split("|")]
    if len(fields) > 1 and ("jobid" in fields or "jobidraw" in fields):
        problem = ("a sacct header after a line starting with ';' (sacct prints no comment "
                   "lines: remove the lines before the header)")
    elif "|" in first:
        problem = ("'|'-separated fields but no header line naming JobID: sacct output "
                   "printed with --noheader? predictkit needs the header (run sacct "
                   "--parsable2 without --noheader)")
    elif {"jobid", "jobidraw"} & set(re.split(r"\W+", first.lower())):
        if re.fullmatch(r"[\w ]+", first) and "  " in first:
            problem = ("a header naming JobID, its fields aligned in columns: sacct's default "
                       "fixed-width output? run sacct --parsable2")
        else:
            problem = ("a header naming JobID, its fields not separated by '|': sacct output "
                       "with another --delimiter? run sacct --parsable2 without --delimiter")
    else:
        return None
    return problem, number, first


def _first_line(head, skip=None):
    """``(number, text)`` of the first line of ``head`` that is not blank (nor starts
    with ``skip``), stripped; a UTF-8 byte-order mark is no text. ``(None, "")``
    when there is none."""
    if isinstance(head, bytes):
        head = head.decode("utf-8", errors="replace")
    lines = enumerate(head.removeprefix("\ufeff").split("\n"), start=1)
    return next(((k, line.strip()) for k, line in lines
                 if line.strip() and not (skip and line.strip().startswith(skip))),
                (None, ""))


def read_text(path_or_buffer, reader="read_sacct"):
    source, raw = read_source(path_or_buffer, SacctFormatError, reader=reader)
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            number = raw.count(b"\n", 0, exc.start) + 1
            begin = raw.rfind(b"\n", 0, exc.start) + 1
            end = raw.find(b"\n", exc.start)
            line = raw[begin:None if end < 0 else end].rstrip(b"\r")
            raise SacctFormatError(
                f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                f"{exc.start - begin + 1}; sacct prints UTF-8: convert the file, e.g. with "
                f"iconv -f LATIN1 -t UTF-8)", source=source, line_number=number,
                line=line.decode("utf-8", errors="replace")) from None
    # A byte-order mark (written by some editors and Windows tools) is not text.
    return source, raw.removeprefix("\ufeff")


def split_fields(text, source, errors):
    """Split the text into the header and its columns, checking field counts.

    Returns ``(header, table, line_numbers, lines, skipped)``: ``table`` maps
    each header name the reader uses (:data:`_FIELDS_READ`) to an object array
    of the job lines' fields (as written), ``line_numbers`` and ``lines``
    (arrays) give each job line's number and text, ``skipped`` the numbers of
    lines left out.

    The checks look at each line's text once; the fields are then split by
    pandas' C parser, which keeps one string object for a value repeated
    nearby (a site's users, states and limits), instead of a list of
    strings per line.
    """
    if "\n" not in text and "\r" in text.strip():
        raise SacctFormatError(
            "lines end in a carriage return alone (old Mac line endings): convert them, "
            "e.g. with tr '\\r' '\\n'", source=source, line_number=1)
    lines = text.split("\n")
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    kept = [k for k, line in enumerate(lines) if line and not line.isspace()]
    if not kept:
        raise SacctFormatError("no header line (expected sacct --parsable2 output)",
                               source=source)
    header_index = kept[0]
    header_number, header_line = header_index + 1, lines[header_index]
    header = [name.strip() for name in header_line.split("|")]
    trailing = len(header) > 1 and header[-1] == ""
    if trailing:
        header = header[:-1]
    _check_header(header, source, header_number, header_line)
    if len(kept) == 1:
        raise SacctFormatError(
            "no job lines after the header (sacct selected no jobs: check its "
            "--starttime, --endtime and --allusers options)", source=source,
            line_number=header_number)
    body = np.array(kept[1:], dtype=np.int64)
    body_lines = [lines[k] for k in kept[1:]]
    del lines
    n_fields = np.fromiter(map(str.count, body_lines, itertools.repeat("|")),
                           dtype=np.int64, count=len(body_lines)) + 1
    if trailing:
        n_fields -= np.fromiter(map(str.endswith, body_lines, itertools.repeat("|")),
                                dtype=bool, count=len(body_lines))
    names = [name.lower() for name in header]
    repeated = np.zeros(len(body), dtype=bool)
    other_header = len(body)
    # every header names JobID; job lines seldom hold the word, most files never
    more = text.lower().count("jobid") > header_line.lower().count("jobid")
    candidates = (position for position, line in enumerate(body_lines)
                  if more and "jobid" in line.lower())
    for position in candidates:
        line = body_lines[position]
        values = (line[:-1] if trailing and line.endswith("|") else line).split("|")
        if _is_header(line, values):
            if [value.strip().lower() for value in values] != names:
                other_header = position
                break
            repeated[position] = True  # outputs of one --format concatenated: no job
    wrong = (n_fields != len(header)) & ~repeated
    if errors == "raise" and wrong[:other_header].any():
        position = int(np.argmax(wrong))
        hint = (" (a field holding '|', such as JobName or SubmitLine? leave it out of "
                "--format)" if n_fields[position] > len(header) else "")
        raise SacctFormatError(
            f"expected {len(header)} '|'-separated fields (as in the header), "
            f"found {n_fields[position]}{hint}", source=source,
            line_number=int(body[position]) + 1, line=body_lines[position])
    if other_header < len(body):
        raise SacctFormatError(
            f"a second header, naming other fields or another order than line "
            f"{header_number}'s (sacct outputs of different --format concatenated): "
            f"read each output apart, or run sacct once with one --format",
            source=source, line_number=int(body[other_header]) + 1,
            line=body_lines[other_header])
    skipped = (body[wrong] + 1).tolist()
    jobs = ~(wrong | repeated)
    job_lines = np.empty(len(body_lines), dtype=object)
    job_lines[:] = body_lines
    del body_lines
    job_lines = job_lines[jobs]
    return header, _columns(job_lines, header, trailing), body[jobs] + 1, job_lines, skipped


def _columns(lines, header, trailing):
    """The fields of ``lines`` as one object array per header name read
    (:data:`_FIELDS_READ`; each line has ``len(header)`` fields, and when
    ``trailing`` a ``|`` may follow them)."""
    if len(lines) == 0:
        return {name: np.empty(0, dtype=object) for name in header
                if name.lower() in _FIELDS_READ}
    read = [k for k, name in enumerate(header) if name.lower() in _FIELDS_READ]
    # The empty first line keeps read_csv from taking a byte-order mark that starts
    # the first job line for the file's; text given as str may hold lone surrogates.
    data = ("\n" + "\n".join(lines)).encode("utf-8", errors="surrogatepass")
    frame = pd.read_csv(io.BytesIO(data), sep="|", header=None, dtype=object, skiprows=1,
                        names=range(len(header) + trailing), usecols=read, na_filter=False,
                        quoting=csv.QUOTE_NONE, lineterminator="\n", skip_blank_lines=False,
                        engine="c", encoding="utf-8", encoding_errors="surrogatepass")
    del data
    return {header[k]: frame[k].to_numpy(dtype=object) for k in read}


def _is_header(line, values):
    """Whether a line's fields are a header's: they name JobID, Submit, Start and State
    (the line's text is looked at first: a job line rarely holds those words)."""
    low = line.lower()
    if "jobid" not in low or "submit" not in low:
        return False
    names = {value.strip().lower() for value in values}
    return bool(names & {"jobid", "jobidraw"}) and {"submit", "start", "state"} <= names


def _check_header(header, source, number, line):
    names = {name.lower() for name in header}
    missing = [" or ".join(group) for group in _REQUIRED
               if not any(name.lower() in names for name in group)]
    if missing:
        raise SacctFormatError(
            f"header lacks required sacct field(s): {'; '.join(missing)} "
            f"(run sacct --parsable2 --format=JobID,User,Account,Partition,Submit,Start,"
            f"End,Elapsed,Timelimit,NCPUS,ReqCPUS,State)",
            source=source, line_number=number, line=line)
    duplicated = sorted({n for n in header if [h.lower() for h in header].count(n.lower()) > 1})
    if duplicated:
        raise SacctFormatError(f"header names field(s) twice: {', '.join(duplicated)}",
                               source=source, line_number=number, line=line)


def check_one_cluster(table, line_numbers, lines, source):
    """Refuse ``sacct --clusters`` output that lists jobs of several clusters.

    A job table is the log of one machine, and job ids are only unique within
    a cluster: two clusters' job 500 would be read as two runs of one job.
    """
    column = next((table[name] for name in table if name.lower() == "cluster"), None)
    if column is None:
        return
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    first = {}
    for code, value in enumerate(uniques):  # in order of first appearance
        name = value.strip()
        if name and name not in first:
            first[name] = code
    if len(first) > 1:
        names = list(first)
        position = int(np.argmax(codes == first[names[1]]))
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        raise SacctFormatError(
            f"jobs of {len(names)} clusters ({shown}); a job log is one machine's and job "
            f"ids repeat across clusters: run sacct --clusters=NAME for one cluster, or split "
            f"the file by its Cluster field", source=source,
            line_number=int(line_numbers[position]), line=lines[position])


def expand_arrays(header, table, line_numbers, lines, source, errors, skipped):
    """One row per task of each line standing for a job array's tasks (``123_[4-9]``).

    Each task's row is the line's, with ``JobID`` ``123_4``, ``123_5``, ...;
    it keeps the line's number and text for error messages. A bracket that
    is not such a task list is a malformed line (appended to ``skipped``
    when ``errors`` is ``"skip"``).
    """
    name = next((name for name in header if name.lower() == "jobid"), None)
    if name is None:
        return table, line_numbers, lines
    column = table[name]
    listed = np.flatnonzero([("[" in value or "]" in value) for value in column])
    if len(listed) == 0:
        return table, line_numbers, lines
    copies = np.ones(len(column), dtype=np.int64)
    task_ids = []
    for position in listed:
        try:
            ids = array_task_job_ids(column[position]) or None
        except ValueError as exc:
            if errors == "raise":
                raise SacctFormatError(f"field {name} ({column[position].strip()}): {exc}",
                                       source=source, line_number=int(line_numbers[position]),
                                       line=lines[position]) from None
            skipped.append(int(line_numbers[position]))
            copies[position] = 0
            ids = None
        else:
            copies[position] = 1 if ids is None else len(ids)
        task_ids.append(ids)
    rows = np.repeat(np.arange(len(column)), copies)
    table = {key: values[rows] for key, values in table.items()}
    first_copy = np.cumsum(copies) - copies
    for position, ids in zip(listed, task_ids):
        if ids:
            table[name][first_copy[position]:first_copy[position] + len(ids)] = ids
    return table, line_numbers[rows], lines[rows]

"""Batsim's JSON workload format: a writer for job tables, and a reader to check it.

Batsim (Dutot et al., JSSPP 2016) reads a workload as one JSON object::

    {"nb_res": 128,
     "jobs": [{"id": 1, "subtime": 0.0, "walltime": 3600.0, "res": 4,
               "profile": "delay_1200"}, ...],
     "profiles": {"delay_1200": {"type": "delay", "delay": 1200.0}, ...}}

* ``nb_res``: resources of the machine (``attrs["max_procs"]``);
* per job ``id`` (the SWF job number: a JSON number below ``2**31``, the
  text of its digits above, since Batsim takes a 32-bit integer or a text),
  ``subtime`` (submit time, s), ``walltime`` (the request, s, greater than 0;
  ``-1`` when unknown: Batsim then never kills the job), ``res`` (resources
  requested, the allocated ``n_procs``), ``profile`` (the name of its
  profile);
* ``delay`` profiles (the job holds its resources for ``delay`` seconds,
  greater than 0), one per distinct runtime, named ``delay_<seconds>``.

Batsim refuses a whole workload with one ``delay`` or ``walltime`` of 0 (its
loader asserts both are positive), and real logs hold jobs that ran for 0
seconds (a few on most archive logs, thousands on some). The writer refuses
them, naming the first, unless ``min_delay`` says what delay to give them.

The object also has ``description`` and ``command``-style metadata members
Batsim ignores. Members are written in a fixed order and numbers as integers
when they are whole, so equal tables give equal files.
"""

import json
import re
import warnings
from numbers import Real

import numpy as np
import pandas as pd

from .._atomic import write_result
from .._validation import Interval, WholeNumber, validate_params
from ..exceptions import JobTableError, SWFFormatError
from ..jobs import MAX_EXACT, as_job_table, validate_jobs
from ._source import read_source

__all__ = ["write_batsim", "read_batsim"]

_DIGITS = re.compile(r"0|[1-9][0-9]*")
"""A job id written as text: the digits of a whole number (matched whole, ``fullmatch``)."""


def _number(value):
    """A whole float as an int (for compact, stable text), else the float."""
    return int(value) if float(value).is_integer() else float(value)


def _bad(jobs, mask, column, reason, values):
    position = int(np.argmax(mask))
    value = float(values[position])
    return JobTableError(
        f"cannot write Batsim JSON: column {column!r} {reason} ({int(mask.sum())} row(s); first "
        f"at row {position}, job_id {jobs['job_id'].iloc[position]}: "
        f"{_number(value) if np.isfinite(value) else value})")


_INT32_LIMIT = 2 ** 31
"""Ids from here up are written as text: Batsim reads a numeric id as a 32-bit integer."""


_NB_RES = WholeNumber(1, high=_INT32_LIMIT - 1)
"""An ``nb_res`` Batsim reads: its loader takes ``nb_res`` and each ``res`` as 32-bit
integers."""


@validate_params({"machine_procs": [_NB_RES, None],
                  "min_delay": [Interval(Real, 0, None, closed="neither"), None],
                  "description": [str, None]})
def write_batsim(jobs, path, *, machine_procs=None, description=None, min_delay=None):
    """Write a job table as a Batsim JSON workload with delay profiles (atomically to a path).

    Parameters
    ----------
    jobs : DataFrame
        A job table with ``job_id``, ``submit_time``, ``run_time`` and
        ``n_procs`` (``req_procs`` where ``n_procs`` is missing); ``req_time``
        becomes the walltime (``-1`` where unknown).
    path : str, path or file object
        Destination (``"-"`` is standard output), written as
        :func:`predictkit._atomic.open_output` writes; a name ending in
        ``.gz`` is gzip-compressed. A file object open for writing (text or
        binary) is written to at its position and left open, as
        :func:`write_swf` does (not compressed, not atomically).
    machine_procs : int, optional
        ``nb_res``, a whole number from 1 to ``2**31 - 1`` (Batsim reads it as a
        32-bit integer); default ``jobs.attrs["max_procs"]`` (when known), else the
        widest job.
    description : str, optional
        Text for the ``description`` member (default: the table's ``note``,
        its lines joined when the log has several).
    min_delay : float, optional
        Runtimes below it (seconds, > 0) are written as delays of
        ``min_delay``: Batsim needs every delay to be positive. Default: a
        runtime of 0 is refused. A job it would raise above its request is
        refused (Batsim would kill it at its walltime, before its delay); one
        raised to its request ends at its delay, which Batsim counts as
        killed, as it counts a job that ran exactly its request (no warning:
        the times are the log's).

    Returns
    -------
    Path or file object
        ``path`` as a :class:`~pathlib.Path`, or the file object given.

    Warns
    -----
    UserWarning
        Jobs that ran longer than their request (real logs hold some): their
        delay is written as it is, above their walltime, and Batsim kills
        them at the walltime. A job that ran exactly its request (one the
        machine killed at its limit) ends at the same instant in Batsim,
        which counts it as killed too (its jobs succeed only when their
        delay is below their walltime); that is no warning.

    Raises
    ------
    JobTableError
        Before anything is written: a table without jobs, a missing column, a job without a
        submit time, runtime or width, a negative time, a runtime of 0
        without ``min_delay``, a request (``req_time``) of 0, a width above
        ``machine_procs`` or not a whole number, a request below a
        ``min_delay`` it would give, naming the column, the row and its
        ``job_id``; a ``job_id`` given to two jobs (Batsim needs
        unique ids), naming the first such id and its rows; an
        ``attrs["max_procs"]`` that is not a whole number from 1 to ``2**31 - 1``.
    InvalidParameterError
        A ``machine_procs`` that is not a whole number from 1 to ``2**31 - 1`` (a
        :class:`~predictkit.exceptions.ConfigError`).
    OutputError
        ``path`` is a directory, or its folder is missing or not writable.
    InvalidParameterError
        ``path`` is neither a path nor a file object open for writing,
        naming it (also a ``TypeError``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from predictkit.datasets import make_workload
    >>> jobs = make_workload(100, random_state=0)
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "w.json"
    >>> _ = write_batsim(jobs, out)
    >>> len(read_batsim(out)) == 100
    True
    """
    validate_jobs(jobs, required=("job_id", "submit_time", "run_time"), check_values=False,
                  columns=("job_id", "submit_time", "run_time", "n_procs", "req_procs",
                           "req_time"))
    if "n_procs" not in jobs.columns and "req_procs" not in jobs.columns:
        raise JobTableError("cannot write Batsim JSON: the job table has neither n_procs nor "
                            "req_procs (the resources of each job)")
    n = len(jobs)
    if n == 0:
        raise JobTableError("cannot write Batsim JSON: the job table has no jobs (a workload "
                            "without jobs gives a simulator nothing to run, and read_batsim "
                            "refuses it)")

    def column(name):
        if name not in jobs.columns:
            return np.full(n, np.nan)
        return jobs[name].to_numpy(dtype=np.float64, na_value=np.nan)

    ids = column("job_id")
    submit = column("submit_time")
    run = column("run_time")
    width = column("n_procs")
    width = np.where(np.isnan(width), column("req_procs"), width)
    request = column("req_time")
    for name, values in (("job_id", ids), ("submit_time", submit), ("run_time", run)):
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            raise _bad(jobs, bad, name, "must be known, finite and >= 0", values)
    bad = ids != np.round(ids)
    if bad.any():
        raise _bad(jobs, bad, "job_id", "must be a whole number (Batsim's ids are)", ids)
    bad = ~np.isfinite(width) | (width < 1) | (width != np.round(width))
    if bad.any():
        raise _bad(jobs, bad, "n_procs", "must be a whole number >= 1", width)
    if min_delay is None:
        bad = run == 0
        if bad.any():
            raise _bad(jobs, bad, "run_time", "is 0, and Batsim refuses a delay of 0: pass "
                       "min_delay (--min-delay), e.g. 1, to give such jobs that delay, or "
                       "leave them out", run)
    bad = np.isinf(request) | (request <= 0)
    if bad.any():
        raise _bad(jobs, bad, "req_time", "must be finite and > 0 (Batsim refuses a walltime "
                   "of 0 or less), or unknown (NaN, written as -1)", request)
    if min_delay is not None:
        raised = run < float(min_delay)
        bad = raised & (float(min_delay) > request)
        if bad.any():
            raise _bad(jobs, bad, "req_time", f"is below min_delay {_number(min_delay)}, which "
                       "would make Batsim kill the job before its delay: min_delay is for jobs "
                       "that ran 0 s (e.g. 1)", request)
        run = np.where(raised, float(min_delay), run)
    past = run > request
    if past.any():
        first = int(np.argmax(past))
        warnings.warn(
            f"{int(past.sum()):,} job(s) ran longer than their request (first at row "
            f"{first}, job_id {jobs['job_id'].iloc[first]}): "
            "their delay exceeds their walltime, so Batsim kills them at the walltime",
            UserWarning, stacklevel=3)
    _check_unique(ids)
    nb_res = machine_procs if machine_procs is not None else _header_procs(jobs.attrs)
    if nb_res is None:
        nb_res = int(width.max())
        if nb_res >= _INT32_LIMIT:
            raise _bad(jobs, width >= _INT32_LIMIT, "n_procs", "is 2**31 or more, which Batsim "
                       "cannot read (it takes res and nb_res as 32-bit integers)", width)
    too_wide = width > nb_res
    if too_wide.any():
        raise _bad(jobs, too_wide, "n_procs", f"exceeds the machine's {int(nb_res)} resources",
                   width)
    profiles = {f"delay_{_number(r)}": {"type": "delay", "delay": _number(r)}
                for r in np.unique(run)}
    records = [{"id": _number(i) if i < _INT32_LIMIT else str(int(i)), "subtime": _number(s),
                "walltime": -1 if np.isnan(w) else _number(w), "res": int(c),
                "profile": f"delay_{_number(r)}"}
               for i, s, w, c, r in zip(ids, submit, request, width, run)]
    workload = {
        "description": description or _note_text(jobs.attrs.get("note"))
        or "job table written by predictkit",
        "nb_res": int(nb_res), "jobs": records, "profiles": profiles,
    }
    payload = json.dumps(workload, separators=(",", ":"), allow_nan=False) + "\n"
    return write_result(path, payload.encode("utf-8"), owner="write_batsim")


def _note_text(note):
    """The table's ``note`` as one text (an SWF log may have several Note lines)."""
    if isinstance(note, (list, tuple)):
        return "\n".join(map(str, note))
    return note


def _check_unique(ids):
    """Refuse a job id given to two jobs, naming the first such id and its rows."""
    values, first, counts = np.unique(ids, return_index=True, return_counts=True)
    repeated = counts > 1
    if repeated.any():
        job_id = values[repeated][np.argmin(first[repeated])]
        rows = np.flatnonzero(ids == job_id)
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        raise JobTableError(
            f"cannot write Batsim JSON: job_id {_number(job_id)} is given to {len(rows)} jobs "
            f"(rows {shown}); Batsim needs a unique id per job ({int(repeated.sum())} "
            "id(s) repeated)")


def _header_procs(attrs):
    """``attrs["max_procs"]`` as an int, None when unknown, or a JobTableError."""
    value = attrs.get("max_procs")
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if not _NB_RES.is_satisfied_by(value):
        raise JobTableError(f"cannot write Batsim JSON: attrs['max_procs'] = {value!r} is not a "
                            "whole number from 1 to 2**31 - 1 (Batsim reads nb_res as a 32-bit "
                            "integer); pass machine_procs= or fix attrs['max_procs']")
    return int(value)


def _read_id(value, where, source):
    """A job id of the file: a whole number >= 0, or a text of its digits (Batsim allows text)."""
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value) or int(value) >= MAX_EXACT:
            raise SWFFormatError(
                f"{where}: id {value!r} is not a job number: Batsim allows any text as id, but a "
                "job table needs a whole number >= 0 below 2**53 (as a JSON number or a text of "
                "its digits such as \"42\")", source=source)
        return float(value)
    return _read_number(value, f"{where}: id", source, whole=True)


def _read_number(value, what, source, *, whole=False, least=0, unknown=None, positive=False):
    """A number of the file that a job table can hold, or an SWFFormatError naming it.

    Finite (JSON as Python reads it allows NaN and Infinity), at least
    ``least`` (above 0 when ``positive``: what Batsim asserts of delays and
    walltimes), whole when ``whole``; ``unknown`` is also accepted as is.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SWFFormatError(f"{what} {value!r} is not a number", source=source)
    if abs(value) >= MAX_EXACT and (isinstance(value, int) or np.isfinite(value)):
        # compared exactly: 2**53 + 1 must not round to 2**53
        shown = str(value) if len(str(value)) <= 30 else f"{str(value)[:20]}..."
        raise SWFFormatError(f"{what} {shown} is too large for a job table (below 2**53, "
                             "where every whole number is exact)", source=source)
    value = float(value)
    if unknown is not None and value == unknown:
        return value
    if not np.isfinite(value) or value < least or (positive and value <= 0) \
            or (whole and not value.is_integer()):
        kind = "a whole number" if whole else "a finite number"
        bound = "> 0" if positive else f">= {least}"
        extra = f" or {unknown:g} (unknown)" if unknown is not None else ""
        raise SWFFormatError(f"{what} {value!r} must be {kind} {bound}{extra}",
                             source=source)
    return value


def _read_resources(value, what, source):
    """``nb_res`` or a job's ``res``: a JSON integer from 1 to ``2**31 - 1``, as Batsim's
    loader takes them (``4.0`` is a float to it), or an SWFFormatError naming it."""
    number = _read_number(value, what, source, whole=True, least=1)
    if not isinstance(value, int) or number >= _INT32_LIMIT:
        raise SWFFormatError(f"{what} {value!r} must be an integer from 1 to 2**31 - 1 "
                             "(Batsim reads it as a 32-bit integer)", source=source)
    return number


class _RepeatedMember(ValueError):
    """A JSON object gives one member twice (its name is the argument)."""


def _unique_members(pairs):
    """The JSON object of ``pairs``, refusing a member given twice."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedMember(key)
        out[key] = value
    return out


def read_batsim(path):
    """Read a Batsim JSON workload whose profiles are delays into a job table.

    ``path`` is a file name or a file object, plain or gzip (found by its
    magic bytes).

    Returns a canonical job table (``job_id``, ``submit_time``, ``run_time``
    from the delay, ``n_procs`` and ``req_procs`` from ``res``, ``req_time``
    from ``walltime``, missing when ``-1``) sorted by submit time, with
    ``attrs["max_procs"]`` from ``nb_res``; ``attrs["source"]`` names the file.

    Raises
    ------
    SWFFormatError
        A file that is not JSON, lacks a member, has no job, names an unknown profile or
        one that is not a delay, or holds a value a job table cannot (text
        for a number, NaN or Infinity, a negative time, a fractional or
        zero ``id``, a ``res`` or ``nb_res`` that is not a JSON integer from 1 to
        ``2**31 - 1``, an ``id`` of ``2**53`` or more)
        or Batsim refuses (a delay or walltime of 0, a ``res`` above
        ``nb_res``), or is nested too deeply, or gives two jobs the same
        ``id``, naming the file and the job. Batsim allows any text as
        ``id``; a job table needs a number, so a text ``id`` must be the
        digits of a whole number (``"42"``).
    InvalidParameterError
        A ``path`` that is neither a path nor a file object open for reading
        (a :class:`~predictkit.exceptions.ConfigError`, also a ``TypeError``).
    """
    source, content = read_source(path, SWFFormatError, reader="read_batsim", parameter="path")
    try:
        data = json.loads(content.decode("utf-8-sig") if isinstance(content, bytes)
                          else content.removeprefix("\ufeff"), object_pairs_hook=_unique_members)
    except _RepeatedMember as exc:
        raise SWFFormatError(f"the member {exc.args[0]!r} is given twice in one object; JSON "
                             "readers differ on which one counts, so a workload gives each "
                             "once", source=source) from None
    except json.JSONDecodeError as exc:
        raise SWFFormatError(f"not JSON ({exc.msg})", source=source,
                             line_number=exc.lineno) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise SWFFormatError(f"not a Batsim workload ({str(exc).splitlines()[0][:80]})",
                             source=source) from None
    except UnicodeDecodeError:
        raise SWFFormatError("not UTF-8 text", source=source) from None
    except RecursionError:
        raise SWFFormatError("JSON nested too deeply to be a Batsim workload",
                             source=source) from None
    if not isinstance(data, dict) or not {"nb_res", "jobs", "profiles"} <= set(data):
        raise SWFFormatError("a Batsim workload needs the members nb_res, jobs and profiles",
                             source=source)
    if not isinstance(data["jobs"], list) or not isinstance(data["profiles"], dict):
        raise SWFFormatError("a Batsim workload's jobs must be a list and its profiles an "
                             "object", source=source)
    nb_res = _read_resources(data["nb_res"], "nb_res", source)
    profiles = data["profiles"]
    rows = []
    for position, job in enumerate(data["jobs"]):
        if not isinstance(job, dict):
            raise SWFFormatError(f"job {position} is not an object", source=source)
        missing = [k for k in ("id", "subtime", "res", "profile") if k not in job]
        if missing:
            raise SWFFormatError(f"job {position} lacks {', '.join(missing)}", source=source)
        where = f"job {position} (id {job['id']!r})"
        profile = profiles.get(job["profile"]) if isinstance(job["profile"], str) else None
        if not isinstance(profile, dict):
            raise SWFFormatError(f"{where}: profile {job['profile']!r} is not among the "
                                 "file's profiles", source=source)
        if profile.get("type") != "delay" or "delay" not in profile:
            kind = profile.get("type")
            raise SWFFormatError(
                f"{where}: profile {job['profile']!r} "
                + (f"is of type {kind!r}; only delay profiles give a runtime a job table can "
                   "hold" if kind != "delay" else "is a delay profile without its delay"),
                source=source)
        job_id = _read_id(job["id"], where, source)
        walltime = _read_number(job.get("walltime", -1), f"{where}: walltime", source,
                                unknown=-1, positive=True)
        res = _read_resources(job["res"], f"{where}: res", source)
        if res > nb_res:
            raise SWFFormatError(f"{where}: res {_number(res)} exceeds the machine's nb_res "
                                 f"{_number(nb_res)}", source=source)
        rows.append((job_id, _read_number(job["subtime"], f"{where}: subtime", source),
                     _read_number(profile["delay"], f"{where}: delay of profile "
                                  f"{job['profile']!r}", source, positive=True),
                     res, np.nan if walltime == -1 else walltime))
    if not rows:
        raise SWFFormatError("no jobs: the workload's jobs list is empty", source=source)
    frame = pd.DataFrame(rows, columns=["job_id", "submit_time", "run_time", "n_procs",
                                        "req_time"])
    repeated = frame["job_id"].duplicated(keep=False).to_numpy()
    if repeated.any():
        first = int(np.argmax(repeated))
        same = np.flatnonzero(frame["job_id"].to_numpy() == frame["job_id"].iloc[first])
        raise SWFFormatError(f"jobs {int(same[0])} and {int(same[1])} have the same id "
                             f"{_number(frame['job_id'].iloc[first])}; Batsim needs a unique "
                             "id per job", source=source)
    frame["req_procs"] = frame["n_procs"]
    frame = frame.sort_values("submit_time", kind="stable")
    return as_job_table({name: frame[name].to_numpy() for name in frame.columns},
                        attrs={"max_procs": int(nb_res), "source": source})

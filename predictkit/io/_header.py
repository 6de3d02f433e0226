"""SWF header comments: parse ``; Key: value`` lines into ``attrs`` and back.

The header format is the one documented by the Parallel Workloads Archive
("The Standard Workload Format", header comments section).
"""

import re

import numpy as np

from ..exceptions import SWFFormatError
from ..jobs import MAX_EXACT

__all__ = ["parse_header", "format_header", "merge_header", "line_problem", "field_problem",
           "snake_case", "HEADER_KEYS"]

HEADER_KEYS = (
    "Version", "Computer", "Installation", "Acknowledge", "Information", "Conversion",
    "MaxJobs", "MaxRecords", "Preemption", "UnixStartTime", "TimeZone", "TimeZoneString",
    "StartTime", "EndTime", "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory",
    "AllowOveruse", "MaxQueues", "Queues", "Queue", "MaxPartitions", "Partitions",
    "Partition", "Note",
)
"""Keys defined by the SWF specification, in the order they are written."""

_LIMIT = int(MAX_EXACT) - 1
# Numeric keys: (smallest, largest, whole numbers only). From 2**53 on float64 is not exact.
_NUMERIC = {
    "max_jobs": (0, _LIMIT, True), "max_records": (0, _LIMIT, True),
    "max_nodes": (1, _LIMIT, True), "max_procs": (1, _LIMIT, True),
    "max_memory": (0, _LIMIT, True), "max_queues": (0, _LIMIT, True),
    "max_partitions": (0, _LIMIT, True), "max_runtime": (0, _LIMIT, False),
    "unix_start_time": (0, _LIMIT, False), "time_zone": (-86400, 86400, False),
}
# Keys whose value changes results (machine size, clock): conflicting repeats are an error.
_SINGLE = {"max_nodes", "max_procs", "unix_start_time", "time_zone"}
_ALWAYS_LIST = {"note", "queue", "partition"}
_KEY_LINE = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9]*):(?!//)\s?(.*)$")
# A number, then the end or whitespace (``259200 (3 days)``, ``1664 (72, 1368, 224)``).
_LEADING_NUMBER = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?:\s|$)",
                             re.ASCII)
# Values that say "unknown" (Sandia-Ross: ``MaxRuntime: N/A``); SWF's own mark is -1.
_UNKNOWN = re.compile(r"^(?:n/?a|unknown|none|\?|-1)(?:\s|$)", re.IGNORECASE)
# What a reader (pandas included, which ends lines at "\r" too) or an editor may take as a line end.
_LINE_BREAK = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


class _BadValue(ValueError):
    """A numeric header value that is not a sane number (the message says why)."""


def snake_case(key):
    """``MaxProcs`` -> ``max_procs``, ``TimeZoneString`` -> ``time_zone_string``."""
    key = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key)
    key = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", key)
    return key.lower()


def _value(key, text):
    text = text.strip()
    if key not in _NUMERIC:
        return text
    if not text or _UNKNOWN.match(text):
        return None
    match = _LEADING_NUMBER.match(text)
    if not match:
        raise _BadValue(f"{text!r} is not a number")
    digits = match.group(1)
    # Whole numbers are compared exactly: 2**53 + 1 must not round to 2**53.
    number = int(digits) if digits.lstrip("+-").isdigit() else float(digits)
    low, high, whole = _NUMERIC[key]
    if whole and not float(number).is_integer():
        raise _BadValue(f"{digits} is not a whole number")
    if not low <= number <= high:
        raise _BadValue(f"{digits} is out of range (allowed: {low:,} to {high:,})")
    return int(number) if float(number).is_integer() else number


def parse_header(lines, *, source=None, line_numbers=None):
    """Parse SWF header lines into a dict with snake_case keys.

    Known numeric keys (``MaxProcs``, ``UnixStartTime``, ...) become numbers:
    the number the value starts with, which must be followed by the end or
    a space (``MaxRuntime: 259200 (3 days)``); whole numbers become ``int``.
    Counts must be whole, ``MaxNodes``/``MaxProcs`` at least 1, every value
    below 2**53 and ``TimeZone`` within a day. A value that says it is
    unknown (empty, ``N/A``, ``NA``, ``unknown``, ``none``, ``?``, ``-1``)
    becomes ``None``. A numeric key repeated with the same value is kept
    once; ``MaxNodes``, ``MaxProcs``, ``UnixStartTime`` and ``TimeZone``
    (which predictkit computes with) repeated with a different value are an
    error naming both lines. ``Note``, ``Queue`` and ``Partition`` are
    always lists; other repeated keys become lists of their values (the
    archive's Sandia-Ross log gives ``MaxQueues`` twice, 4 and 3).

    A line is a key line when its key is one of the SWF keys (at any
    indentation, as in right-aligned headers) or when it is indented by at
    most three spaces; other indented lines continue the previous value.
    Lines that are neither keep their text under ``"comments"``. Unknown keys are
    kept as text, not dropped.

    Parameters
    ----------
    lines : list of str
        The header lines (with or without their leading ``;``).
    source : str, optional
        The file, for error messages.
    line_numbers : list of int, optional
        The line number of each of ``lines`` in the file (default 1, 2, ...).

    Raises
    ------
    SWFFormatError
        For a numeric value that is not a sane number, or a repeated
        single-valued key with two different values (naming both lines).
    """
    return _parse(lines, source, line_numbers)[0]


def _parse(lines, source=None, line_numbers=None):
    """:func:`parse_header`, and for each line the key it gives a value to.

    The key is snake_case; ``"comments"`` for a line of free text, None for
    an empty one.
    """
    if line_numbers is None:
        line_numbers = range(1, len(lines) + 1)
    attrs, last, first_seen, owners = {}, None, {}, []
    for raw, number in zip(lines, line_numbers):
        text = raw.lstrip()[1:] if raw.lstrip().startswith(";") else raw
        if not text.strip():
            last = None
            owners.append(None)
            continue
        match = _KEY_LINE.match(text)
        if match and (match.group(2) in HEADER_KEYS or len(match.group(1)) <= 3
                      and "\t" not in match.group(1)):
            key = snake_case(match.group(2))
            try:
                value = _value(key, match.group(3))
            except _BadValue as exc:
                raise SWFFormatError(f"header {match.group(2)}: {exc}", source=source,
                                     line_number=number, line=raw) from None
            if key in _ALWAYS_LIST:
                attrs.setdefault(key, []).append(value)
            elif key not in attrs:
                attrs[key] = value
                first_seen[key] = (number, raw)
            elif key in _NUMERIC and value in (attrs[key] if isinstance(attrs[key], list)
                                               else [attrs[key]]):
                pass
            elif key in _SINGLE:
                first_number, first_line = first_seen[key]
                raise SWFFormatError(
                    f"header {match.group(2)} is given twice with different values: line "
                    f"{first_number} ({first_line.strip()!r}) and line {number}",
                    source=source, line_number=number, line=raw)
            else:
                previous = attrs[key]
                attrs[key] = (previous if isinstance(previous, list) else [previous]) + [value]
            last = key
            owners.append(key)
        elif last is not None and isinstance(_last_value(attrs, last), str):
            _append(attrs, last, text.strip())
            owners.append(last)
        else:
            attrs.setdefault("comments", []).append(text.strip())
            owners.append("comments")
    return attrs, owners


def _last_value(attrs, key):
    value = attrs[key]
    return value[-1] if isinstance(value, list) else value


def _append(attrs, key, text):
    value = attrs[key]
    if isinstance(value, list):
        value[-1] = f"{value[-1]}\n{text}" if value[-1] else text
    else:
        attrs[key] = f"{value}\n{text}" if value else text


def format_header(attrs):
    """Build SWF header lines from ``attrs`` (the inverse of :func:`parse_header`).

    Only the keys of the SWF specification (:data:`HEADER_KEYS`) are written,
    in specification order; continuation text goes on indented lines.
    """
    lines = []
    for key in HEADER_KEYS:
        name = snake_case(key)
        if name not in attrs or attrs[name] is None:
            continue
        values = attrs[name] if isinstance(attrs[name], (list, tuple)) else [attrs[name]]
        for value in values:
            first, *rest = _value_text(value).split("\n")
            lines.append(f"; {key}: {first}")
            lines.extend(f";       {more}" for more in rest)
    return lines


def _value_text(value):
    """A header value as SWF writes it: a whole number held as a float (a width taken from a
    float column) as an integer (``64``, not ``64.0``, which readers that parse the field as
    an integer refuse), anything else as its text."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and \
            float(value).is_integer():
        return str(int(value))
    return str(value)


def line_problem(line):
    """Why ``line`` cannot be written as one SWF header line (None when it can).

    A header line is text starting with ``;`` (after spaces or tabs) that
    holds no line break and no NUL: anything else would read back as a job
    line, or make :func:`~predictkit.io.read_swf` refuse the file.
    """
    if not isinstance(line, str):
        return f"is {type(line).__name__}, not text"
    if _LINE_BREAK.search(line):
        return "holds a line break"
    if "\x00" in line:
        return "holds a NUL character"
    if not line.lstrip(" \t").startswith(";"):
        return "does not start with ';'"
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text"
    return None


def field_problem(name, value):
    """Why ``value`` cannot be written as the header field ``name`` (None when it can).

    ``name`` is the snake_case name of one of :data:`HEADER_KEYS`. The value
    must read back (:func:`parse_header`) as that field and nothing else: a
    number where SWF defines a number, in its range, one value for the fields
    predictkit computes with (``MaxProcs``, ``MaxNodes``, ``UnixStartTime``,
    ``TimeZone``), no line break other than ``\\n`` (which continues a text
    value on the next line) and no continuation line that reads as another
    field.
    """
    key = next(k for k in HEADER_KEYS if snake_case(k) == name)
    values = value if isinstance(value, (list, tuple)) else [value]
    if name in _NUMERIC:
        for item in values:
            try:
                _value(name, "" if item is None else _value_text(item))
            except _BadValue as exc:
                return str(exc)
        if name in _SINGLE and len({_value_text(v) for v in values}) > 1:
            return f"{key} takes one value, got {len(values)} different ones"
    lines = format_header({name: value})
    for line in lines:
        problem = line_problem(line)
        if problem:
            return f"{problem} ({line!r})"
    others = sorted(set(_parse(lines)[0]) - {name})
    if others:
        return f"a continuation line reads as another header field or comment ({others[0]})"
    return None


def merge_header(lines, attrs):
    """Header lines holding the SWF fields of ``attrs``, the other lines kept verbatim.

    For each field of :data:`HEADER_KEYS` that ``attrs`` holds (snake_case)
    with a value other than the one ``lines`` give it, the lines of that
    field (its continuation lines included) are replaced by the field as
    :func:`format_header` writes it, where its first line was, or added
    after the last line when ``lines`` lack it; a value of None removes the
    field. Fields absent from ``attrs``, free comments and unknown keys keep
    their lines.

    Parameters
    ----------
    lines : list of str
        Header lines as :func:`~predictkit.io.read_swf` keeps them in
        ``attrs["header"]``.
    attrs : mapping
        The table's ``attrs``; check each changed field with
        :func:`field_problem` first.

    Returns
    -------
    list of str

    Raises
    ------
    SWFFormatError
        If ``lines`` cannot be parsed (see :func:`parse_header`).
    """
    stored, owners = _parse(lines)
    changed = changed_fields(attrs, stored)
    out, placed = [], set()
    for position, (line, owner) in enumerate(zip(lines, owners)):
        if owner not in changed:
            out.append(line)
            continue
        if owner in placed:
            continue
        placed.add(owner)
        new = format_header({owner: attrs[owner]})
        following = next((o for o in owners[position:] if o != owner), None)
        if not new and following == "comments":
            new = [";"]  # else the free comment would continue the field before
        out.extend(new)
    for name in changed:
        if name not in placed:
            out.extend(format_header({name: attrs[name]}))
    return out


def changed_fields(attrs, stored):
    """Snake_case names of the SWF fields whose value in ``attrs`` differs from ``stored``."""
    names = (snake_case(key) for key in HEADER_KEYS)
    return [name for name in names
            if name in attrs and not _same(attrs[name], stored.get(name))]


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # array-like values
        return False

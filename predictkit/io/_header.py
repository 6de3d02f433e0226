"""SWF header comments: parse ``; Key: value`` lines into ``attrs`` and back.

The header format is the one documented by the Parallel Workloads Archive
("The Standard Workload Format", header comments section).
"""

import re

__all__ = ["parse_header", "format_header", "snake_case", "HEADER_KEYS"]

HEADER_KEYS = (
    "Version", "Computer", "Installation", "Acknowledge", "Information", "Conversion",
    "MaxJobs", "MaxRecords", "Preemption", "UnixStartTime", "TimeZone", "TimeZoneString",
    "StartTime", "EndTime", "MaxNodes", "MaxProcs", "MaxRuntime", "MaxMemory",
    "AllowOveruse", "MaxQueues", "Queues", "Queue", "MaxPartitions", "Partitions",
    "Partition", "Note",
)
"""Keys defined by the SWF specification, in the order they are written."""

_NUMERIC = {"max_jobs", "max_records", "unix_start_time", "time_zone", "max_nodes",
            "max_procs", "max_runtime", "max_memory", "max_queues", "max_partitions"}
_ALWAYS_LIST = {"note", "queue", "partition"}
_KEY_LINE = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9]*):(?!//)\s?(.*)$")
_LEADING_NUMBER = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)")


def snake_case(key):
    """``MaxProcs`` -> ``max_procs``, ``TimeZoneString`` -> ``time_zone_string``."""
    key = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key)
    key = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", key)
    return key.lower()


def _value(key, text):
    text = text.strip()
    if key in _NUMERIC:
        match = _LEADING_NUMBER.match(text)
        if match:
            number = match.group(1)
            return int(number) if "." not in number else float(number)
    return text


def parse_header(lines):
    """Parse SWF header lines into a dict with snake_case keys.

    Known numeric keys (``MaxProcs``, ``UnixStartTime``, ...) become numbers
    (their leading number, as in ``MaxRuntime: 259200 (3 days)``). ``Note``,
    ``Queue`` and ``Partition`` are always lists; other keys become lists
    only when repeated. A line is a key line when its key is one of the SWF
    keys (at any indentation, as in right-aligned headers) or when it is
    indented by at most three spaces; other indented lines continue the
    previous value. Lines
    that are neither keep their text under ``"comments"``. Unknown keys are
    kept, not dropped.
    """
    attrs, last = {}, None
    for raw in lines:
        text = raw.lstrip()[1:] if raw.lstrip().startswith(";") else raw
        if not text.strip():
            last = None
            continue
        match = _KEY_LINE.match(text)
        if match and (match.group(2) in HEADER_KEYS or len(match.group(1)) <= 3
                      and "\t" not in match.group(1)):
            key = snake_case(match.group(2))
            value = _value(key, match.group(3))
            if key in _ALWAYS_LIST:
                attrs.setdefault(key, []).append(value)
            elif key in attrs:
                previous = attrs[key]
                attrs[key] = (previous if isinstance(previous, list) else [previous]) + [value]
            else:
                attrs[key] = value
            last = key
        elif last is not None and isinstance(_last_value(attrs, last), str):
            _append(attrs, last, text.strip())
        else:
            attrs.setdefault("comments", []).append(text.strip())
    return attrs


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
        values = attrs[name] if isinstance(attrs[name], list) else [attrs[name]]
        for value in values:
            first, *rest = str(value).split("\n")
            lines.append(f"; {key}: {first}")
            lines.extend(f";       {more}" for more in rest)
    return lines

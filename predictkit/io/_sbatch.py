"""The resource requests of a Slurm batch script (its ``#SBATCH`` lines)."""

import shlex
from pathlib import Path

from .._validation import check_path_or_file
from ..exceptions import ConfigError, InputFileError
from ._slurm_fields import MAX_COUNT, is_digits, parse_time_request
from ._source import UTF16_MARKS, compression_of

__all__ = ["read_sbatch_script"]

_OPTIONS = {
    "--time": "time", "-t": "time",
    "--ntasks": "ntasks", "-n": "ntasks",
    "--nodes": "nodes", "-N": "nodes",
    "--cpus-per-task": "cpus_per_task", "-c": "cpus_per_task",
    "--ntasks-per-node": "ntasks_per_node",
    "--partition": "partition", "-p": "partition",
    "--account": "account", "-A": "account",
    "--job-name": "job_name", "-J": "job_name",
}
_COUNTS = ("ntasks", "nodes", "cpus_per_task", "ntasks_per_node")
_UTF8_BOM = b"\xef\xbb\xbf"


HETEROGENEOUS_SEPARATORS = ("hetjob", "packjob")
"""The ``#SBATCH`` words that separate the components of a heterogeneous job (``packjob``
before Slurm 20.02)."""


def read_sbatch_script(path):
    """Read the requests of a batch script as ``sbatch`` does.

    ``sbatch`` reads ``#SBATCH`` lines from the top of the script until the
    first line that is neither a comment nor blank; so does this function.
    Options may be written ``--time=2:00:00``, ``--time 2:00:00``, ``-t 2:00:00``
    or ``-t2:00:00``; a later line overrides an earlier one; other options are
    ignored.

    Parameters
    ----------
    path : str or path
        The script.

    Returns
    -------
    dict
        ``time`` (seconds, see :func:`~predictkit.io._slurm_fields.parse_time_request`;
        ``inf`` for Slurm's no time limit: ``0``, ``UNLIMITED``, ``INFINITE``),
        ``ntasks``, ``nodes`` (the smallest of a range such as ``2-4``),
        ``cpus_per_task``, ``ntasks_per_node``, ``procs`` (processors the
        job asks for: ``ntasks x cpus_per_task``, else ``nodes x
        ntasks_per_node x cpus_per_task``), ``partition``, ``account`` and
        ``job_name``; ``None`` for what the script does not say.
        ``ignored_after``: the line of the first command when ``#SBATCH``
        lines follow it (``sbatch`` ignores them, and so does this function),
        else ``None``.

    Raises
    ------
    ConfigError
        A value that cannot be read, naming the file, line and option; a
        script that is compressed, UTF-16 or binary, starts with a UTF-8
        byte-order mark, or is empty; a ``path`` that is not a path (an
        :class:`~predictkit.exceptions.InvalidParameterError`).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
    ...     _ = f.write("#!/bin/bash\\n#SBATCH -t 1-00:00:00\\n#SBATCH --ntasks=64\\nsrun a.out\\n")
    >>> read_sbatch_script(f.name)["time"], read_sbatch_script(f.name)["procs"]
    (86400.0, 64)
    >>> os.unlink(f.name)
    """
    path = Path(check_path_or_file(path, "path", "read_sbatch_script", files=False))
    found = dict.fromkeys(list(dict.fromkeys(_OPTIONS.values())) + ["procs", "ignored_after"])
    try:
        data = path.read_bytes()
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        raise InputFileError.from_os_error(exc) from None
    compression = compression_of(data)
    if compression is not None:
        kind, command = compression
        raise ConfigError(f"{path}: is {kind} data, not a text script: sbatch reads its "
                          f"#SBATCH lines from plain text (decompress it first, e.g. with "
                          f"{command})")
    if data[:2] in UTF16_MARKS or b"\x00" in data[:4096]:
        raise ConfigError(f"{path}: not a text script in UTF-8 or ASCII (UTF-16 or binary "
                          "data), so its #SBATCH lines cannot be read; convert it, e.g. with "
                          "iconv -f UTF-16 -t UTF-8")
    if data.startswith(_UTF8_BOM):
        raise ConfigError(f"{path}: starts with a UTF-8 byte-order mark, so its first line "
                          "reads as a command and sbatch would refuse it (its first line must "
                          "start with #!): save it without the mark, e.g. with dos2unix")
    if not data.strip():
        what = "is empty" if not data else "holds only white space"
        raise ConfigError(f"{path}: the script {what}, so it has no #SBATCH lines (sbatch "
                          "refuses it too)")
    # sbatch reads bytes: a stray byte in a later command must not stop the options
    # and splits lines at newlines only (splitlines would also split at a form feed)
    lines = data.decode("utf-8", errors="replace").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or (line.startswith("#") and not line.startswith("#SBATCH")):
            continue
        if not line.startswith("#SBATCH"):
            # the first command ends the options, as in sbatch
            if any(later.lstrip().startswith("#SBATCH") for later in lines[number:]):
                found["ignored_after"] = number
            break
        try:
            words = shlex.split(line[len("#SBATCH"):], comments=True)
        except ValueError as exc:
            raise ConfigError(f"{path}, line {number}: cannot read {raw.strip()!r} ({exc})") \
                from None
        if words and words[0] in HETEROGENEOUS_SEPARATORS:
            raise ConfigError(
                f"{path}, line {number}: #SBATCH {words[0]} starts another component of a "
                "heterogeneous job, whose components ask for resources of their own; give a "
                "script with one component's options (e.g. their total processors)")
        _options(words, found, f"{path}, line {number}")
    found["procs"] = _procs(found)
    return found


def _options(words, found, where):
    k = 0
    while k < len(words):
        word = words[k]
        name, value = word, None
        if word.startswith("--") and "=" in word:
            name, value = word.split("=", 1)
        elif word.startswith("-") and not word.startswith("--") and len(word) > 2:
            name, value = word[:2], word[2:]
        key = _OPTIONS.get(name)
        if key is not None and value is None:
            if k + 1 >= len(words):
                raise ConfigError(f"{where}: #SBATCH {name} has no value")
            value = words[k + 1]
            k += 1
        k += 1
        if key is None:
            continue
        found[key] = _value(key, name, value, where)


def _value(key, name, value, where):
    if key == "time":
        return parse_time_request(value, name=f"{where}: #SBATCH {name}", no_limit=True)
    if key in _COUNTS:
        # a count, or for --nodes a range "min-max" whose smallest sbatch may grant
        counts = value.split("-", 1) if key == "nodes" else [value]
        if not all(is_digits(c) and 1 <= int(c) <= MAX_COUNT for c in counts) or (
                len(counts) == 2 and int(counts[0]) > int(counts[1])):
            kind = "a positive count" + (" or a range min-max" if key == "nodes" else "")
            raise ConfigError(f"{where}: #SBATCH {name} must be {kind} (at most "
                              f"{MAX_COUNT:,}), got {value!r}")
        return int(counts[0])
    return value


def _procs(found):
    per_task = found["cpus_per_task"] or 1
    if found["ntasks"] is not None:
        return found["ntasks"] * per_task
    if found["nodes"] is not None or found["ntasks_per_node"] is not None:
        # sbatch allocates one node unless told otherwise
        return (found["nodes"] or 1) * (found["ntasks_per_node"] or 1) * per_task
    return None if found["cpus_per_task"] is None else per_task

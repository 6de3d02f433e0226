"""What ``predictkit wait`` and ``predictkit walltime`` share: the job, names, the log's clock."""

import math

import numpy as np
import pandas as pd

from .._summary import width_unit
from ..exceptions import ConfigError
from ..io._slurm_fields import is_time_zone
from ._parser import path_text

__all__ = ["add_request_options", "job_request", "resolve_name", "partition_ids",
           "width_in_log_unit", "log_end", "log_zone", "clock_time", "name_of"]

_NAME_MAPS = {"user_id": ("user_ids",), "partition_id": ("partition_ids",),
              "group_id": ("account_ids", "group_ids")}


def add_request_options(parser, *, procs_required, script_also_gives):
    """``--time``, ``--procs`` and ``--script``: the job a user asks about.

    ``script_also_gives`` names, for the help, the command's own option that a
    script's ``#SBATCH`` lines also give (``"--partition"``).
    """
    parser.add_argument("--time", metavar="TIME",
                        help="requested time limit as for sbatch --time: 2:00:00, 1-12:00:00, "
                             "90 (minutes), 90min (default: the --script's #SBATCH --time)")
    parser.add_argument("--procs", type=int, metavar="N",
                        help="processors (CPUs; nodes for a log that counts nodes) requested "
                             "(default: from the --script's "
                             "#SBATCH --ntasks/--nodes/--cpus-per-task" + (
                                 ")" if procs_required else ", else the user's latest job's; "
                                 "of the predictors compared, only the learned one uses "
                                 "the width, as one of its features)"))
    parser.add_argument("--script", metavar="FILE", type=path_text,
                        help=f"a batch script whose #SBATCH lines give --time, --procs and "
                             f"{script_also_gives} when those are not given")


def job_request(args, *, need_procs):
    """``(seconds, procs, script)`` from ``--time``/``--procs``, else from ``--script``."""
    from ..io._sbatch import read_sbatch_script
    from ..io._slurm_fields import parse_time_request

    script = read_sbatch_script(args.script) if args.script else {}
    ignored = (f"; its #SBATCH lines after line {script['ignored_after']} are ignored, as "
               "sbatch ignores them: they follow a command"
               if script.get("ignored_after") else "")
    seconds = parse_time_request(args.time) if args.time is not None else script.get("time")
    if seconds is None:
        raise ConfigError("give the requested time with --time (e.g. --time 2:00:00)"
                          + (f" or an #SBATCH --time line in {args.script}{ignored}"
                             if args.script else " or --script"))
    if math.isinf(seconds):
        raise ConfigError(f"{args.script}: #SBATCH --time asks for no time limit (the "
                          "partition's MaxTime applies, which a log does not state): give that "
                          "limit with --time")
    procs = args.procs if args.procs is not None else script.get("procs")
    if procs is not None and procs < 1:
        raise ConfigError(f"--procs must be at least 1, got {procs}")
    if need_procs and procs is None:
        raise ConfigError("give the number of processors with --procs"
                          + (f" (no #SBATCH --ntasks/--nodes/--cpus-per-task in {args.script}"
                             f"{ignored})" if args.script else " or --script"))
    return float(seconds), procs, script


def width_in_log_unit(jobs, args, procs, script):
    """The width asked, in what the log's widths count (:func:`~predictkit._summary.width_unit`).

    A log that counts nodes takes ``--procs`` as a node count, and from
    ``--script`` (when ``--procs`` is not given) its ``#SBATCH --nodes``
    rather than its processors. Returns ``(width, note)``, the note saying so
    for a node log (None otherwise).

    Raises
    ------
    ConfigError
        When the log counts nodes and the width came from a script without
        ``--nodes``.
    """
    if width_unit(jobs) != "node" or procs is None:
        return procs, None
    note = "the log counts nodes (it has no CPU field): the width asked is in nodes"
    if args.procs is None:
        if script.get("nodes") is None:
            raise ConfigError(f"the log counts nodes (it has no CPU field) and {args.script} "
                              f"asks for processors, not nodes: give --procs as a node count")
        return script["nodes"], note
    return procs, note


def resolve_name(jobs, value, column, flag):
    """The id in ``column`` of the name ``value`` (a sacct name, or an SWF number).

    Raises
    ------
    ConfigError
        When no job of the log has it, naming the flag and a few known names.
    """
    mapping = next((jobs.attrs[k] for k in _NAME_MAPS.get(column, ())
                    if isinstance(jobs.attrs.get(k), dict)), None)
    if mapping is not None and value in mapping:
        return float(mapping[value])
    present = jobs[column].dropna().unique() if column in jobs else []
    if mapping is None:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if number in set(present.tolist() if len(present) else []):
            return number
    known = sorted(mapping) if mapping is not None else [
        f"{v:g}" for v in sorted(float(v) for v in present)]
    if not known:
        raise ConfigError(f"{flag} {value}: the log gives no {column.removesuffix('_id')} for "
                          "any job")
    _refuse_unknown(flag, value, known)


def _refuse_unknown(flag, value, known):
    shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    raise ConfigError(f"{flag} {value}: no job of the log has it ({len(known)} known: "
                      f"{shown})")


def partition_ids(jobs, partition, flag):
    """The ids in ``partition_id`` of the jobs that share a partition with ``partition``.

    ``partition`` lists partitions comma-separated, as ``sbatch --partition``
    does; so does ``sacct`` for a pending job submitted to several
    (``cpu,gpu``), which counts in each of them.

    Raises
    ------
    ConfigError
        When a partition's name is empty or no job of the log has one of the
        partitions, naming the flag.
    """
    asked = partition.split(",")
    if not all(name.strip() for name in asked):
        raise ConfigError(f"{flag} {partition!r} names an empty partition: give partition "
                          "names separated by commas, e.g. cpu,gpu")
    mapping = jobs.attrs.get("partition_ids")
    if not isinstance(mapping, dict):
        return [resolve_name(jobs, name, "partition_id", flag) for name in asked]
    members = {name: set(name.split(",")) for name in mapping}
    known = sorted(set().union(*members.values()))
    for name in asked:
        if name not in known:
            _refuse_unknown(flag, name, known)
    return [float(number) for name, number in mapping.items() if members[name] & set(asked)]


def name_of(jobs, value, column):
    """The name of id ``value`` in ``column`` (the inverse of :func:`resolve_name`):
    a sacct name, else the SWF number as text; None for an unknown id."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    mapping = next((jobs.attrs[k] for k in _NAME_MAPS.get(column, ())
                    if isinstance(jobs.attrs.get(k), dict)), None)
    if mapping is not None:
        return next((name for name, number in mapping.items() if float(number) == value), None)
    return f"{value:g}"


def log_end(jobs):
    """The last moment the log knows of: its latest submission, start or end (log seconds)."""
    times = np.concatenate([jobs[c].to_numpy(dtype=float) for c in
                            ("submit_time", "start_time", "end_time")])
    times = times[np.isfinite(times)]
    if not len(times):
        raise ConfigError("the log has no job with a known submit time")
    return float(times.max())


def log_zone(jobs):
    """The zone of the log's clock: sacct's ``--time-zone``, an SWF log's ``TimeZoneString``, else UTC.

    The one zone in which ``wait`` reads ``--now`` and a ``--queue`` snapshot
    and shows the log's dates, so that a time given is shown back unchanged.

    Raises
    ------
    ConfigError
        When the zone is not one pandas knows, naming the log and the zone.
    """
    zone = str(jobs.attrs.get("time_zone_string") or "UTC")
    if not is_time_zone(zone):
        source = jobs.attrs.get("source", "the log")
        raise ConfigError(f"{source}: the log's time zone {zone!r} (SWF header TimeZoneString) "
                          f"is not a known zone such as Europe/Paris, so its dates can be "
                          f"neither shown nor read")
    return zone


def clock_time(jobs, seconds):
    """A log time as a date in the log's zone (:func:`log_zone`), else ``t+SECONDS``.

    Raises
    ------
    ConfigError
        For a zone :func:`log_zone` refuses, or a moment outside the dates
        pandas can show (years 1677 to 2262), naming the log.
    """
    origin = jobs.attrs.get("unix_start_time")
    if origin is None or not np.isfinite(seconds):
        return f"t+{seconds:,.0f} s"
    zone = log_zone(jobs)
    try:
        moment = pd.Timestamp(origin + seconds, unit="s", tz="UTC")
    except (OverflowError, ValueError):  # OutOfBoundsDatetime is a ValueError
        source = jobs.attrs.get("source", "the log")
        raise ConfigError(f"{source}: the log time UnixStartTime {origin} + {seconds:,.0f} s "
                          f"is not a date (years 1677 to 2262 can be shown)") from None
    return moment.tz_convert(zone).strftime("%Y-%m-%dT%H:%M:%S")

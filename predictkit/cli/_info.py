"""``predictkit info TRACE...``: the summary of each log as a table or JSON."""

import warnings

import pandas as pd

from .._format import format_fixed
from .._summary import (DURATION_FIELDS, PROCESSOR_FIELDS, busier_than_machine, format_value,
                        implausible_requests, machine_size, wider_than_machine, width_unit)
from .._table import job_width
from ..jobs import SUMMARY_LABELS, clean_jobs, summarize
from ._checks import flag_names
from ._logs import add_log_argument, read_done, read_trace_arg, source_name
from ._output import print_json
from ._parser import add_command, add_quiet_option
from ._progress import Progress


def register(subparsers):
    parser = add_command(
        subparsers, "info", help="summarise job logs (size, span, users, request accuracy, modes)",
        description="Print what a user asks first about each SWF log: number of jobs, "
                    "span, machine size, users and groups, mean runtime and request, the "
                    "request accuracy R = run/request and the estimate modes "
                    "(Tsafrir et al. 2005, Table 2).",
    )
    add_log_argument(parser, dest="traces", nargs="+", help="the logs to summarise")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--skip-bad-lines", action="store_true",
                        help="skip malformed lines (reported) instead of stopping")
    add_quiet_option(parser, "the summary still goes to standard output")
    parser.set_defaults(func=run)


def _value(key, value):
    """A summary value in the command line's number format (shares as percentages,
    durations as ``2 h 28 min``)."""
    if key.startswith("frac_") or key in DURATION_FIELDS or isinstance(value, str):
        return format_value(key, value)
    if key.startswith(("n_", "modes_for_")) or key in PROCESSOR_FIELDS:
        return format_fixed(int(value)) if value == value and value is not None else "n/a"
    return format_fixed(value if value is None else float(value))


def _column_names(summaries, paths):
    """One distinct name per log: its short name, else the path as given when short names repeat.

    Two logs never share a column (or a JSON key), so none is silently dropped.
    """
    names = [str(s.name) for s in summaries]
    if len(set(names)) == len(names):
        return names
    names = list(paths)
    seen = {}
    for i, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[i] = f"{name} ({seen[name]})"
    return names


def run(args):
    errors = "skip" if args.skip_bad_lines else "raise"
    progress = Progress("info", quiet=args.quiet)
    progress.settings(skip_bad_lines=args.skip_bad_lines, json=args.json)
    summaries = []
    for path in args.traces:
        with flag_names({}), progress.step(lambda: read_done(jobs, path)):
            jobs = read_trace_arg(path, errors=errors)
            summaries.append(summarize(jobs))
        # a size the log's header gives is the site's: a few jobs over it are the log's
        # own glitches, which the commands that simulate warn of
        machine, told = machine_size(jobs)
        wider = 0
        if told and (job_width(jobs) > machine).any():
            # counted among the jobs a simulation keeps (those it cannot replay go first)
            wider = int((job_width(clean_jobs(jobs, for_simulation=True)) > machine).sum())
        for note in (None if told else busier_than_machine(
                         jobs, option="--machine-procs of the commands that simulate"),
                     f"{wider_than_machine(wider, machine, width_unit(jobs))} left out by "
                     "the commands that simulate (the machine size is the header's MaxProcs; "
                     "give --machine-procs if the machine is larger)" if wider else None,
                     implausible_requests(jobs)):
            if note is not None:
                warnings.warn(f"{source_name(path)}: {note}", UserWarning, stacklevel=2)
    names = _column_names(summaries, [str(path) for path in args.traces])
    if args.json:
        print_json(dict(zip(names, (s.to_dict() for s in summaries))) if len(summaries) > 1
                   else summaries[0].to_dict())
        return 0
    table = pd.DataFrame({name: [_value(k, v) for k, v in s.items()]
                          for name, s in zip(names, summaries)},
                         index=[_label(k, summaries) for k in summaries[0].index])
    print(table.to_string())
    return 0


def _label(field, summaries):
    """The row label of a summary field; widths count nodes when every log counts nodes."""
    label = SUMMARY_LABELS.get(field, field)
    if field in PROCESSOR_FIELDS and all(s.attrs.get("width_unit") == "node" for s in summaries):
        label = label.replace("procs", "nodes")
    return label

"""``predictkit info TRACE...``: the summary of each log as a table or JSON."""

import pandas as pd

from ..jobs import SUMMARY_LABELS, format_summary, summarize
from ._common import print_json, read_trace_arg

def register(subparsers):
    parser = subparsers.add_parser(
        "info", help="summarise job logs (size, span, users, request accuracy, modes)",
        description="Print what a user asks first about each SWF log: number of jobs, "
                    "span, machine size, users and groups, mean runtime and request, the "
                    "request accuracy R = run/request and the estimate modes "
                    "(Tsafrir et al. 2005, Table 2).",
    )
    from ._common import add_log_argument
    add_log_argument(parser, dest="traces", nargs="+", help="the logs to summarise")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--skip-bad-lines", action="store_true",
                        help="skip malformed lines (reported) instead of stopping")
    parser.set_defaults(func=run)


def run(args):
    errors = "skip" if args.skip_bad_lines else "raise"
    summaries = [summarize(read_trace_arg(path, errors=errors)) for path in args.traces]
    if args.json:
        print_json({s.name: s.to_dict() for s in summaries} if len(summaries) > 1
                   else summaries[0].to_dict())
        return 0
    table = pd.DataFrame({s.name: format_summary(s)["value"].to_numpy() for s in summaries},
                         index=[SUMMARY_LABELS.get(k, k) for k in summaries[0].index])
    print(table.to_string())
    return 0

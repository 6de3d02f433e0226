"""``predictkit info TRACE...``: the summary of each log as a table or JSON."""

import pandas as pd

from ..jobs import summarize
from ._common import print_json, read_trace_arg

_LABELS = {
    "n_jobs": "jobs",
    "first_submit_utc": "first submit (UTC)",
    "span_days": "span (days)",
    "machine_procs": "machine size (procs)",
    "n_users": "users",
    "n_groups": "groups",
    "mean_run_time": "mean runtime (s)",
    "mean_req_time": "mean request (s)",
    "frac_req_time_known": "jobs with a request",
    "frac_wait_time_known": "jobs with a wait",
    "mean_wait_time": "mean wait (s)",
    "accuracy_mean": "accuracy R=run/req, mean",
    "accuracy_median": "accuracy R, median",
    "frac_accuracy_below_0_2": "jobs with R < 0.2",
    "frac_at_request": "jobs reaching request (R >= 1)",
    "n_estimates": "distinct requests (modes)",
    "modes_for_50pct": "modes covering 50% of jobs",
    "modes_for_90pct": "modes covering 90% of jobs",
}


def register(subparsers):
    parser = subparsers.add_parser(
        "info", help="summarise job logs (size, span, users, request accuracy, modes)",
        description="Print what a user asks first about each SWF log: number of jobs, "
                    "span, machine size, users and groups, mean runtime and request, the "
                    "request accuracy R = run/request and the estimate modes "
                    "(Tsafrir et al. 2005, Table 2).",
    )
    parser.add_argument("traces", nargs="+", metavar="TRACE",
                        help="SWF file (plain or .gz), or '-' for standard input")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--skip-bad-lines", action="store_true",
                        help="skip malformed lines (reported) instead of stopping")
    parser.set_defaults(func=run)


def _cell(value):
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "n/a"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def run(args):
    errors = "skip" if args.skip_bad_lines else "raise"
    summaries = [summarize(read_trace_arg(path, errors=errors)) for path in args.traces]
    if args.json:
        print_json({s.name: s.to_dict() for s in summaries} if len(summaries) > 1
                   else summaries[0].to_dict())
        return 0
    for summary in summaries:
        for key in summary.index:
            if key.startswith("frac_") and not pd.isna(summary[key]):
                summary[key] = f"{100 * summary[key]:.1f}%"
    table = pd.DataFrame({s.name: [_cell(v) for v in s.to_numpy()] for s in summaries},
                         index=[_LABELS.get(k, k) for k in summaries[0].index])
    print(table.to_string())
    return 0

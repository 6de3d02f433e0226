"""``predictkit bounds TRACE``: QBETS wait bounds per job class now and per job."""

import sys

import numpy as np
import pandas as pd

from ..exceptions import ConfigError, JobTableError
from ..metrics import bound_summary
from ..model_selection import replay
from ..queue import QBETS
from ._common import add_output_options, print_json, read_trace_arg, write_table


def register(subparsers):
    parser = subparsers.add_parser(
        "bounds", help="QBETS upper bounds on queue waits (per class now, per job online)",
        description="Replay the trace online with QBETS (Nurmi et al. 2008, section 2.3): "
                    "each job gets, at its submission, an upper bound on its wait from the "
                    "waits of jobs already started. Prints the bound of each job class at "
                    "the end of the trace ('now') and the correctness/tightness of the "
                    "per-job bounds; -o writes the per-job bounds (CSV or JSON).")
    from ._common import add_log_argument
    add_log_argument(parser)
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="quantile of the wait to bound, in (0, 1) (default 0.95)")
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="confidence of the bound, in (0, 1) (default 0.95)")
    parser.add_argument("--changepoint", choices=("runs", "ruptures", "none"), default="runs",
                        help="history trimming rule (default runs)")
    parser.add_argument("--clustering", choices=("auto", "bic", "none"), default="auto",
                        help="job classes by requested nodes and time (default auto)")
    parser.add_argument("--index", choices=("textbook", "reference"), default="textbook",
                        help="order-statistic rule (default textbook)")
    parser.add_argument("--seed", type=int, default=0, help="random state of class fits")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_output_options(parser, formats=("csv", "json"))
    parser.set_defaults(func=run)


def _check_unit(value, name):
    if not np.isfinite(value) or not 0.0 < value < 1.0:
        raise ConfigError(f"--{name} must be in (0, 1), got {value!r}")


def run(args):
    _check_unit(args.quantile, "quantile")
    _check_unit(args.confidence, "confidence")
    jobs = read_trace_arg(args.trace)
    usable = np.isfinite(jobs["wait_time"]) & np.isfinite(jobs["submit_time"])
    if not usable.any():
        raise JobTableError(f"{args.trace}: no job has a known wait time; QBETS needs waits")
    jobs = jobs[usable].reset_index(drop=True)
    model = QBETS(quantile=args.quantile, confidence=args.confidence,
                  changepoint=None if args.changepoint == "none" else args.changepoint,
                  clustering=None if args.clustering == "none" else args.clustering,
                  index=args.index, random_state=args.seed)
    waits = jobs["wait_time"].to_numpy()
    bounds = replay(model, jobs, waits)
    # the state at the end of the trace: every wait, in the order they became known
    submit = jobs["submit_time"].to_numpy()
    order = np.lexsort((np.arange(len(jobs)), submit, submit + waits))
    model.fit(jobs.iloc[order])
    classes = model.class_bounds()
    summary = bound_summary(waits, bounds, quantile=args.quantile)
    summary["n_skipped_unknown_wait"] = int((~usable).sum())
    if args.output:
        _write(jobs, bounds, args)
    if args.quiet:
        return 0
    stream = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        print_json({"summary": summary, "classes": classes.to_dict(orient="records")}, stream)
        return 0
    print(f"QBETS q={args.quantile:g} c={args.confidence:g}: bound per class now "
          f"(seconds; NaN = too little history)", file=stream)
    print(classes.to_string(index=False), file=stream)
    print(f"\nper-job bounds: {summary['n_bounded']:,} of {summary['n_jobs']:,} jobs got one; "
          f"correct {summary['correctness']:.3f} (95% CI {summary['correctness_low']:.3f}-"
          f"{summary['correctness_high']:.3f}); bound/actual median "
          f"{summary['median_ratio']:.1f}, mean {summary['mean_ratio']:.1f} "
          f"(jobs waiting > 60 s)", file=stream)
    return 0


def _write(jobs, bounds, args):
    out = pd.DataFrame({"job_id": jobs["job_id"].to_numpy(),
                        "submit_time": jobs["submit_time"].to_numpy(),
                        "wait_time": jobs["wait_time"].to_numpy(), "bound": bounds})
    write_table(out, args.output, args.format)

"""Turn an :class:`~predictkit.report.Analysis` into the static HTML report."""

from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from .._format import format_count
from .._summary import request_accuracy_rows
from .._time import format_duration
from .._validation import check_path_or_file
from ..exceptions import OutputError
from ..jobs import format_summary, request_accuracy
from . import _figures as figures
from ._html import Section, figure_to_data_uri, write_page

__all__ = ["build_report"]


def _figure(fig, caption, alt):
    uri = figure_to_data_uri(fig)
    fig.clear()
    return (uri, caption, alt)


def _durations(values):
    """Seconds as ``5 h 9 min`` text, for a table column."""
    return [format_duration(v) for v in np.asarray(values, dtype=float)]


def _overview(analysis):
    table = format_summary(analysis.summary)
    caption = "Summary of the log"
    if analysis.analysed_summary is not None:  # the figures below cover these jobs only
        table = table.rename(columns={"value": "whole log"})
        table[f"first {analysis.analysed_summary['n_jobs']:,} jobs, analysed"] = \
            format_summary(analysis.analysed_summary)["value"].to_numpy()
        caption = "Summary of the log and of the jobs analysed"
    cleaning = pd.DataFrame(analysis.cleaning)
    text = ("What the log holds: size, span, users and the accuracy of the users' "
            "requested times (R = runtime / request). Jobs that a simulation cannot use "
            "(unknown size, runtime or submit time) are removed first; the table says how "
            "many each rule removed.")
    if analysis.notes:
        text += "\n\n" + " ".join(analysis.notes)
    return Section("Overview", text, tables=[(table, caption),
                                             (cleaning, "Cleaning (Tsafrir et al. 2005, 'sane' jobs)")])


def _requests(analysis):
    jobs = analysis.jobs_with_requests
    accuracy = request_accuracy(jobs)
    section = Section(
        "User requests",
        "How good are the users' requested times? The histogram shows the share of jobs "
        "per accuracy bin (Tsafrir et al. 2005, Fig. 1); the second plot follows the mean "
        "and median accuracy over the log, per quarter as in Tang et al. (2013, Fig. 2) "
        "or per month, week or day when the log is shorter. "
        "Requests cluster on a few popular values ('modes'): the table lists the 20 most "
        "popular and the curve shows how few of them cover most jobs (Tsafrir et al. "
        "2005, Table 2 and Fig. 5).")
    section.figures.append(_figure(figures.accuracy_histogram(accuracy),
                                   "Histogram of request accuracy R = runtime / request.",
                                   "accuracy histogram"))
    submit = np.asarray(jobs["submit_time"], dtype=float)[request_accuracy_rows(jobs)]
    period = figures.choose_period(float(np.ptp(submit)) if submit.size else 0.0)[0]
    section.figures.append(_figure(
        figures.accuracy_by_period(submit, accuracy, jobs.attrs.get("unix_start_time")),
        f"Request accuracy per {period} of submission.", f"accuracy by {period}"))
    top = analysis.modes.head(20)
    modes = pd.DataFrame({"requested time": _durations(top["estimate"]), "jobs": top["jobs"],
                          "percent of jobs": top["percent"],
                          "cumulative percent": top["cum_percent"]})
    section.tables.append((modes, "The 20 most popular requested times"))
    section.figures.append(_figure(figures.mass_disparity(analysis.modes),
                                   "Cumulative share of jobs covered by the most popular "
                                   "requested times.", "mass disparity of requests"))
    return section


def _predictions(analysis):
    jobs = analysis.jobs_with_requests
    section = Section(
        "Runtime predictions",
        "Each predictor is replayed online with no peeking: a job's prediction uses only "
        "jobs that had ended by its submission. Accuracy is Tang et al. (2013) eq. 3 "
        "(1 when exact, else the smaller over the larger of runtime and estimate). NA: "
        "not adjusted; OE: overestimated; UE: underestimated by at most 30 minutes; BE: "
        "underestimated by more (Tang et al. 2013, Figs. 4-5). The CDFs compare actual "
        "runtimes with requests and predictions (Klusacek & Soysal 2019, Fig. 2).")
    table = analysis.predictor_table
    readable = table.rename(columns={"underestimated": "share underestimated"})
    readable["mae_h"] = _durations(3600.0 * table["mae_h"])
    readable = readable.rename(columns={"mae_h": "mean abs. error"})
    section.tables.append((readable, "Prediction accuracy and outcome shares (online replay)"))
    section.figures.append(_figure(figures.predictor_accuracy(table),
                                   "Average accuracy and outcome shares per predictor.",
                                   "predictor accuracy"))
    shown = {k: v for k, v in analysis.predictions.items() if k != "request"}
    section.figures.append(_figure(
        figures.runtime_cdfs(jobs["run_time"], jobs["req_time"], shown),
        "CDFs of actual runtime, requested time and predicted runtimes.", "runtime CDFs"))
    return section


def _bounds(analysis):
    jobs = analysis.jobs
    section = Section(
        "Queue-wait bounds (QBETS and WaitPredictor)",
        f"Each job gets, at submission, an upper bound on its wait meant to hold for a "
        f"fraction q = {analysis.quantile:g} of jobs. QBETS bounds it from the waits of "
        "recently started jobs of its class, with 95% confidence (Nurmi et al. 2008, "
        "section 3); WaitPredictor simulates the queue the job joins forward and calibrates "
        "that forecast online on the waits already seen (docs/queue.md). Correctness is the "
        "share of jobs whose actual wait was at or under the bound; it should reach q. The "
        "median ratio of bound to actual wait counts the jobs that waited more than 60 s. The "
        "plot follows both bounds and the actual waits over the log (Nurmi et al. 2008, "
        "Fig. 2).")
    if not (np.asarray(jobs["wait_time"], dtype=float) > 0).any():
        section.text += (f" No job waited here (all {len(jobs):,} waits are 0 s): every bound "
                         "holds, which tells nothing of the bounds, so whether they meet q is "
                         "not judged.")
    section.tables.append((analysis.bound_table, "Bound correctness and tightness"))
    section.figures.append(_figure(
        figures.bound_over_time(jobs["submit_time"], jobs["wait_time"], analysis.bounds,
                                quantile=analysis.quantile, wait_bound=analysis.wait_bounds),
        "Actual waits (blue), the QBETS bound (red) and the WaitPredictor bound (green) "
        "each job got at submission.",
        "Wait bounds over time"))
    return section


def _schedules(analysis):
    section = Section(
        "Schedules",
        "The log is replayed through the backfilling simulator with the users' requests "
        "and with the most accurate predictor, used selectively (predictions for waiting "
        "jobs, requests for running ones; Tang et al. 2013, section 5.2). Lower wait and "
        "bounded slowdown (runtimes under 10 s count as 10 s) are better.")
    table = analysis.schedule_table
    readable = table.drop(columns=["label"])
    readable["mean_wait_h"] = _durations(3600.0 * table["mean_wait_h"])
    readable = readable.rename(columns={
        "mean_wait_h": "mean wait", "mean_bounded_slowdown": "mean bounded slowdown",
        "backfill_ratio": "backfill ratio", "loss_of_capacity": "loss of capacity"})
    section.tables.append((readable, "Schedule metrics per configuration"))
    section.figures.append(_figure(figures.schedule_metrics(table),
                                   "Average wait and bounded slowdown per policy and estimate.",
                                   "schedule metrics"))
    if analysis.fairness_table is not None:
        section.text += ("\n\nFairness (Leung et al. 2010, section IV): a job is treated "
                         "unfairly when it starts after its fair start time, the start it "
                         "would have had in a list schedule in fairshare order from the "
                         "state at its arrival (each job on the processors that free "
                         "earliest, with no backfilling into holes).")
        section.figures.append(_figure(figures.fairness_by_width(analysis.fairness_table),
                                       "Share of jobs missing their fair start time and "
                                       "average miss, by job width (EASY).",
                                       "fairness by width"))
    return section


def build_report(analysis, output, *, command=None):
    """Write the HTML report of an analysis into the folder ``output``.

    Parameters
    ----------
    analysis : Analysis
        From :func:`predictkit.report.analyze`.
    output : str or path
        Folder (created if needed). The report is ``output/index.html``, a
        single self-contained file (figures embedded as PNG). ``"-"`` writes
        that page to standard output instead.
    command : str, optional
        The command that made the analysis, named on the page beside the
        predictkit version (the command line passes its own).

    Returns
    -------
    Path
        The path of ``index.html`` (``Path("-")`` for standard output).

    Raises
    ------
    OutputError
        ``output`` is not a folder or cannot be created.
    InvalidParameterError
        ``output`` is not a path (str or os.PathLike).
    """
    check_path_or_file(output, "output", "build_report", files=False, what="a folder")
    page = Path("-") if str(output) == "-" else _report_folder(output) / "index.html"
    sections = [_overview(analysis)]
    if analysis.modes is not None:
        sections.append(_requests(analysis))
    if analysis.predictor_table is not None:
        sections.append(_predictions(analysis))
    if analysis.bound_table is not None:
        sections.append(_bounds(analysis))
    if analysis.schedule_table is not None:
        sections.append(_schedules(analysis))
    jobs = format_count(analysis.summary["n_jobs"], "job")
    if analysis.analysed_summary is not None:
        jobs += f", the first {analysis.analysed_summary['n_jobs']:,} analysed"
    made = f"predictkit {__version__}" + (f" ({command})" if command else "")
    subtitle = (f"{jobs}; made by {made}. "
                "Every number here comes from an online replay that never looks at jobs "
                "that had not finished (or started) yet.")
    return write_page(page, f"predictkit report: {analysis.name}", subtitle, sections)


def _report_folder(output):
    """``output`` as an existing folder, created if missing in a folder that exists
    (a mistyped path is refused, as every output of :func:`open_output` is)."""
    output = Path(output)
    try:
        output.mkdir(exist_ok=True)
    except FileNotFoundError:
        raise OutputError(f"cannot write the report into {output}: the folder "
                          f"{output.parent} does not exist") from None
    except FileExistsError:
        raise OutputError(f"cannot write the report into {output}: it is not a folder") from None
    except OSError as exc:
        raise OutputError(f"cannot create the report folder {output}: {exc.strerror}") from None
    return output

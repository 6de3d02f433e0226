"""What a user asks first about a log: size, span, users, estimate accuracy, modes."""

from numbers import Real

import numpy as np
import pandas as pd

from ._format import format_count, format_number
from ._time import format_duration
from .exceptions import ConfigError, JobTableError
from ._validation import validate_params
from ._table import MAX_EXACT, cancelled_before_running, job_width, validate_jobs, with_numeric_columns

__all__ = ["summarize", "request_accuracy", "estimate_modes", "SUMMARY_LABELS", "format_summary"]


SUMMARY_LABELS = {
    "n_jobs": "jobs",
    "first_submit_utc": "first submit (UTC)",
    "span_days": "span (days)",
    "machine_procs": "machine size (procs)",
    "peak_busy_procs": "most procs busy at once",
    "n_users": "users",
    "n_groups": "groups",
    "mean_run_time": "mean runtime",
    "mean_req_time": "mean request",
    "frac_req_time_known": "jobs with a request",
    "frac_wait_time_known": "jobs with a wait",
    "mean_wait_time": "mean wait",
    "accuracy_mean": "accuracy min(R, 1), mean",
    "accuracy_median": "accuracy R, median",
    "frac_accuracy_below_0_2": "jobs with R < 0.2",
    "frac_at_request": "jobs reaching request (R >= 1)",
    "n_estimates": "distinct requests (modes)",
    "modes_for_50pct": "modes covering 50% of jobs",
    "modes_for_90pct": "modes covering 90% of jobs",
}
"""Readable labels of the :func:`summarize` fields."""


DURATION_FIELDS = ("mean_run_time", "mean_req_time", "mean_wait_time")
"""The :func:`summarize` fields that are durations (seconds)."""

PROCESSOR_FIELDS = ("machine_procs", "peak_busy_procs")
"""The :func:`summarize` fields that count processors."""


def format_value(key, value):
    """Format one summary value for people: durations as ``5 h 9 min``, shares as percentages."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "n/a"
    if key in DURATION_FIELDS:
        return format_duration(value)
    if key.startswith("frac_"):
        return f"{100 * value:.1f}%"
    if isinstance(value, (float, np.floating, int, np.integer)):
        return format_number(value)
    return str(value)


def format_summary(summary):
    """A summary as a two-column table of readable labels and formatted values."""
    return pd.DataFrame({"quantity": [SUMMARY_LABELS.get(k, k) for k in summary.index],
                         "value": [format_value(k, v) for k, v in summary.items()]})


def request_accuracy(X):
    """Accuracy ``R = run_time / req_time`` of the jobs with both known and a positive request.

    Tsafrir, Etsion & Feitelson (2005), section 2 (Fig. 1). Returns a float
    array (one value per such job, unclipped: R > 1 means the job ran past its
    request). A job cancelled before it ran (:func:`~predictkit.jobs.cancelled_before_running`)
    has no runtime, only a 0 in its place, and no accuracy, as ``predict`` scores it.
    """
    ok = request_accuracy_rows(X)
    return (np.asarray(X["run_time"], dtype=float)[ok]
            / np.asarray(X["req_time"], dtype=float)[ok])


def request_accuracy_rows(X):
    """The jobs :func:`request_accuracy` scores: a known runtime, a positive request, and
    not cancelled before they ran (one flag per row)."""
    run = np.asarray(X["run_time"], dtype=float)
    req = np.asarray(X["req_time"], dtype=float)
    return ~np.isnan(run) & (req > 0) & ~cancelled_before_running(X)


def estimate_modes(X):
    """Distinct requested times with their job counts, most popular first.

    The "estimate modes" of Tsafrir, Etsion & Feitelson (2005), section 5;
    ``cum_percent`` gives the mass-disparity curve of their Table 2 / Fig. 5.
    """
    req = pd.Series(np.asarray(X["req_time"], dtype=float)).dropna()
    counts = req.value_counts(sort=False)
    table = pd.DataFrame({"estimate": counts.index.to_numpy(dtype=float),
                          "jobs": counts.to_numpy()})
    table = table.sort_values(["jobs", "estimate"], ascending=[False, True], kind="stable")
    table = table.reset_index(drop=True)
    total = table["jobs"].sum()
    table["percent"] = 100.0 * table["jobs"] / total if total else np.nan
    table["cum_percent"] = table["percent"].cumsum()
    return table


def _bins_to_cover(modes, percent):
    if modes.empty:
        return np.nan
    cum = modes["jobs"].cumsum().to_numpy()
    return int(np.searchsorted(cum, percent / 100.0 * cum[-1] - 1e-9) + 1)


def peak_busy_procs(X):
    """The most processors the log's own schedule keeps busy at once, and when.

    Each job with a known submit time, wait, runtime and width holds its
    width (:func:`predictkit._table.job_width`) from ``submit + wait`` to
    ``submit + wait + run``; a job ending at an instant frees its processors
    before one starting then takes them. A job of a ``sacct`` log still
    holding its allocation when the log was written (a ``slurm_state`` of
    :data:`predictkit.io._slurm_fields.HOLDING_STATES`, such as ``RUNNING``:
    a start, no runtime yet) holds its width from its start to the log's last
    event. A log that keeps more
    processors busy than the machine size a simulation assumes ran on a larger
    machine.

    Parameters
    ----------
    X : DataFrame
        A job table.

    Returns
    -------
    peak : float
        ``NaN`` when no job has all four values.
    at : float
        The submit-time clock of the first instant at the peak (``NaN`` too).
    """
    if "wait_time" not in X.columns:
        return np.nan, np.nan
    submit = np.asarray(X["submit_time"], dtype=float)
    start = submit + np.asarray(X["wait_time"], dtype=float)
    run = np.asarray(X["run_time"], dtype=float).copy()
    width = job_width(X)
    holding = np.isfinite(start) & np.isnan(run) & _holding(X)
    if holding.any():
        last = np.nanmax(np.concatenate([submit, start, start + run]))
        run[holding] = last - start[holding]
    known = np.isfinite(start) & np.isfinite(run) & np.isfinite(width) & (run > 0)
    if not known.any():
        return np.nan, np.nan
    start, run, width = start[known], run[known], width[known]
    times = np.concatenate([start + run, start])
    change = np.concatenate([-width, width])
    order = np.lexsort((change, times))  # at one instant, ends (negative) first
    busy = np.cumsum(change[order])
    top = int(np.argmax(busy))
    return float(busy[top]), float(times[order][top])


def _holding(X):
    """Whether each job's ``slurm_state`` says it holds its allocation (a ``sacct`` log)."""
    if "slurm_state" not in X.columns:
        return np.zeros(len(X), dtype=bool)
    from .io._slurm_fields import holds_allocation

    return holds_allocation(X["slurm_state"])


def width_unit(X):
    """What a job's width counts in ``X``: ``"node"`` for a ``sacct`` log without a
    CPU field (``attrs["processor_unit"]``), else ``"processor"``."""
    return "node" if X.attrs.get("processor_unit") == "nodes" else "processor"


def whole_machine_size(value, what, owner=None):
    """``value`` as a whole number of processors in [1, 2**53), or a ConfigError naming
    ``what`` (and ``owner``, the function refusing it) and the fix."""
    if (isinstance(value, (str, bytes, bool, np.bool_)) or not isinstance(value, Real)
            or not 1 <= value < MAX_EXACT or value != int(value)):
        where = f"{owner}: " if owner else ""
        raise ConfigError(f"{where}the table's {what} is {value!r}, no whole number of "
                          "processors below 2**53; pass machine_procs")
    return int(value)


def header_machine_size(X, owner=None):
    """``X.attrs["max_procs"]`` (an SWF header's ``MaxProcs``) as a whole number of
    processors, None when unset or NaN; a ConfigError (:func:`whole_machine_size`) when
    it is anything else."""
    header = X.attrs.get("max_procs")
    if header is None or header != header:
        return None
    return whole_machine_size(header, "attrs['max_procs']", owner)


WIDEST_OF_LOG = "widest_job_of_log"
"""``attrs`` key of a table of a log's first jobs (:func:`first_jobs`): the width of the
widest job of the whole log, which stands for the machine where the header gives no
size (the first jobs' own widest would be narrower, and vary with their number)."""


def first_jobs(jobs, n_jobs, *, start=0, source=None, reset_index=False):
    """The first ``n_jobs`` rows of ``jobs`` from row ``start`` (its index kept, or
    reset), with a copy of the attrs of ``source`` (default ``jobs``) and, where
    ``jobs`` gives no machine size, the width of its widest job as
    ``attrs[WIDEST_OF_LOG]``: a part of a log is simulated on the same machine as
    the whole log (:func:`machine_size`)."""
    from ._table import copy_attrs

    out = jobs.iloc[int(start):int(start) + int(n_jobs)]
    if reset_index:
        out = out.reset_index(drop=True)
    out.attrs = copy_attrs(jobs if source is None else source)
    widest, told = machine_size(jobs)  # a prefix's prefix keeps the whole log's
    if not told and widest == widest:
        out.attrs[WIDEST_OF_LOG] = int(widest)
    return out


def machine_size(X, machine_procs=None):
    """The machine size a simulation of ``X`` assumes, and whether it was told.

    The size given, else the log's ``attrs["max_procs"]`` (an SWF header's
    ``MaxProcs``, or a ``--machine-procs`` the command line set there), else
    the width of the widest job (:func:`predictkit._table.job_width`): of the
    whole log for a table of its first jobs (:func:`first_jobs`), as
    :func:`predictkit.simulate.simulate` does.

    Parameters
    ----------
    X : DataFrame
        A job table.
    machine_procs : int, optional
        A machine size given by the caller.

    Returns
    -------
    size : float
        ``NaN`` when nothing tells it and no job has a width.
    told : bool
        False when the size is the widest job's, which only stands for it.

    Raises
    ------
    ConfigError
        When ``attrs["max_procs"]`` is set to anything but a whole number of
        processors (NaN counts as unset).
    """
    if machine_procs is not None:
        return float(machine_procs), True
    header = header_machine_size(X)
    if header is not None:
        return float(header), True
    if X.attrs.get(WIDEST_OF_LOG) is not None:
        return float(X.attrs[WIDEST_OF_LOG]), False
    width = job_width(X) if len(X) else np.array([np.nan])
    return (float(np.nanmax(width)) if np.isfinite(width).any() else np.nan), False


def wider_than_machine(n_jobs, machine, unit="processor", *, verb="is"):
    """``3 jobs wider than the machine (128 processors) are``: how every message
    words the jobs a simulation leaves out.

    Parameters
    ----------
    n_jobs : int
    machine : float
        The machine's size (:func:`machine_size`).
    unit : str
        What widths count (:func:`width_unit`).
    verb : {"is", "was"}
        Agreed with ``n_jobs``.
    """
    plural = {"is": "are", "was": "were"}[verb]
    return (f"{format_count(n_jobs, 'job')} wider than the machine "
            f"({format_count(int(machine), unit)}) {verb if n_jobs == 1 else plural}")


def busier_than_machine(X, machine_procs=None, *, option="--machine-procs",
                        subject="the log keeps"):
    """Why the machine assumed for log ``X`` looks too small, or None when it does not.

    The log's own schedule (:func:`peak_busy_procs`) keeping more processors
    busy at once than the machine of :func:`machine_size` means the log ran
    on a larger machine: a simulation on the smaller one queues its jobs far
    longer than the log did, and a job wider than it is refused.

    Parameters
    ----------
    X : DataFrame
        A job table.
    machine_procs : int, optional
        The machine size given by the caller (see :func:`machine_size`).
    option : str, default="--machine-procs"
        How to give the machine size, named when it is the widest job's.
    subject : str, default="the log keeps"
        What keeps the processors busy, as the sentence begins (``X`` may be
        the jobs of a log a command kept).

    Returns
    -------
    str or None
        A lower-case sentence without a final period, such as "the log
        keeps up to 1,118 processors busy at once, more than ...".
    """
    machine, told = machine_size(X, machine_procs)
    peak = peak_busy_procs(X)[0]
    if not peak > machine:
        return None
    unit = f"{width_unit(X)}s"
    if not told:
        return (f"{subject} up to {peak:,.0f} {unit} busy at once, more than the "
                f"{machine:,.0f} {unit} of its widest job, which stand for the machine "
                f"size: if the machine is larger, give its size ({option})")
    source = "as given" if machine_procs is not None else "from the log's header or as given"
    return (f"{subject} up to {peak:,.0f} {unit} busy at once, more than the machine "
            f"size of {machine:,.0f} {unit} ({source}): the log's own jobs overlap more "
            f"than that machine holds (a simulation on it waits longer than the log did), "
            f"check that size")


IMPLAUSIBLE_REQUEST = 365 * 86400.0
"""Seconds: a requested time longer than a year is no batch system's limit (archive
logs hold such values as placeholders, e.g. 2**31 - 1 for "no limit")."""


def implausible_requests(X):
    """Why the requested times of log ``X`` hold values no job could be granted, or None.

    Such requests are kept as the log has them (they are data, not errors),
    but they dominate a mean: this says how many there are and the longest.

    Returns
    -------
    str or None
        A lower-case sentence without a final period, such as "3 jobs request
        more than a year (the longest 2,147,483,647 s, 68 years) ...".
    """
    if "req_time" not in X.columns or not len(X):
        return None
    request = pd.to_numeric(X["req_time"], errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        long = request > IMPLAUSIBLE_REQUEST
    if not long.any():
        return None
    longest = float(np.max(request[long]))
    n_long = int(long.sum())
    return (f"{format_count(n_long, 'job')} request{'s' if n_long == 1 else ''} more than a "
            f"year (the longest "
            f"{format_number(longest)} s, {longest / (365 * 86400):,.0f} years): placeholders "
            f"for no limit? They are kept as the log has them, and weigh on every mean over "
            f"requests")


@validate_params({"name": [str, None]})
def summarize(X, *, name=None):
    """Summarise a job table: the numbers a user asks for first.

    Parameters
    ----------
    X : DataFrame
        A job table.
    name : str, optional
        Name of the log (default ``attrs["source"]`` file name, else ``"jobs"``).

    Returns
    -------
    Series
        ``n_jobs``, ``first_submit_utc`` (from ``unix_start_time`` when the
        header has it), ``span_days`` (last minus first known submit time),
        ``machine_procs`` (:func:`machine_size`: header ``max_procs``, else the widest job),
        ``peak_busy_procs`` (:func:`peak_busy_procs`), ``n_users``, ``n_groups``, ``mean_run_time``, ``mean_req_time``,
        ``frac_req_time_known``, ``frac_wait_time_known``, ``mean_wait_time``,
        the request accuracy R = run/request of the jobs that ran
        (:func:`request_accuracy`; ``accuracy_mean``, the mean
        of ``min(R, 1)``: a job that ran past its request counts as exact,
        as Tang et al. 2013, section 3, count it; ``accuracy_median``,
        ``frac_accuracy_below_0_2``,
        ``frac_at_request``: share of jobs with run >= request, i.e. killed or
        reaching it), and the estimate modes (Tsafrir et al. 2005, Table 2):
        ``n_estimates`` (distinct requested times), ``modes_for_50pct`` and
        ``modes_for_90pct`` (how many of the most popular cover 50% / 90% of
        the jobs with a request). ``attrs["width_unit"]`` says what the
        widths count (:func:`width_unit`: ``"node"`` or ``"processor"``).

    Raises
    ------
    JobTableError
        If a column is not numeric, holds infinite values, or if
        ``run_time``, ``req_time`` or ``wait_time`` holds negative values
        (they would bias the means; :func:`~predictkit.jobs.clean_jobs`
        removes negative run times), naming the column, the number of rows
        and the first one.
    """
    validate_jobs(X, present=("submit_time", "run_time", "req_time", "n_procs"),
                  check_values=False, name="summary")
    X = with_numeric_columns(X, "summary")
    for column in ("run_time", "req_time", "wait_time"):
        if column in X.columns:
            negative = np.asarray(X[column], dtype=float) < 0
            if negative.any():
                position = int(np.argmax(negative))
                raise JobTableError(
                    f"summary: column {column!r} has {int(negative.sum())} negative value(s) "
                    f"(first at row {position}, job_id {X['job_id'].iloc[position]}); they "
                    "would bias the means: drop or fix those jobs first")
    if name is None:
        source = str(X.attrs.get("source", "jobs"))
        name = source.replace("\\", "/").rsplit("/", 1)[-1].split(".swf")[0]
    submit = np.asarray(X["submit_time"], dtype=float)
    known_submit = submit[~np.isnan(submit)]
    run = np.asarray(X["run_time"], dtype=float)
    req = np.asarray(X["req_time"], dtype=float)
    wait = np.asarray(X["wait_time"], dtype=float) if "wait_time" in X.columns else np.full(len(X), np.nan)
    accuracy = request_accuracy(X)
    modes = estimate_modes(X)
    start = X.attrs.get("unix_start_time")
    first_utc = None
    if isinstance(start, (int, float)) and known_submit.size:
        first = start + known_submit.min()
        try:
            first_utc = pd.Timestamp(int(first), unit="s", tz="UTC").isoformat()
        except (OverflowError, ValueError):  # pandas' OutOfBoundsDatetime is a ValueError
            raise JobTableError(
                f"summary: the first submit time (unix_start_time {start} + submit_time "
                f"{known_submit.min():g} s) is not a date pandas can represent") from None

    def mean(values):
        values = values[~np.isnan(values)]
        return float(values.mean()) if values.size else np.nan

    def count(column):
        if column not in X.columns:
            return 0
        return int(pd.Series(np.asarray(X[column], dtype=float)).dropna().nunique())

    summary = pd.Series({
        "n_jobs": len(X),
        "first_submit_utc": first_utc,
        "span_days": float(np.ptp(known_submit) / 86400.0) if known_submit.size else np.nan,
        "machine_procs": machine_size(X)[0],
        "peak_busy_procs": peak_busy_procs(X)[0],
        "n_users": count("user_id"),
        "n_groups": count("group_id"),
        "mean_run_time": mean(run),
        "mean_req_time": mean(req),
        "frac_req_time_known": float(np.mean(~np.isnan(req))) if len(X) else np.nan,
        "frac_wait_time_known": float(np.mean(~np.isnan(wait))) if len(X) else np.nan,
        "mean_wait_time": mean(wait),
        "accuracy_mean": float(np.minimum(accuracy, 1.0).mean()) if accuracy.size else np.nan,
        "accuracy_median": float(np.median(accuracy)) if accuracy.size else np.nan,
        "frac_accuracy_below_0_2": float(np.mean(accuracy < 0.2)) if accuracy.size else np.nan,
        "frac_at_request": float(np.mean(accuracy >= 1.0)) if accuracy.size else np.nan,
        "n_estimates": len(modes),
        "modes_for_50pct": _bins_to_cover(modes, 50),
        "modes_for_90pct": _bins_to_cover(modes, 90),
    }, name=name, dtype=object)
    summary.attrs["width_unit"] = width_unit(X)
    return summary

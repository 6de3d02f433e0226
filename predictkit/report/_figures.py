"""The figures people draw for the papers predictkit implements.

Every function takes plain arrays or tidy tables and returns a
:class:`matplotlib.figure.Figure` built without pyplot, so nothing here touches
global plotting state or the backend.
"""

import numpy as np
import pandas as pd

__all__ = [
    "runtime_cdfs", "accuracy_histogram", "accuracy_by_period", "choose_period",
    "mass_disparity", "predictor_accuracy", "schedule_metrics", "bound_over_time",
    "fairness_by_width",
]

_HOUR = 3600.0
_DAY = 86400.0

PERIODS = (("quarter", "Q", 91.3 * _DAY), ("month", "M", 30.4 * _DAY),
           ("week", "W", 7 * _DAY), ("day", "D", _DAY))
"""Aggregation periods of the per-period plots, longest first: (name, pandas freq, length in s)."""

MIN_PERIODS = 8
"""A per-period plot uses the longest period that the log's span holds this many times."""


def _figure(width=7.5, height=4.2, ncols=1):
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - optional dependency
        from ..exceptions import ConfigError

        raise ConfigError("plots need matplotlib: pip install 'predictkit[plot]'") from None
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def _legend_outside(ax, **kwargs):
    """A legend to the right of the axes, so that it never covers what they show."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     fontsize=8, frameon=False, **kwargs)


def _ecdf(values):
    values = np.sort(np.asarray(values, dtype=float)[np.isfinite(values)])
    return values, np.arange(1, values.size + 1) / max(values.size, 1)


def runtime_cdfs(run_time, req_time, predictions=None):
    """CDFs of actual runtime, requested time and predicted runtimes (Klusacek & Soysal 2019, Fig. 2)."""
    fig, ax = _figure()
    curves = {"actual runtime": run_time, "user request": req_time}
    curves.update(predictions or {})
    for label, values in curves.items():
        x, y = _ecdf(np.asarray(values, dtype=float) / _HOUR)
        if x.size:
            ax.step(np.maximum(x, 1 / _HOUR), y, where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("time (hours, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    return fig


def accuracy_histogram(accuracy, bins=20):
    """Histogram of the request accuracy R = run/request (Tsafrir et al. 2005, Fig. 1)."""
    fig, ax = _figure()
    values = np.clip(np.asarray(accuracy, dtype=float), 0, 1)
    weights = np.full(values.size, 100.0 / max(values.size, 1))
    ax.hist(values, bins=np.linspace(0, 1, bins + 1), weights=weights, color="#4c72b0",
            edgecolor="white")
    ax.set_xlabel("accuracy R = runtime / requested time (R > 1 counted as 1)")
    ax.set_ylabel("percent of jobs")
    ax.grid(axis="y", alpha=0.3)
    return fig


def choose_period(span):
    """The aggregation period for a log spanning ``span`` seconds.

    The longest of quarter, month, week and day that the span holds at least
    :data:`MIN_PERIODS` times (a day for shorter logs), so that a per-period
    plot is never a couple of points.

    Returns
    -------
    tuple
        ``(name, pandas frequency, nominal length in seconds)``, a row of :data:`PERIODS`.
    """
    for period in PERIODS:
        if span >= MIN_PERIODS * period[2]:
            return period
    return PERIODS[-1]


def _period_labels(submit, unix_start_time, period):
    name, freq, length = period
    if unix_start_time is not None:
        stamps = pd.to_datetime(unix_start_time + submit, unit="s")
        periods = pd.PeriodIndex(stamps, freq=freq)
        if freq == "W":  # "1998-04-27/1998-05-03" is too long for a tick: its first day
            return pd.Index(periods.start_time.strftime("%Y-%m-%d"))
        return periods.astype(str)
    number = ((submit - np.nanmin(submit)) // length).astype(int) + 1
    width = len(str(number.max()))
    return pd.Index([f"{name} {n:0{width}d}" for n in number])


def accuracy_by_period(submit_time, accuracy, unix_start_time=None):
    """Mean and median request accuracy per period of the log (Tang et al. 2013, Fig. 2).

    Tang et al. plot quarters of a two-year log; the period here is chosen
    from the log's span by :func:`choose_period` (quarter, month, week or day).
    """
    fig, ax = _figure()
    submit = np.asarray(submit_time, dtype=float)
    span = float(np.nanmax(submit) - np.nanmin(submit)) if submit.size else 0.0
    period = choose_period(span)
    frame = pd.DataFrame({"period": _period_labels(submit, unix_start_time, period),
                          "R": np.minimum(accuracy, 1.0)})
    stats = frame.groupby("period", sort=True)["R"].agg(["mean", "median", "size"])
    positions = np.arange(len(stats))
    ax.plot(positions, stats["mean"], marker="o", label="mean R")
    ax.plot(positions, stats["median"], marker="s", label="median R")
    every = max(1, int(np.ceil(len(stats) / 40)))
    ax.set_xticks(positions[::every], stats.index[::every], rotation=45, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy R = runtime / request")
    ax.set_xlabel(f"{period[0]} of submission")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    return fig


def mass_disparity(modes):
    """Share of jobs covered by the k most popular requested times (Tsafrir et al. 2005, Table 2, Fig. 5)."""
    fig, ax = _figure()
    k = np.arange(1, len(modes) + 1)
    ax.plot(k, modes["cum_percent"], color="#c44e52")
    for level in (50, 90):
        hit = int(np.searchsorted(modes["cum_percent"].to_numpy(), level - 1e-9)) + 1
        if hit <= len(modes):
            ax.axhline(level, color="grey", lw=0.7, ls="--")
            ax.annotate(f"{hit} modes cover {level}%", (hit, level), textcoords="offset points",
                        xytext=(8, -14), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("number of most popular requested times (log scale)")
    ax.set_ylabel("cumulative percent of jobs")
    ax.set_ylim(0, 101)
    ax.grid(alpha=0.3)
    return fig


def predictor_accuracy(table):
    """Average accuracy and NA/OE/UE/BE outcome shares per predictor (Tang et al. 2013, Figs. 4-5).

    ``table`` has one row per predictor with columns ``predictor``,
    ``accuracy`` and the shares ``NA``, ``OE``, ``UE``, ``BE`` (fractions).
    """
    fig, (left, right) = _figure(width=10, height=0.5 * len(table) + 1.8, ncols=2)
    names = table["predictor"].astype(str).to_numpy()
    positions = np.arange(len(names))
    left.barh(positions, table["accuracy"], color="#55a868")
    left.set_yticks(positions, names, fontsize=8)
    left.invert_yaxis()
    left.set_xlabel("average estimate accuracy (Tang eq. 3)")
    left.set_xlim(0, 1)
    left.grid(axis="x", alpha=0.3)
    start = np.zeros(len(names))
    colors = {"NA": "#8c8c8c", "OE": "#4c72b0", "UE": "#dd8452", "BE": "#c44e52"}
    labels = {"NA": "not adjusted", "OE": "overestimated", "UE": "underestimated (<= 30 min)",
              "BE": "badly underestimated"}
    for key in ("NA", "OE", "UE", "BE"):
        if key in table:
            share = 100 * table[key].to_numpy(dtype=float)
            right.barh(positions, share, left=start, color=colors[key], label=labels[key])
            start += share
    right.set_yticks(positions, [""] * len(names))
    right.invert_yaxis()
    right.set_xlabel("percent of jobs")
    _legend_outside(right)
    return fig


def schedule_metrics(table, metrics=("mean_wait_h", "mean_bounded_slowdown")):
    """Grouped bars of schedule metrics per configuration (one panel per metric).

    ``table`` has a ``label`` column (e.g. ``"easy / tang p85 selective"``)
    and one column per metric.
    """
    fig, axes = _figure(width=10, height=4.5, ncols=len(metrics))
    axes = np.atleast_1d(axes)
    titles = {"mean_wait_h": "average wait (hours)",
              "mean_bounded_slowdown": "average bounded slowdown (10 s)"}
    positions = np.arange(len(table))
    for ax, metric in zip(axes, metrics):
        ax.barh(positions, table[metric], color="#4c72b0")
        ax.set_yticks(positions, table["label"], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(titles.get(metric, metric))
        ax.grid(axis="x", alpha=0.3)
    return fig


def bound_over_time(submit_time, wait_time, bound, *, quantile=0.95, wait_bound=None):
    """Actual waits and the upper bounds at each submission (Nurmi et al. 2008, Fig. 2).

    ``bound`` is QBETS's; ``wait_bound``, if given, WaitPredictor's.
    """
    fig, ax = _figure(width=10, height=4.2)
    days = (np.asarray(submit_time, dtype=float) - np.nanmin(submit_time)) / 86400.0
    wait = np.maximum(np.asarray(wait_time, dtype=float), 1.0) / _HOUR
    ax.scatter(days, wait, s=2, alpha=0.3, color="#4c72b0", label="actual wait (under 1 s shown at 1 s)")
    ax.scatter(days, np.asarray(bound, dtype=float) / _HOUR, s=2, alpha=0.5, color="#c44e52",
               label=f"QBETS bound of each job at submission (q = {quantile:g})")
    if wait_bound is not None:
        ax.scatter(days, np.asarray(wait_bound, dtype=float) / _HOUR, s=2, alpha=0.5,
                   color="#55a868",
                   label=f"WaitPredictor bound of each job at submission (q = {quantile:g})")
    ax.set_yscale("log")
    ax.set_xlabel("days since the start of the log")
    ax.set_ylabel("wait (hours, log scale)")
    ax.grid(alpha=0.3)
    _legend_outside(ax, markerscale=4)
    return fig


def fairness_by_width(table):
    """Percent of jobs missing their fair start time and average miss, by job width (Leung et al. 2010, Figs. 6-7).

    ``table`` has columns ``width`` (category label), ``percent_unfair`` and
    ``mean_miss_h``, optionally ``label`` for several configurations.
    """
    fig, (left, right) = _figure(width=10, height=4.2, ncols=2)
    labels = table["label"] if "label" in table else pd.Series("all", index=table.index)
    configurations = list(dict.fromkeys(labels))
    widths = list(dict.fromkeys(table["width"].astype(str)))
    positions = np.arange(len(widths))
    bar = 0.8 / len(configurations)
    for i, configuration in enumerate(configurations):
        rows = table[(labels == configuration).to_numpy()]
        rows = rows.set_index(rows["width"].astype(str))
        offset = positions - 0.4 + (i + 0.5) * bar
        for ax, column in ((left, "percent_unfair"), (right, "mean_miss_h")):
            ax.bar(offset, rows[column].reindex(widths).to_numpy(dtype=float), width=bar,
                   label=configuration)
    left.set_ylabel("percent of jobs started after their fair start")
    right.set_ylabel("average miss time (hours)")
    for ax in (left, right):
        ax.set_xticks(positions, widths, fontsize=8)
        ax.set_xlabel("job width (processors)")
        ax.grid(axis="y", alpha=0.3)
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center",
               ncols=min(len(configurations), 3), fontsize=8, frameon=False)
    return fig

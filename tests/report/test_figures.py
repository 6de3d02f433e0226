"""Report figures: legends beside the data, periods that fit the log, widths within the machine."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from predictkit.report import _figures as figures
from predictkit.report._analysis import width_bins

DAY = 86400.0


def _legends(fig):
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    found = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return found


def _assert_legends_beside_the_axes(fig):
    """Every legend is drawn and none overlaps the area of any axes (where the data are)."""
    legends = _legends(fig)
    assert legends, "the figure has no legend"
    renderer = fig.canvas.get_renderer()
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert legend.get_title().get_text() == "", "a legend has a title"
        for ax in fig.axes:
            area = ax.get_window_extent(renderer)
            overlap_w = min(box.x1, area.x1) - max(box.x0, area.x0)
            overlap_h = min(box.y1, area.y1) - max(box.y0, area.y0)
            assert overlap_w <= 0.5 or overlap_h <= 0.5, (
                f"legend {[t.get_text() for t in legend.get_texts()]} covers an axes")


def _fairness_table():
    rows = []
    for label in ("EASY / request", "EASY / tang, selective"):
        for width, unfair in (("1", 30.0), ("2", 45.0), ("3-4", 80.0), ("65-100", 95.0)):
            rows.append({"width": width, "percent_unfair": unfair, "mean_miss_h": unfair / 10,
                         "label": label})
    return pd.DataFrame(rows)


def _figures_with_legends():
    rng = np.random.default_rng(0)
    run = rng.exponential(3600, 500)
    submit = np.sort(rng.uniform(0, 90 * DAY, 500))
    predictors = pd.DataFrame({"predictor": ["request", "tang"], "accuracy": [0.3, 0.5],
                               "NA": [1.0, 0.2], "OE": [0.0, 0.6], "UE": [0.0, 0.1],
                               "BE": [0.0, 0.1]})
    return {
        "runtime_cdfs": figures.runtime_cdfs(run, 2 * run, {"tang": 1.5 * run}),
        "accuracy_by_period": figures.accuracy_by_period(submit, rng.uniform(0, 1, 500)),
        "predictor_accuracy": figures.predictor_accuracy(predictors),
        # waits reaching the top right corner, where a legend used to sit
        "bound_over_time": figures.bound_over_time(submit, np.linspace(1, 1e5, 500),
                                                   np.full(500, 2e5)),
        "both_bounds_over_time": figures.bound_over_time(
            submit, np.linspace(1, 1e5, 500), np.full(500, 2e5), wait_bound=np.full(500, 5e4)),
        "fairness_by_width": figures.fairness_by_width(_fairness_table()),
    }


@pytest.mark.parametrize("name", list(_figures_with_legends()))
def test_legends_never_cover_the_data(name):
    _assert_legends_beside_the_axes(_figures_with_legends()[name])


def test_fairness_legend_names_configurations_without_a_title():
    fig = figures.fairness_by_width(_fairness_table())
    (legend,) = _legends(fig)
    assert [t.get_text() for t in legend.get_texts()] == ["EASY / request",
                                                           "EASY / tang, selective"]
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["1", "2", "3-4", "65-100"]


@pytest.mark.parametrize("span_days, period", [
    (0.5, "day"), (3, "day"), (20, "day"), (8 * 7, "week"), (200, "week"),
    (8 * 30.4, "month"), (700, "month"), (8 * 91.3, "quarter"), (3 * 365, "quarter"),
])
def test_period_follows_the_span(span_days, period):
    assert figures.choose_period(span_days * DAY)[0] == period


@pytest.mark.parametrize("span_days, unix_start, expected", [
    (17, None, "day"), (17, 1.6e9, "day"), (3 * 365, None, "quarter"),
    (3 * 365, 1.6e9, "quarter"), (120, 1.6e9, "week"),
])
def test_per_period_plot_has_enough_points(span_days, unix_start, expected):
    """A short log is not one or two quarters: every plot has at least 8 periods."""
    submit = np.linspace(0, span_days * DAY, 2000)
    fig = figures.accuracy_by_period(submit, np.full(2000, 0.5), unix_start)
    ax = fig.axes[0]
    assert ax.get_xlabel() == f"{expected} of submission"
    points = len(ax.get_lines()[0].get_xdata())
    assert points >= figures.MIN_PERIODS
    assert points <= span_days * DAY / figures.choose_period(span_days * DAY)[2] + 2


@pytest.mark.parametrize("machine, top", [(1, "1"), (3, "3"), (100, "65-100"), (128, "65-128"),
                                          (1024, "513-1024"), (200, "129-200")])
def test_width_bins_end_at_the_machine_size(machine, top):
    widths = np.arange(1, machine + 1, dtype=float)
    bins = width_bins(widths, machine)
    assert list(bins.categories)[-1] == top
    assert bins.categories.nunique() == len(set(bins))  # every bin holds jobs of this machine
    for label in bins.categories:
        bound = label.rstrip("+").split("-")[-1]
        assert "+" not in label and int(bound) <= machine
    # each job is in the bin whose range holds its width
    for width, label in zip(widths, np.asarray(bins)):
        low, _, high = label.partition("-")
        assert int(low) <= width <= int(high or low)


def test_bound_figure_draws_both_bounds():
    submit = np.arange(10.0) * DAY
    fig = figures.bound_over_time(submit, np.ones(10), np.full(10, 3600.0),
                                  wait_bound=np.full(10, 7200.0))
    labels = [t.get_text() for t in _legends(fig)[0].get_texts()]
    assert any(text.startswith("QBETS bound") for text in labels)
    assert any(text.startswith("WaitPredictor bound") for text in labels)

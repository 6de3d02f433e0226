"""The accuracy-vs-bad-estimate section of ``docs/results/runtime.md`` and its figure."""

import io

from benchmarks._common import write_text

TANG = "Tang triple 30D p85 floor 0.5"
NAMED = ("requested", "RecentUsageMax", "RecentAverage", TANG, "pipeline")
TARGET_RATIO = 1.10
"""Accuracy the default must reach, as a multiple of Tang p85's (issue target)."""
TARGET_BE_SLACK = 0.005
"""BE share the default may exceed Tang p85's by (0.5 point)."""
BUDGET_SLACK = 0.01
"""Distance allowed between the default's BE share and its budget (1 point)."""
DEFAULT_BUDGET = 0.02
ROUNDING = 1e-4
"""Resolution of the stored accuracy and shares (``score`` rounds to 4 decimals)."""
TARGET_TRACES = 8
"""Traces (of the 11 shared logs with requests) on which the accuracy target must hold."""
FIGURE = "runtime_frontier.svg"


def _pct(x):
    """A share in percent: one decimal, two below 1% (where the 0.5-point slack makes a
    tenth of a point matter)."""
    return f"{100 * x:.2f}%" if 0 < 100 * x < 1 else f"{100 * x:.1f}%"


def _cell(s):
    return f"{s['accuracy']:.3f} / {_pct(s['BE'])}"


def verdicts(done):
    """Per trace: Tang p85 and the default, the ratio, and which targets hold."""
    rows = {}
    for name, t in done.items():
        f = t.get("frontier")
        if not f:
            continue
        tang = next(p for p in f["points"] if p["predictor"] == TANG)
        ours = f["learned"]["default"]
        ratio = ours["accuracy"] / tang["accuracy"] if tang["accuracy"] > 0 else float("inf")
        rows[name] = {
            "n": f["n_scored"], "tang": tang, "ours": ours, "ratio": ratio,
            "accuracy_ok": ratio >= TARGET_RATIO,
            "be_ok": ours["BE"] <= tang["BE"] + TARGET_BE_SLACK + 1e-12,
            "budget_ok": abs(ours["BE"] - DEFAULT_BUDGET) <= BUDGET_SLACK + 1e-12,
            "seconds": f["learned"]["seconds"], "n_jobs": t["n_jobs"]}
    return rows


def _dominated(point, curve):
    return any(c["accuracy"] >= point["accuracy"] and c["BE"] <= point["BE"] for c in curve)


def frontier_lines(done):
    """Markdown lines of the frontier section (empty when the run has no frontier)."""
    rows = verdicts(done)
    if not rows:
        return []
    lines = [
        "## Accuracy vs bad estimates (last 30-day periods only)", "",
        "Every predictor and setting scored on the same jobs (the test jobs of the learned "
        "pipeline above): each `WalltimeAdjuster` grid cell (with and without the floor) "
        "and each named predictor is a point; `LearnedRuntime` "
        "(`make_predictor(\"learned\")`) is a curve over `max_bad_share`, its default "
        "(2%) replayed on its own. BE is the share of jobs underestimated by more than "
        "30 minutes (Tang et al. 2013 section 4.2.2); cells read `accuracy / BE`.", "",
        f"![accuracy against BE share per trace]({FIGURE})", "",
        "| trace | jobs scored | Tang triple 30D p85 | learned (2%) | accuracy ratio | "
        f">= {TARGET_RATIO:.2f}x at BE <= Tang + 0.5 pt | BE within 2% +- 1 pt | "
        "replay of the whole log |",
        "|---|---:|---:|---:|---:|---|---|---:|"]
    for name, r in rows.items():
        target = "yes" if r["accuracy_ok"] and r["be_ok"] else "no"
        lines.append(
            f"| {name} | {r['n']:,} | {_cell(r['tang'])} | {_cell(r['ours'])} | "
            f"{r['ratio']:.2f} | {target} | {'yes' if r['budget_ok'] else 'no'} | "
            f"{r['seconds']:.0f} s ({r['n_jobs']:,} jobs) |")
    met = [n for n, r in rows.items() if r["accuracy_ok"] and r["be_ok"]]
    # shares are stored rounded to 0.01 point: a BE share equal to the limit may
    # exceed it by less than that
    edge = [n for n in met if rows[n]["tang"]["BE"] + TARGET_BE_SLACK
            - rows[n]["ours"]["BE"] < ROUNDING]
    sure = len(met) - len(edge)
    lines += ["", f"**Target** (accuracy at least {TARGET_RATIO:.2f}x Tang p85's at a BE "
              f"share no higher than Tang p85's + 0.5 point): met on {len(met)} of "
              f"{len(rows)} traces." + _failures(rows)
              + _list(" At the limit within the rounding of the shares (0.01 point), so "
                      "possibly missed", edge)
              + f" The issue asks for at least {TARGET_TRACES}: "
              + ("**holds**" if sure >= TARGET_TRACES else "**does not hold**"
                 if len(met) < TARGET_TRACES else "**holds only with the traces at the limit**")
              + (f" (on {sure} without the traces at the limit)." if edge else "."), ""]
    held = [n for n, r in rows.items() if r["budget_ok"]]
    lines.append(
        f"**Budget held** (BE share within 1 point of the 2% budget): on {len(held)} of "
        f"{len(rows)} traces." + _list(
            " Outside", [f"{n} ({_pct(r['ours']['BE'])}" + _long(done[n]) + _exclusive(r) + ")"
                         for n, r in rows.items() if not r["budget_ok"]])
        + f" Above the budget: {_count_above(rows)} of {len(rows)} traces (the calibration "
        "aims at 1.39%, the share whose 95% bound over 1,000 jobs is 2%). The issue asks "
        "for every trace: " + ("**holds**." if len(held) == len(rows) else "**does not hold**."))
    matched = {n: _matched(done[n], r) for n, r in rows.items()}
    good = [n for n, m in matched.items() if m and m["accuracy"] >= TARGET_RATIO * rows[n][
        "tang"]["accuracy"]]
    lines += ["", "**At Tang's own risk** (the most accurate point of the curve whose BE "
              "share is no higher than Tang p85's + 0.5 point, i.e. the budget a site would "
              f"choose to match Tang's risk): at least {TARGET_RATIO:.2f}x Tang p85's accuracy "
              f"on {len(good)} of {len(rows)} traces: " + "; ".join(
                  f"{n} {_cell(m)} at {_pct(m['max_bad_share'])} "
                  f"({m['accuracy'] / rows[n]['tang']['accuracy']:.2f}x)" if m else
                  f"{n} no point" for n, m in matched.items()) + "."]
    lines += ["", "Curve of the learned predictor (`max_bad_share` -> accuracy / BE):", ""]
    budgets = [c["max_bad_share"] for c in next(iter(done.values()))["frontier"]["learned"][
        "curve"]] if all("frontier" in t for t in done.values()) else []
    if not budgets:
        budgets = [c["max_bad_share"] for t in done.values() if "frontier" in t
                   for c in t["frontier"]["learned"]["curve"]][:6]
    lines += ["| trace | " + " | ".join(_pct(b) for b in budgets)
              + " | points dominated by the curve |",
              "|---|" + "---:|" * len(budgets) + "---|"]
    for name in rows:
        f = done[name]["frontier"]
        curve = f["learned"]["curve"]
        points = f["points"]
        beaten = [p for p in points if _dominated(p, curve)]
        free = [p for p in points if not _dominated(p, curve) and p["predictor"] in NAMED]
        lines.append(
            f"| {name} | " + " | ".join(_cell(c) for c in curve) + f" | {len(beaten)} of "
            f"{len(points)}" + ("; not: " + ", ".join(
                f"{p['predictor']} ({_cell(p)})" for p in free) if free else "") + " |")
    rising = {n: _rising(done[n]["frontier"]["learned"]["curve"]) for n in rows}
    lines += ["", "A point is dominated when some point of the curve is at least as "
              "accurate with a BE share no higher. "
              f"**A larger budget buys accuracy** (accuracy non-decreasing along the curve, "
              f"0.002 tolerance): on {sum(rising.values())} of {len(rising)} traces."
              + _list(" Not on", [f"{n} (best {_best(done[n])})" for n, ok in rising.items()
                                  if not ok])
              + " Where it does not, the estimates that spend more of the budget are less "
              "accurate than the samples of the user's few recent jobs promise: the "
              "calibration holds the share, the decision overrates aggressive estimates.", ""]
    return lines


def _long(trace):
    share = trace["frontier"].get("long_share")
    return "" if share is None else (f"; only {_pct(share)} of its jobs run longer than 30 "
                                     "minutes, the only ones that can be bad estimates")


def _exclusive(row):
    limit = row["tang"]["BE"] + TARGET_BE_SLACK
    if limit >= DEFAULT_BUDGET - BUDGET_SLACK:
        return ""
    return (f"; the accuracy target asks for at most {_pct(limit)} there, below the "
            f"{_pct(DEFAULT_BUDGET - BUDGET_SLACK)} this band starts at: both cannot hold")


def _count_above(rows):
    return sum(r["ours"]["BE"] > DEFAULT_BUDGET + 1e-12 for r in rows.values())


def _matched(trace, row):
    limit = row["tang"]["BE"] + TARGET_BE_SLACK + 1e-12
    within = [c for c in trace["frontier"]["learned"]["curve"] if c["BE"] <= limit]
    return max(within, key=lambda c: c["accuracy"]) if within else None


def _rising(curve):
    return all(b["accuracy"] >= a["accuracy"] - 0.002 for a, b in zip(curve, curve[1:]))


def _best(trace):
    best = max(trace["frontier"]["learned"]["curve"], key=lambda c: c["accuracy"])
    return f"{best['accuracy']:.3f} at {_pct(best['max_bad_share'])}"


def _failures(rows):
    out = []
    for name, r in rows.items():
        why = []
        if not r["accuracy_ok"]:
            why.append(f"accuracy {r['ratio']:.2f}x")
        if not r["be_ok"]:
            why.append(f"BE {_pct(r['ours']['BE'])} above Tang's {_pct(r['tang']['BE'])} + "
                       f"{100 * TARGET_BE_SLACK:g} point = "
                       f"{_pct(r['tang']['BE'] + TARGET_BE_SLACK)}"
                       + (": Tang p85 is more cautious than the 2% budget here"
                          if r["tang"]["BE"] + TARGET_BE_SLACK < DEFAULT_BUDGET else ""))
        if why:
            out.append(f"{name} ({'; '.join(why)})")
    return _list(" Missed on", out)


def _list(label, items):
    return f"{label}: " + "; ".join(items) + "." if items else ""


def write_figure(done, path):
    """Accuracy against BE share, one panel per trace (SVG, reproducible bytes)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    rows = verdicts(done)
    if not rows:
        return
    names = list(rows)
    ncols = 3
    nrows = (len(names) + ncols - 1) // ncols
    fig = Figure(figsize=(11, 3.2 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    colors = {"requested": "#8c8c8c", "RecentUsageMax": "#4c72b0", "RecentAverage": "#dd8452",
              TANG: "#c44e52", "pipeline": "#8172b3"}
    for ax, name in zip(axes.ravel(), names):
        f = done[name]["frontier"]
        grid = [p for p in f["points"] if p["predictor"] == "tang"]
        ax.scatter([100 * p["BE"] for p in grid], [p["accuracy"] for p in grid], s=8,
                   color="#cccccc", label="Tang grid cells")
        for p in f["points"]:
            if p["predictor"] in colors:
                ax.scatter([100 * p["BE"]], [p["accuracy"]], s=30, color=colors[p["predictor"]],
                           label=p["predictor"], zorder=3)
        curve = f["learned"]["curve"]
        ax.plot([100 * c["BE"] for c in curve], [c["accuracy"] for c in curve], "-o",
                color="#55a868", markersize=3, label="learned (max_bad_share 0.5-20%)", zorder=4)
        d = f["learned"]["default"]
        ax.scatter([100 * d["BE"]], [d["accuracy"]], marker="*", s=120, color="#55a868",
                   edgecolor="black", linewidth=0.5, label="learned, default 2%", zorder=5)
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_title(name, fontsize=8)
        ax.set_xlabel("BE share (%)", fontsize=7)
        ax.set_ylabel("accuracy (Tang eq. 3)", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    fig.legend(seen.values(), seen.keys(), loc="lower center", ncol=4, fontsize=7,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "predictkit", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    write_text(path, buffer.getvalue())

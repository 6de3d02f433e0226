"""The end-to-end study behind ``predictkit demo`` and ``predictkit report``.

One pass over a log: summary and cleaning, online replay of every runtime
predictor against the user requests (Tang et al. 2013 section 4), QBETS
bounds on the waits (Nurmi et al. 2008 section 3), and simulated schedules
with requests and with the best predictor (Tang et al. 2013 section 5.2,
selective), with fairness by job width (Leung et al. 2010 section IV).
"""

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._clean import SANE_RULES
from .._summary import (busier_than_machine, first_jobs, implausible_requests,
                        wider_than_machine, width_unit)
from .._table import cancelled_before_running, copy_attrs
from .._validation import WholeNumber, invalid_parameter
from ..exceptions import JobTableError
from ..jobs import clean_jobs, describe_cleaning, estimate_modes, summarize
from ..metrics import (adjustment_outcomes, bound_summary, estimate_accuracy,
                       fair_start_times, mean_absolute_error, underestimation_rate)
from ..metrics._schedule import WIDTH_CATEGORIES, _WIDTH_EDGES
from ..model_selection import replay
from ..queue._replay import make_wait_model
from ..runtime import make_predictor
from ..runtime._base import ungrouped_reason
from ..runtime._walltime_adjuster import DEFAULT_KEYS as TANG_KEYS
from ..runtime._walltime_adjuster import grouping_keys
from ..simulate import simulate
from ..simulate._observed_waits import with_observed_waits

__all__ = ["Analysis", "analyze", "width_bins", "DEFAULT_PREDICTORS"]

DEFAULT_PREDICTORS = {
    "request": ("requested", {}),
    "Tang p85 (user+group+request, 30D)": ("tang", {}),
    "Tang p70 (user+group+request, 30D)": ("tang", {"quantile": 0.7}),
    "RecentUsageMax (last 5)": ("usage-max", {}),
    "RecentAverage (last 2)": ("recent-average", {}),
}
"""Label -> (predictor name, parameters) compared by default."""


@dataclass
class Analysis:
    """Everything the demo prints and the report draws, for one log."""

    name: str
    summary: pd.Series
    cleaning: list
    analysed_summary: pd.Series = None
    notes: list = field(default_factory=list)
    jobs: pd.DataFrame = None
    request_jobs: pd.DataFrame = None
    modes: pd.DataFrame = None
    predictions: dict = field(default_factory=dict)
    predictor_table: pd.DataFrame = None
    best_predictor: str = None
    bounds: np.ndarray = None
    wait_bounds: np.ndarray = None
    bound_table: pd.DataFrame = None
    quantile: float = 0.95
    schedule_table: pd.DataFrame = None
    fairness_table: pd.DataFrame = None
    timings: dict = field(default_factory=dict)

    @property
    def jobs_with_requests(self):
        """The jobs the request modes and runtime predictions cover.

        ``jobs``, or only those with a request when fewer than half of the
        jobs have one (``request_jobs``).
        """
        return self.jobs if self.request_jobs is None else self.request_jobs


def _steps(progress, total):
    if not progress or callable(progress):
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="analysis", unit="step", leave=False)


def _done(progress, timings, step):
    """Tell a progress callback that ``step`` took ``timings[step]`` seconds."""
    if callable(progress):
        progress(step, timings[step])


def _tick(bar, label):
    if bar is not None:
        bar.set_postfix_str(label)
        bar.update(1)


def _by_submit_time(jobs):
    """``jobs`` sorted by submit time (stable), as every replay and simulation needs."""
    submit = np.asarray(jobs["submit_time"], dtype=float)
    if not (np.diff(submit) < 0).any():
        return jobs
    out = jobs.sort_values("submit_time", kind="stable").reset_index(drop=True)
    out.attrs = copy_attrs(jobs)
    return out


def _check_arguments(max_jobs, predictors):
    """Refuse a ``max_jobs`` or ``predictors`` of :func:`analyze` it cannot use, naming it."""
    if max_jobs is not None and not WholeNumber(1).is_satisfied_by(max_jobs):
        raise invalid_parameter("max_jobs", "analyze", "a whole number >= 1, or None",
                                max_jobs)
    if predictors is None:
        return
    usable = isinstance(predictors, dict) and len(predictors) > 0 and all(
        isinstance(label, str) and isinstance(spec, (tuple, list)) and len(spec) == 2
        and isinstance(spec[0], str) and isinstance(spec[1], dict)
        for label, spec in predictors.items())
    if not usable:
        raise invalid_parameter("predictors", "analyze", "a non-empty dict label -> (name, "
                                "params), e.g. {'tang p85': ('tang', {'quantile': 0.85})}",
                                predictors)


def analyze(jobs, *, name=None, max_jobs=None, predictors=None, quantile=0.95,
            policies=("easy", "conservative"), fairness=True, progress=False, random_state=0):
    """Run the whole study on one log.

    Parameters
    ----------
    jobs : DataFrame
        A job table (read from a log or made by
        :func:`predictkit.datasets.make_workload`).
    name : str, optional
        Name shown in the output.
    max_jobs : int, optional
        Use only the first ``max_jobs`` jobs (after cleaning).
    predictors : dict, optional
        ``label -> (name, params)`` for :func:`predictkit.runtime.make_predictor`;
        default :data:`DEFAULT_PREDICTORS`. The label ``"request"`` is the baseline.
    quantile : float
        Quantile of the QBETS bounds.
    policies : tuple of str
        Backfilling policies to simulate.
    fairness : bool
        Compute the hybrid fair-start-time metric by job width for the EASY
        schedules (needs ``"easy"`` in ``policies``).
    progress : bool or callable
        Show a progress bar; a callable is instead called as
        ``progress(step, seconds)`` after each step (``"prepare"``,
        ``"predictors"``, ``"bounds"``, ``"schedules"``, ``"fairness"``).
    random_state : int, Generator or None, default=0
        Seeds every random choice of the study (the QBETS job classes): the
        same seed gives the same tables. ``None`` draws a fresh seed.

    Returns
    -------
    Analysis
        Sections that cannot be computed (no requests, no waits) are left
        ``None`` and the reason is in ``notes``.

    Raises
    ------
    InvalidParameterError
        For a ``max_jobs`` below 1 or ``predictors`` not of the form above.
    JobTableError
        When cleaning leaves no job (every runtime, submit time or width
        unknown: a log of pending jobs, say), naming the log and what was
        left out.
    """
    _check_arguments(max_jobs, predictors)
    max_jobs = None if max_jobs is None else int(max_jobs)
    predictors = dict(DEFAULT_PREDICTORS if predictors is None else predictors)
    bar = _steps(progress, 5)
    timings = {}
    started = time.perf_counter()
    summary = summarize(jobs, name=name)
    name = summary.name
    clean = _by_submit_time(clean_jobs(jobs))
    if not len(clean):
        raise JobTableError(f"{jobs.attrs.get('source', name)}: no job can be analysed: "
                            f"every job was left out ({describe_cleaning(clean) or 'no jobs'}); "
                            f"a job needs a submit time, a runtime and a width")
    notes = [f"{note[0].upper()}{note[1:]}." for note in (
        busier_than_machine(jobs, option="--machine-procs, or attrs['max_procs']"),
        implausible_requests(jobs)) if note is not None]
    cleaning = clean.attrs["cleaning"]
    truncated = max_jobs is not None and len(clean) > max_jobs
    if truncated:
        cleaning = [*cleaning, {"rule": f"after the first {max_jobs:,} (--max-jobs)",
                                "removed": len(clean) - max_jobs, "remaining": max_jobs}]
        clean = first_jobs(clean, max_jobs, source=jobs, reset_index=True)
        notes.append(f"Only the first {max_jobs:,} jobs (after cleaning) are analysed.")
    result = Analysis(name=name, summary=summary, cleaning=cleaning, notes=notes,
                      quantile=quantile)
    if truncated:  # the summary above is the whole log's; the sections cover these
        result.analysed_summary = summarize(clean, name=name)
    requests = np.asarray(clean["req_time"], dtype=float)
    has_requests = bool(len(clean)) and np.isfinite(requests).mean() >= 0.5
    if has_requests and not (requests > 0).all():
        clean = clean_jobs(clean, require_request=True)
        without_request = clean.attrs["cleaning"][-1]
        result.cleaning = [*cleaning, without_request]
        notes.append(f"Jobs without a requested time were left out "
                     f"({without_request['removed']:,}).")
    if (np.asarray(clean["req_time"], dtype=float) == 0).any():  # every schedule refuses them
        clean = clean_jobs(clean, for_simulation=True)
        simulable = clean.attrs["cleaning"][len(SANE_RULES):]
        result.cleaning = [*result.cleaning, *simulable]
        notes.append(f"Jobs requesting 0 s were left out ({simulable[-1]['removed']:,}).")
    result.modes = estimate_modes(clean) if has_requests else None
    before = len(clean)
    clean, filled = with_observed_waits(clean, has_requests=has_requests)
    notes += filled
    if len(clean) < before:  # jobs wider than the machine have no simulated wait
        result.cleaning = [*result.cleaning, {"rule": "wider than the machine (no wait)",
                                              "removed": before - len(clean),
                                              "remaining": len(clean)}]
    result.jobs = clean
    if not has_requests and np.isfinite(np.asarray(clean["req_time"], dtype=float)).any():
        result.request_jobs = clean_jobs(clean, require_request=True)
        notes.append(f"Only {len(result.request_jobs):,} of {len(clean):,} jobs "
                     f"({len(result.request_jobs) / len(clean):.0%}) have a requested time: "
                     "the request modes and the runtime predictors cover those jobs; the "
                     "schedules, which need a request for every job, are skipped.")
        result.modes = estimate_modes(result.request_jobs)
    requested = result.jobs if has_requests else result.request_jobs
    timings["prepare"] = time.perf_counter() - started
    _done(progress, timings, "prepare")
    _tick(bar, "runtime predictors")

    started = time.perf_counter()
    if requested is not None:
        predictors = _labelled_keys(predictors, requested)
        _predictors(result, requested, predictors)
    else:
        notes.append("The log has no requested times: the runtime predictors, which adjust "
                     "the request, and request-based schedules are skipped.")
    timings["predictors"] = time.perf_counter() - started
    _done(progress, timings, "predictors")
    _tick(bar, "queue bounds")

    started = time.perf_counter()
    _bounds(result, clean, quantile, random_state)
    timings["bounds"] = time.perf_counter() - started
    _done(progress, timings, "bounds")
    _tick(bar, "schedules")

    started = time.perf_counter()
    easy = _schedules(result, clean, predictors, policies) if has_requests else {}
    timings["schedules"] = time.perf_counter() - started
    _done(progress, timings, "schedules")
    _tick(bar, "fairness")

    if fairness:
        started = time.perf_counter()
        _fairness(result, easy)
        timings["fairness"] = time.perf_counter() - started
        _done(progress, timings, "fairness")
    _tick(bar, "done")
    if bar is not None:
        bar.close()
    result.timings = timings
    return result


_KEY_LABELS = {"user_id": "user", "group_id": "group", "req_time": "request"}


def _labelled_keys(predictors, jobs):
    """``predictors`` with each Tang label naming the keys the log gives
    (``user+request`` on a log without groups), where the label names the defaults."""
    keys = grouping_keys(jobs)
    if keys == TANG_KEYS:
        return predictors
    default = "+".join(_KEY_LABELS[k] for k in TANG_KEYS)
    used = "+".join(_KEY_LABELS[k] for k in keys) or "no key"
    return {(label.replace(default, used) if kind == "tang" and "keys" not in params
             else label): (kind, params) for label, (kind, params) in predictors.items()}


def _predictors(result, jobs, predictors):
    run = np.asarray(jobs["run_time"], dtype=float)
    requested = np.asarray(jobs["req_time"], dtype=float)
    keys = grouping_keys(jobs)
    if keys != TANG_KEYS and any(kind == "tang" for kind, _ in predictors.values()):
        left_out = [k for k in TANG_KEYS if k not in keys]
        result.notes.append(f"Tang's similarity keys leave out {' and '.join(left_out)}: the "
                            f"log gives {'it' if len(left_out) == 1 else 'them'} for no job.")
    scored = ~cancelled_before_running(jobs)
    rows = []
    for label, (kind, params) in predictors.items():
        params = dict(params)
        if kind == "tang":
            params.setdefault("keys", keys)
        estimator = make_predictor(kind, **params)
        reason = ungrouped_reason(estimator, jobs)
        if reason is not None:
            result.notes.append(f"{label} {reason}.")
        estimate = replay(estimator, jobs, run)
        result.predictions[label] = estimate
        # a job cancelled before it ran has no runtime to score against (as predict says)
        ran, guess = run[scored], estimate[scored]
        outcomes = adjustment_outcomes(ran, requested[scored], guess)
        rows.append({"predictor": label, "accuracy": estimate_accuracy(ran, guess),
                     "underestimated": underestimation_rate(ran, guess),
                     "mae_h": mean_absolute_error(ran, guess) / 3600.0, **outcomes})
    table = pd.DataFrame(rows)
    result.predictor_table = table
    candidates = table[table["predictor"] != "request"]
    if len(candidates):
        result.best_predictor = candidates.sort_values("accuracy", ascending=False,
                                                       kind="stable")["predictor"].iloc[0]


def _bounds(result, jobs, quantile, random_state):
    waits = np.asarray(jobs["wait_time"], dtype=float)
    result.bounds = replay(make_wait_model("qbets", quantile=quantile,
                                           random_state=random_state), jobs, waits)
    result.wait_bounds = replay(make_wait_model("wait", quantile=quantile,
                                                capacity=jobs.attrs.get("max_procs")), jobs, waits)
    rows = []
    waited = bool((waits > 0).any())  # else every bound holds, which judges none
    for method, bounds in (("QBETS", result.bounds), ("WaitPredictor", result.wait_bounds)):
        summary = bound_summary(waits, bounds, quantile=quantile)
        scored = summary["n_bounded"] > 0 and waited
        rows.append({
            "method": method, "quantile": quantile, "jobs": summary["n_jobs"],
            "jobs with a bound": summary["n_bounded"], "correctness": summary["correctness"],
            "95% interval": (f"{summary['correctness_low']:.3f}-"
                             f"{summary['correctness_high']:.3f}" if scored else "n/a"),
            "median bound/actual": summary["median_ratio"],
            "meets quantile": summary["meets_quantile"] if scored else None})
    result.bound_table = pd.DataFrame(rows)


def _estimator(predictors, label, jobs):
    kind, params = predictors[label]
    params = dict(params)
    if kind == "tang":
        params.setdefault("keys", grouping_keys(jobs))
    return make_predictor(kind, **params)


def _schedule_row(schedule, policy, label):
    values = dict(zip(schedule.metrics()["metric"], schedule.metrics()["value"]))
    return {"label": f"{policy} / {label}", "policy": policy, "estimates": label,
            "mean_wait_h": values["mean_wait"] / 3600.0,
            "mean_bounded_slowdown": values["mean_bounded_slowdown"],
            "utilization": values["utilization"], "backfill_ratio": values["backfill_ratio"],
            "loss_of_capacity": values["loss_of_capacity"]}


def _schedules(result, jobs, predictors, policies):
    """Simulate each policy with requests and with the best predictor (selective)."""
    rows, easy = [], {}
    for policy in policies:
        configs = [("request", "requested")]
        if result.best_predictor is not None:
            configs.append((f"{result.best_predictor}, selective",
                            _estimator(predictors, result.best_predictor, jobs)))
        for label, estimates in configs:
            schedule = simulate(jobs, policy=policy, estimates=estimates,
                                selective=not isinstance(estimates, str))
            rows.append(_schedule_row(schedule, policy, label))
            wider = len(schedule.rejected)
            note = (f"{wider_than_machine(wider, schedule.machine_procs, width_unit(jobs))} "
                    f"left out of the schedules.")
            if wider and note not in result.notes:
                result.notes.append(note)
            if policy == "easy":
                easy[label] = schedule
    result.schedule_table = pd.DataFrame(rows) if rows else None  # policies=(): none
    return easy


def width_bins(widths, machine_procs):
    """Leung et al. (2010) Tables I-II width class of each job, clipped to the machine.

    The classes of :func:`predictkit.metrics.width_category` (``1``, ``2``,
    ``3-4``, ..., ``513+``), except that the class holding the machine size
    ends at it (``65-100`` on a 100-processor machine, ``513-1024`` on a
    1024-processor one) and no class lies beyond it.

    Returns
    -------
    pandas.Categorical
        Ordered classes, only those a job of this machine can fall in.
    """
    machine = int(machine_procs)
    index = np.searchsorted(_WIDTH_EDGES, np.asarray(widths, dtype=float), side="left")
    last = int(np.searchsorted(_WIDTH_EDGES, machine, side="left"))
    labels = list(WIDTH_CATEGORIES[:last + 1])
    low = 1 if last == 0 else int(_WIDTH_EDGES[last - 1]) + 1
    labels[last] = str(machine) if low >= machine else f"{low}-{machine}"
    return pd.Categorical.from_codes(np.minimum(index, last), labels, ordered=True)


def _fairness(result, schedules):
    """Leung et al. (2010) section IV fairness by job width, for the EASY schedules."""
    frames = []
    for label, schedule in schedules.items():
        fair = fair_start_times(schedule)
        done = schedule.jobs
        miss = np.asarray(done["start_time"], dtype=float) - fair
        frame = pd.DataFrame({"width": width_bins(np.asarray(done["n_procs"], dtype=float),
                                                  schedule.machine_procs),
                              "late": miss > 0, "miss": np.maximum(miss, 0.0)})
        stats = frame.groupby("width", observed=True).agg(late=("late", "mean"),
                                                          miss=("miss", "mean"))
        frames.append(pd.DataFrame({
            "width": stats.index.astype(str), "percent_unfair": 100.0 * stats["late"].to_numpy(),
            "mean_miss_h": stats["miss"].to_numpy() / 3600.0, "label": f"EASY / {label}",
        }))
    if frames:
        result.fairness_table = pd.concat(frames, ignore_index=True)

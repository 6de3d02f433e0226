"""Per-job wait bounds replayed online over a trace: the one path of ``predictkit bounds`` and sweeps."""

import math

import numpy as np

__all__ = ["WAIT_METHODS", "make_wait_model", "known_wait_rows", "replay_wait_bounds",
           "sized_rows"]

WAIT_METHODS = ("qbets", "wait")
"""``qbets``: :class:`~predictkit.queue.QBETS`; ``wait``: :class:`~predictkit.queue.WaitPredictor`."""


def make_wait_model(method, *, quantile=0.95, capacity=None, confidence=0.95,
                    changepoint="runs", clustering="auto", index="textbook", random_state=0):
    """The wait-bound model of ``predictkit bounds --method METHOD``.

    Parameters
    ----------
    method : {"qbets", "wait"}
        QBETS (Nurmi et al. 2008, section 2.3) or WaitPredictor (a forward
        simulation of the queue, calibrated online).
    quantile : float
        Quantile of the wait to bound, in (0, 1).
    capacity : float, optional
        WaitPredictor only: processors of the machine (None: learned online).
        Its ``window`` is 1000 scores, or the ``q / (1 - q)`` a quantile
        nearer 1 needs to bound at all.
    confidence, changepoint, clustering, index, random_state
        QBETS only (``"none"`` for no change-point trimming or no classes);
        ``random_state=0`` by default so that two runs agree.
    """
    from . import QBETS, WaitPredictor

    if method == "wait":
        # at a quantile near 1 the window must hold the scores that can bound at it
        needed = math.ceil(quantile / (1.0 - quantile) - 1e-9) if 0 < quantile < 1 else 0
        return WaitPredictor(quantile=quantile, capacity=capacity, window=max(1000, needed))
    if method != "qbets":
        raise ValueError(f"method must be one of {', '.join(WAIT_METHODS)}, got {method!r}")
    return QBETS(quantile=quantile, confidence=confidence,
                 changepoint=None if changepoint == "none" else changepoint,
                 clustering=None if clustering == "none" else clustering,
                 index=index, random_state=random_state)


def replay_wait_bounds(model, jobs):
    """Each job's bound at its submission, from the waits known by then.

    Jobs without a known wait or submit time are left out (they cannot be
    placed in the history nor checked against their bound), and so are, for a
    WaitPredictor, jobs without a width (:func:`sized_rows`): its simulated
    queue cannot place them.

    Parameters
    ----------
    model : QBETS or WaitPredictor
        From :func:`make_wait_model`; replayed with
        :func:`predictkit.model_selection.replay` (``y`` = the waits).
    jobs : DataFrame
        A job table with ``submit_time`` and ``wait_time``.

    Returns
    -------
    usable : ndarray of bool
        The jobs that were replayed, one flag per row of ``jobs``.
    bounds : ndarray of float
        The bound of each usable job, in order (``NaN``: too little history).
    """
    from ..model_selection import replay
    from . import WaitPredictor

    usable = known_wait_rows(jobs)
    if isinstance(model, WaitPredictor):
        usable &= sized_rows(jobs)
    kept = jobs[usable].reset_index(drop=True)
    if len(kept) == 0:
        return usable, np.empty(0)
    return usable, replay(model, kept, kept["wait_time"].to_numpy(dtype=float))


def sized_rows(jobs):
    """The jobs a WaitPredictor can place in its simulated queue, one flag per row.

    A job needs a width (``n_procs``, else ``req_procs``), and no width column
    may say 0 or less; QBETS, which only classes jobs by their request, keeps
    the others.
    """
    from .._table import job_width

    sized = job_width(jobs) > 0
    for column in ("n_procs", "req_procs"):
        if column in jobs.columns:
            sized &= ~(np.asarray(jobs[column], dtype=float) <= 0)
    return sized


def known_wait_rows(jobs):
    """The jobs with a known wait and submit time, one flag per row: those a wait
    bound can be learned from and checked against."""
    return (np.isfinite(np.asarray(jobs["wait_time"], dtype=float))
            & np.isfinite(np.asarray(jobs["submit_time"], dtype=float)))

"""The result of a simulation: the job table with simulated times."""

import numpy as np
import pandas as pd

from .._deprecation import warn_renamed
from .._format import format_count
from .._table import copy_attrs

__all__ = ["Schedule"]


class Schedule:
    """A simulated schedule: the job table plus what happened to each job.

    Attributes
    ----------
    jobs : DataFrame
        The simulated jobs in submit order (ties by ``job_id``), with their
        index labels from the input (so ``jobs.assign(w=schedule.jobs.wait_time)``
        pairs each job with its own wait), every input column, and:

        ``wait_time``
            Simulated wait (the log's own wait is kept as ``log_wait_time``).
        ``start_time``, ``end_time``
            Simulated start and end.
        ``sim_run_time``
            Time the job held its processors: ``min(run_time, req_time)``
            when jobs are killed at their request, else ``run_time`` (the
            pieces of a split job run it between them).
        ``killed``
            Whether the job was cut at its request.
        ``backfilled``
            Whether the job started while a job ahead of it in priority
            order kept waiting (Klusacek & Soysal 2019 section 3.2).
        ``estimate``
            Runtime estimate the scheduler used while the job waited.
        ``promised_start``
            Conservative backfilling: the start reserved at submission
            (Klusacek & Soysal section 4.1); with ``starvation_after``: the
            start first reserved for a job at the head of the starvation
            queue (``NaN`` for jobs never reserved for); ``NaN`` for other
            policies.
        ``starving_since``
            With ``starvation_after``: when the job entered the starvation
            queue (``NaN``: it started before, or was barred as a heavy
            user's job until it started).
        ``n_pieces``
            With ``max_runtime``: how many chained pieces the job ran as.
    pieces : DataFrame or None
        With ``max_runtime`` splitting some job: one row per piece of every
        job, ``job`` (the job's position in :attr:`jobs` as returned, whose
        labels :attr:`simulated_index` keeps: the metrics still find each
        piece's job after :attr:`jobs` is sorted or filtered), ``piece`` (0 for
        the first), ``submit_time`` (the job's, else when the piece before
        it ended), ``start_time`` and ``end_time``. The per-job columns
        above describe the job as a whole (its wait is its first piece's);
        the machine-wide metrics (``loss_of_capacity``, fair start times)
        read the pieces. ``None`` when no job was split.
    rejected : DataFrame
        Input rows that were not simulated (wider than the machine), with a
        ``reason`` column.
    params : dict
        The simulation parameters (``machine_procs``, ``policy``,
        ``priority``, ...). The old key ``"n_procs"`` still reads the machine
        size, with a ``DeprecationWarning``, until 0.3.
    """

    def __init__(self, jobs, rejected, params, pieces=None):
        self.jobs = jobs
        self.rejected = rejected
        self.params = _Params(params)
        self.pieces = pieces
        # the row labels pieces["job"] counts positions in: the metrics find a
        # piece's job by label when .jobs is later sorted or filtered
        self.simulated_index = jobs.index

    @property
    def machine_procs(self):
        """Machine size (processors) the schedule was simulated on."""
        return self.params["machine_procs"]

    @property
    def n_procs(self):
        """Deprecated name of :attr:`machine_procs` (removed in 0.3)."""
        warn_renamed("Schedule.n_procs", "Schedule.machine_procs")
        return self.machine_procs

    def __len__(self):
        return len(self.jobs)

    def __getitem__(self, key):
        return self.jobs[key]

    def __repr__(self):
        p = self.params
        return (f"Schedule({len(self.jobs)} jobs, {len(self.rejected)} rejected, "
                f"machine_procs={p['machine_procs']}, policy={p['policy']!r}, priority={p['priority']!r}, "
                f"estimates={p['estimates']!r}, selective={p['selective']})")

    def metrics(self, *, percentiles=(50, 90, 99), by=None, fairness=False):
        """Schedule metrics as a tidy table (columns ``metric``, ``value``).

        See :func:`predictkit.metrics.schedule_metrics`; ``by="width"`` or
        ``"length"`` adds a ``category`` column (Leung et al. Tables I-II),
        ``fairness=True`` adds the hybrid fair-start-time metrics (slower).
        """
        from ..metrics import schedule_metrics

        return schedule_metrics(self, percentiles=percentiles, by=by, fairness=fairness)

    @classmethod
    def _from_simulation(cls, prep, state, pieces, params):
        n = len(prep["kept"])
        out = prep["kept"].copy()
        last = np.arange(n)
        succ = state.jobs.successor
        n_pieces = np.ones(n, dtype=np.int64)
        if pieces.extra:
            for j in range(n):
                k = j
                while succ[k] >= 0:
                    k = succ[k]
                    n_pieces[j] += 1
                last[j] = k
        start = state.jobs.start[:n]
        end = state.jobs.end[last]
        # the pieces of a job run its simulated runtime (summing them would round
        # where max_runtime is no whole number of seconds)
        sim_run = prep["dur"].copy()
        if "wait_time" in out.columns:
            out["log_wait_time"] = out["wait_time"]
        out["wait_time"] = start - prep["submit"]
        out["start_time"] = start
        out["end_time"] = end
        out["sim_run_time"] = sim_run
        run = out["run_time"].to_numpy(dtype=float)
        out["killed"] = sim_run < run
        out["backfilled"] = state.jobs.backfilled[:n].copy()
        out["estimate"] = state.jobs.estimate[:n].copy()
        out["promised_start"] = state.reservations.promised[:n].copy()
        if params.get("max_runtime") is not None:
            out["n_pieces"] = n_pieces
        if params.get("starvation_after") is not None:
            out["starving_since"] = state.starvation.since[:n].copy()
        out.index = prep["jobs"].index[prep["positions"]]
        out.attrs = copy_attrs(prep["jobs"])
        rejected = prep["jobs"].loc[prep["rejected_mask"]].copy()
        rejected["reason"] = pd.Series(
            f"wider than the machine ({format_count(params['machine_procs'], 'processor')})",
            index=rejected.index,
            dtype=object)
        split = None
        if pieces.extra:
            order = np.lexsort((pieces.all_rank, pieces.all_parent))
            split = pd.DataFrame({"job": pieces.all_parent[order],
                                  "piece": pieces.all_rank[order],
                                  "submit_time": state.jobs.submit[order],
                                  "start_time": state.jobs.start[order],
                                  "end_time": state.jobs.end[order]})
        return cls(out, rejected, params, split)


class _Params(dict):
    """Simulation parameters; the deprecated key ``"n_procs"`` reads ``"machine_procs"``."""

    def __missing__(self, key):
        if key == "n_procs" and "machine_procs" in self:
            warn_renamed("Schedule.params['n_procs']", "Schedule.params['machine_procs']")
            return self["machine_procs"]
        raise KeyError(key)

"""``predictkit wait LOG --procs N --time T``: how long will a job of this shape wait?

The answer is QBETS's (Nurmi et al. 2008, section 2.3): an upper bound on the
``--quantile`` of the wait of jobs like this one, at a stated confidence, from
the waits of the log's recent jobs, and the inverted bound, the probability of
starting within a given time. The queue at the moment asked about (the log's
own pending jobs at its end, or a live ``squeue`` snapshot) is taken into
account by QBETS's queue rule: a job already waiting longer than its class's
bound is a miss known before it starts, and raises the bound.
"""

import os
import re
import sys

import numpy as np
import pandas as pd

from .._format import format_count, format_given, format_percent
from .._summary import machine_size, width_unit
from .._table import cancelled_before_running, job_width, with_times
from .._time import format_duration
from ..exceptions import ConfigError, JobTableError
from ..io._slurm_fields import format_slurm_duration, is_pending, parse_time_request
from ..queue import QBETS, min_history
from ._checks import (check_fraction, check_procs, check_seed, refuse_repeats,
                      refuse_without_waits)
from ._logs import add_log_argument, cancelled_note, read_done, read_trace_arg
from ._machine import add_machine_procs_option, warn_busier_than_machine
from ._output import print_json
from ._parser import add_command, add_quiet_option, path_text
from ._progress import Progress
from ._questions import (add_request_options, clock_time, job_request, log_end, log_zone,
                         partition_ids, resolve_name, width_in_log_unit)
from ._tables import fill

USER_HISTORY_MIN = 100
"""Fewest waits of a user for ``--user`` to use that user's waits alone."""
STALE_HISTORY = 7 * 86400.0
"""A snapshot taken longer than this after the log's last event gets a note."""
DEFAULT_WITHIN = ("10min", "1h", "6h", "1d")


def register(subparsers):
    parser = add_command(
        subparsers,
        "wait", help="how long will a job of this shape wait? (QBETS bound and probability)",
        description=(
            "Bound the wait of a job with --procs processors asking for --time, submitted "
            "at the end of the log (or when a --queue snapshot was taken): QBETS (Nurmi et "
            "al. 2008) gives the time within which at least --quantile of such jobs start, "
            "with --confidence, from the waits of the log's jobs, and the probability of "
            "starting within each --within time. The jobs pending at that moment (the "
            "log's own queue, or the squeue snapshot) raise the bound when they have "
            "already waited longer than it."))
    add_log_argument(parser, help="the site's job history")
    add_request_options(parser, procs_required=True, script_also_gives="--partition")
    parser.add_argument("--user", metavar="NAME",
                        help=f"use this user's own waits when there are at least "
                             f"{USER_HISTORY_MIN} (else every user's, said in the output)")
    parser.add_argument("--partition", metavar="NAME",
                        help="only the waits and queue of this partition (default: the "
                             "--script's #SBATCH --partition, else every partition)")
    add_machine_procs_option(parser)
    parser.add_argument("--quantile", type=float, default=0.95,
                        help="share of such jobs that start within the bound, in (0, 1) "
                             "(default: %(default)s)")
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="confidence of the bound, in (0, 1) (default: %(default)s)")
    parser.add_argument("--within", action="append", metavar="TIME",
                        help="print the probability of starting within this time (Slurm "
                             "time or 90min; repeatable; default: 10min, 1h, 6h and 1d)")
    parser.add_argument("--queue", metavar="FILE", type=path_text,
                        help="a live queue snapshot: squeue --all --array --states=PENDING "
                             "--format='%%i|%%u|%%a|%%P|%%C|%%D|%%l|%%V|%%T' (or sacct "
                             "output of pending jobs); default: the log's own pending jobs "
                             "at its end")
    parser.add_argument("--now", metavar="TIME",
                        help="with --queue: when the snapshot was taken, as "
                             "2024-03-04T10:00:00 in the log's time zone (sacct: --time-zone; "
                             "SWF: its TimeZoneString header; else UTC) (default: the "
                             "file's modification time)")
    parser.add_argument("--seed", type=int, default=0,
                        help="random state of QBETS's job classes (default: %(default)s, so "
                             "that two runs agree; QBETS(random_state=None) in Python draws "
                             "fresh ones)")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    add_quiet_option(parser, "the answer still goes to standard output")
    parser.set_defaults(func=run)


def run(args):
    check_fraction(args.quantile, "--quantile")
    check_fraction(args.confidence, "--confidence")
    check_seed(args.seed)
    check_procs(args.machine_procs)
    if args.now is not None and not args.queue:
        raise ConfigError("--now is when the --queue snapshot was taken; give --queue too "
                          "(without it the job is asked about at the end of the log)")
    req_time, procs, script = job_request(args, need_procs=True)
    within = refuse_repeats([parse_time_request(w, name="--within", limit=False)
                             for w in (args.within or DEFAULT_WITHIN)], "--within")
    progress = Progress("wait", quiet=args.quiet)
    progress.settings(procs=procs, time=format_slurm_duration(req_time),
                      quantile=args.quantile, confidence=args.confidence, seed=args.seed,
                      machine_procs=args.machine_procs or "from the log")
    with progress.step(lambda: read_done(jobs, args.trace)):
        jobs = with_times(read_trace_arg(args.trace))
    refuse_without_waits(jobs, args.trace)
    procs, unit_note = width_in_log_unit(jobs, args, procs, script)
    if unit_note:
        progress.say(f"{unit_note}: {format_count(procs, 'node')}")
    warn_busier_than_machine(jobs, args.machine_procs)
    _check_fits(procs, jobs, args.trace, args.machine_procs)
    if "req_time" not in jobs.columns or not jobs["req_time"].notna().any():
        progress.warn(f"{args.trace} gives no job a requested time, so its classes of jobs "
                      f"differ by width only and the time asked "
                      f"({format_slurm_duration(req_time)}) plays no part in the bound")
    with progress.step("bounded the wait"):
        answer = estimate_wait(
            jobs, procs=procs, req_time=req_time, user=args.user,
            partition=(args.partition if args.partition is not None
                       else script.get("partition")), within=within,
            partition_flag=("--partition"
                            if args.partition is not None or not script.get("partition")
                            else f"{args.script}: #SBATCH --partition"),
            quantile=args.quantile, confidence=args.confidence, seed=args.seed,
            queue=_snapshot(args, jobs) if args.queue else None)
    if unit_note:
        answer["notes"].insert(0, unit_note)
    if args.json:
        print_json(answer)
    else:
        print_answer(answer, sys.stdout)
    return 0


def _snapshot(args, jobs):
    """The ``--queue`` snapshot's pending jobs and its time, on the log's clock."""
    from ..io._slurm_fields import parse_timestamps
    from ..io._squeue import FORMAT as SQUEUE_FORMAT
    from ..io._squeue import read_squeue

    origin = jobs.attrs.get("unix_start_time")
    if origin is None:
        raise ConfigError("--queue needs a log with dates (sacct output, or SWF with a "
                          "UnixStartTime header) to put the snapshot on the log's clock")
    zone = log_zone(jobs)
    if args.queue == "-":
        queue = read_squeue(sys.stdin.buffer, time_zone=zone)
    else:
        queue = read_squeue(args.queue, time_zone=zone)
    unit, counted = width_unit(jobs), queue.attrs.get("width_unit", "processor")
    if unit == "node" and "req_nodes" in queue.columns:
        queue = queue.assign(req_procs=queue["req_nodes"])
    elif unit != counted:
        column, needed = ("CPUS", "NODES (%D)") if counted == "processor" else \
            ("NODES", "CPUS (%C)")
        raise ConfigError(f"--queue {args.queue}: the snapshot counts {counted}s (its "
                          f"{column} column) but the log counts {unit}s: take it with a {needed} "
                          f"column (squeue --format='{SQUEUE_FORMAT}')")
    if args.now is not None:
        taken, bad, _ = parse_timestamps([args.now], zone)
        if bad[0] or np.isnan(taken[0]):
            zoned = re.search(r"(Z|[+-]\d\d(?::?\d\d)?)$", args.now.strip())
            raise ConfigError(
                f"--now must be a time such as 2024-03-04T10:00:00, in the years 1970-2099, "
                f"got {args.now!r}"
                + (f" (without {zoned.group(1)!r}: it is read in the log's time zone, {zone})"
                   if zoned else ""))
        taken = float(taken[0])
    elif args.queue == "-":
        import time

        taken = time.time()
    else:
        taken = os.stat(args.queue).st_mtime
    return queue, taken - origin, "the --queue snapshot"


def _check_fits(procs, jobs, trace, machine_procs=None):
    """Refuse a job wider than the machine: it would never start, so no wait bound applies.

    The machine is ``--machine-procs``, else the log's (:func:`predictkit._summary.machine_size`).
    """
    machine, told = machine_size(jobs, machine_procs)
    if not procs > machine:  # also when the size is unknown (NaN)
        return
    if machine_procs is not None:
        raise ConfigError(f"--procs {procs:,} is wider than the machine (--machine-procs "
                          f"{machine_procs:,}): such a job never starts")
    size = format_count(int(machine), width_unit(jobs)) + ("" if told else ", its widest job")
    advice = "" if told else "; if the machine is larger, give its size with --machine-procs"
    raise ConfigError(f"--procs {procs:,} is wider than the machine of {trace} ({size}): such "
                      f"a job never starts{advice}")


def estimate_wait(jobs, *, procs, req_time, user=None, partition=None, within=(3600.0,),
                  quantile=0.95, confidence=0.95, seed=0, queue=None,
                  partition_flag="--partition"):
    """QBETS's answer for one job shape, from a job table with start and end times.

    ``partition`` may list several partitions, comma-separated as for
    ``sbatch --partition`` (the job may run in any of them): the waits and
    queue of all of them are used. ``queue`` is ``(pending jobs, time on the
    log's clock, description)`` of a snapshot, or None for the log's own
    pending jobs at its end. ``partition_flag`` names where the partition
    came from in errors. Returns a dictionary (see :func:`print_answer`).
    """
    notes = []
    last = log_end(jobs)  # the whole log's: a partition's own last event may be earlier
    if partition is not None:
        ids = partition_ids(jobs, partition, partition_flag)
        jobs = jobs[np.isin(jobs["partition_id"].to_numpy(), ids)]
    now = last if queue is None else float(queue[1])
    if partition is not None:  # the waits learned are those of jobs started by now
        widest = np.nanmax(job_width(jobs)[jobs["start_time"].to_numpy(dtype=float) <= now],
                           initial=0.0)
        if procs > widest:
            notes.append(f"no job of {_partition_text(partition)} in the log was wider than "
                         f"{format_count(int(widest), width_unit(jobs))}: the bound rests on "
                         f"the waits of narrower jobs")
    if now - last > STALE_HISTORY:
        notes.append(f"the snapshot is {format_duration(now - last)} after the "
                     "last event of the log: the waits learned may no longer describe the "
                     "machine (give a recent log)")
    started = jobs["start_time"].to_numpy(dtype=float) <= now
    population = _partition_text(partition) or "every partition"
    own_waits = False
    if user is not None:
        user_id = resolve_name(jobs, user, "user_id", "--user")
        mine = jobs["user_id"].to_numpy() == user_id
        own_waits = int((mine & started).sum()) >= USER_HISTORY_MIN
        if own_waits:
            jobs, started = jobs[mine], started[mine]
            population += f", user {user}"
        else:
            notes.append(f"user {user} has {format_count(int((mine & started).sum()), 'wait')} "
                         f"in the log "
                         f"(fewer than {USER_HISTORY_MIN}): every user's waits are used")
            population += ", every user"
    else:
        population += ", every user"
    history = jobs[started].copy()
    cancelled = int(cancelled_before_running(history).sum())
    if cancelled:
        notes.append(cancelled_note(cancelled))
    if not len(history):
        raise JobTableError(f"no job ({population}) has started by {clock_time(jobs, now)}:"
                            " no wait to learn from")
    order = np.lexsort((np.arange(len(history)), history["submit_time"].to_numpy(),
                        history["start_time"].to_numpy()))
    history = history.iloc[order]
    model = QBETS(quantile=quantile, confidence=confidence, random_state=seed)
    model.fit(history, history["wait_time"].to_numpy())
    job = pd.DataFrame({"submit_time": [now], "req_procs": [float(procs)],
                        "n_procs": [float(procs)], "req_time": [float(req_time)]})
    within = np.asarray(within, dtype=float)
    jobs_asked = pd.concat([job] * len(within), ignore_index=True)
    job_class = model.job_classes(job).iloc[0]
    alone = {"bound": float(model.predict(job)[0]),
             "proba": model.start_probability(jobs_asked, within=within).tolist()}
    if queue is None:
        pending, held = _pending_at_end(jobs, now)
        queue_source = "the log's own pending jobs at its end"
        if own_waits:
            queue_source += f" (user {user}'s, as the waits)"
        if held:
            notes.append(f"{format_count(held, 'pending job')} not eligible to start then "
                         f"(held, waiting for a dependency or a --begin time: Eligible "
                         f"unknown or later): not counted in the queue")
    else:
        pending = _snapshot_rows(queue[0], jobs, partition, user if own_waits else None)
        queue_source = queue[2] + (f" (user {user}'s jobs, as the waits)" if own_waits else "")
        later = int((pending["submit_time"].to_numpy(dtype=float) >= now).sum())
        if later:
            notes.append(f"{format_count(later, 'job')} of the snapshot "
                         f"{'was' if later == 1 else 'were'} submitted at or "
                         f"after {clock_time(jobs, now)} (--now), so were not pending then: not "
                         f"counted")
    model.observe_queue(pending, now)
    queued = {"bound": float(model.predict(job)[0]),
              "proba": model.start_probability(jobs_asked, within=within).tolist()}
    return {
        "procs": int(procs), "unit": width_unit(jobs), "req_time": float(req_time),
        "partition": partition,
        "user": user, "now": clock_time(jobs, now),
        "time_zone": log_zone(jobs) if "unix_start_time" in jobs.attrs else None,
        "quantile": quantile,
        "confidence": confidence, "population": population, "n_waits": len(history),
        "n_class_waits": int(job_class["n_history"]),
        "job_class": {"nodes": job_class["nodes"],
                      "requested_time": job_class["requested_time"]},
        "min_history": int(min_history(quantile, confidence)),
        "queue_source": queue_source, "n_pending": int((pending["submit_time"] < now).sum()),
        "bound_history": alone["bound"], "bound_with_queue": queued["bound"],
        "within": within.tolist(), "proba_history": alone["proba"],
        "proba_with_queue": queued["proba"], "notes": notes,
    }


def _pending_at_end(jobs, now):
    """Jobs submitted by ``now`` that had not started then and could have, and how
    many more could not (a ``sacct`` log's ``Eligible`` unknown or later)."""
    submit = jobs["submit_time"].to_numpy(dtype=float)
    start = jobs["start_time"].to_numpy(dtype=float)
    waiting = (submit <= now) & (start > now)
    if "slurm_state" in jobs:
        waiting |= (submit <= now) & np.isnan(start) & is_pending(jobs["slurm_state"])
    held = np.zeros(len(jobs), dtype=bool)
    if "slurm_eligible_time" in jobs:
        eligible = jobs["slurm_eligible_time"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            held = waiting & ~(eligible <= now)
    return jobs[waiting & ~held], int(held.sum())


def _snapshot_rows(queue, jobs, partition, user):
    """A snapshot's pending jobs as a job table on the log's clock."""
    keep = np.ones(len(queue), dtype=bool)
    if partition is not None:
        asked = set(partition.split(","))  # a pending job may list several, as sacct's
        keep &= np.array([bool(asked & set(str(name).split(",")))
                          for name in queue["partition"]], dtype=bool)
    if user is not None:
        keep &= (queue["user"] == user).to_numpy()
    queue = queue[keep]
    origin = jobs.attrs["unix_start_time"]
    return pd.DataFrame({"submit_time": queue["submit"].to_numpy(dtype=float) - origin,
                         "req_procs": queue["req_procs"].to_numpy(dtype=float),
                         "n_procs": queue["req_procs"].to_numpy(dtype=float),
                         "req_time": queue["req_time"].to_numpy(dtype=float)})


def _bound_text(seconds):
    if np.isnan(seconds):
        return "no bound"
    return f"{format_slurm_duration(seconds)} ({seconds / 3600:,.1f} h)"


def _share(value):
    return "n/a" if value is None or not np.isfinite(value) else format_percent(value)


def _partition_text(partition):
    """``partition cpu`` or ``partitions gpu, cpu``; None for every partition."""
    if not partition:
        return None
    names = partition.split(",")
    return f"partition{'s' if len(names) > 1 else ''} {', '.join(names)}"


def _class_text(job_class, unit="processor"):
    """`` (centred on 6 processors and 6 min requested)`` for a class of the mixture,
    `` (processors in [16, 64), requested time in [0, 3600) s)`` for bins, empty for
    one class of every job; ``unit`` is what the log's widths count."""
    nodes, requested = str(job_class["nodes"]), str(job_class["requested_time"])
    if nodes == "all":
        return ""
    if nodes.startswith("~"):
        return (f" (centred on {format_given(float(nodes[1:]))} {unit}s and "
                f"{format_duration(float(requested[1:]))} requested)")
    return f" ({unit}s in {nodes}, requested time in {requested} s)"


def _zone_text(zone):
    return f" ({zone})" if zone else ""


def print_answer(answer, stream):
    """Print :func:`estimate_wait`'s answer as sentences and a small table."""
    q, c = answer["quantile"], answer["confidence"]
    where = f" in {_partition_text(answer['partition'])}" if answer["partition"] else ""
    print(f"A job of {format_count(answer['procs'], answer['unit'])} asking for "
          f"{format_slurm_duration(answer['req_time'])}{where}, submitted at "
          f"{answer['now']}{_zone_text(answer.get('time_zone'))}:", file=stream)
    print(fill(
        f"learned from {format_count(answer['n_waits'], 'wait')} ({answer['population']}), "
        f"{answer['n_class_waits']:,} of them in the class of jobs like "
        f"this one{_class_text(answer['job_class'], answer['unit'])}, the class the bound rests on; queue: "
        f"{format_count(answer['n_pending'], 'pending job')}, {answer['queue_source']}.", width=88,
        initial_indent="  ", subsequent_indent="  "), file=stream)
    for note in answer["notes"]:
        print(fill(f"note: {note}", width=88, initial_indent="  ",
                            subsequent_indent="    "), file=stream)
    rows = [("wait bound (hh:mm:ss)", _bound_text(answer["bound_history"]),
             _bound_text(answer["bound_with_queue"]))]
    for w, alone, queued in zip(answer["within"], answer["proba_history"],
                                answer["proba_with_queue"]):
        rows.append((f"P(start within {format_slurm_duration(w)})", f">= {_share(alone)}",
                     f">= {_share(queued)}"))
    rows.insert(0, ("", "history only", "with the queue"))
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    print("", file=stream)
    for label, alone, queued in rows:
        print(f"  {label:<{widths[0]}}  {alone:>{widths[1]}}  {queued:>{widths[2]}}",
              file=stream)
    print("", file=stream)
    bound = answer["bound_with_queue"]
    if np.isnan(bound):
        print(fill(
            f"No bound: the class of jobs like this one has "
            f"{format_count(answer['n_class_waits'], 'wait')}, fewer than the "
            f"{answer['min_history']:,} (QBETS needs that many for q={format_given(q)}, "
            f"c={format_given(c)}).",
            width=88), file=stream)
    else:
        print(fill(
            f"Meaning: with {format_percent(c)} confidence, at least {format_percent(q)} of "
            f"jobs like this one "
            f"start within {format_slurm_duration(bound)}; a P(start within T) of 60% "
            f"means at least 60% of them start within T (same confidence). 'history "
            f"only' uses the waits alone; 'with the queue' also counts the pending jobs "
            f"that have already waited longer than their bound.", width=88), file=stream)

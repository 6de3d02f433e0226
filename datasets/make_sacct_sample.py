"""Write a small synthetic but realistic Slurm accounting sample (``sacct --parsable2``).

The sample imitates what a site administrator gets from

    sacct --allusers --parsable2 --starttime 2024-03-04 --endtime now \
          --format=JobID,JobIDRaw,JobName,User,Account,Partition,QOS,Submit,Start,End,\
Elapsed,Timelimit,NNodes,NCPUS,ReqCPUS,State,ExitCode,TotalCPU,MaxRSS

on a small cluster of three partitions (``cpu``: 32 nodes, ``gpu``: 4 nodes,
``debug``: 2 nodes; 32 cores per node) over about four weeks: one allocation
line per job followed by its steps (``.batch``, ``.extern`` and numbered
``srun`` steps), job arrays (``123_4``, and the pending rest of an array as
``123_[5-9]``), every common end state (``COMPLETED``, ``FAILED``,
``TIMEOUT``, ``OUT_OF_MEMORY``, ``NODE_FAIL``, ``CANCELLED by UID``, before and
after the start) and the jobs still ``PENDING`` or ``RUNNING`` when ``sacct``
ran. Users have habits (round time limits, typical sizes, how much of their
limit they use), so runtime predictors have something to learn. Waits come
from a first-come-first-served scheduler with EASY backfilling per partition.

Everything is drawn from Python's own :class:`random.Random` with a fixed
seed, so the output is the same on every machine and Python 3 version. The
committed ``sacct_sample.txt`` is the output of ``python make_sacct_sample.py``
(``tests/datasets/test_sacct_sample.py`` checks it).
"""

import argparse
import datetime as dt
import heapq
import math
import random
from pathlib import Path

HEADER = ("JobID|JobIDRaw|JobName|User|Account|Partition|QOS|Submit|Start|End|Elapsed|"
          "Timelimit|NNodes|NCPUS|ReqCPUS|State|ExitCode|TotalCPU|MaxRSS")
ORIGIN = dt.datetime(2024, 3, 4, 8, 0, 0)
CORES_PER_NODE = 32
PARTITIONS = {"cpu": (32, 2 * 86400), "gpu": (4, 86400), "debug": (2, 3600)}
"""Partition -> (nodes, longest time limit in seconds)."""
FIRST_JOB_ID = 418_200
USER_NAMES = ("alice", "bob", "chen", "dmitri", "eva", "farah", "gustavo", "hana", "ivan",
              "jules", "kofi", "lena", "mateo", "nadia", "omar", "priya", "quentin", "rosa",
              "sven", "tomoko", "ulla", "victor", "wen", "ximena", "yusuf", "zoe")
ACCOUNTS = ("chem", "physics", "bio", "climate", "cs", "astro")
JOB_NAMES = ("md_run", "relax", "train", "sim", "postproc", "wrf", "gromacs", "vasp",
             "analysis", "bench", "test", "interactive")
LIMITS = (600, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 12 * 3600, 86400, 2 * 86400)
"""The round time limits users pick (seconds)."""


def _users(rng):
    """Each user's habits: accounts, partition, sizes, limits, how much of the limit is used."""
    users = []
    for number, name in enumerate(USER_NAMES):
        partition = rng.choices(("cpu", "gpu", "debug"), weights=(7, 2, 1))[0]
        longest = PARTITIONS[partition][1]
        limits = [t for t in LIMITS if t <= longest]
        favourite = rng.sample(limits, k=min(len(limits), rng.randint(1, 3)))
        users.append({
            "name": name, "uid": 1000 + number,
            "accounts": rng.sample(ACCOUNTS, k=rng.choice((1, 1, 2))),
            "partition": partition,
            "cpus": rng.choice((1, 4, 8, 16, 32, 64, 128)) if partition != "gpu"
            else rng.choice((8, 16, 32)),
            "limits": favourite,
            # median share of the limit actually used, and its spread
            "usage": rng.uniform(0.05, 0.5), "spread": rng.uniform(0.3, 1.0),
            "timeout_share": rng.uniform(0.0, 0.05),
            "weight": 1.0 / (number + 1) ** 0.8,
            "names": rng.sample(JOB_NAMES, k=2),
        })
    return users


def _submissions(rng, users, n_jobs):
    """Submitted jobs (arrays expanded into tasks), in submission order."""
    jobs = []
    t = 0.0
    next_id = FIRST_JOB_ID
    while len(jobs) < n_jobs:
        hour = (ORIGIN.hour + t / 3600.0) % 24
        busy = 1.0 if 8 <= hour < 19 else 0.35
        if len(jobs) > 0.95 * n_jobs:
            busy *= 3.0  # a deadline rush fills the queue before sacct runs
        t += rng.expovariate(busy / 1100.0)
        user = rng.choices(users, weights=[u["weight"] for u in users])[0]
        partition = user["partition"] if rng.random() < 0.9 else "debug"
        longest = PARTITIONS[partition][1]
        limit = min(rng.choice(user["limits"]), longest)
        cpus = user["cpus"] if rng.random() < 0.8 else max(1, user["cpus"] // 2)
        cpus = min(cpus, PARTITIONS[partition][0] * CORES_PER_NODE // 2)
        n_tasks = rng.choice((4, 6, 8, 12, 16)) if rng.random() < 0.04 else 0
        base = {"user": user, "partition": partition, "limit": limit, "cpus": cpus,
                "account": rng.choice(user["accounts"]), "submit": t,
                "name": rng.choice(user["names"]),
                "qos": "high" if rng.random() < 0.05 else "normal"}
        if not n_tasks:
            jobs.append({**base, "id": next_id, "raw": next_id, "array": None})
            next_id += 1
            continue
        # Slurm gives the array's id to its last task; the others get the next ids.
        for task in range(n_tasks):
            raw = next_id if task == n_tasks - 1 else next_id + 1 + task
            jobs.append({**base, "id": next_id, "raw": raw, "array": (task, n_tasks)})
        next_id += n_tasks
    return jobs[:n_jobs]


def _outcomes(rng, jobs):
    """Decide each job's true runtime and end state (before scheduling)."""
    for job in jobs:
        user, limit = job["user"], job["limit"]
        share = math.exp(math.log(user["usage"]) + user["spread"] * rng.gauss(0.0, 1.0))
        run = max(5.0, min(share, 1.0) * limit)
        state, exit_code = "COMPLETED", "0:0"
        draw = rng.random()
        if share >= 1.0 or draw < user["timeout_share"]:
            run, state, exit_code = limit + rng.randint(1, 90), "TIMEOUT", "0:0"
        elif draw < user["timeout_share"] + 0.05:
            run, state, exit_code = max(3.0, run * rng.uniform(0.01, 0.5)), "FAILED", "1:0"
        elif draw < user["timeout_share"] + 0.07:
            run, state, exit_code = max(3.0, run * rng.uniform(0.05, 0.9)), "OUT_OF_MEMORY", \
                "0:125"
        elif draw < user["timeout_share"] + 0.073:
            run, state, exit_code = run * rng.uniform(0.1, 0.9), "NODE_FAIL", "0:0"
        elif draw < user["timeout_share"] + 0.10:
            run, state, exit_code = run * rng.uniform(0.05, 0.9), "CANCELLED_RUNNING", "0:15"
        elif draw < user["timeout_share"] + 0.16:
            state = "CANCELLED_PENDING"  # if it is still waiting when the user gives up
        job["run"] = float(round(run))
        job["state"], job["exit"] = state, exit_code
        job["patience"] = rng.uniform(60.0, 6 * 3600.0)


def _schedule(jobs):
    """FCFS with EASY backfilling on each partition; sets start (or cancel) times."""
    for partition, (nodes, _) in PARTITIONS.items():
        members = [j for j in jobs if j["partition"] == partition]
        _easy(members, nodes * CORES_PER_NODE)


def _easy(jobs, capacity):
    events = [(j["submit"], 1, k) for k, j in enumerate(jobs)]
    events += [(j["submit"] + j["patience"], 2, k) for k, j in enumerate(jobs)
               if j["state"] == "CANCELLED_PENDING"]
    heapq.heapify(events)
    free = capacity
    queue, running = [], []  # running: (end by limit, end, index)
    while events:
        now, kind, k = heapq.heappop(events)
        if kind == 0:
            free += jobs[k]["cpus"]
            running = [r for r in running if r[2] != k]
        elif kind == 1:
            queue.append(k)
        elif k in queue:
            queue.remove(k)
            jobs[k]["cancelled"] = now
        while queue:
            started = _start_fitting(jobs, queue, running, free, now)
            if started is None:
                break
            job = jobs[started]
            queue.remove(started)
            job["start"] = now
            free -= job["cpus"]
            running.append((now + job["limit"], now + job["run"], started))
            if job["state"] != "CANCELLED_PENDING":
                heapq.heappush(events, (now + job["run"], 0, started))
            else:
                # started before the user lost patience: it runs to its end
                job["state"] = "COMPLETED"
                heapq.heappush(events, (now + job["run"], 0, started))


def _start_fitting(jobs, queue, running, free, now):
    """The queued job to start now under EASY backfilling, or None."""
    head = jobs[queue[0]]
    if head["cpus"] <= free:
        return queue[0]
    # reservation of the head: when enough processors free up by the limits
    available, shadow = free, math.inf
    for limit_end, _, k in sorted(running):
        available += jobs[k]["cpus"]
        if available >= head["cpus"]:
            shadow = limit_end
            break
    extra = available - head["cpus"]
    for k in queue[1:]:
        job = jobs[k]
        if job["cpus"] <= free and (now + job["limit"] <= shadow or job["cpus"] <= extra):
            return k
    return None


def _stamp(seconds):
    return (ORIGIN + dt.timedelta(seconds=round(seconds))).strftime("%Y-%m-%dT%H:%M:%S")


def _duration(seconds, *, fraction=False):
    """Slurm's duration format: [D-]HH:MM:SS, or MM:SS.mmm for CPU times under an hour."""
    milliseconds = round(seconds * 1000)
    if fraction and milliseconds < 3_600_000:
        minutes, rest = divmod(milliseconds, 60_000)
        return f"{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}-{clock}" if days else clock


def _steps(rng, job, end, state, now):
    """Step lines (``.batch``, ``.extern``, numbered steps) of a job that started."""
    start, cpus = job["start"], job["cpus"]
    done = end is not None
    stop = end if done else now
    n_nodes = math.ceil(cpus / CORES_PER_NODE)
    batch_state = {"COMPLETED": "COMPLETED", "FAILED": "FAILED", "TIMEOUT": "CANCELLED",
                   "OUT_OF_MEMORY": "OUT_OF_MEMORY", "NODE_FAIL": "CANCELLED",
                   "CANCELLED": "CANCELLED", "RUNNING": "RUNNING"}[state.split()[0]]
    efficiency = rng.uniform(0.3, 0.98)
    numbered = []
    if rng.random() < 0.2:
        t = start + 5
        for step in range(rng.randint(1, 2)):
            length = max(1.0, (stop - t) * rng.uniform(0.3, 0.9))
            finished = done or t + length < now
            step_end = t + length if finished else None
            numbered.append((str(step), t, step_end,
                             batch_state if not finished or step_end >= stop - 1
                             else "COMPLETED"))
            t = t + length + 2
            if t >= stop:
                break
    lines, total = [], 0.0
    batch_cpu = 0.0 if numbered else (stop - start) * efficiency * cpus
    for name, t0, t1, step_state in [("batch", start, end, batch_state),
                                     ("extern", start, end, "COMPLETED" if done else "RUNNING"),
                                     *numbered]:
        elapsed = (t1 if t1 is not None else now) - t0
        if name == "batch":
            cpu = batch_cpu if numbered == [] else rng.uniform(0.1, 3.0)
            rss = rng.randint(4_000, 400_000)
        elif name == "extern":
            cpu, rss = rng.uniform(0.0, 0.01), rng.randint(0, 2_000)
        else:
            cpu = elapsed * cpus * efficiency
            rss = rng.randint(20_000, 1_500_000) * min(cpus, CORES_PER_NODE)
        finished = t1 is not None
        total += cpu if finished else 0.0
        lines.append([
            f"{job['text']}.{name}", f"{job['raw']}.{name}", name, "", job["account"], "",
            "", _stamp(t0), _stamp(t0), _stamp(t1) if finished else "Unknown",
            _duration(elapsed), "", str(n_nodes if name != "batch" else 1),
            str(cpus if name != "batch" else min(cpus, CORES_PER_NODE)), "",
            step_state if name != "extern" or done else "RUNNING",
            "0:15" if step_state == "CANCELLED" else "0:0" if step_state == "COMPLETED"
            or not finished else job["exit"],
            _duration(cpu, fraction=True) if finished else "00:00:00",
            f"{rss}K" if finished else ""])
    return lines, total


def make_sample(*, n_jobs=2000, seed=11):
    """The sample's text: a header and one allocation line per job, each followed by its steps."""
    rng = random.Random(seed)
    users = _users(rng)
    jobs = _submissions(rng, users, n_jobs)
    _outcomes(rng, jobs)
    _schedule(jobs)
    now = jobs[-1]["submit"] + 60.0  # sacct runs a minute after the last submission
    lines = [HEADER.split("|")]
    arrays = {}
    for job in jobs:
        if job["array"] is not None:
            arrays.setdefault(job["id"], []).append(job)
    written = set()
    for job in jobs:
        if job["array"] is not None:
            if job["id"] in written:
                continue
            written.add(job["id"])
            lines.extend(_array_lines(rng, arrays[job["id"]], now))
            continue
        job["text"] = str(job["id"])
        lines.extend(_job_lines(rng, job, now))
    return "\n".join("|".join(fields) for fields in lines) + "\n"


def _array_lines(rng, tasks, now):
    """Lines of one job array: started tasks one by one, the pending rest as ``id_[a-b]``."""
    out = []
    pending = [t for t in tasks if t.get("start", math.inf) > now
               and t.get("cancelled", math.inf) > now]
    for task in tasks:
        if task in pending:
            continue
        task["text"] = f"{task['id']}_{task['array'][0]}"
        out.extend(_job_lines(rng, task, now))
    if pending:
        first, last = pending[0]["array"][0], pending[-1]["array"][0]
        rest = dict(pending[0], raw=pending[0]["id"])
        rest["text"] = f"{rest['id']}_[{first}-{last}]" if first != last else \
            f"{rest['id']}_{first}"
        out.extend(_job_lines(rng, rest, now))
    return out


def _job_lines(rng, job, now):
    """The allocation line of one job and its steps, as ``sacct`` shows them at ``now``."""
    user = job["user"]
    cpus, limit = job["cpus"], job["limit"]
    n_nodes = math.ceil(cpus / CORES_PER_NODE)
    start = job.get("start")
    cancelled = job.get("cancelled")
    state, exit_code = job["state"], job["exit"]
    if cancelled is not None and cancelled <= now:
        start_text, end_text, elapsed = "None", _stamp(cancelled), 0.0
        state, exit_code, steps, total = f"CANCELLED by {user['uid']}", "0:0", [], 0.0
    elif start is None or start > now:
        start_text, end_text, elapsed = "Unknown", "Unknown", 0.0
        state, exit_code, steps, total = "PENDING", "0:0", [], 0.0
    else:
        end = start + job["run"]
        if end > now:
            state, exit_code, end = "RUNNING", "0:0", None
        elif state == "CANCELLED_RUNNING":
            state = f"CANCELLED by {user['uid']}"
        elif state == "CANCELLED_PENDING":
            state = "COMPLETED"
        start_text = _stamp(start)
        end_text = _stamp(end) if end is not None else "Unknown"
        elapsed = (end if end is not None else now) - start
        steps, total = _steps(rng, dict(job, start=start), end, state, now)
    allocation = [
        job["text"], str(job["raw"]), job["name"], user["name"], job["account"],
        job["partition"], job["qos"], _stamp(job["submit"]), start_text, end_text,
        _duration(elapsed), _duration(limit), str(n_nodes), str(cpus), str(cpus), state,
        exit_code, _duration(total, fraction=True) if state not in ("RUNNING", "PENDING")
        else "00:00:00", ""]
    return [allocation, *steps]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output",
                        default=str(Path(__file__).with_name("sacct_sample.txt")),
                        help="where to write the sample (default: sacct_sample.txt beside "
                             "this script)")
    parser.add_argument("--jobs", type=int, default=2000, help="number of jobs (default 2000)")
    parser.add_argument("--seed", type=int, default=11, help="random seed (default 11)")
    args = parser.parse_args(argv)
    Path(args.output).write_text(make_sample(n_jobs=args.jobs, seed=args.seed),
                                 encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main()

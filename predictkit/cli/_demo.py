"""``predictkit demo``: a first look at predictkit on a built-in synthetic log."""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import read_swf, write_swf
from ..jobs import as_job_table, summarize


def register(subparsers):
    parser = subparsers.add_parser(
        "demo", help="run predictkit on a built-in synthetic workload",
        description="Generate a small synthetic log, write it as SWF, read it back and "
                    "summarise it.",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2000, help="number of jobs (default 2000)")
    parser.set_defaults(func=run)


def _toy_log(n_jobs, seed):
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(300.0, n_jobs)).round()
    run = np.exp(rng.normal(7.0, 1.5, n_jobs)).round().clip(1, 36 * 3600)
    req = np.choose(rng.integers(0, 4, n_jobs), [3600.0, 4 * 3600.0, 12 * 3600.0, 36 * 3600.0])
    return as_job_table({
        "job_id": np.arange(1, n_jobs + 1), "submit_time": submit, "run_time": np.minimum(run, req),
        "n_procs": 2.0 ** rng.integers(0, 7, n_jobs), "req_time": req,
        "user_id": rng.integers(1, 30, n_jobs).astype(float), "status": np.ones(n_jobs),
    }, attrs={"max_procs": 128})


def run(args):
    jobs = _toy_log(args.jobs, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = write_swf(jobs, Path(folder) / "demo.swf.gz")
        back = read_swf(path)
    print(pd.DataFrame({"demo": summarize(back, name="demo")}).to_string())
    return 0

"""A sweep's trace may be any log predictkit reads: SWF or sacct output, plain or gzip."""

import gzip

import numpy as np
import pytest

from predictkit.experiments import evaluate_cell, load_cell_trace
from predictkit.io import write_swf


def site_logs(folder, n_jobs=80):
    """The same finished jobs as ``sacct --parsable2`` output and as SWF."""
    lines = ["JobID|User|Submit|Start|End|NCPUS|ReqCPUS|Timelimit|State"]
    for j in range(1, n_jobs + 1):
        submit = 1_704_067_200 + 60 * j
        start, end = submit + 5 * (j % 4), submit + 5 * (j % 4) + 100 + 7 * j
        stamp = [np.datetime_as_string(np.datetime64(t, "s")) for t in (submit, start, end)]
        lines.append(f"{j}|u{j % 3}|{'|'.join(stamp)}|2|2|{20 + j % 5}:00|COMPLETED")
    sacct = folder / "site.txt"
    sacct.write_text("\n".join(lines) + "\n")
    from predictkit.io import read_sacct

    swf = folder / "site.swf"
    write_swf(read_sacct(sacct), swf)
    return sacct, swf


def cell(trace, **extra):
    return {"trace": str(trace), "predictor": "recent-average", "params": {},
            "policy": "easy", "priority": None, "options": {"machine_procs": 8}, **extra}


@pytest.mark.parametrize("compress", [False, True])
def test_a_sacct_trace_gives_the_results_of_the_same_jobs_as_swf(tmp_path, compress):
    sacct, swf = site_logs(tmp_path)
    if compress:
        gz = tmp_path / "site.txt.gz"
        gz.write_bytes(gzip.compress(sacct.read_bytes()))
        sacct = gz
    jobs = load_cell_trace(cell(sacct))
    assert len(jobs) == 80 and jobs.attrs["source"].endswith((".txt", ".gz"))
    assert evaluate_cell(cell(sacct)) == pytest.approx(evaluate_cell(cell(swf)), nan_ok=True)

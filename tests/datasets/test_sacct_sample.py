"""The committed Slurm sample (datasets/sacct_sample.txt) is what its script makes, and reads."""

import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from predictkit.io import read_sacct
from predictkit.io._slurm_fields import parse_durations

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sacct_sample.txt"
SCRIPT = ROOT / "datasets" / "make_sacct_sample.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_sacct_sample", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerated_sample_equals_the_committed_file(tmp_path):
    out = tmp_path / "sample.txt"
    _script().main(["-o", str(out)])
    assert out.read_bytes() == SAMPLE.read_bytes()
    assert SAMPLE.stat().st_size < 1_000_000


def test_other_seeds_give_other_samples():
    script = _script()
    assert script.make_sample(n_jobs=50, seed=1) == script.make_sample(n_jobs=50, seed=1)
    assert script.make_sample(n_jobs=50, seed=1) != script.make_sample(n_jobs=50, seed=2)


def _plain_counts():
    """Counts from the text itself, without predictkit's reader."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("|")
    rows = [dict(zip(header, line.split("|"))) for line in lines[1:]]
    allocations = [r for r in rows if "." not in r["JobID"]]
    steps = Counter(r["JobID"].split(".", 1)[1] if r["JobID"].split(".", 1)[1] in
                    ("batch", "extern") else "numbered" for r in rows if "." in r["JobID"])
    states = Counter(r["State"].split()[0] for r in allocations)
    return allocations, steps, states


def test_sample_holds_what_a_real_sacct_dump_holds():
    allocations, steps, states = _plain_counts()
    assert len(allocations) == 1984
    assert steps == {"batch": 1956, "extern": 1956, "numbered": 587}
    assert states == {"COMPLETED": 1596, "TIMEOUT": 137, "FAILED": 94, "CANCELLED": 63,
                      "RUNNING": 41, "OUT_OF_MEMORY": 33, "PENDING": 14, "NODE_FAIL": 6}
    ids = [r["JobID"] for r in allocations]
    assert sum("_" in i and "[" not in i for i in ids) > 50  # array tasks 123_4
    assert sum("[" in i for i in ids) == 2  # pending rests of arrays 123_[5-9]
    assert sum(r["State"].startswith("CANCELLED by ") and r["Start"] == "None"
               for r in allocations) == 14
    assert any(r["State"].startswith("CANCELLED by ") and r["Start"] != "None"
               for r in allocations)
    assert {r["Partition"] for r in allocations} == {"cpu", "gpu", "debug"}
    assert any(r["Timelimit"].startswith("2-") for r in allocations)
    assert any("." in r["TotalCPU"] for r in allocations)


def test_read_sacct_reads_the_sample_with_the_expected_counts():
    allocations, steps, states = _plain_counts()
    jobs = read_sacct(SAMPLE)
    # the two lines of pending array tasks, 123_[5-9], are their 6 + 12 tasks
    assert len(allocations) == 1984 and len(jobs) == 1984 - 2 + 18
    assert jobs["job_id"].is_unique
    assert "skipped_lines" not in jobs.attrs
    words = jobs["slurm_state"].str.split().str[0]
    assert dict(Counter(words)) == {**states, "PENDING": 14 - 2 + 18}
    assert jobs.attrs["unmapped_states"] == {"RUNNING": 41, "PENDING": 30}
    assert len(jobs.attrs["user_ids"]) == 26
    assert jobs.attrs["partition_ids"] == {"cpu": 1, "debug": 2, "gpu": 3}
    unfinished = words.isin(["RUNNING", "PENDING"]).to_numpy()
    assert jobs.loc[unfinished, "run_time"].isna().all()
    assert jobs.loc[unfinished, "avg_cpu_time"].isna().all()
    assert jobs.loc[words.eq("PENDING").to_numpy(), "wait_time"].isna().all()
    finished = jobs[~unfinished & jobs["run_time"].notna().to_numpy()]
    assert (finished["run_time"] >= 0).all() and (jobs["wait_time"].dropna() >= 0).all()
    np.testing.assert_array_equal(jobs.loc[words.eq("COMPLETED").to_numpy(), "status"], 1)
    assert int(jobs["run_time"].notna().sum()) == 2000 - 41 - 30 - 14  # never started: 14
    assert jobs.attrs["processor_unit"] == "cpus"


@pytest.mark.parametrize("n_jobs", [1, 7])
def test_tiny_samples_read_back(n_jobs, tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text(_script().make_sample(n_jobs=n_jobs, seed=3))
    assert 1 <= len(read_sacct(path)) <= n_jobs


@settings(max_examples=300, deadline=None)
@given(seconds=st.floats(min_value=0.0, max_value=40 * 86400.0, allow_nan=False),
       fraction=st.booleans())
@example(seconds=59.9996, fraction=True)
@example(seconds=3599.9996, fraction=True)
def test_durations_are_ones_slurm_prints_and_read_back(seconds, fraction):
    # 59.9996 s once came out as "00:60.000", which no reader takes
    text = _script()._duration(seconds, fraction=fraction)
    values, bad, _ = parse_durations(np.array([text], dtype=object))
    assert not bad[0], text
    assert values[0] == pytest.approx(seconds, abs=0.0005 if fraction and seconds < 3599 else 0.5)

"""Every results page under docs/results/ is rendered from committed JSON, identically.

Each page-making script in ``benchmarks/`` stores its measurements and the
provenance of the run in ``docs/results/<script>.json``; its ``--from-json``
mode renders the page (and any CSV) from that file alone. These tests render
each page again into a temporary folder and compare it byte for byte with
the committed one.
"""

import importlib
import re

import pytest

import predictkit
from benchmarks._common import RESULTS, provenance, read_json

RENDERED = {
    "estimate_models": ["estimate_models.csv", "estimate_models.md"],
    "estimate_variants": ["estimate_variants.md"],
    "leung": ["leung.md"],
    "queue_bounds": ["queue_bounds.csv", "queue_bounds.md"],
    "runtime_accuracy": ["runtime.md", "runtime_frontier.svg"],
    "scheduling": ["scheduling.md"],
    "simulate_speed": ["simulate_speed.md"],
    "varq_experiment": ["varq.md"],
    "workload_validation": ["workload_validation.md"],
}
"""What each script renders from ``<script>.json``."""

MAX_BYTES = 2 * 1024 * 1024


def test_every_file_in_the_results_folder_comes_from_a_script():
    made = {f"{script}.json" for script in RENDERED}
    made |= {name for names in RENDERED.values() for name in names}
    assert {p.name for p in RESULTS.iterdir()} == made


@pytest.mark.parametrize("script", sorted(RENDERED))
def test_page_renders_identically_from_its_json(script, tmp_path):
    module = importlib.import_module(f"benchmarks.{script}")
    module.main(["--from-json", str(RESULTS / f"{script}.json"), "--output-dir", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == RENDERED[script]
    for name in RENDERED[script]:
        assert (tmp_path / name).read_bytes() == (RESULTS / name).read_bytes(), (
            f"docs/results/{name} differs from what `python -m benchmarks.{script} "
            f"--from-json docs/results/{script}.json` renders; run `make results`")


@pytest.mark.parametrize("script", sorted(RENDERED))
def test_page_states_version_commit_command_and_date(script):
    made = read_json(RESULTS / f"{script}.json")["provenance"]
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", made["version"])
    assert re.fullmatch(r"[0-9a-f]{40}(\+changes)?", made["commit"])
    assert re.match(r"python (-m benchmarks\.|benchmarks/)" + script, made["command"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", made["date"])
    page = next(name for name in RENDERED[script] if name.endswith(".md"))
    head = (RESULTS / page).read_text(encoding="utf-8").split("\n\n")[1]
    for value in made["version"], made["commit"], made["command"], made["date"]:
        assert value in head, f"docs/results/{page} does not state {value!r} at its top"


@pytest.mark.parametrize("name", sorted(p.name for p in RESULTS.iterdir()))
def test_committed_result_files_stay_small(name):
    assert (RESULTS / name).stat().st_size < MAX_BYTES


def test_provenance_names_this_version_and_the_command_as_given():
    made = provenance("scheduling", ["--traces", "KTH SP2", "--output-dir", "/tmp/out",
                                     "--max-jobs", "10", "--output-dir=build"])
    assert made["version"] == predictkit.__version__
    assert made["command"] == ("python -m benchmarks.scheduling --traces 'KTH SP2' "
                               "--max-jobs 10")
    assert re.fullmatch(r"([0-9a-f]{40}(\+changes)?|unknown \(not a git checkout\))",
                        made["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", made["date"])


def test_scheduling_page_names_dropped_jobs_in_words():
    from benchmarks.scheduling import dropped_text

    assert dropped_text({"no positive width": 3, "no run_time": 11287}) == (
        "3 with no positive width, 11,287 with no run_time")
    assert dropped_text({}) == "none"


def _leung_run(miss_percent, mean_miss, turnaround, loc):
    return dict(miss_percent=miss_percent, mean_miss=mean_miss, mean_turnaround=turnaround,
                loss_of_capacity=loc, wide=dict(n_jobs=3, miss_percent=miss_percent,
                                                 mean_miss=mean_miss))


def test_leung_findings_leave_out_logs_the_72_hour_limit_does_not_change():
    from benchmarks.leung import POLICIES, findings

    same = {name: _leung_run(10.0, 600.0, 3600.0, 0.1) for name in POLICIES}
    split = dict(same, **{"cplant24.72max.all": _leung_run(10.05, 500.0, 3500.0, 0.09)})
    result = {"logs": {"unsplit": {"runs": same}, "split": {"runs": split}}}
    by_claim = {item["claim"].split(" (")[0]: item for item in findings(result)}
    limit = by_claim["A 72-hour maximum runtime improves the share of unfair jobs, the average "
                     "miss time, the average turnaround and the loss of capacity"]
    assert (limit["holds"], limit["of"]) == (0, 1)
    assert limit["detail"][0].startswith("unsplit: unchanged")
    assert limit["detail"][1].endswith("(misses only by less than 1%: unfair)")
    only = by_claim["Of the enhanced CPlant policies, only those with a 72-hour maximum runtime "
                    "reduce the average miss time"]
    assert only["of"] == 1 and "changes nothing here" in only["detail"][0]
    # a finding about every log counts both
    conservative = by_claim["Every conservative policy has fewer unfair jobs than the original"]
    assert (conservative["holds"], conservative["of"]) == (0, 2)


def test_a_later_run_of_one_log_and_policy_replaces_its_rows_and_skip(tmp_path):
    import json

    from benchmarks import simulate_speed

    result = read_json(RESULTS / "simulate_speed.json")
    skipped = "RICC-2010-2 / conservative"
    result["predictor_skipped"][skipped] = "over the budget"
    result["predictors"] = [r for r in result["predictors"]
                            if not (r["log"] == "RICC-2010-2" and r["policy"] == "conservative")]
    (tmp_path / "simulate_speed.json").write_text(json.dumps(result, indent=1) + "\n")
    easy = [dict(r) for r in result["predictors"]
            if r["log"] == "RICC-2010-2" and r["policy"] == "easy"]
    measured = [dict(r, policy="conservative", jobs_per_s_cpu=r["jobs_per_s_cpu"] / 10)
                for r in easy]
    run = {"provenance": dict(result["provenance"], command="python -m benchmarks."
                              "simulate_speed --part predictors --traces RICC-2010-2"),
           "predictors": measured, "logs": {"RICC-2010-2": result["logs"]["RICC-2010-2"]},
           "predictor_skipped": {}}
    (tmp_path / "run.json").write_text(json.dumps(run))
    for _ in range(2):  # merging the same run again changes nothing
        simulate_speed.merge_predictors(tmp_path / "run.json", tmp_path)
        merged = read_json(tmp_path / "simulate_speed.json")
        assert skipped not in merged["predictor_skipped"]
        ricc = [(r["policy"], r["estimates"]) for r in merged["predictors"]
                if r["log"] == "RICC-2010-2"]
        policies = list(dict.fromkeys(policy for policy, _ in ricc))
        in_order = [simulate_speed.label(*case) for case in simulate_speed.POLICIES]
        assert "conservative" in policies and policies == [p for p in in_order if p in policies]
        assert ricc.count(("conservative", "requests")) == 1
        page = (tmp_path / "simulate_speed.md").read_text()
        assert page.count("Measured separately and merged in (`--merge-predictors`): "
                          "RICC-2010-2 / conservative, by predictkit ") == 1
        assert "Skipped RICC-2010-2 / conservative" not in page

"""Run every benchmark script in this folder and print one JSON document.

Each ``benchmarks/<area>.py`` prints JSON on stdout; it runs as the module
``benchmarks.<area>`` from the repository root, and a script that makes a
results page writes its JSON and page into ``build/benchmarks/`` (never into
``docs/results/``: ``make results`` does that). This runner collects the
outputs under their area name, with the exit status and wall time of each and
the provenance of the whole run, and writes the document to
``build/benchmarks/latest.json`` (not tracked). Pass area names to run only
those: ``python -m benchmarks.run_all io_speed scheduling``.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._common import BUILD, REPO, provenance, write_json

HERE = Path(__file__).resolve().parent


def main(argv):
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name
                     and not p.name.startswith("_"))
    if argv:
        scripts = [p for p in scripts if p.stem in argv]
    report = {"provenance": provenance("run_all", argv)}
    for script in scripts:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{script.stem}"], cwd=REPO,
                              capture_output=True, text=True)
        entry = {"exit_status": done.returncode,
                 "seconds": round(time.perf_counter() - started, 1)}
        try:
            entry["result"] = json.loads(done.stdout)
        except json.JSONDecodeError:
            entry["stdout_tail"] = done.stdout[-2000:]
        if done.returncode:
            entry["stderr_tail"] = done.stderr[-2000:]
        report[script.stem] = entry
        print(f"{script.stem}: exit {done.returncode} in {entry['seconds']} s", file=sys.stderr)
    write_json(BUILD / "latest.json", report)
    print(json.dumps(report, indent=2))
    return max((e["exit_status"] for name, e in report.items() if name != "provenance"),
               default=0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

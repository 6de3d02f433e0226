"""Run every benchmark script in this folder and print one JSON document.

Each ``benchmarks/<area>.py`` prints JSON on stdout. This runner collects them
under their area name, with the exit status and wall time of each, and writes
the whole document to ``.benchmarks/latest.json`` (not tracked). Pass area
names to run only those: ``python benchmarks/run_all.py io_speed scheduling``.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv):
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name
                     and not p.name.startswith("_"))
    if argv:
        scripts = [p for p in scripts if p.stem in argv]
    report = {}
    for script in scripts:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
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
    out = HERE.parent / ".benchmarks" / "latest.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return max((e["exit_status"] for e in report.values()), default=0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

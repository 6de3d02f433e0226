"""Helpers shared by the benchmark scripts (not a benchmark itself).

Run the scripts as modules from the repository root
(``python -m benchmarks.scheduling``): the root is then on the import path,
so they import ``predictkit`` from the checkout and the plain test oracles as
``tests.simulate.reference`` without editing ``sys.path``.

A script that makes a results page stores what it measured, with the
:func:`provenance` of the run, in one JSON file and renders the page from
that JSON alone; its ``--from-json`` mode renders the page again without
rerunning the experiment. Both go to ``--output-dir``: ``build/benchmarks/``
by default (not tracked); ``make results`` renders into ``docs/results/``.
"""

import datetime
import json
import shlex
import subprocess
import time
from pathlib import Path

import predictkit

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build" / "benchmarks"
"""Default output folder of every script (git-ignored)."""
RESULTS = REPO / "docs" / "results"
"""The committed results pages and the JSON they are rendered from."""


def trace_folders():
    """The folders searched for traces: ``$PREDICTKIT_TRACES``, then ``../shared/traces``."""
    return [*predictkit.datasets.trace_folders(), REPO.parent / "shared" / "traces"]


def traces_dir():
    """The first of :func:`trace_folders` holding SWF files, or None."""
    for folder in trace_folders():
        if folder.is_dir() and any(folder.glob("*.swf*")):
            return folder
    return None


def trace_file(name):
    """The file of one trace (:func:`predictkit.datasets.find_trace` over :func:`trace_folders`)."""
    path = predictkit.datasets.find_trace(name, folders=trace_folders())
    if path is None:
        raise SystemExit(f"trace {name} not found in "
                         f"{', '.join(map(str, trace_folders()))}; set PREDICTKIT_TRACES")
    return path


def _git(*args):
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def current_commit():
    """The checked-out commit, with ``+changes`` when tracked files differ from it."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return "unknown (not a git checkout)"
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", "predictkit",
                   "benchmarks")
    return commit + ("+changes" if changed else "")


def provenance(script, argv):
    """What made a result: package version, commit, command line and UTC date.

    Parameters
    ----------
    script : str
        The module name under ``benchmarks`` (``"scheduling"``).
    argv : list of str
        The command-line arguments of the run, as given.

    Returns
    -------
    dict
        ``version``, ``commit``, ``command`` and ``date``, stored in the
        result's JSON so that a page rendered again from it is identical.
        ``--output-dir`` is left out of the command: it changes where the
        result goes, not what it is. Call this when the run starts.
    """
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    kept, skip = [], False
    for word in argv:
        if skip or word.startswith("--output-dir="):
            skip = False
            continue
        skip = word == "--output-dir"
        if not skip:
            kept.append(word)
    return {"version": predictkit.__version__, "commit": current_commit(),
            "command": shlex.join(["python", "-m", f"benchmarks.{script}", *kept]),
            "date": now.strftime("%Y-%m-%d %H:%M UTC")}


def best_of(function, repeat):
    """Fewest seconds ``function()`` took in ``repeat`` calls (the machine's noise
    only ever adds time)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def markdown_table(header, rows):
    """Lines of a markdown table: ``header`` and each of ``rows`` are lists of cells."""
    return ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"] + [
        "| " + " | ".join(row) + " |" for row in rows]


def provenance_lines(result, script):
    """The Markdown block opening a results page: who made it and how to make it again."""
    made = result["provenance"]
    lines = [f"> predictkit {made['version']}, commit `{made['commit']}`, {made['date']}: "
             f"`{made['command']}`."]
    if made.get("note"):
        lines.append(f"> {made['note']}")
    lines += [f"> Rendered from `{script}.json` beside this page: "
              f"`python -m benchmarks.{script} --from-json docs/results/{script}.json "
              "--output-dir docs/results` (or `make results`).", ""]
    return lines


def add_output_arguments(parser):
    """``--output-dir`` and ``--from-json``, the same in every page-making script."""
    parser.add_argument("--output-dir", type=Path, default=BUILD,
                        help="folder for the JSON and the page "
                             f"(default: {BUILD.relative_to(REPO)})")
    parser.add_argument("--from-json", type=Path, metavar="PATH",
                        help="render the page from an earlier run's JSON; run nothing")


def parse_or_render(parser, argv, render):
    """Parse ``argv`` with the page options added; with ``--from-json``, render the page.

    Returns the parsed arguments when the experiment is to run, or ``None``
    when the page was rendered from an earlier run's JSON (nothing to run).
    """
    add_output_arguments(parser)
    args = parser.parse_args(argv)
    if args.from_json:
        render(read_json(args.from_json), args.output_dir)
        return None
    return args


def write_text(path, text):
    """Write ``text`` to ``path`` atomically, creating its folder."""
    # imported here so that the speed comparison's worker also runs on older checkouts
    from predictkit._atomic import open_output

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open_output(path, "w") as handle:
        handle.write(text)


def write_json(path, result):
    """Write a result as the JSON its page is rendered from."""
    write_text(path, json.dumps(result, indent=1) + "\n")


def read_json(path):
    """A result written by :func:`write_json`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))

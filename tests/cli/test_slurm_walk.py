"""The walk of docs/slurm.md: its commands, run in-process, print what the page shows.

Each ``console`` block of the page holds ``$ predictkit ...`` commands, each
followed by its output. After a deliberate change of a command's output,
rewrite the page's outputs with ``python tests/cli/test_slurm_walk.py --update``
(from the repository's top folder) and read the diff.
"""

import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "slurm.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def console_steps(text):
    """``[(command, expected output)]`` of every ``console`` block, in page order."""
    steps = []
    for match in BLOCK.finditer(text):
        if match.group(1) != "console":
            continue
        for part in re.split(r"^\$ ", match.group(2), flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            steps.append((command, output))
    return steps


def run_command(command):
    """Run one ``predictkit ...`` command in-process from the top folder; return its stdout."""
    from predictkit.cli import main

    words = shlex.split(command)
    assert words[0] == "predictkit", f"the walk runs only predictkit commands: {command}"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(words[1:])
    assert status == 0, f"{command} exited with {status}"
    return out.getvalue()


def _normalise(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def test_the_page_walks_from_sacct_to_both_answers():
    steps = console_steps(PAGE.read_text(encoding="utf-8"))
    commands = [shlex.split(c)[1] for c, _ in steps]
    assert commands == ["info", "wait", "wait", "walltime"]
    text = PAGE.read_text(encoding="utf-8")
    assert "sacct --allusers --parsable2" in text
    # the sacct command of the page asks for the fields the sample has
    fields = re.search(r"--format=(\S+)", text).group(1).split(",")
    sample = (ROOT / "datasets" / "sacct_sample.txt").read_text(encoding="utf-8")
    assert fields == sample.split("\n", 1)[0].split("|")


@pytest.mark.parametrize("step", range(4))
def test_each_command_prints_what_the_page_shows(step, monkeypatch):
    monkeypatch.chdir(ROOT)
    command, expected = console_steps(PAGE.read_text(encoding="utf-8"))[step]
    assert _normalise(run_command(command)) == _normalise(expected)


def test_the_script_shown_is_the_script_used():
    text = PAGE.read_text(encoding="utf-8")
    shown = [m.group(2) for m in BLOCK.finditer(text)
             if m.group(1) == "text" and "#SBATCH" in m.group(2)]
    assert shown == [(ROOT / "datasets" / "example_job.sh").read_text(encoding="utf-8")]


def _update():
    text = PAGE.read_text(encoding="utf-8")
    for command, expected in console_steps(text):
        actual = run_command(command)
        text = text.replace(f"$ {command}\n{expected}", f"$ {command}\n{actual}", 1)
    PAGE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/cli/test_slurm_walk.py --update")
    _update()

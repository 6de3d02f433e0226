"""Every ``>>>`` example in the docstrings of ``predictkit`` runs and prints what it shows.

One test per module whose source holds an example, so ``pytest -n 2`` spreads
them and a failure names its module. Examples use synthetic data
(``make_workload``) or files they write themselves; none needs the shared traces.
"""

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "predictkit"


def _modules_with_examples():
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_the_package_has_examples_to_run():
    assert len(MODULES) >= 10


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} has '>>>' lines that doctest does not find (not in a docstring?)"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    for test in tests:
        result = runner.run(test, out=failures.append)
        assert result.attempted, test.name
    assert not failures, "".join(failures)

"""The documentation builds without warnings and covers the public API.

* ``sphinx -W`` on ``docs/`` (the ``make docs`` command) into a temporary
  directory; any warning fails the test and is printed.
* Every public name of every subpackage (its ``__all__``, or for
  :mod:`predictkit.metrics` the names its private modules export) is an
  ``automodule`` target of ``docs/api.rst`` and appears as a documented object
  in the built API page.
* Every page named in a toctree of ``docs/index.md`` exists.
* Every ``python`` and ``sh`` code block of ``docs/`` and the README runs
  (see the section below for the rules and the ``not-run`` marker).
* Results pages hold no raw Python values and are what their generator
  writes; tables fit the page; the footer has a copyright line.
"""

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import predictkit

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

NOT_IN_API_REFERENCE = {
    # The command line is documented by ``predictkit COMMAND --help`` and the
    # user guide, not as a Python API.
    "predictkit.cli",
}
"""Subpackages deliberately left out of ``docs/api.rst``, with the reason."""

BUILD_TIMEOUT = 240


def _subpackages():
    names = ["predictkit.jobs", "predictkit.exceptions"]
    for info in pkgutil.iter_modules(predictkit.__path__):
        if not info.name.startswith("_") and info.ispkg:
            names.append(f"predictkit.{info.name}")
    return sorted(set(names) - NOT_IN_API_REFERENCE)


def _public_names(module_name):
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    # A package assembled by star imports from private modules (metrics).
    names = []
    for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
        sub = importlib.import_module(f"{module_name}.{info.name}")
        names.extend(getattr(sub, "__all__", []))
    return names


def _automodules():
    """``{module: explicit member list or None}`` for each automodule of api.rst."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    targets = {}
    for match in re.finditer(r"^\.\. automodule:: *(\S+)\n((?:[ \t]+:.*\n?)*)", text, re.M):
        members = None
        option = re.search(r":members:[ \t]*(\S.*)?$", match.group(2), re.M)
        if option and option.group(1):
            members = [m.strip() for m in option.group(1).split(",") if m.strip()]
        targets[match.group(1)] = members
    return targets


def _resolve(dotted):
    """The object a documented id such as ``predictkit.jobs.SWF_COLUMNS`` names, or None."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
        return obj
    return None


def _toctree_entries():
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    entries = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.append(line)
    return entries


def test_every_subpackage_is_an_automodule_target():
    targets = _automodules()
    missing = [name for name in _subpackages() if name not in targets]
    assert not missing, f"docs/api.rst has no automodule for: {', '.join(missing)}"


@pytest.mark.parametrize("module_name", _subpackages())
def test_public_names_are_listed(module_name):
    members = _automodules().get(module_name, [])
    if members is None:  # ":members:" alone documents the whole __all__
        return
    names = _public_names(module_name)
    missing = [name for name in names if name not in members]
    assert not missing, (
        f"docs/api.rst: '.. automodule:: {module_name}' lists explicit members but "
        f"not {', '.join(missing)} (public in {module_name})"
    )


def test_toctree_pages_exist():
    entries = _toctree_entries()
    assert entries, "docs/index.md has no toctree entries"
    missing = [e for e in entries
               if not any((DOCS / f"{e}{suffix}").is_file() for suffix in (".md", ".rst"))]
    assert not missing, (
        "docs/index.md lists pages that do not exist: "
        + ", ".join(f"docs/{e}.md" for e in missing)
    )


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs_html")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(out / ".doctrees"), str(DOCS), str(out)]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"sphinx did not finish within {BUILD_TIMEOUT} s:\n{exc.stderr or ''}")
    return proc, out


def test_sphinx_builds_without_warnings(built_docs):
    proc, _ = built_docs
    if proc.returncode != 0:
        warnings = [line for line in proc.stderr.splitlines()
                    if "WARNING" in line or "ERROR" in line or "CRITICAL" in line]
        pytest.fail(
            f"sphinx -W failed (exit {proc.returncode}) with {len(warnings)} warning(s):\n"
            + "\n".join(warnings or proc.stderr.splitlines()[-40:])
        )


def test_public_names_are_documented(built_docs):
    proc, out = built_docs
    api = out / "api.html"
    if not api.is_file():
        pytest.fail(f"the build wrote no api.html (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    ids = set(re.findall(r'id="(predictkit[\w.]*)"', api.read_text(encoding="utf-8")))
    missing = []
    for module_name in _subpackages():
        module = importlib.import_module(module_name)
        for name in _public_names(module_name):
            if f"{module_name}.{name}" in ids:
                continue
            # Module-level data is documented from the private module that
            # defines it, where its docstring lives
            # (e.g. predictkit.simulate._policies.POLICIES): accept any
            # documented id ending in the name that is the very same object.
            target = getattr(module, name)
            if not any(i.rsplit(".", 1)[-1] == name and _resolve(i) is target for i in ids):
                missing.append(f"{module_name}.{name}")
    assert not missing, "not in the built API reference: " + ", ".join(missing)


# -- every code block of the documentation and the README runs -----------------
#
# ```python blocks run page by page, in order, in one fresh namespace per page,
# in a temporary directory. ```sh blocks run each `predictkit ...` command
# in-process through predictkit.cli.main (exit status 0 required); a shell block
# with any other command (make, git, sacct) must be marked. Untagged blocks are
# text (usage synopses with [optional] parts, diagrams) and TOML blocks are
# configuration excerpts; neither is run. A block is exempted by the line
#     <!-- not-run: the reason -->
# right before its fence. Blocks run in a temporary directory that links the
# repository's examples/ and datasets/ folders. Pages naming real logs (`*.swf.gz`, `load_trace`,
# `fetch_pwa`) need the shared traces: the temporary directory links each of
# them under its file name, PREDICTKIT_TRACES points at their folder and the
# download cache holds links to them, so no block touches the network.

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(\S.*?)\s*-->")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
NEEDS_TRACES = re.compile(r"\.swf\.gz|load_trace\(|fetch_pwa\(")
MAX_NOT_RUN = 8
"""Exemptions stay few: more than this many not-run blocks fails the test."""


def _doc_pages():
    pages = sorted(DOCS.glob("*.md")) + sorted((DOCS / "papers").glob("*.md"))
    return [p.relative_to(ROOT).as_posix() for p in pages] + ["README.md"]


def code_blocks(page):
    """``[(line, language, code, not-run reason or None)]`` of the fenced blocks of a page."""
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = []
    for match in FENCE.finditer(text):
        language = (match.group(1).strip().split() or [""])[0]
        before = text[:match.start()].rstrip().splitlines()
        marker = NOT_RUN.fullmatch(before[-1].strip()) if before else None
        blocks.append((text.count("\n", 0, match.start()) + 1, language, match.group(2),
                       marker.group(1) if marker else None))
    return blocks


def _runnable(blocks):
    return [b for b in blocks if b[1] == "python" or b[1] in SHELL_LANGUAGES]


def shell_commands(code, language="sh"):
    """The commands of a shell block: continuation lines joined, comments dropped.

    A ``console`` block is a transcript: its commands are the lines after a
    ``$`` prompt, everything else is their output (which
    ``tests/cli/test_slurm_walk.py`` compares for the Slurm page).
    """
    import shlex

    lines = code.splitlines()
    if language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    commands, pending = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line = pending + line
        pending = ""
        words = shlex.split(line, comments=True)
        if words:
            commands.append(words)
    return commands


PAGES_WITH_CODE = [page for page in _doc_pages() if _runnable(code_blocks(page))]


def test_not_run_blocks_are_few_and_give_a_reason():
    exempt = [(page, line, reason) for page in _doc_pages()
              for line, language, _, reason in code_blocks(page) if reason is not None]
    assert len(exempt) <= MAX_NOT_RUN, exempt
    assert all(len(reason.split()) >= 2 for _, _, reason in exempt), exempt


def test_code_block_extraction():
    page = ("text\n```python\nx = 1\n```\n\n<!-- not-run: needs network -->\n```sh\n"
            "predictkit fetch KTH \\\n  --data-home d  # a comment\n```\n")
    blocks = list(FENCE.finditer(page))
    assert [b.group(1) for b in blocks] == ["python", "sh"]
    assert shell_commands(blocks[1].group(2)) == [["predictkit", "fetch", "KTH", "--data-home",
                                                   "d"]]
    assert shell_commands("$ predictkit info x\njobs  12\n", "console") == [
        ["predictkit", "info", "x"]]


def _link_traces(folder, into):
    """Each shared trace under its file name in ``into`` and in a download cache there."""
    cache = into / "cache" / "pwa"
    cache.mkdir(parents=True)
    for trace in folder.glob("*.swf*"):
        (into / trace.name).symlink_to(trace)
        (cache / trace.name).symlink_to(trace)
    return into / "cache"


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_code_blocks_run(page, tmp_path, monkeypatch):
    from tracedata import require_traces

    from predictkit.cli import main

    blocks = [b for b in _runnable(code_blocks(page)) if b[3] is None]
    if not blocks:
        pytest.skip(f"{page}: every code block is marked not-run")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PREDICTKIT_DATA", str(tmp_path / "cache"))
    for folder in ("examples", "datasets"):   # paths the docs give from the repository root
        if (ROOT / folder).is_dir():
            (tmp_path / folder).symlink_to(ROOT / folder)
    if any(NEEDS_TRACES.search(code) for _, _, code, _ in blocks):
        folder = require_traces()
        monkeypatch.setenv("PREDICTKIT_TRACES", str(folder))
        _link_traces(folder, tmp_path)
    namespace = {"__name__": "__main__"}
    for line, language, code, _ in blocks:
        where = f"{page}, block at line {line}"
        if language == "python":
            exec(compile(code, where, "exec"), namespace)
            continue
        for words in shell_commands(code, language):
            assert words[0] == "predictkit", (
                f"{where}: '{' '.join(words)}' is not a predictkit command; mark the block "
                "<!-- not-run: reason --> or show it as text")
            status = main(words[1:])
            assert status == 0, f"{where}: '{' '.join(words)}' exited with {status}"


# -- results pages, tables and the page footer ------------------------------------

def _prose(text):
    """A page without its fenced code blocks."""
    return FENCE.sub("", text)


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "results").glob("*.md")))
def test_results_pages_hold_no_raw_python_values(page):
    text = _prose((DOCS / "results" / page).read_text(encoding="utf-8"))
    raw = re.findall(r"\{'[^']*': [^}]*\}|\[\s*'[^']*',", text)
    assert not raw, f"docs/results/{page} prints raw Python values: {raw[:3]}"
    assert not re.search(r"\d\.\d+e[+-]\d\d", text), f"docs/results/{page}: scientific notation"


def _markdown_tables(text):
    """Each pipe table of a page as a list of rows of cell texts."""
    tables, rows = [], []
    for line in _prose(text).splitlines() + [""]:
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            if not all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                rows.append([c.strip() for c in cells])
        elif rows:
            tables.append(rows)
            rows = []
    return tables


CHAR_PX = 8.5   # a character of the table font (0.9 of alabaster's 17 px), generously
CELL_PADDING_PX = 14


def _text_column_px():
    """Width of the text column: the theme's page width minus its sidebar (docs/conf.py)."""
    namespace = {}
    exec(compile((DOCS / "conf.py").read_text(encoding="utf-8"), "conf.py", "exec"), namespace)
    options = namespace["html_theme_options"]
    assert options.get("body_max_width") == "none", "alabaster caps the text at 800 px"
    px = {key: int(re.fullmatch(r"(\d+)px", options[key]).group(1))
          for key in ("page_width", "sidebar_width")}
    return px["page_width"] - px["sidebar_width"] - 60   # the body's own padding


def test_tables_fit_the_text_column():
    """Where a table can wrap (at spaces; code spans anywhere, see predictkit.css) it fits.

    The narrowest a table can get is the sum over its columns of the longest
    word that cannot wrap; that must fit the text column of the theme.
    """
    width = _text_column_px()
    assert width >= 1000
    too_wide = []
    for page in sorted(DOCS.rglob("*.md")):
        for rows in _markdown_tables(page.read_text(encoding="utf-8")):
            columns = max(len(row) for row in rows)
            narrowest = 0.0
            for k in range(columns):
                words = [w for row in rows if k < len(row)
                         for w in re.sub(r"`[^`]*`", " ", row[k]).split()]
                narrowest += CHAR_PX * max((len(w) for w in words), default=0) + CELL_PADDING_PX
            if narrowest > width:
                too_wide.append(f"{page.relative_to(ROOT)} (table starting '{rows[0][0]}', "
                                f"{narrowest:.0f} px > {width} px)")
    assert not too_wide, "tables wider than the page: " + "; ".join(too_wide)


def test_stylesheet_wraps_and_scrolls_tables(built_docs):
    _, out = built_docs
    css = (out / "_static" / "predictkit.css").read_text(encoding="utf-8")
    assert re.search(r"table\.docutils td, table\.docutils th \{\s*overflow-wrap: anywhere;", css)
    assert re.search(r"table\.docutils span\.pre \{\s*white-space: normal;", css)
    assert "overflow-x: auto" in css
    for page in ("papers/tsafrir2005.html", "results/scheduling.html", "index.html"):
        assert "_static/predictkit.css" in (out / page).read_text(encoding="utf-8"), page


def test_copyright_names_a_year_and_the_developers(built_docs):
    _, out = built_docs
    footer = re.search(r"&#169;(\d{4}), ([^.<]+)", (out / "index.html").read_text(encoding="utf-8"))
    assert footer, "no copyright line in the built pages"
    assert int(footer.group(1)) >= 2024 and "predictkit" in footer.group(2)

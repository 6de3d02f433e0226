"""Declarative experiment grids: traces x predictors x parameters x policies x priorities."""

import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Hashable
from pathlib import Path

from .._validation import check_path_or_file, python_scalar
from ..exceptions import ConfigError, InputFileError
from ._identity import FOLDER_KEY, trace_identity

__all__ = ["expand_grid", "load_grid", "cell_key"]

_AXES = ("traces", "predictors", "policies", "priorities")
_DEFAULTS = {"policies": [None], "priorities": [None]}
_SCALARS = (str, int, float, bool)


def _where(source):
    return f"{source}: " if source is not None else ""


def _as_list(value, name, source):
    if value is None:
        return [None]
    if isinstance(value, (*_SCALARS, dict)):
        return [value]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ConfigError(f"{_where(source)}{name} is empty: give at least one value")
        return list(value)
    raise ConfigError(f"{_where(source)}{name} must be a list, got {type(value).__name__}")


def _strings(values, name, source, *, allow_none=False):
    for k, value in enumerate(values):
        if value is None and allow_none:
            continue
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{_where(source)}{name}[{k}] must be a non-empty string, "
                              f"got {value!r}")
    return values


def _no_repeats(values, name, source):
    seen = set()
    for value in values:
        if value in seen:
            raise ConfigError(f"{_where(source)}{name} gives {value!r} twice, which would "
                              f"repeat cells")
        seen.add(value)


def _same_number(value):
    """``value`` with each whole float as the integer it equals (``quantile = [1, 1.0]``
    is one value twice), for comparing predictor entries."""
    if isinstance(value, dict):
        return {k: _same_number(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_same_number(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _expand_predictor(entry, k, source):
    """One predictor entry -> one cell-part per combination of its parameter lists."""
    where = f"predictors[{k}]"
    if isinstance(entry, str):
        _strings([entry], "predictors", source)
        return [{"predictor": entry, "params": {}}]
    if not isinstance(entry, dict) or "name" not in entry:
        raise ConfigError(f"{_where(source)}{where} must be a name or a table with 'name', "
                          f"got {entry!r}")
    unknown = set(entry) - {"name", "params"}
    if unknown:
        raise ConfigError(f"{_where(source)}{where} has unknown key(s) "
                          f"{', '.join(sorted(map(str, unknown)))}; expected name, params")
    if not isinstance(entry["name"], str) or not entry["name"].strip():
        raise ConfigError(f"{_where(source)}{where}.name must be a non-empty string, "
                          f"got {entry['name']!r}")
    params = entry.get("params", {}) or {}
    if not isinstance(params, dict):
        raise ConfigError(f"{_where(source)}{where}.params (predictor {entry['name']!r}) "
                          f"must be a table, got {params!r}")
    names = sorted(params)
    values = [_as_list(params[n], f"{where}.params.{n}", source) for n in names]
    for name, options in zip(names, values):
        for value in options:
            if not isinstance(value, (*_SCALARS, type(None))):
                raise ConfigError(f"{_where(source)}{where}.params.{name} must be a value or a "
                                  f"list of values, got {value!r}")
    return [{"predictor": entry["name"], "params": dict(zip(names, combo))}
            for combo in itertools.product(*values)]


def expand_grid(spec, *, source=None):
    """Expand a declarative grid into a list of cells (plain dicts).

    Parameters
    ----------
    spec : dict
        ``traces`` (list of trace names or paths, required), ``predictors``
        (list of names, or tables ``{name, params}`` where each parameter may
        be a list to sweep), ``policies`` and ``priorities`` (lists; optional)
        and ``options`` (a table copied into every cell, e.g.
        ``{"max_jobs": 20000, "selective": true}``).
    source : str or path, optional
        The grid file, named in error messages. A relative trace path is
        taken from the folder of this file (when it is one), else from the
        working folder.

    Returns
    -------
    list of dict
        One cell per combination, each with keys ``trace``, ``predictor``,
        ``params``, ``policy``, ``priority``, ``options``, in a stable order;
        with a grid file, also ``grid_folder``: its absolute folder, where
        relative trace paths start from.

    Raises
    ------
    ConfigError
        On unknown keys, empty axes or values of the wrong type, naming the
        file and the key. The values themselves (parameter ranges, trace
        files, option values) are checked by
        :func:`~predictkit.experiments.check_cells`.
    """
    if spec is None or spec == {}:
        raise ConfigError(f"{_where(source)}the grid is empty; it needs at least 'traces'")
    if not isinstance(spec, dict):
        raise ConfigError(f"{_where(source)}a grid must be a table (dict), "
                          f"got {type(spec).__name__}")
    unknown = set(spec) - set(_AXES) - {"options"}
    if unknown:
        raise ConfigError(f"{_where(source)}unknown grid key(s) "
                          f"{', '.join(sorted(map(str, unknown)))}; "
                          f"expected {', '.join(_AXES)}, options")
    if "traces" not in spec:
        raise ConfigError(f"{_where(source)}a grid needs 'traces'")
    traces = _strings(_as_list(spec["traces"], "traces", source), "traces", source)
    entries = _as_list(spec.get("predictors", ["requested"]), "predictors", source)
    predictors = [p for k, entry in enumerate(entries)
                  for p in _expand_predictor(entry, k, source)]
    policies = _strings(_as_list(spec.get("policies", _DEFAULTS["policies"]), "policies",
                                 source), "policies", source, allow_none=True)
    priorities = _strings(_as_list(spec.get("priorities", _DEFAULTS["priorities"]),
                                   "priorities", source), "priorities", source, allow_none=True)
    options = spec.get("options", {}) or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{_where(source)}options must be a table, got {options!r}")
    options = {name: python_scalar(value) for name, value in options.items()}  # NumPy's too
    for name, value in options.items():
        if not isinstance(value, _SCALARS):
            raise ConfigError(f"{_where(source)}options.{name} must be a single value, "
                              f"got {value!r}")
    for name, values in (("traces", traces), ("policies", policies),
                         ("priorities", priorities)):
        _no_repeats(values, name, source)
    _no_repeats([json.dumps(_same_number(p), sort_keys=True, default=str) for p in predictors],
                "predictors", source)
    folder = {} if _grid_folder(source) is None else {FOLDER_KEY: _grid_folder(source)}
    return [{"trace": str(trace), **predictor, "policy": policy, "priority": priority,
             "options": dict(options), **folder}
            for trace, predictor, policy, priority in itertools.product(
                traces, predictors, policies, priorities)]


def _grid_folder(source):
    """The absolute folder of the grid file ``source``, or None (no file: standard input)."""
    if source is None or str(source) == STDIN_NAME or not Path(source).is_file():
        return None
    return str(Path(source).resolve().parent)


def _text(path, data=None):
    if data is None:
        try:
            data = path.read_bytes()
        except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
            raise InputFileError.from_os_error(exc) from None
        except OSError as exc:  # a symlink loop, a file used as a folder, a too long name...
            raise ConfigError(f"{path}: cannot read the grid file: {exc.strerror or exc}") \
                from None
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise ConfigError(f"{path}: not a text file (a NUL byte at offset {offset}); a grid is "
                          f"TOML or YAML text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{path}, line {line}: not UTF-8 text (byte "
                          f"{data[exc.start]:#04x} at offset {exc.start}); a grid is TOML or "
                          f"YAML text") from None


def _toml(path, text):
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
        end = re.search(r"\s*\(at end of document\)", message)
        if match:
            where = f"{path}, line {match.group(1)}, column {match.group(2)}"
            message = message[:match.start()] + message[match.end():]
        elif end:
            where = (f"{path}, line {text.count(chr(10)) + 1}, column "
                     f"{len(text) - text.rfind(chr(10))} (end of file)")
            message = message[:end.start()] + message[end.end():]
        else:
            where = str(path)
        raise ConfigError(f"{where}: cannot parse TOML grid: {message}") from None


def _strict_loader(yaml):
    """PyYAML's SafeLoader, refusing a key given twice in one table (PyYAML keeps the last)."""

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader, node, deep=False):
        first = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):  # a list, a table or a set
                kind = {list: "list", dict: "table"}.get(type(key), type(key).__name__)
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key must be a name, got a {kind}", key_node.start_mark)
            if key in first:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice (first on line {first[key] + 1})",
                    key_node.start_mark)
            first[key] = key_node.start_mark.line
        return loader.construct_mapping(node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return StrictLoader


def _yaml(path, text):
    try:
        import yaml
    except ImportError:  # pragma: no cover - optional dependency
        raise ConfigError("YAML grids need PyYAML: pip install 'predictkit[yaml]'") from None
    try:
        return yaml.load(text, Loader=_strict_loader(yaml))  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: cannot parse YAML grid: {problem}") from None


STDIN_NAME = "<stdin>"
"""How errors name a grid read from standard input."""


def load_grid(path):
    """Read a grid from a TOML (``.toml``) or YAML (``.yaml``/``.yml``) file.

    ``"-"`` reads the grid from standard input, as TOML (a YAML grid needs a
    ``.yaml`` file: without a file name there is no extension to say which
    language it is, and TOML is the grid language the examples use).

    Raises
    ------
    ConfigError
        For another file extension, a file that is not UTF-8 text, or a
        syntax error (with its line and column).
    InvalidParameterError
        When ``path`` is not a path (str or os.PathLike).
    """
    check_path_or_file(path, "path", "load_grid", files=False, what="a grid file's path")
    if str(path) == "-":
        import sys

        text = _text(STDIN_NAME, sys.stdin.buffer.read())
        try:
            return _toml(STDIN_NAME, text)
        except ConfigError as exc:
            raise ConfigError(f"{exc} (a grid on standard input is read as TOML; give a YAML "
                              "grid as a .yaml or .yml file)") from None
    path = Path(path)
    if path.suffix not in {".toml", ".yaml", ".yml"}:
        raise ConfigError(f"{path}: a grid file must end in .toml, .yaml or .yml")
    text = _text(path)
    return _toml(path, text) if path.suffix == ".toml" else _yaml(path, text)


def cell_key(cell):
    """A stable 16-hex-digit key of a cell: its configuration and its trace's content.

    A cell whose trace is a file (a path, or a name found by
    :func:`predictkit.datasets.load_trace`) is keyed on that file's content
    identity too (:func:`~predictkit.experiments.trace_identity`), so a
    changed trace file gives new keys and its cells are computed again. The
    grid file's folder (``grid_folder``) is not part of the key: the trace
    as the grid writes it and its content are.
    """
    text = json.dumps({k: v for k, v in cell.items() if k != FOLDER_KEY}, sort_keys=True,
                      default=str)
    identity = trace_identity(cell.get("trace"), cell.get(FOLDER_KEY))
    if identity is not None:
        text += "\n" + identity
    return hashlib.sha256(text.encode()).hexdigest()[:16]

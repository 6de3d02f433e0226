"""Declarative experiment grids: traces x predictors x parameters x policies x priorities."""

import hashlib
import itertools
import json
import tomllib
from pathlib import Path

from ..exceptions import ConfigError

__all__ = ["expand_grid", "load_grid", "cell_key"]

_AXES = ("traces", "predictors", "policies", "priorities")
_DEFAULTS = {"policies": [None], "priorities": [None]}


def _as_list(value, name):
    if value is None:
        return [None]
    if isinstance(value, (str, int, float, dict)):
        return [value]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ConfigError(f"grid axis {name!r} is empty")
        return list(value)
    raise ConfigError(f"grid axis {name!r} must be a list, got {type(value).__name__}")


def _expand_predictor(entry):
    """One predictor entry -> one cell-part per combination of its parameter lists."""
    if isinstance(entry, str):
        return [{"predictor": entry, "params": {}}]
    if not isinstance(entry, dict) or "name" not in entry:
        raise ConfigError(f"a predictor must be a name or a table with 'name', got {entry!r}")
    params = entry.get("params", {}) or {}
    if not isinstance(params, dict):
        raise ConfigError(f"params of predictor {entry['name']!r} must be a table")
    names = sorted(params)
    values = [_as_list(params[n], f"{entry['name']}.{n}") for n in names]
    return [{"predictor": entry["name"], "params": dict(zip(names, combo))}
            for combo in itertools.product(*values)]


def expand_grid(spec):
    """Expand a declarative grid into a list of cells (plain dicts).

    Parameters
    ----------
    spec : dict
        ``traces`` (list of trace names or paths, required), ``predictors``
        (list of names, or tables ``{name, params}`` where each parameter may
        be a list to sweep), ``policies`` and ``priorities`` (lists; optional)
        and ``options`` (a table copied into every cell, e.g.
        ``{"max_jobs": 20000, "selective": true}``).

    Returns
    -------
    list of dict
        One cell per combination, each with keys ``trace``, ``predictor``,
        ``params``, ``policy``, ``priority``, ``options``, in a stable order.

    Raises
    ------
    ConfigError
        On unknown keys or empty axes, naming them.
    """
    if not isinstance(spec, dict):
        raise ConfigError("a grid must be a table (dict)")
    unknown = set(spec) - set(_AXES) - {"options"}
    if unknown:
        raise ConfigError(f"unknown grid key(s) {', '.join(sorted(unknown))}; "
                          f"expected {', '.join(_AXES)}, options")
    if "traces" not in spec:
        raise ConfigError("a grid needs 'traces'")
    traces = _as_list(spec["traces"], "traces")
    predictors = [p for entry in _as_list(spec.get("predictors", ["requested"]), "predictors")
                  for p in _expand_predictor(entry)]
    policies = _as_list(spec.get("policies", _DEFAULTS["policies"]), "policies")
    priorities = _as_list(spec.get("priorities", _DEFAULTS["priorities"]), "priorities")
    options = spec.get("options", {}) or {}
    cells = []
    for trace, predictor, policy, priority in itertools.product(
            traces, predictors, policies, priorities):
        cells.append({"trace": str(trace), **predictor, "policy": policy,
                      "priority": priority, "options": dict(options)})
    return cells


def load_grid(path):
    """Read a grid from a TOML (``.toml``) or YAML (``.yaml``/``.yml``) file."""
    path = Path(path)
    text = path.read_text()
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        if path.suffix in {".yaml", ".yml"}:
            try:
                import yaml
            except ImportError:  # pragma: no cover - optional dependency
                raise ConfigError("YAML grids need PyYAML: pip install 'predictkit[yaml]'") from None
            return yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot parse grid: {exc}") from None
    raise ConfigError(f"{path}: a grid file must end in .toml, .yaml or .yml")


def cell_key(cell):
    """A stable 16-hex-digit key of a cell's configuration (for resuming)."""
    text = json.dumps(cell, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

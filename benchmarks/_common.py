"""Helpers shared by the benchmark scripts (not a benchmark itself)."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def traces_dir():
    """The folder of shared traces: ``$PREDICTKIT_TRACES`` entries, then ``../shared/traces``."""
    env = os.environ.get("PREDICTKIT_TRACES", "")
    for folder in [*(Path(p) for p in env.split(os.pathsep) if p),
                   REPO.parent / "shared" / "traces"]:
        if folder.is_dir() and any(folder.glob("*.swf*")):
            return folder
    return None

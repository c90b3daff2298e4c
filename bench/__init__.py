"""The benchmarks, a package run from the checkout: `.venv/bin/python -m bench.bench_copilot`.

Run as modules from the repository root, the scripts import each other (`bench.bench_foundation`)
and the suite's shared helpers from the installed `netopsai_testkit` (testkit/), with no sys.path
edits; nothing here is installed (docs/architecture.md, "Packaging"). A script's children run through
`child_cmd` and `child_env`: the checkout last on their PYTHONPATH, so a tree named before it
(another revision's package view, as house_same.py and the --base benches use) is the netopsai
they import."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child_cmd(module: str, *args: str) -> list[str]:
    """A bench module in a child interpreter; -P: the working directory is not put first on its
    path (-m would put it there, ahead of a tree on PYTHONPATH)."""
    return [sys.executable, "-P", "-m", module, *args]


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """ENV (default: this process's) with the checkout appended to PYTHONPATH."""
    out = dict(os.environ if env is None else env)
    out["PYTHONPATH"] = os.pathsep.join(p for p in (out.get("PYTHONPATH", ""), str(ROOT)) if p)
    return out

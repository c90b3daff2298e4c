"""The benchmarks, a package run from the checkout: `.venv/bin/python -m bench.bench_copilot`.

Run as modules from the repository root, the scripts import each other (`bench.bench_foundation`)
and the suite's shared helpers from the installed `netopsai_testkit` (testkit/), with no sys.path
edits; nothing here is installed (docs/architecture.md, "Packaging"). A script's children run through
`child_cmd` and `child_env`: the checkout last on their PYTHONPATH, so a tree named before it
(another revision's package view, as house_same.py and the --base benches use) is the netopsai
they import."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
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


@contextmanager
def empty_stores(with_pg: bool, name: str,
                 sqlite_url: Callable[[Path], str]) -> Iterator[dict[str, Callable[[], str]]]:
    """Makers of an empty store's URL per measurement: "sqlite" (`sqlite_url` of a fresh file in
    a temporary folder) and, when `with_pg` and PostgreSQL is installed, "postgresql" (a fresh
    database named `name`N on one loopback server). The folder and the server go at the end."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{name}-db-"))
    files, databases = iter(range(1_000_000)), iter(range(1_000_000))
    makers: dict[str, Callable[[], str]] = {"sqlite": lambda: sqlite_url(folder / f"{next(files)}.db")}
    try:
        from netopsai_testkit.peers.postgres import fresh_database, postgres_server, skip_reason

        if not with_pg or skip_reason():
            if with_pg:
                print(f"PostgreSQL skipped: {skip_reason()}")
            yield makers
            return
        with postgres_server() as url:
            makers["postgresql"] = lambda: fresh_database(url, f"{name}{next(databases)}")
            yield makers
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the SQLite stores of every measurement

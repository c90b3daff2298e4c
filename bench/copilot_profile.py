"""The copilot benchmark's profile child: cProfile over a query class's warm questions, the
tool calls run in one thread so the profiler sees them."""

from __future__ import annotations

import cProfile
import io
import pstats
from pathlib import Path
from typing import Any

from bench.copilot_children import _scenario
from bench.copilot_config import ROOT
from bench.copilot_questions import _backends


def child_profile(name: str, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """cProfile over a class's warm questions (the first one runs unprofiled)."""
    from netopsai.copilot import toolbox
    from netopsai.copilot.service import Copilot

    toolbox.ThreadPoolExecutor = _Serial  # type: ignore[attr-defined,misc]  # cProfile sees one thread
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import reset_lab
    from netopsai.store.engine import get_engine

    copilot = Copilot(_backends())
    prof = cProfile.Profile()
    warm = questions[1:]
    for i, spec in enumerate(questions):
        if spec.get("faults"):
            inject(get_engine(), _scenario(spec, i))
        if i == 0:
            copilot.answer(spec["q"], "profile-cold")
        else:
            prof.runcall(copilot.answer, spec["q"], f"profile-{i}")
    if name == "faulted":
        reset_lab(get_engine())
    st = pstats.Stats(prof, stream=io.StringIO())
    stats = st.stats  # type: ignore[attr-defined]
    # a wrapper passes ≥ 90% of its time to one callee of ours: show the callee instead
    passed: dict[Any, float] = {}
    for fn, (_cc, _nc, _tt, _ct, callers) in stats.items():
        if not _ours(fn[0]):
            continue
        for caller, (_c1, _c2, _t, ct_from) in callers.items():
            passed[caller] = max(passed.get(caller, 0.0), ct_from)
    rows = []
    for fn, (_cc, ncalls, tt, ct, _callers) in stats.items():
        path, line, func = fn
        rows.append({"where": _short(path, line, func), "ncalls": ncalls, "tot_ms": tt * 1000,
                     "cum_ms": ct * 1000, "ours": _ours(path),
                     "wrapper": passed.get(fn, 0.0) >= 0.9 * ct})
    n = len(warm)
    whole = sum(r["tot_ms"] for r in rows)  # the entry points (Copilot.ask) are all of it
    ours = sorted((r for r in rows if r["ours"] and not r["wrapper"] and r["cum_ms"] < 0.95 * whole),
                  key=lambda r: -r["cum_ms"])
    top_self = sorted(rows, key=lambda r: -r["tot_ms"])[:10]
    per = [{**r, "cum_ms": r["cum_ms"] / n, "tot_ms": r["tot_ms"] / n} for r in ours[:10]]
    return {"n": n, "ours": per, "total_ms": whole / n,
            "self": [{**r, "cum_ms": r["cum_ms"] / n, "tot_ms": r["tot_ms"] / n} for r in top_self]}


class _Serial:
    """Stands in for the Toolbox's thread pool under the profiler: the calls run one after
    another in this thread, where cProfile can see them."""

    def __init__(self, max_workers: int | None = None) -> None:
        pass

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, fn: Any, *iterables: Any) -> Any:
        return list(map(fn, *iterables))


def _ours(path: str) -> bool:
    p = str(Path(path).resolve()) if path.startswith("/") else path
    return p.startswith((str(ROOT / "netopsai"), str(ROOT / "tools")))


def _short(path: str, line: int, func: str) -> str:
    p = Path(path)
    if _ours(path):
        rel = p.resolve().relative_to(ROOT)
        return f"{rel}:{line}({func})"
    if "site-packages" in path:
        rel = path.split("site-packages/", 1)[1]
        return f"{rel}:{line}({func})"
    return f"{p.name}:{line}({func})" if path.startswith("/") else f"{path}({func})"

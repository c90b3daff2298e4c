"""The arena runner: for each scenario a fresh lab (the healthy snapshot of its (spec, scale,
seed, clock) copied back by lab inject, not rebuilt), the scenario injected, the question put to
every baseline, each answer scored. Results come back as one dict (written as JSON) that
report.py renders as the leaderboard."""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from netopsai.arena.baselines import Reply, engine_strategy, one_shot, traceroute_only
from netopsai.arena.generate import MANIFEST
from netopsai.arena.score import (
    NO_DIAGNOSIS,
    Outcome,
    check_citations,
    device_matches,
    judge,
    lookup_label,
    summarize,
)
from netopsai.common.errors import NetopsError
from netopsai.copilot import threads
from netopsai.lab.scenario import Scenario, load_scenario

BASELINES = ("one-shot", "traceroute-only", "cvd", "history", "full")
OURS = ("cvd", "history", "full")  # answers written by our summarizer: judged for consistency
ENGINE_BASELINES = {"cvd": "cvd", "history": "history"}
Progress = Callable[[int, int, str], None]


@dataclass
class Options:
    baselines: tuple[str, ...] = BASELINES
    llm: str = "none"  # none | scripted
    workdir: Path | None = None
    memory: str = "online"  # online: each scored scenario is confirmed into incident memory | none


def load_dir(directory: Path) -> list[Scenario]:
    """Every scenario YAML in a folder, by file name; a bad one is an error naming it."""
    if not directory.is_dir():
        raise NetopsError(f"scenario folder not found: {directory}")
    files = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))
    if not files:
        raise NetopsError(f"no scenario files (*.yaml) in {directory}")
    out = [load_scenario(p) for p in files]
    missing = [sc.id for sc in out if sc.expect is None]
    if missing:
        raise NetopsError(f"scenario {missing[0]} has no expect: section to score against")
    return out


def manifest(directory: Path) -> dict[str, dict[str, Any]]:
    p = directory / MANIFEST
    if not p.is_file():
        return {}
    return {e["id"]: e for e in json.loads(p.read_text()).get("scenarios", [])}


def check_baselines(names: tuple[str, ...]) -> tuple[str, ...]:
    bad = [n for n in names if n not in BASELINES]
    if bad:
        raise NetopsError(f"unknown baseline {bad[0]!r}; valid: {', '.join(BASELINES)}")
    return names


class Labs:
    """One lab store per (spec, scale, seed, clock), built once; every inject resets it from the
    healthy snapshot that init left beside it."""

    def __init__(self, root: Path, llm: str, knowledge: Any = None) -> None:
        self.root, self.llm, self.knowledge = root, llm, knowledge
        self._labs: dict[tuple[Any, ...], tuple[Engine, Any]] = {}

    def ready(self, sc: Scenario) -> tuple[Engine, Any]:
        from netopsai.backends.lab import lab_backends
        from netopsai.copilot.arena_door import lab_store
        from netopsai.copilot.service import Copilot
        from netopsai.lab.manage import init_lab

        key = (sc.lab.spec, sc.lab.scale, sc.lab.seed, sc.now)
        if key not in self._labs:
            engine = lab_store(f"sqlite:///{self.root / f'lab{len(self._labs)}.db'}")
            init_lab(engine, sc.lab.spec, sc.lab.scale, sc.lab.seed, sc.now)
            llm = None
            if self.llm == "scripted":
                from netopsai.arena.scripted import ScriptedChat

                llm = ScriptedChat()
            self._labs[key] = (engine, Copilot(lab_backends(engine), llm=llm, knowledge=self.knowledge))
        return self._labs[key]


@dataclass
class Turn:
    """What one scenario's run shares between baselines: the lab, the copilot, the memory,
    and the symptom text the engine indexed (for confirming the incident afterwards)."""

    engine: Engine
    copilot: Any
    memory: Any = None
    symptoms: str = ""
    taxonomy: Any = None


def _full(turn: Turn, sc: Scenario) -> Reply:
    thread = threads.key("arena", sc.id, str(time.monotonic_ns()))
    r = turn.copilot.answer(sc.question, thread)
    diag = turn.copilot.thread(thread).diagnosis
    turn.symptoms = str((diag or {}).get("symptoms") or "") or turn.symptoms
    rc = r.get("root_cause") or {}
    return Reply(rc.get("label") or NO_DIAGNOSIS, rc.get("device"), r.get("answer", ""),
                 r.get("evidence", []), int(r.get("llm_calls", 0)),
                 int((r.get("tokens") or {}).get("prompt", 0)))


def ask(baseline: str, sc: Scenario, turn: Turn) -> Reply:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.evidence import Ledger
    from netopsai.copilot.toolbox import Toolbox

    if baseline == "one-shot":
        return one_shot(sc.question)
    if baseline == "traceroute-only":
        backends = lab_backends(turn.engine)
        return traceroute_only(sc.question, Toolbox(backends).runner(Ledger()))
    if baseline == "full":
        return _full(turn, sc)
    from netopsai.arena.engine_adapter import run_strategy

    reply, symptoms = run_strategy(ENGINE_BASELINES[baseline], sc, turn.engine, turn.memory,
                                    turn.taxonomy)
    turn.symptoms = turn.symptoms or symptoms
    return reply


def score(sc: Scenario, baseline: str, reply: Reply, wall_ms: float) -> Outcome:
    assert sc.expect is not None
    ok, cited, problems = check_citations(reply.answer, reply.evidence, sc.expect.must_cite)
    said = judge(reply.answer, reply.evidence, reply.label, reply.device, sc.question) \
        if baseline in OURS else None
    if baseline == "full" and reply.label == NO_DIAGNOSIS:  # a look-up: judged by what it shows
        found = lookup_label(reply.answer, reply.evidence, sc.expect.root_cause, sc.expect.device)
        reply = Reply(found[0], found[1], reply.answer, reply.evidence, reply.llm_calls,
                      reply.prompt_tokens)
    return Outcome(sc.id, baseline, sc.expect.root_cause, reply.label, reply.device,
                   device_matches(sc.expect.device, reply.device), ok, cited, problems,
                   len(reply.evidence), reply.llm_calls, reply.prompt_tokens, round(wall_ms, 2),
                   contradictions=said)


def _one(baseline: str, sc: Scenario, turn: Turn) -> Outcome:
    t0 = time.perf_counter()
    try:
        reply = ask(baseline, sc, turn)
    except Exception as exc:  # a crash is a wrong answer, recorded, not the end of the run
        assert sc.expect is not None
        return Outcome(sc.id, baseline, sc.expect.root_cause, "error",
                       wall_ms=(time.perf_counter() - t0) * 1000, error=f"{type(exc).__name__}: {exc}")
    return score(sc, baseline, reply, (time.perf_counter() - t0) * 1000)


def available(names: tuple[str, ...]) -> dict[str, str]:
    """baseline -> why it cannot run ('' when it can)."""
    out = {}
    for n in names:
        out[n] = engine_strategy(ENGINE_BASELINES[n])[1] if n in ENGINE_BASELINES else ""
    return out


def run(scenarios: list[Scenario], opts: Options, progress: Progress | None = None,
        categories: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Inject each scenario once into its lab and put its question to every baseline."""
    from netopsai.lab.inject import inject

    names = check_baselines(opts.baselines)
    why_not = available(names)
    runnable = [n for n in names if not why_not[n]]
    started, load0, t0 = datetime.now(UTC), os.getloadavg(), time.perf_counter()
    outcomes: list[Outcome] = []
    confirmed = 0
    with tempfile.TemporaryDirectory(prefix="netopsai-arena-", dir=opts.workdir) as tmp:
        knowledge = _knowledge(opts, Path(tmp))
        labs, memory = Labs(Path(tmp), opts.llm, knowledge), knowledge.incident_memory()
        for i, sc in enumerate(scenarios, start=1):
            engine, copilot = labs.ready(sc)
            inject(engine, sc)
            turn = Turn(engine, copilot, memory, taxonomy=knowledge.taxonomy)
            outcomes += [_one(n, sc, turn) for n in runnable]
            confirmed += _confirm(turn, sc)
            if progress:
                progress(i, len(scenarios), sc.id)
    meta = _meta(started, load0, time.perf_counter() - t0, opts, len(scenarios))
    meta["incidents_confirmed"] = confirmed
    return {"meta": meta,
            "baselines": {n: {"available": not why_not[n], "reason": why_not[n],
                              "summary": summarize([o for o in outcomes if o.baseline == n])}
                          for n in names},
            "categories": categories or {},
            "outcomes": [o.as_dict() for o in outcomes]}


def _knowledge(opts: Options, tmp: Path) -> Any:
    """The run's own incident memory (or none) and the built-in taxonomy alone: a benchmark
    never reads, or writes, the user's confirmed incidents or taxonomy extensions."""
    from netopsai.copilot.arena_door import arena_knowledge

    return arena_knowledge(tmp / "home", opts.memory == "online")


def _confirm(turn: Turn, sc: Scenario) -> int:
    """As an on-call confirms a diagnosis: the scenario's true cause joins incident memory
    after every baseline has answered it, so only later scenarios can recall it."""
    if turn.memory is None or sc.expect is None or not turn.symptoms:
        return 0
    dev = sc.expect.device
    turn.memory.add(turn.symptoms, sc.expect.root_cause, dev[0] if isinstance(dev, list) and dev else
                    dev if isinstance(dev, str) else None, sc.expect.interface,
                    question=sc.question, confirmed_by="arena", source="confirm")
    return 1


def _meta(started: datetime, load0: tuple[float, float, float], wall_s: float, opts: Options,
          n: int) -> dict[str, Any]:
    return {"started": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "wall_s": round(wall_s, 1),
            "scenarios": n, "llm": opts.llm, "memory": opts.memory,
            "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
                       f"Python {platform.python_version()}",
            "load_before": [round(x, 2) for x in load0],
            "load_after": [round(x, 2) for x in os.getloadavg()]}


@dataclass
class Written:
    json_path: Path
    markdown_path: Path
    results: dict[str, Any] = field(default_factory=dict)


def write(results: dict[str, Any], out: Path) -> Written:
    """results.json and leaderboard.md in the folder `out`."""
    from netopsai.arena.report import leaderboard

    out.mkdir(parents=True, exist_ok=True)
    jp, mp = out / "results.json", out / "leaderboard.md"
    jp.write_text(json.dumps(results, indent=1, default=str) + "\n")
    mp.write_text(leaderboard(results))
    return Written(jp, mp, results)

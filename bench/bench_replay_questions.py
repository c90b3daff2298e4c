"""On-call questions on the replay (issue 12 §6): the day of device logs of bench_replay.py,
loaded the same way, then nine questions an on-call asks about its labelled events, each through
the whole offline copilot (`Copilot.answer`), each judged by what the answer's evidence must
hold (the storm's port and flap count, the optic pull's timeline, the BGP clear's neighbours by
address, the shut port named with its reason ...). Reported: right / asked, and per question
the wall time and the tools called.

    .venv/bin/python -m bench.bench_replay_questions [--noise 12000] [--out bench/RESULTS.md]

The log and its labels are ours (bench_replay.py builds them from the vendor's format on the
lab's own links), so this measures the copilot against a known truth, not held-out data.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from bench.bench_replay import DAY, Labelled, _eos, events, noise  # noqa: E402

Answer = dict[str, Any]


@dataclass
class Question:
    text: str
    right: Callable[[Answer], bool]
    what: str  # what a right answer shows


def _rows(a: Answer, tool: str) -> list[dict[str, Any]]:
    return [r for e in a["evidence"] if e["tool"] == tool and not e["errors"] for r in e["rows"]]


def _port(lab: Labelled) -> tuple[str, str]:
    """The labelled event's device and port (from its first interface line)."""
    host = next(iter(lab.devices))
    text = next(t for _, _, t in lab.lines if "nterface " in t)
    port = text.split("nterface ", 1)[1].split(",")[0].split(" ")[0]
    return host, port


def questions(labs: list[Labelled], engine: Any) -> list[Question]:
    from netopsai.backends.lab import lab_backends
    from netopsai.tools.registry import run_tool

    storm, clear, pull, shut = labs
    sh, sp = _port(storm)
    ph, pp = _port(pull)
    xh, xp = _port(shut)
    spine = next(iter(clear.devices))
    day = f"{DAY:%Y-%m-%d}"
    nbr = next(r for r in run_tool("metadata", {"query": "neighbors", "name": ph},
                                   lab_backends(engine)).rows if r["interface"] == pp)
    whats = lambda a: [str(r.get("what", "")) for r in _rows(a, "coder")]  # noqa: E731
    return [
        Question(f"is {sh} {sp} flapping?", lambda a: any(
            r["interface"] == sp and r["flaps"] >= 200 for r in _rows(a, "telemetry")),
            "the storm's port with its ~257 flaps"),
        Question(f"which ports flapped between 10:00 and 11:00 on {day}?", lambda a: bool(
            _rows(a, "telemetry")) and (_rows(a, "telemetry")[0]["device"],
                                        _rows(a, "telemetry")[0]["interface"]) == (sh, sp),
            "the storm's port first"),
        Question(f"what happened to {ph} {pp}?", lambda a: any("REMOVED" in w for w in whats(a))
                 and "LINK_DOWN raised" in whats(a) and "LINK_DOWN cleared" in whats(a),
                 "a timeline: transceiver removed, link down, back up"),
        Question(f"what is connected to {ph} {pp}?", lambda a: [
            (r["neighbor"], r["neighbor_interface"]) for r in _rows(a, "metadata")] == [
            (nbr["neighbor"], nbr["neighbor_interface"])], "that port's one neighbour"),
        Question(f"which BGP sessions went down on {spine} between 13:00 and 13:10 on {day}?",
                 lambda a: len(_rows(a, "alarms")) >= 8 and all(
                     r.get("peer_address") and r.get("peer") and r.get("interface")
                     for r in _rows(a, "alarms")), "every session, by address, device and link"),
        Question(f"what is wrong with {xh}?", lambda a: bool(a["root_cause"]) and (
            a["root_cause"]["interface"], a["root_cause"]["label"]) == (xp, "link.down")
            and "administratively shut" in a["answer"], "the shut port, with the reason"),
        Question(f"any alarms on {ph} between 15:00 and 16:00 on {day}?", lambda a: {
            "LINK_DOWN", "BGP_DOWN"} <= {r["kind"] for r in _rows(a, "alarms")},
            "the pull's link and BGP alarms"),
        Question(f"what happened to {xh} {xp} on {day}?", lambda a: any(
            "administratively down" in w for w in whats(a)), "the admin shut in the timeline"),
        Question(f"correlate the alarms on {sh} between 10:00 and 10:30 on {day}", lambda a: len(
            {r.get("group") for r in _rows(a, "alarms") if r["kind"] in ("LINK_FLAP", "LINK_DOWN")})
            == 1, "the storm as one case"),
    ]


def build(n_noise: int) -> tuple[Any, list[Labelled]]:
    from netopsai.backends.syslog.files import load_files
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import engine_for

    home = Path(tempfile.mkdtemp(prefix="bench-replay-q-"))
    os.environ["NETOPSAI_HOME"] = str(home)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, DAY + timedelta(days=1, hours=1))
    labs = events(engine)
    hosts = sorted({h for e in labs for h in e.devices})
    lines = sorted([*noise(n_noise, hosts, random.Random(7)), *(x for e in labs for x in e.lines)],
                   key=lambda x: x[0])
    log = home / "messages"
    log.write_text("".join(_eos(at, h, t) + "\n" for at, h, t in lines))
    stamp = (DAY + timedelta(days=1)).timestamp()
    os.utime(log, (stamp, stamp))
    load_files(str(engine.url), [log])
    return engine, labs


def run(n_noise: int) -> list[tuple[Question, bool, float, list[str]]]:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.service import Copilot

    engine, labs = build(n_noise)
    copilot = Copilot(lab_backends(engine))
    out = []
    for i, q in enumerate(questions(labs, engine)):
        t0 = time.perf_counter()
        a = copilot.answer(q.text, f"q{i}")
        ms = (time.perf_counter() - t0) * 1000
        out.append((q, q.right(a), ms, [e["tool"] for e in a["evidence"]]))
    return out


def render(results: list[tuple[Question, bool, float, list[str]]], noise_n: int) -> str:
    m = _machine()
    right = sum(ok for _, ok, _, _ in results)
    rows = [f"| {q.text} | {q.what} | {'right' if ok else 'WRONG'} | {ms:,.0f} | "
            f"{', '.join(dict.fromkeys(tools))} |" for q, ok, ms, tools in results]
    return "\n".join([
        "## Replay questions — what an on-call asks about the day's events", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
        f"1-min load {os.getloadavg()[0]:.2f}",
        f"- The replay of bench_replay.py ({noise_n} background lines and four labelled events), "
        "loaded with `ingest --file`'s loader; each question through the offline copilot "
        "(bench/bench_replay_questions.py), judged by its evidence. Our own log and labels: a "
        "check against known truth, not held-out data. Target (issue): ≥ 8 of 9 right.", "",
        f"**{right} of {len(results)} right.**", "",
        "| question | a right answer shows | result | ms | tools |", "| --- | --- | --- | ---: | --- |",
        *rows, ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=int, default=12_000)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    body = render(run(a.noise), a.noise)
    print(body)
    write_section(a.out, "replay-questions", body)


if __name__ == "__main__":
    main()

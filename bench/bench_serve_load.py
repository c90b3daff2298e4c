"""`netopsai serve` under load (trust issue, item 10): many on-calls asking at once. The app is
launched as the README does, on a small lab with an ACL fault; N concurrent sessions (each its
own Gradio session over real HTTP, through `gradio_client`) ask a mix of questions back to back
for a fixed time. Reported: answers, errors, latency p50/p95/max per question and overall, and
the memory of the server with its children (sandbox workers), sampled every second.

    .venv/bin/python -m bench.bench_serve_load [--sessions 50] [--seconds 300]

An error is an exception from the client, an empty answer, or an answer without a citation.
The `<!-- serve-load:begin -->` section of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from bench.bench_serve import free_port, lab_home  # noqa: E402  (the same lab and fault)

QUESTIONS = [
    "10.1.3.20 to 10.2.1.40 not communicating",
    "list the PoDs of dc1 and their segments",
    "any DCI link alarms in the last 2 hours?",
    "port link status across all switches since 08:00",
    "who owns 10.1.3.20?",
    "what changed on dc1-leaf-03 in the last day?",
    "top CRC errors in dc1 in the last 7 days",  # a large counter read: takes a heavy slot
    "top CRC errors across all switches in the last 365 days",  # over budget: refused clearly
    "worst error ports per pod in dc1 over the last 24 hours",  # the coder, in the sandbox
    "which alarms line up with changes in the last 24 hours?",  # the coder, in the sandbox
]


def _rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmRSS:")))
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, StopIteration):
            continue
    return total


def _answer_text(result: Any) -> str:
    """The last assistant message of the Chatbot output (the second output of `respond`)."""
    history = result[1] if isinstance(result, (list, tuple)) and len(result) > 1 else []
    for msg in reversed(history or []):
        if isinstance(msg, dict) and msg.get("role") == "assistant":
            content = msg.get("content")
            text = content if isinstance(content, str) else str(content)
            if not (msg.get("metadata") or {}).get("title"):  # a step, not the answer
                return text
    return ""


class Load:
    def __init__(self, url: str, deadline: float) -> None:
        self.url, self.deadline = url, deadline
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self._lock = threading.Lock()

    def session(self, k: int) -> None:
        from gradio_client import Client

        client = Client(self.url, verbose=False)
        i = k
        while time.monotonic() < self.deadline:
            q = QUESTIONS[i % len(QUESTIONS)]
            i += 1
            t0 = time.perf_counter()
            try:
                text = _answer_text(client.predict(q, [], api_name="/respond"))
                problem = "" if "[E" in text else f"no cited answer: {text[:80]!r}"
            except Exception as exc:  # noqa: BLE001  (any failure is an error to count)
                problem = f"{type(exc).__name__}: {exc}"[:160]
            with self._lock:
                if problem:
                    self.errors.append(f"{q}: {problem}")
                else:
                    self.latency[q].append(time.perf_counter() - t0)


def run(sessions: int, seconds: float) -> dict[str, Any]:
    home = lab_home()
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {**os.environ, "NETOPSAI_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False",
           "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_up(url, proc)
        idle = _rss_kib(proc.pid)
        load = Load(url, time.monotonic() + seconds)
        workers = [threading.Thread(target=load.session, args=(k,)) for k in range(sessions)]
        samples: list[int] = []
        for w in workers:
            w.start()
        while any(w.is_alive() for w in workers):
            samples.append(_rss_kib(proc.pid))
            time.sleep(1)
        return {"load": load, "idle": idle, "rss": samples, "alive": proc.poll() is None}
    finally:
        proc.terminate()
        proc.wait(30)


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("serve did not come up in 120 s")


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def render(r: dict[str, Any], a: argparse.Namespace) -> str:
    m, load = _machine(), r["load"]
    every = [x for xs in load.latency.values() for x in xs]
    rows = [f"| {q} | {len(xs)} | {statistics.median(xs):.2f} | {_pct(xs, 95):.2f} | {max(xs):.2f} |"
            for q, xs in sorted(load.latency.items(), key=lambda kv: QUESTIONS.index(kv[0]))]
    mib = [s / 1024 for s in r["rss"]]
    return "\n".join([
        "## `netopsai serve` under load — concurrent sessions, mixed questions",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
        f"1-min load at the end {os.getloadavg()[0]:.2f}",
        f"- {a.sessions} concurrent sessions (gradio_client over HTTP on loopback, each its own "
        f"Gradio session) asking {len(QUESTIONS)} questions in turn, back to back, for "
        f"{a.seconds:.0f} s; small lab with an ACL fault; no LLM. The app runs 8 events at once "
        "(Gradio queue) and 2 large counter reads at once; latency includes the wait in the queue.",
        "",
        "| measurement | result |", "| --- | ---: |",
        f"| answers (cited) | {len(every)} ({len(every) / a.seconds:.1f} /s) |",
        f"| errors | {len(load.errors)} |",
        f"| latency p50 / p95 / max | {statistics.median(every):.2f} / {_pct(every, 95):.2f} / "
        f"{max(every):.2f} s |" if every else "| latency | no answers |",
        f"| server memory (with children): idle / median / peak | {r['idle'] / 1024:.0f} / "
        f"{statistics.median(mib):.0f} / {max(mib):.0f} MiB |",
        f"| server alive at the end | {'yes' if r['alive'] else 'no'} |",
        "",
        "| question | answers | p50 s | p95 s | max s |", "| --- | ---: | ---: | ---: | ---: |",
        *rows,
        *([""] + [f"- error: {e}" for e in load.errors[:10]] if load.errors else []),
        ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    body = render(run(a.sessions, a.seconds), a)
    print(body)
    write_section(a.out, "serve-load", body)


if __name__ == "__main__":
    main()

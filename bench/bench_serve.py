"""`netopsai serve` time to first answer (issue 4 §5): launch the app as the README does, on a
small lab with an ACL fault, then drive Debian's Chromium (Playwright) to ask the seed
connectivity question and wait for the cited conclusion. Median of a few launches.

    .venv/bin/python -m bench.bench_serve [--runs 3] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402  (one machine description for every section)

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def lab_home() -> Path:
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab, lab_info
    from netopsai.lab.scenario import Scenario
    from netopsai.store.engine import engine_for

    home = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, datetime(2025, 11, 4, 20, 0, tzinfo=UTC))
    inject(engine, Scenario.model_validate({
        "id": "bench-serve", "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return home


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_run(home: Path) -> dict[str, float]:
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {**os.environ, "NETOPSAI_HOME": str(home), "GRADIO_ANALYTICS_ENABLED": "False"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:  # bounded by the process: it either serves or exits
            if proc.poll() is not None:
                raise SystemExit(f"netopsai serve exited {proc.returncode}")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        ready = time.perf_counter()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page()
            page.goto(url)
            box = page.locator("#question textarea")
            expect(box).to_be_visible(timeout=60_000)
            shown = time.perf_counter()
            box.fill(QUESTION)
            box.press("Enter")
            expect(page.locator("#chat")).to_contain_text("config.acl_block at dc1-leaf-03",
                                                          timeout=60_000)
            answered = time.perf_counter()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return {"ready": ready - t0, "page": shown - t0, "answer": answered - shown,
            "first_answer": answered - t0}


def render(runs: list[dict[str, float]]) -> str:
    m = _machine()
    def med(k: str) -> str:
        return f"{statistics.median(r[k] for r in runs):.2f} s"
    rows = [("launch → HTTP 200", "ready"), ("launch → page ready in Chromium", "page"),
            ("question → cited conclusion on the page", "answer"),
            ("launch → first answer (total)", "first_answer")]
    lines = ["## `netopsai serve` — time to first answer (small lab, ACL fault)", "",
             f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
             f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
             f"1-min load {os.getloadavg()[0]:.2f}",
             f"- {len(runs)} launches of `netopsai serve` (a fresh process each), Chromium headless "
             "via Playwright; medians. No target is set by the issue.", "",
             "| measurement | median | runs |", "| --- | ---: | --- |"]
    lines += [f"| {name} | {med(k)} | {', '.join(f'{r[k]:.2f}' for r in runs)} |"
              for name, k in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    home = lab_home()
    runs = [one_run(home) for _ in range(a.runs)]
    body = render(runs)
    print(body)
    write_section(a.out, "serve:small", body)


if __name__ == "__main__":
    main()

"""The reliability report renders through its own text module (issue 27 item 6): the digest and
the terminal table no longer import the Slack bot's mrkdwn or the CLI's console, and say the
same as before the move. `data/reliability_render/before.json` is what digest_blocks,
digest_text and print_report wrote for `fixed_report()` at the commit before the move (names
that try to escape, a long name, more scopes than fit, an empty p50). The times in them changed
after (issue 25 item 5: the window and the cases on the network's clock, named;
tests/copilot/test_times_zoned_prose.py); everything else is compared whole."""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from netopsai.reliability import render
from netopsai.reliability.digest import digest_blocks, digest_text
from netopsai.reliability.model import Report
from netopsai.reliability.text import print_report
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "reliability_render"
PACKAGE = Path(render.__file__).parent
HOSTILE = ["dc1-pod1", "<!channel> pod", "a&b*bold*_it_", "**x** `tick` " + "y" * 120,
           "- list\n# head", "dc2 <https://e.example|link>"]


def fixed_report() -> Report:
    scopes = [{"scope": n, "bad_minutes": 90 - 7 * i, "bad_percent": 6.25 - i,
               "case_minutes": 60, "flap_minutes": 5, "loss_minutes": 0, "probe_minutes": 0,
               "bad_cases": 2} for i, n in enumerate(HOSTILE)]
    scopes += [{"scope": f"pod{i:02d}", "bad_minutes": 10 - i % 10, "bad_percent": 0.5,
                "case_minutes": 1, "flap_minutes": 0, "loss_minutes": 0, "probe_minutes": 0,
                "bad_cases": 1} for i in range(12)]
    scopes.append({"scope": "quiet", "bad_minutes": 0, "bad_percent": 0.0, "case_minutes": 0,
                   "flap_minutes": 0, "loss_minutes": 0, "probe_minutes": 0, "bad_cases": 0})
    offenders = [{"kind": "device", "name": "<@U123> leaf`3", "cases": 3, "case_ids": "C1 C2 C3",
                  "case_list": "C1 LINK_DOWN 2026-03-09 16:00; C2 LINK_DOWN 2026-03-10 02:00"},
                 {"kind": "link", "name": "leaf1:Et1 <-> spine1:Et2", "cases": 2,
                  "case_ids": "C4 C5", "case_list": "C4 X 2026-03-09 21:00; C5 Y 2026-03-10 07:00"}]
    ttr = [{"category": "all", "stage": s, "cases": 4, "of": 6, "p50_min": p, "p90_min": q}
           for s, p, q in (("acknowledged", 5.0, 12.5), ("mitigated", None, None),
                           ("closed", 30.0, 60.0))]
    ttr.append({"category": "link", "stage": "closed", "cases": 1, "of": 1, "p50_min": 3.0,
                "p90_min": 3.0})
    noise = [{"day": "2026-03-09", "alarms": 2, "cases": 2, "alarms_per_case": 1.0},
             {"day": "2026-03-10", "alarms": 17, "cases": 4, "alarms_per_case": 4.25}]
    cases = [{"case": f"C{i}", "root_kind": kind, "detected": at} for i, kind, at in (
        (1, "LINK_DOWN", "2026-03-09T16:00:00Z"), (2, "LINK_DOWN", "2026-03-10T02:00:00Z"),
        (3, "LINK_DOWN", "2026-03-10T03:00:00Z"), (4, "X", "2026-03-09T21:00:00Z"),
        (5, "Y", "2026-03-10T07:00:00Z"))]
    return Report(window={"start": "2026-03-09T12:00:00Z", "end": "2026-03-10T12:00:00Z"},
                  by="pod", definitions=["Scope: a PoD.", "Case: [bold]not markup[/bold]."],
                  scopes=scopes, offenders=offenders, cases=cases, ttr=ttr, noise=noise,
                  totals={"alarms": 19, "cases": 6, "compression": 3.17, "bad_cases": 4,
                          "open_cases": 1, "window_minutes": 1440})


def _rendered(rep: Report) -> dict[str, Any]:
    buf = io.StringIO()
    print_report(rep, Console(file=buf, width=160, soft_wrap=True))
    return {"blocks": digest_blocks(rep), "text": digest_text(rep), "terminal": buf.getvalue()}


def _timeless(terminal: str) -> list[str]:
    """The table without its first line (the window) and its repeat offenders (their cases'
    times), the parts that name times."""
    lines = terminal.splitlines()[1:]
    a = next(i for i, ln in enumerate(lines) if ln.startswith("repeat offenders"))
    b = next(i for i, ln in enumerate(lines) if ln.startswith("time to repair"))
    return lines[:a] + lines[b:]


def test_the_digest_and_the_table_say_what_they_said_before_the_move() -> None:
    before = json.loads((DATA / "before.json").read_text())
    now = _rendered(fixed_report())
    assert now["blocks"][1:] == before["blocks"][1:]  # all but the header (the window)
    assert now["text"].split(": ", 1)[1] == before["text"].split(": ", 1)[1]  # after the title
    assert _timeless(now["terminal"]) == _timeless(before["terminal"])
    assert len(_timeless(now["terminal"])) > 30


@pytest.mark.parametrize("text", [*HOSTILE, "**a** and **b**", "* item\n- item\n### h3", "",
                                  "<@U1> & <#C1|ops>", "plain"])
def test_the_escaper_is_the_bots(text: str) -> None:
    from netopsai.ui.slack.blocks import mrkdwn as bots

    assert render.mrkdwn(text) == bots(text)


def test_the_console_is_the_clis() -> None:
    from netopsai.cli.render import out_console

    mine, clis = render.console(), out_console()  # under pytest stdout is not a terminal
    assert (mine.width, mine.soft_wrap) == (clis.width, clis.soft_wrap)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_reliability_imports_no_front_end() -> None:
    up = ("netopsai.ui", "netopsai.cli", "ui.", "cli.")
    found = {p.name: sorted(m for m in _imports(p) if m.startswith(up))
             for p in sorted(PACKAGE.glob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}
    # nor through what it imports: a fresh interpreter loading every module of the package
    code = ("import sys, pkgutil, importlib, netopsai.reliability as r\n"
            "for m in pkgutil.iter_modules(r.__path__): importlib.import_module(f'{r.__name__}.{m.name}')\n"
            "print(sorted(m for m in sys.modules if m.startswith(('netopsai.ui', 'netopsai.cli'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

"""Network text reaches the terminal inert (issue 23, B10): an ESC sequence in a syslog message,
a change summary or an interface description no longer clears or retitles the on-call's
terminal, a CR/LF inside one message no longer forges a row of `tool events`/`changelog`
tables or of CSV output, and "[red]" in a message is printed as written, not read as rich
markup. Rows are put into the store raw, as an older release or another writer may have left
them: the rendering must hold whatever the store holds."""

from __future__ import annotations

import csv
import io
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from rich.console import Console
from sqlmodel import Session, select

from netopsai.cli.render import render_evidence, write_csv
from netopsai.cli.textout import lines, markup
from netopsai.copilot.batch.check import PairResult
from netopsai.copilot.batch.output import to_row
from netopsai.copilot.evidence import Evidence
from netopsai.lab.manage import lab_info
from netopsai.reliability.export import read_csv, to_csv
from netopsai.reliability.model import Report
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from tests.cli_helpers import run_cli, small_lab_home

# retitle the window, clear the screen, ring the bell, CSI as one C1 character; then a line
# break and what would read as a second, forged row
HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x9b31m[red]alert[/red] :fire: port down\r\nFORGED-ROW 00:00 ok"
SHOWN = "␛]0;PWNED␇␛[2J<U+009B>31m[red]alert[/red] :fire: port down⏎FORGED-ROW 00:00 ok"
DEVICE = "dc1-leaf-01"
ONE_LINE = HOSTILE.split("\r\n")[0]  # a config diff is lines: its line breaks are its own


def raw_controls(text: str) -> list[str]:
    """The control characters in `text` other than the line breaks between whole lines."""
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small lab whose store holds one hostile change, syslog event, interface description
    and snapshot config diff, all on DEVICE, minutes before the lab clock."""
    home = small_lab_home(tmp_path_factory.mktemp("hostile"))
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    at = lab_info(engine).clock - timedelta(minutes=10)
    with Session(engine) as s:
        s.add(m.Change(ticket="CHG-666", device=DEVICE, site="dc1", start=at, summary=HOSTILE,
                       author="ops\x1b[8m"))
        s.add(m.RawEvent(received_at=at, at=at, source="syslog", host="10.0.0.1", device=DEVICE,
                         interface="Ethernet1", mnemonic="LINK-3-UPDOWN", message=HOSTILE))
        iface = s.exec(select(m.Interface).where(m.Interface.device == DEVICE)).first()
        assert iface is not None
        iface.description = HOSTILE
        s.add(iface)
        s.add(m.DeviceSnapshot(device=DEVICE, taken_at=at, source="napalm",
                               config_diff=f"+ description {ONE_LINE}\r\n- hostname x",
                               errors=["get_bgp\x1b[2J failed"]))
        s.commit()
    return home


def inert(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout) == [] and raw_controls(done.stderr) == []
    assert not any(line.startswith("FORGED-ROW") for line in done.stdout.splitlines())
    return done.stdout


@pytest.mark.parametrize("tool, args", [
    ("events", f'{{"devices": ["{DEVICE}"], "window": "1h"}}'),
    ("changelog", f'{{"devices": ["{DEVICE}"], "window": "1h"}}'),
])
def test_tables_show_the_controls_as_marks(home: Path, tool: str, args: str) -> None:
    out = inert(run_cli(home, "tool", tool, args))
    assert "␛]0;PWNED␇␛[2J" in out and "port down⏎FORGED-ROW" in out
    assert "[red]alert[/red]" in out and ":fire:" in out  # no markup, no emoji read in it


@pytest.mark.parametrize("tool, args", [
    ("events", f'{{"devices": ["{DEVICE}"], "window": "1h"}}'),
    ("changelog", f'{{"devices": ["{DEVICE}"], "window": "1h"}}'),
])
def test_csv_has_one_physical_line_per_record(home: Path, tool: str, args: str) -> None:
    out = inert(run_cli(home, "tool", tool, args, "--format", "csv"))
    rows = list(csv.reader(io.StringIO(out)))
    assert len(out.splitlines()) == len(rows)  # no quoted field spans two lines
    assert any(SHOWN in cell for row in rows for cell in row)


def test_json_keeps_the_text_escaped_not_marked(home: Path) -> None:
    """--json is data for programs: the text as stored, every control escaped by JSON."""
    import json

    done = run_cli(home, "tool", "events", f'{{"devices": ["{DEVICE}"], "window": "1h"}}', "--json")
    assert raw_controls(done.stdout) == []
    [row] = [r for r in json.loads(done.stdout)["rows"] if "FORGED" in r["message"]]
    assert row["message"] in (HOSTILE, SHOWN)  # raw, or made visible by the ingest


def test_interface_description_in_metadata(home: Path) -> None:
    out = inert(run_cli(home, "tool", "metadata",
                        f'{{"query": "interfaces", "name": "{DEVICE}"}}', "--format", "csv"))
    assert SHOWN in out


def test_snapshot_listing(home: Path) -> None:
    """A config diff keeps its own line breaks (each shown indented); what acts inside one is
    marked, and a lone CR (which would overwrite the line in a terminal) too."""
    out = inert(run_cli(home, "snapshots", DEVICE))
    assert f"  + description {SHOWN.split('⏎')[0]}" in out.splitlines()
    assert "  - hostname x" in out.splitlines()  # CR LF is a line break, not a mark
    assert "  not read: get_bgp␛[2J failed" in out.splitlines()


def test_an_error_line_quoting_what_was_given(home: Path) -> None:
    """A NetopsError that quotes its input raw (a file name) is still one visible line."""
    done = run_cli(home, "batch", "/nonexistent/\x1b[2J\npairs.csv")
    assert done.returncode == 2 and raw_controls(done.stderr) == []
    assert done.stderr.strip().splitlines() == [
        "error: batch file not found: /nonexistent/␛[2J⏎pairs.csv"]


def test_render_evidence_reads_no_markup() -> None:
    ev = Evidence(id="E1", tool="events", summary=f"1 event: \"{HOSTILE}\"",
                  args={"text": "[bold]x"}, columns=["at", "message"],
                  rows=[{"at": "t", "message": HOSTILE}])
    buf = io.StringIO()
    render_evidence(ev, Console(file=buf, width=400, color_system=None, soft_wrap=True))
    out = buf.getvalue()
    assert raw_controls(out) == [] and "[E1] events {'text': '[bold]x'}" in out
    assert SHOWN in out and out.count("FORGED-ROW") == 2  # the cell and the summary, inline
    csv_out = io.StringIO()
    write_csv(ev, csv_out)
    assert csv_out.getvalue().splitlines() == ["at,message", f"t,{SHOWN}"]


def test_helpers() -> None:
    assert lines("one\r\ntwo\x1b[2J\rthree\n") == "one\ntwo␛[2J⏎three\n"
    assert markup("[red]x\x1b") == "\\[red]x␛"


def test_batch_csv_row_and_reliability_csv() -> None:
    r = PairResult(line=1, src="10.0.0.1", dst="10.0.0.2", reachable=False, hops=2,
                   failing_hop=2, failing_device=DEVICE, cause="link.down",
                   reason=f"description {HOSTILE}", evidence=["E1\x1b[2J"])
    row = dict(zip(["line", "src", "dst", "reachable", "hops", "failing_hop", "failing_device",
                    "cause", "reason", "evidence"], to_row(r), strict=False))
    assert raw_controls("".join(row.values())) == [] and row["evidence"] == "E1␛[2J"
    # whitespace (the CR LF too) was already one space per row: the rest is marked
    assert row["reason"] == "description " + SHOWN.replace("⏎", " ")
    rep = Report(window={"start": "a", "end": "b"}, by="pod", definitions=[],
                 offenders=[{"kind": "device", "name": HOSTILE, "cases": 2}])
    text = to_csv(rep)
    assert raw_controls(text) == [] and SHOWN in text
    assert read_csv(text)["offenders"] == [{"kind": "device", "name": SHOWN, "cases": "2"}]

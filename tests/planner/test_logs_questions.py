"""Questions over loaded logs (issue 24 item 6): a syslog server's files for one day, loaded with
`netopsai ingest --file`, then asked through Copilot (offline planner, no LLM) "what happened to
HOST PORT on DATE", "which ports flapped on HOST yesterday", "any optics warnings on HOST this
week" — for a host the file spells fully qualified (core-rtr.example.net; the inventory says
"core-rtr"; issue 24's capture says host.example.net), one it names by address (10.100.0.32, a
device's management address) and one the inventory does not know (host.site). Each answer
must name the labelled event at the device's time, with the window stated in the network's
zone (ingest.timezone: Australia/Sydney).

The labelled lines are real, as issue 24 quotes them from a third party's capture (the IOS line
with two sequence numbers; NX-OS's `<189>10.100.0.32: 2023 Apr 27 09:38:56 UTC: ...IF_ADMIN_UP`)
and from bench/real_logs (arista_eos-0001, cisco_nxos-0003's message), inside the prefix a
syslog server writes (its own stamp, then the sender). The lines around them (the same message
forms with the other state, a minute apart) are derived, so that a port flaps."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.registry import configured_backends
from netopsai.config.load import load_netconfig
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.store.inventory import StoreInventory
from tests.cli_helpers import run_cli
from tests.paths import REPO

CORPUS = REPO / "bench" / "real_logs"
CONFIG = "ingest:\n  timezone: Australia/Sydney\n  domains: [example.net]\n"


def corpus_line(rid: str) -> str:
    for path in CORPUS.glob("*.jsonl"):
        for text in path.read_text().splitlines():
            row = json.loads(text)
            if row["id"] == rid:
                return str(row["line"])
    raise KeyError(rid)


IOS = "<189>{seq}: {seq2:06d}: Aug 22 {t}: %LINEPROTO-5-UPDOWN: Line protocol on Interface " \
      "GigabitEthernet0/1, changed state to {state}"
# core-rtr.example.net, 2023-08-22; its clock names no zone, so it is read in ingest.timezone (AEST):
# the labelled line (issue 24's "<189>53: 000052: Aug 22 06:38:10.672: ...down") is at 06:38:10.672
# AEST, 2023-08-21 20:38:10.672 UTC. Before it, the line of the same device with its
# unsynchronised boot clock (`*Jan  2 00:00:43.167`), kept at the server's time.
FQDN_DAY = [
    "Aug 22 05:11:06 core-rtr.example.net <189>2: *Jan  2 00:00:43.167: %LINEPROTO-5-UPDOWN: Line "
    "protocol on Interface GigabitEthernet0/1, changed state to up",
    "Aug 22 06:38:11 core-rtr.example.net " + IOS.format(seq=53, seq2=52, t="06:38:10.672", state="down"),
    "Aug 22 06:38:15 core-rtr.example.net " + IOS.format(seq=54, seq2=53, t="06:38:14.102", state="up"),
    "Aug 22 06:39:03 core-rtr.example.net " + IOS.format(seq=55, seq2=54, t="06:39:02.500", state="down"),
    "Aug 22 06:39:06 core-rtr.example.net " + IOS.format(seq=56, seq2=55, t="06:39:05.900", state="up"),
    "Aug 22 06:40:01 core-rtr.example.net <189>57: 000056: Aug 22 06:40:00.100: %SFF8472-5-"
    "THRESHOLD_VIOLATION: Gi0/1: Rx power low alarm; Operating value: -40.0 dBm, Threshold value: "
    "-20.0 dBm.",
]
NX = "Apr 27 {t1} 10.100.0.32 <189>10.100.0.32: 2023 Apr 27 {t0} UTC: %ETHPORT-5-{what}"
# 10.100.0.32 (nexus-33's management address), 2023-04-27, its clock in UTC as it says: the
# labelled line (issue 24) is the admin up at 09:38:56 UTC, 19:38:56 AEST
ADDR_DAY = [
    NX.format(t1="09:38:41", t0="09:38:40", what="IF_DOWN_ADMIN_DOWN: Interface Ethernet1/33 is down "
              "(Administratively down)"),
    NX.format(t1="09:38:57", t0="09:38:56", what="IF_ADMIN_UP: Interface Ethernet1/33 is admin up ."),
    NX.format(t1="09:39:02", t0="09:39:01", what="IF_UP: Interface Ethernet1/33 is up in mode access"),
    NX.format(t1="09:40:11", t0="09:40:10", what="IF_DOWN_LINK_FAILURE: Interface Ethernet1/33 is "
              "down (Link failure)"),
    NX.format(t1="09:40:13", t0="09:40:12", what="IF_UP: Interface Ethernet1/33 is up in mode access"),
    "Apr 27 09:41:11 10.100.0.32 <188>10.100.0.32: 2023 Apr 27 09:41:10 UTC: "
    + corpus_line("cisco_nxos-0003").split("UTC: ", 1)[1],  # High Rx Power Warning, Ethernet1/35
]
EOS = "Apr 19 {t} host.site Ebra: %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet12 " \
      "(abc123), changed state to {state}"
# host.site, not in the inventory, 2018-04-19: the labelled line is arista_eos-0001, Ethernet12 up
# at 15:11:18 (AEST, the network's zone: 05:11:18 UTC)
UNKNOWN_DAY = [
    EOS.format(t="15:09:40", state="down"), EOS.format(t="15:09:44", state="up"),
    EOS.format(t="15:10:02", state="down"),
    "Apr 19 15:10:02 host.site Xcvr: %TRANSCEIVER-3-RX_LOS: Interface Ethernet12, receiver loss "
    "of signal detected",
    corpus_line("arista_eos-0001"),
]

# 192.0.2.99, not in the inventory and naming no host in its datagrams (cisco_nxos-0003, then
# -0002, as sent: "<188>: 2021 Sep 10 ..."): the server's host column, its address, names it
UNKNOWN_ADDR_DAY = [f"Sep 10 {t} 192.0.2.99 {corpus_line(rid)}"
                    for t, rid in (("09:16:11", "cisco_nxos-0003"), ("09:21:11", "cisco_nxos-0002"))]


class _At(StoreInventory):
    """The store's inventory at a fixed 'now' (a real network's clock is the wall clock)."""

    def __init__(self, engine: Engine, now: datetime) -> None:
        super().__init__(engine)
        self.now = now

    def clock(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real network's store (two devices) and the server's three days of files, loaded."""
    home = tmp_path_factory.mktemp("logsq") / "home"
    home.mkdir()
    (home / "config.yaml").write_text(CONFIG)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Meta(key="network", value="real"))
        for name, ip, ports in [("core-rtr", "192.0.2.11", ["GigabitEthernet0/1"]),
                                ("nexus-33", "10.100.0.32", ["Ethernet1/33", "Ethernet1/35"])]:
            s.add(m.Device(name=name, role="leaf", site="syd1", mgmt_ip=ip, vendor="cisco"))
            s.add_all(m.Interface(device=name, name=p) for p in ports)
        s.commit()
    remote = home / "remote"
    remote.mkdir()
    for name, lines, written in [("core-rtr.example.net.log", FQDN_DAY, "2023-08-23"),
                                 ("10.100.0.32.log", ADDR_DAY, "2023-04-28"),
                                 ("host.site.log", UNKNOWN_DAY, "2018-04-20"),
                                 ("192.0.2.99.log", UNKNOWN_ADDR_DAY, "2021-09-11")]:
        path = remote / name
        path.write_text("\n".join(lines) + "\n")
        stamp = datetime.fromisoformat(written).replace(tzinfo=UTC).timestamp()
        os.utime(path, (stamp, stamp))  # the year of year-less stamps comes from the file
    files = [arg for path in sorted(remote.iterdir()) for arg in ("--file", str(path))]
    done = run_cli(home, "ingest", *files)
    assert done.returncode == 0, done.stderr
    return home


def ask(home: Path, question: str, now: datetime) -> dict[str, Any]:
    os.environ["NETOPSAI_HOME"] = str(home)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    backends = configured_backends(engine, load_netconfig(home))
    r = Copilot(replace(backends, inventory=_At(engine, now))).answer(question, "t")
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    return r


def window_first(r: dict[str, Any], window: str) -> None:
    """The answer opens with how it read the host (when it did), then the window it read, in
    the network's zone."""
    paragraphs = r["answer"].split("\n\n")
    lead = paragraphs[1] if paragraphs[0].startswith("_Read ") else paragraphs[0]
    # named as Sydney's clocks showed it (every window here is in its winter: AEST, UTC+10)
    assert lead.startswith(f"_Window: {window} AEST"), r["answer"][:300]


def rows(r: dict[str, Any], tool: str) -> list[dict[str, Any]]:
    return [row for e in r["evidence"] if e["tool"] == tool and not e.get("errors")
            for row in e["rows"]]


# the mornings after each day, in Sydney
AFTER_FQDN = datetime(2023, 8, 22, 23, 30, tzinfo=UTC)  # 2023-08-23 09:30 AEST
AFTER_ADDR = datetime(2023, 4, 27, 23, 30, tzinfo=UTC)  # 2023-04-28 09:30 AEST
AFTER_UNKNOWN = datetime(2018, 4, 19, 23, 30, tzinfo=UTC)  # 2018-04-20 09:30 AEST
AFTER_UNKNOWN_ADDR = datetime(2021, 9, 10, 23, 30, tzinfo=UTC)  # 2021-09-11 09:30 AEST


def test_what_happened_to_an_fqdn_hosts_port(home: Path) -> None:
    r = ask(home, "what happened to core-rtr.example.net Gi0/1 on 22 August?", AFTER_FQDN)
    window_first(r, "2023-08-22 00:00–24:00")
    assert "Read 'core-rtr.example.net' as core-rtr" in r["answer"]
    timeline = rows(r, "coder")
    # the labelled line, at the device's time (06:38:10.672 AEST), first of the port's day
    # after the boot-clock line kept at the server's 05:11:06
    said = [row["at"] for row in timeline if "changed state to down" in row["what"]]
    assert said[0] == "2023-08-21T20:38:10.672Z"
    assert "2023-08-21T20:38:10.672Z" in r["answer"] or "20:38:10" in r["answer"]


def test_which_ports_flapped_on_an_fqdn_host_yesterday(home: Path) -> None:
    r = ask(home, "which ports flapped on core-rtr.example.net yesterday?", AFTER_FQDN)
    window_first(r, "2023-08-22 00:00–24:00")
    [asked] = [e["args"] for e in r["evidence"] if e["tool"] == "telemetry"]
    assert asked["devices"] == ["core-rtr"]  # that device's ports, not every switch's
    flaps = rows(r, "telemetry")
    assert [(x["device"], x["interface"], x["flaps"]) for x in flaps if x["flaps"]] == [
        ("core-rtr", "GigabitEthernet0/1", 2)]
    assert flaps[0]["events"].startswith("2023-08-21 20:38:10 down")  # device time, in UTC
    assert "core-rtr GigabitEthernet0/1 (2x)" in r["answer"]


def test_optics_warnings_on_an_fqdn_host_this_week(home: Path) -> None:
    r = ask(home, "any optics warnings on core-rtr.example.net this week?", AFTER_FQDN)
    window_first(r, "2023-08-21 00:00 – 2023-08-23 09:30")
    alarms = rows(r, "alarms")
    assert [(a["device"], a["interface"], a["kind"]) for a in alarms] == [
        ("core-rtr", "GigabitEthernet0/1", "OPTICS_RX_LOW")]
    assert str(alarms[0]["raised_at"]).startswith("2023-08-21T20:40:00")  # 06:40:00 AEST
    assert "OPTICS_RX_LOW on core-rtr GigabitEthernet0/1" in r["answer"]


def test_what_happened_to_an_address_hosts_port(home: Path) -> None:
    r = ask(home, "what happened to 10.100.0.32 Ethernet1/33 on 27 April 2023?", AFTER_ADDR)
    window_first(r, "2023-04-27 00:00–24:00")
    assert "Read '10.100.0.32' as nexus-33" in r["answer"]
    events = rows(r, "events")
    labelled = [e for e in events if "IF_ADMIN_UP" in e["message"]]
    assert [(e["device"], e["at"]) for e in labelled] == [("nexus-33", "2023-04-27T09:38:56Z")]
    assert "nexus-33 Ethernet1/33" in r["answer"]


def test_which_ports_flapped_on_an_address_host_yesterday(home: Path) -> None:
    r = ask(home, "which ports flapped on 10.100.0.32 yesterday?", AFTER_ADDR)
    window_first(r, "2023-04-27 00:00–24:00")
    flapped = [x for x in rows(r, "telemetry") if x["flaps"]]
    assert [(x["device"], x["interface"]) for x in flapped] == [("nexus-33", "Ethernet1/33")]
    # shut at 09:38:40 UTC, then the labelled admin up at 09:38:56, the port up at 09:39:01
    assert flapped[0]["events"].startswith("2023-04-27 09:38:40 down; 2023-04-27 09:39:01 up")
    assert "nexus-33 Ethernet1/33" in r["answer"].split("\n\n")[2]  # the line after the window's


def test_optics_warnings_on_an_address_host_this_week(home: Path) -> None:
    r = ask(home, "any optics warnings on 10.100.0.32 this week?", AFTER_ADDR)
    alarms = rows(r, "alarms")
    assert [(a["device"], a["interface"], a["kind"]) for a in alarms] == [
        ("nexus-33", "Ethernet1/35", "OPTICS_RX_HIGH")]
    assert str(alarms[0]["raised_at"]).startswith("2023-04-27T09:41:10")
    assert "OPTICS_RX_HIGH on nexus-33 Ethernet1/35" in r["answer"]


def test_what_happened_to_an_unknown_hosts_port(home: Path) -> None:
    r = ask(home, "what happened to host.site Ethernet12 on 19 April 2018?", AFTER_UNKNOWN)
    window_first(r, "2018-04-19 00:00–24:00")
    assert "host.site is not in the inventory; seen in 5 log lines from" in r["answer"]
    timeline = rows(r, "coder")
    labelled = [x for x in timeline if "(abc123), changed state to up" in x["what"]]
    assert [x["at"] for x in labelled][-1] == "2018-04-19T05:11:18.000Z"  # 15:11:18 AEST
    assert not any(e.get("errors") for e in r["evidence"])  # no counters or links asked for


def test_which_ports_flapped_on_an_unknown_host_yesterday(home: Path) -> None:
    r = ask(home, "which ports flapped on host.site yesterday?", AFTER_UNKNOWN)
    window_first(r, "2018-04-19 00:00–24:00")
    lead = r["answer"].split("\n\n")[1]  # the line after the window's names the port
    assert lead.startswith("5 events for host.site in the window, by port: Ethernet12 (LINK_DOWN x")
    events = rows(r, "events")
    assert events[-1]["at"] == "2018-04-19T05:11:18Z" and "abc123" in events[-1]["message"]
    assert "not in the inventory; seen in 5 log lines" in r["answer"]


def test_optics_warnings_on_an_unknown_host_this_week(home: Path) -> None:
    r = ask(home, "any optics warnings on host.site this week?", AFTER_UNKNOWN)
    alarms = rows(r, "alarms")
    assert [(a["device"], a["interface"], a["kind"]) for a in alarms] == [
        ("host.site", "Ethernet12", "OPTICS_LOS")]
    assert str(alarms[0]["raised_at"]).startswith("2018-04-19T05:10:02")
    assert "OPTICS_LOS on host.site Ethernet12" in r["answer"]
    assert "host.site is not in the inventory" in r["answer"]


@pytest.mark.parametrize("question", ["what is wrong with host.site?",
                                      "what happened to host.site?", "show me the logs of host.site"])
def test_any_question_about_an_unknown_host_reads_its_lines_and_alarms(home: Path,
                                                                       question: str) -> None:
    """Asked without a window the morning after: the window ends at its latest line (a day
    before), and a device without ports or links in the inventory is never called healthy over
    its open alarm: its alarms and lines answer."""
    r = ask(home, question, AFTER_UNKNOWN)
    assert "healthy" not in r["answer"] and not any(e.get("errors") for e in r["evidence"])
    assert [a["kind"] for a in rows(r, "alarms") if a["state"] == "open"] == ["OPTICS_LOS"]
    assert rows(r, "events")[-1]["at"] == "2018-04-19T05:11:18Z"
    assert "host.site is not in the inventory; seen in 5 log lines" in r["answer"]


def test_optics_warnings_on_an_unknown_address_host(home: Path) -> None:
    """A device the inventory does not know, named only by the address it logged from."""
    r = ask(home, "any optics warnings on 192.0.2.99 this week?", AFTER_UNKNOWN_ADDR)
    window_first(r, "2021-09-06 00:00 – 2021-09-11 09:30")
    [alarm] = rows(r, "alarms")
    assert (alarm["device"], alarm["interface"], alarm["kind"]) == ("192.0.2.99", "Ethernet1/35",
                                                                    "OPTICS_RX_HIGH")
    assert (alarm["raised_at"], alarm["cleared_at"]) == ("2021-09-10T09:16:10Z",
                                                         "2021-09-10T09:21:10Z")
    assert "192.0.2.99 is not in the inventory; seen in 2 log lines from" in r["answer"]

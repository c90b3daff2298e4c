"""The three questions of issue 24 item 6 — "what happened to HOST PORT on DATE", "which ports
flapped on HOST yesterday", "any optics warnings on HOST this week" — for each kind of host a
header names: a fully qualified name (the inventory says the short one), an address (a device's
management address) and a host the inventory does not know (a provisional device), asked
through Copilot (offline planner) over a syslog server's files loaded with `netopsai ingest
--file`. Each answer must come from the events on the device's time (checked against the
corpus' own labels) and state its window in the network's zone (ingest.timezone:
Europe/Berlin; the devices' clocks are UTC, as their sources assume: ingest.timezones).

Every line is from bench/real_logs, byte for byte, with its source in the corpus:
- es-tf-sw-224.vceaa.votorantim.grupo: cisco_ios-0202..0215, a Catalyst's GigabitEthernet0/2
  bouncing on 2023-08-22 (a syslog server's file). It logged no optics line: the optics
  question there must say none, from that device's optics alarms.
- 192.0.2.20 (edge-20's management address): the corpus' rsyslog-file variants of real lines
  (cisco_ios-d0084/-d0086/-d0088, bsd_kernel-d0032..-d0074: igb1 and igb2 flapping).
- 192.0.2.32 (nexus-35's): cisco_nxos-0003 and -0002, real NX-OS datagrams naming no host, in
  the corpus' own rsyslog-file wrapping (receive time, sender, the datagram as sent).
- HHHHHHHH (a published log whose contributor masked the host name so), cisco_ios-0312..0332,
  and xcp-ng-mfshjjxr, linux_nic-0636..0644 (eth1 flapping): neither is in the inventory, and
  neither name has a digit or a dot.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from tests.cli_helpers import run_cli
from tests.paths import REPO
from tests.planner.test_logs_questions import ask, rows

CORPUS = REPO / "bench" / "real_logs"
ZONE = "Europe/Berlin"
CONFIG = (f"ingest:\n  timezone: {ZONE}\n  timezones:\n    'es-tf-sw-224*': UTC\n"
          "    '192.0.2.20': UTC\n    'xcp-ng-*': UTC\n")


@cache
def _corpus() -> dict[str, dict[str, Any]]:
    return {row["id"]: row for path in sorted(CORPUS.glob("*.jsonl"))
            for row in map(json.loads, path.read_text().splitlines())}


def corpus_lines(ids: list[str]) -> list[str]:
    """The corpus' lines by id, byte for byte; each must name where it was published."""
    found = [_corpus()[i] for i in ids]
    assert all(r["source"].get("repo") or r["source"].get("url") for r in found)
    return [str(r["line"]) for r in found]


def labelled(rid: str) -> datetime:
    """The device time the corpus labels a line with (UTC)."""
    return at(_corpus()[rid]["expect"]["time_utc"])


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def ids(family: str, numbers: range | tuple[int, ...]) -> list[str]:
    return [f"{family}-{n:04d}" for n in numbers]


FQDN = ids("cisco_ios", range(202, 216))
ADDR = [f"cisco_ios-d{n:04d}" for n in (84, 86, 88)] + [f"bsd_kernel-d{n:04d}" for n in range(32, 75, 2)]
NXOS = ["cisco_nxos-0003", "cisco_nxos-0002"]
MASKED = ids("cisco_ios", range(312, 333))
XCP = ids("linux_nic", range(636, 645))
# (file, lines, the file's time: the year of year-less stamps)
FILES = [("es-tf-sw-224.vceaa.votorantim.grupo.log", corpus_lines(FQDN), "2023-08-23"),
         ("192.0.2.20.log", corpus_lines(ADDR), "2020-07-22"),
         ("192.0.2.32.log", [f"Sep 10 {labelled(r):%H:%M:%S} 192.0.2.32 {line}"
                             for r, line in zip(NXOS, corpus_lines(NXOS), strict=True)], "2021-09-11"),
         ("HHHHHHHH.log", corpus_lines(MASKED), "2014-01-10"),
         ("xcp-ng-mfshjjxr.log", corpus_lines(XCP), "2023-11-07")]
INVENTORY = [("es-tf-sw-224", "192.0.2.224", ["GigabitEthernet0/1", "GigabitEthernet0/2"]),
             ("edge-20", "192.0.2.20", ["igb1", "igb2", "GigabitEthernet2/0/3"]),
             ("nexus-35", "192.0.2.32", ["Ethernet1/35"])]


@pytest.fixture(scope="module")
def real_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real network's store (three devices) and the server's files, loaded."""
    home = tmp_path_factory.mktemp("reallogs") / "home"
    home.mkdir()
    (home / "config.yaml").write_text(CONFIG)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Meta(key="network", value="real"))
        for name, ip, ports in INVENTORY:
            s.add(m.Device(name=name, role="leaf", site="fra1", mgmt_ip=ip, vendor="cisco"))
            s.add_all(m.Interface(device=name, name=p) for p in ports)
        s.commit()
    remote = home / "remote"
    remote.mkdir()
    for name, lines, written in FILES:
        path = remote / name
        path.write_text("\n".join(lines) + "\n")
        stamp = datetime.fromisoformat(written).replace(tzinfo=UTC).timestamp()
        os.utime(path, (stamp, stamp))
    done = run_cli(home, "ingest", *[a for p in sorted(remote.iterdir()) for a in ("--file", str(p))])
    assert done.returncode == 0, done.stderr
    return home


def window_first(r: dict[str, Any], window: str, named: str = "CEST") -> None:
    """After how it read the host (when it did), the answer states its window in the zone, as
    Berlin's clocks showed it then (`named`: CEST in summer, CET in winter)."""
    paragraphs = r["answer"].split("\n\n")
    lead = paragraphs[1] if paragraphs[0].startswith("_Read ") else paragraphs[0]
    assert lead.startswith(f"_Window: {window} {named}"), r["answer"][:300]


def morning_after(day: str) -> datetime:
    """09:30 in Berlin on the day after `day` (the files' days are all in summer or winter
    time as written here: the offset is the zone's own)."""
    from zoneinfo import ZoneInfo

    d = datetime.fromisoformat(day).replace(hour=9, minute=30, tzinfo=ZoneInfo(ZONE))
    return d.astimezone(UTC)


# --- a fully qualified host name -------------------------------------------------------------

def test_what_happened_to_an_fqdn_hosts_port(real_home: Path) -> None:
    r = ask(real_home, "what happened to es-tf-sw-224.vceaa.votorantim.grupo Gi0/2 on 22 August "
            "2023?", morning_after("2023-08-23"))
    window_first(r, "2023-08-22 00:00–24:00")
    assert "Read 'es-tf-sw-224.vceaa.votorantim.grupo' as es-tf-sw-224" in r["answer"]
    lines = [x for x in rows(r, "coder") if x["what"].startswith("%")]
    assert [at(x["at"]) for x in lines] == [labelled(i) for i in FQDN]  # each on its own stamp
    assert "%LINEPROTO-5-UPDOWN" in r["answer"] and "es-tf-sw-224 Gi0/2" in r["answer"]


def test_which_ports_flapped_on_an_fqdn_host_yesterday(real_home: Path) -> None:
    r = ask(real_home, "which ports flapped on es-tf-sw-224.vceaa.votorantim.grupo yesterday?",
            morning_after("2023-08-23"))
    window_first(r, "2023-08-22 00:00–24:00")
    flapped = [(x["device"], x["interface"], x["flaps"]) for x in rows(r, "telemetry") if x["flaps"]]
    assert flapped == [("es-tf-sw-224", "GigabitEthernet0/2", 4)]
    first_down = labelled("cisco_ios-0204")  # LINEPROTO down, 06:38:01.881 on the device
    assert rows(r, "telemetry")[0]["events"].startswith(f"{first_down:%Y-%m-%d %H:%M:%S} down")
    assert "es-tf-sw-224 GigabitEthernet0/2 (4x)" in r["answer"]


def test_optics_warnings_on_an_fqdn_host_this_week_are_none(real_home: Path) -> None:
    """It logged no optics line: the answer reads that device's optics alarms and says none."""
    r = ask(real_home, "any optics warnings on es-tf-sw-224.vceaa.votorantim.grupo this week?",
            morning_after("2023-08-23"))
    window_first(r, "2023-08-21 00:00 – 2023-08-23 09:30")
    [call] = [e["args"] for e in r["evidence"] if e["tool"] == "alarms"]
    assert (call["devices"], call["category"]) == (["es-tf-sw-224"], "optics")
    assert rows(r, "alarms") == [] and "0 optics alarms in the window" in r["answer"]


# --- an address host -------------------------------------------------------------------------

def test_what_happened_to_an_address_hosts_port(real_home: Path) -> None:
    r = ask(real_home, "what happened to 192.0.2.20 Gi2/0/3 on 19 June 2020?",
            morning_after("2020-06-20"))
    window_first(r, "2020-06-19 00:00–24:00")
    assert "Read '192.0.2.20' as edge-20" in r["answer"]
    events = rows(r, "events")
    assert {e["device"] for e in events} == {"edge-20"}
    assert [at(e["at"]) for e in events] == [labelled(i) for i in ADDR[:3]]
    assert "edge-20 Gi2/0/3" in r["answer"]


def test_which_ports_flapped_on_an_address_host_yesterday(real_home: Path) -> None:
    r = ask(real_home, "which ports flapped on 192.0.2.20 yesterday?", morning_after("2020-07-22"))
    window_first(r, "2020-07-21 00:00–24:00")
    flapped = {x["interface"]: x for x in rows(r, "telemetry") if x["flaps"]}
    assert set(flapped) == {"igb1", "igb2"} and {x["device"] for x in flapped.values()} == {"edge-20"}
    # igb2's first down of the day (bsd_kernel-d0052, 07:56:46 on the device)
    assert flapped["igb2"]["events"].startswith(f"{labelled('bsd_kernel-d0052'):%Y-%m-%d %H:%M:%S} down")
    assert "edge-20 igb1" in r["answer"] and "edge-20 igb2" in r["answer"]


def test_optics_warnings_on_an_address_host_this_week(real_home: Path) -> None:
    r = ask(real_home, "any optics warnings on 192.0.2.32 this week?", morning_after("2021-09-11"))
    window_first(r, "2021-09-06 00:00 – 2021-09-11 09:30")
    assert "Read '192.0.2.32' as nexus-35" in r["answer"]
    [alarm] = rows(r, "alarms")
    assert (alarm["device"], alarm["interface"], alarm["kind"]) == ("nexus-35", "Ethernet1/35",
                                                                    "OPTICS_RX_HIGH")
    assert (at(alarm["raised_at"]), at(alarm["cleared_at"])) == (labelled(NXOS[0]), labelled(NXOS[1]))
    assert "1 optics alarm in the window" in r["answer"]
    assert "| OPTICS_RX_HIGH | nexus-35 | Ethernet1/35 |" in r["answer"]  # its row, shown


# --- hosts the inventory does not know -------------------------------------------------------

def test_what_happened_to_an_unknown_hosts_port(real_home: Path) -> None:
    r = ask(real_home, "what happened to HHHHHHHH Gi0/9 on 9 January 2014?",
            morning_after("2014-01-10"))
    window_first(r, "2014-01-09 00:00–24:00", "CET")
    assert "HHHHHHHH is not in the inventory; seen in 21 log lines from" in r["answer"]
    [line] = rows(r, "events")
    assert at(line["at"]) == labelled("cisco_ios-0317")  # 20:36:00.212 CET on the device
    assert "Rx power low warning" in line["message"]
    assert not any(e.get("errors") for e in r["evidence"])  # no counters or links asked for


def test_which_ports_flapped_on_an_unknown_host_yesterday(real_home: Path) -> None:
    r = ask(real_home, "which ports flapped on xcp-ng-mfshjjxr yesterday?",
            morning_after("2023-11-07"))
    window_first(r, "2023-11-06 00:00–24:00", "CET")
    assert "xcp-ng-mfshjjxr is not in the inventory; seen in 9 log lines from" in r["answer"]
    events = rows(r, "events")
    assert [at(e["at"]) for e in events] == [labelled(i) for i in XCP]
    assert "LINK_FLAP" in {a["kind"] for a in rows(r, "alarms")}
    assert r["answer"].split("\n\n")[1].startswith("9 events for xcp-ng-mfshjjxr in the window, "
                                                    "by port:")


def test_optics_warnings_on_an_unknown_host_this_week(real_home: Path) -> None:
    r = ask(real_home, "any optics warnings on HHHHHHHH this week?", morning_after("2014-01-10"))
    window_first(r, "2014-01-06 00:00 – 2014-01-10 09:30", "CET")
    [alarm] = rows(r, "alarms")
    assert (alarm["device"], alarm["interface"], alarm["kind"]) == ("HHHHHHHH",
                                                                    "GigabitEthernet0/9",
                                                                    "OPTICS_RX_LOW")
    assert at(alarm["raised_at"]) == labelled("cisco_ios-0317").replace(microsecond=0)
    assert "OPTICS_RX_LOW on HHHHHHHH GigabitEthernet0/9" in r["answer"]
    assert "HHHHHHHH is not in the inventory" in r["answer"]

"""The reliability report over a day whose every event this test put there: the small lab with its
background noise removed, one device outage through the lab's own fault injection (open at the
clock), and alarms, acknowledgements, a change and a flap storm inserted at known times (built
with the lab's own row builders). Every figure asserted is worked out by hand below."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete
from sqlmodel import Session, col, select

from netopsai.config.network import ReliabilitySettings
from netopsai.lab.events import alarm, link_down_alarms, transitions
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab
from netopsai.lab.scenario import Scenario
from netopsai.reliability.digest import digest_blocks, digest_text
from netopsai.reliability.export import as_text_rows, read_csv, to_csv, to_json
from netopsai.reliability.model import TABLES, percentile
from netopsai.reliability.run import reliability_report
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai_testkit.fake_slack_api import FakeSlackAPI
from tests.cli_helpers import run_cli
from tests.paths import REPO

T = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)  # the lab's clock
OUTAGE = "dc2-leaf-17"  # dc2-pod2, down at T-30m (lab fault), still down at T
REPEAT = "dc1-leaf-05"  # dc1-pod1: an outage T-10h..T-9h and high CPU T-20h..T-19h
OPTIC = ("dc1-leaf-25", "Ethernet1")  # dc1-pod2: Rx low twice, minor


def _clear_history(s: Session) -> None:
    """Only the fault's own rows stay: everything raised or changed at its start."""
    t0 = T - timedelta(minutes=30)
    s.exec(delete(m.Alarm).where(col(m.Alarm.raised_at) != t0))
    s.exec(delete(m.InterfaceEvent).where(col(m.InterfaceEvent.at) != t0))
    s.exec(delete(m.Change))
    s.exec(delete(m.AlarmAck))


def _add(s: Session, row: dict[str, Any]) -> int:
    a = m.Alarm(**row)
    s.add(a)
    s.flush()
    return int(a.id or 0)


def _history(s: Session) -> None:
    h = lambda hours: T - timedelta(hours=hours)  # noqa: E731
    outage = _add(s, alarm("DEVICE_UNREACHABLE", "device", REPEAT, "dc1", h(10), "unreachable",
                           cleared=h(9), severity="critical"))  # 60 bad minutes in dc1-pod1
    s.add(m.AlarmAck(alarm_id=outage, action="ack", by="slee", at=h(10) + timedelta(minutes=10)))
    s.add(m.Change(ticket="CHG-1", device=REPEAT, site="dc1", start=h(9.5), end=h(9.5) + timedelta(
        minutes=20), summary="replace supervisor"))  # mitigated 50 minutes in
    _add(s, alarm("HIGH_CPU", "device", REPEAT, "dc1", h(20), "cpu", cleared=h(19), severity="minor"))
    host = s.exec(select(m.Link).where(m.Link.kind == "host", m.Link.b_device == "dc1-leaf-20")).first()
    assert host is not None
    first = [_add(s, row) for row in link_down_alarms(  # 30 bad minutes in dc1-pod2 (traffic lost)
        host.model_dump(), {"dc1-leaf-20": "dc1", host.a_device: "dc1"}, h(5), cleared=h(4.5),
        impact="traffic_lost")][0]
    s.add(m.AlarmAck(alarm_id=first, action="silence", by="jchen", at=h(5) + timedelta(minutes=20),
                     until=h(3)))
    for start, minutes in ((h(15), 10), (h(12), 20)):  # minor: not bad; two cases on one optic
        _add(s, alarm("OPTICS_RX_LOW", "optics", OPTIC[0], "dc1", start, "rx low", interface=OPTIC[1],
                      cleared=start + timedelta(minutes=minutes), severity="minor"))
    fabric = s.exec(select(m.Link).where(m.Link.kind == "fabric", m.Link.a_device == "dc2-leaf-03")).first()
    assert fabric is not None
    for sec, state in ((0, "down"), (30, "up"), (60, "down"), (90, "up")):  # 4 changes in 90 s
        s.add_all(m.InterfaceEvent(**e) for e in transitions(
            fabric.model_dump(), h(3) + timedelta(seconds=sec), state, "flap"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Engine]:
    home = tmp_path_factory.mktemp("reliability-home")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, T)
    inject(engine, Scenario.model_validate({
        "id": "reliability", "now": T, "question": "",
        "faults": [{"kind": "device_down", "at": "-30m", "target": {"device": OUTAGE}}]}))
    with Session(engine) as s:
        _clear_history(s)
        _history(s)
        s.commit()
    return home, engine


def _outage_alarms(engine: Engine) -> int:
    with Session(engine) as s:
        return len(s.exec(select(m.Alarm.id).where(m.Alarm.raised_at == T - timedelta(minutes=30))).all())


def test_bad_minutes_per_scope(store: tuple[Path, Engine]) -> None:
    _, engine = store
    pods = {r["scope"]: r for r in reliability_report(engine, "1d", "pod").scopes}
    assert pods["dc1-pod1"]["bad_minutes"] == 60  # the critical outage
    assert pods["dc1-pod2"]["bad_minutes"] == 30  # the host link losing traffic (the optic is minor)
    assert (pods["dc2-pod1"]["bad_minutes"], pods["dc2-pod1"]["flap_minutes"]) == (2, 2)  # 90 s storm
    assert pods["dc2-pod2"]["bad_minutes"] == 30  # open from T-30m to the window's end
    assert pods["dc2-pod2"]["bad_percent"] == round(100 * 30 / 1440, 3)
    sites = {r["scope"]: r["bad_minutes"] for r in reliability_report(engine, "1d", "site").scopes}
    assert sites == {"dc1": 90, "dc2": 32}
    zones = {r["scope"]: r["bad_minutes"] for r in reliability_report(engine, "1d", "zone").scopes}
    assert zones == {"us-east": 90, "us-central": 32}


def test_stricter_config_counts_less(store: tuple[Path, Engine]) -> None:
    """Only critical cases, and a storm needs 5 changes: the host link and the storm drop out."""
    cfg = ReliabilitySettings(impacts=[], flap_transitions=5)
    sites = {r["scope"]: r["bad_minutes"] for r in reliability_report(store[1], "1d", "site", cfg).scopes}
    assert sites == {"dc1": 60, "dc2": 30}


def test_offenders(store: tuple[Path, Engine]) -> None:
    rep = reliability_report(store[1], "1d", "pod")
    found = {(r["kind"], r["name"]): r for r in rep.offenders}
    assert set(found) == {("device", REPEAT), ("device", OPTIC[0]), ("optics", ":".join(OPTIC))}
    assert found[("device", REPEAT)]["cases"] == 2
    assert "DEVICE_UNREACHABLE" in found[("device", REPEAT)]["case_list"]
    assert "HIGH_CPU" in found[("device", REPEAT)]["case_list"]


def test_time_to_repair(store: tuple[Path, Engine]) -> None:
    rep = reliability_report(store[1], "1d", "pod")
    by_root = {(r["root_kind"], r["root_device"]): r for r in rep.cases}
    outage = by_root[("DEVICE_UNREACHABLE", REPEAT)]
    assert (outage["acknowledged_min"], outage["mitigated_min"], outage["closed_min"]) == (10, 50, 60)
    lost = next(r for r in rep.cases if r["category"] == "link")
    assert (lost["acknowledged_min"], lost["mitigated_min"], lost["closed_min"]) == (20, None, 30)
    open_ = by_root[("DEVICE_UNREACHABLE", OUTAGE)]
    assert open_["closed"] is None and open_["acknowledged"] is None
    ttr = {(r["category"], r["stage"]): r for r in rep.ttr}
    # closed: optics 10, 20; high CPU 60; outage 60; host link 30 -> sorted 10 20 30 60 60
    assert (ttr[("all", "closed")]["p50_min"], ttr[("all", "closed")]["p90_min"]) == (30, 60)
    assert (ttr[("all", "closed")]["cases"], ttr[("all", "closed")]["of"]) == (5, 6)
    assert (ttr[("all", "acknowledged")]["p50_min"], ttr[("all", "acknowledged")]["p90_min"]) == (10, 20)
    assert (ttr[("optics", "closed")]["p50_min"], ttr[("optics", "closed")]["p90_min"]) == (10, 20)
    assert (ttr[("device", "mitigated")]["cases"], ttr[("device", "mitigated")]["of"]) == (1, 3)


def test_noise(store: tuple[Path, Engine]) -> None:
    rep = reliability_report(store[1], "1d", "pod")
    alarms = 1 + 1 + 2 + 2 + _outage_alarms(store[1])
    assert rep.totals["alarms"] == alarms and rep.totals["cases"] == 6
    assert rep.totals["compression"] == round(alarms / 6, 2)
    assert sum(r["alarms"] for r in rep.noise) == alarms and sum(r["cases"] for r in rep.noise) == 6
    assert [r["day"] for r in rep.noise] == ["2026-03-09", "2026-03-10"]
    yesterday = rep.noise[0]  # before midnight: the high CPU (16:00) and the first optic (21:00)
    assert (yesterday["cases"], yesterday["alarms"], yesterday["alarms_per_case"]) == (2, 2, 1.0)


def test_percentile_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([7], 0.9) == 7
    assert [percentile(list(range(1, 11)), p) for p in (0.5, 0.9, 1.0)] == [5, 9, 10]


def test_exports_round_trip(store: tuple[Path, Engine]) -> None:
    rep = reliability_report(store[1], "1d", "site")
    assert json.loads(to_json(rep)) == json.loads(json.dumps(rep.as_dict(), default=str))
    tables = read_csv(to_csv(rep))
    assert set(tables) == {t for t in TABLES if rep.table(t)}
    for name in tables:
        assert tables[name] == as_text_rows(rep.table(name))
    assert "Bad minute" in " ".join(rep.definitions) and "batch probes" in " ".join(rep.definitions)


def test_cli_formats(store: tuple[Path, Engine], tmp_path: Path) -> None:
    home, engine = store
    done = run_cli(home, "report", "reliability", "--window", "1d", "--by", "site", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert {r["scope"]: r["bad_minutes"] for r in json.loads(done.stdout)["scopes"]} == {"dc1": 90, "dc2": 32}
    out = tmp_path / "r.csv"
    done = run_cli(home, "report", "reliability", "--window", "1d", "--format", "csv", "--out", str(out))
    assert done.returncode == 0 and done.stdout == ""
    assert read_csv(out.read_text())["scopes"] == as_text_rows(reliability_report(engine, "1d").scopes)
    done = run_cli(home, "report", "reliability", "--window", "1d", "--by", "zone")
    assert done.returncode == 0, done.stderr
    assert "us-east" in done.stdout and "definitions:" in done.stdout and "Bad minute" in done.stdout


@pytest.mark.parametrize(("args", "says"), [
    (["--by", "rack"], "unknown scope (--by) 'rack'"),
    (["--window", "30x"], "bad duration '30x'"),
    (["--format", "xml"], "unknown format 'xml'"),
    (["--slack"], "no digest channel"),
])
def test_cli_bad_input_is_one_line(store: tuple[Path, Engine], args: list[str], says: str) -> None:
    done = run_cli(store[0], "report", "reliability", *args)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and says in done.stderr
    assert "Traceback" not in done.stderr


def test_weekly_digest_posts_once(store: tuple[Path, Engine], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`--slack` posts the digest to the configured channel through Slack's Web API (a fake one
    on loopback), once."""
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(store[0] / "netopsai.db") as src, sqlite3.connect(home / "netopsai.db") as dst:
        src.backup(dst)  # the store is in WAL mode: a file copy could miss its latest rows
    (home / "config.yaml").write_text("reliability:\n  digest_channel: C-WEEKLY\n")
    fake = FakeSlackAPI().start()
    try:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
        monkeypatch.setenv("SLACK_API_URL", fake.api_url)
        done = run_cli(home, "report", "reliability", "--window", "1d", "--by", "site", "--slack")
        assert done.returncode == 0, done.stderr
        posts = fake.of("chat.postMessage")
    finally:
        fake.stop()
    done = run_cli(home, "report", "reliability", "--window", "1d", "--slack")  # Slack gone now
    assert done.returncode == 2 and done.stderr.startswith("error: cannot reach Slack at")
    assert len(posts) == 1 and posts[0]["channel"] == "C-WEEKLY"
    rep = reliability_report(store[1], "1d", "site")
    assert posts[0]["text"] == digest_text(rep) and "Bad minutes: dc1 90, dc2 32" in posts[0]["text"]
    assert posts[0]["blocks"] == digest_blocks(rep)  # sent as Block Kit JSON, whole
    shown = [b["text"]["text"] for b in posts[0]["blocks"] if b["type"] == "section"]
    assert "`dc1` *90* bad minutes" in shown[2] and "`dc2` *32* bad minutes" in shown[3]


def test_web_views(store: tuple[Path, Engine]) -> None:
    """The Reliability tab's frames: what its plots draw, with legends for every series."""
    from netopsai.ui.gradio.reliability import bucket, view

    v = view(reliability_report(store[1], "1d", "pod"))
    assert dict(zip(v.scopes["scope"], v.scopes["bad_minutes"], strict=True))["dc1-pod1"] == 60
    assert set(v.scopes["where"]) == {"dc1", "dc2"}
    assert (bucket(10), bucket(15), bucket(60), bucket(1440)) == ("< 15 min", "15–60 min", "1–4 h", "> 1 day")
    # closed in 10, 20 (optics), 30 (host link), 60, 60 (device)
    ttr = {(r.bucket, r.category): r.cases for r in v.ttr.itertuples()}
    assert ttr == {("< 15 min", "optics"): 1, ("15–60 min", "optics"): 1, ("15–60 min", "link"): 1,
                   ("1–4 h", "device"): 2}
    assert list(v.noise["alarms_per_case"]) == [r["alarms_per_case"] for r in
                                                 reliability_report(store[1], "1d", "pod").noise]
    scopes_map, ttr_map, noise_map = v.colours()
    assert set(scopes_map) == {"dc1", "dc2"} and set(ttr_map) == {"optics", "link", "device"}
    assert set(noise_map) == {"alarms per case"}


def test_web_noise_and_window_read_in_the_network_zone(store: tuple[Path, Engine]) -> None:
    """The six cases were first raised at 16:00, 21:00 (Mar 9), 00:00, 02:00, 07:00 (2 alarms)
    and 11:30 UTC (13 alarms, the outage). Tokyo (UTC+9) lives all of them on Mar 10; New York
    (UTC-4 since Mar 8) the first four on Mar 9. The report's own rows stay UTC (the exports);
    the repeat offenders' case lists read on the network's clock too."""
    from netopsai.ui.gradio.reliability import noise_frame, offenders_frame, summary

    rep = reliability_report(store[1], "1d", "pod")
    assert [r["alarms_per_case"] for r in rep.noise] == [1.0, 4.25]  # UTC: 2 cases, then 4

    def per_day(zone: str) -> dict[str, float]:
        frame = noise_frame(rep, zone)
        return {f"{t:%m-%d}": v for t, v in zip(frame["time"], frame["alarms_per_case"], strict=True)}
    tokyo = per_day("Asia/Tokyo")  # Mar 9 has no case in Tokyo: no data, a gap, not a zero
    assert math.isnan(tokyo.pop("03-09")) and tokyo == {"03-10": round(19 / 6, 2)}
    assert per_day("America/New_York") == {"03-09": 1.0, "03-10": 7.5}
    assert summary(rep, "America/New_York").startswith(
        "**2026-03-09 08:00 EDT (12:00Z) .. 2026-03-10 08:00 EDT (12:00Z)** by pod")
    ny = offenders_frame(rep, "America/New_York").set_index("name")["case_list"]
    assert ny[REPEAT] == ("C3 HIGH_CPU 2026-03-09 12:00 EDT (16:00Z); "
                          "C6 DEVICE_UNREACHABLE 2026-03-09 22:00 EDT (02:00Z)")  # zone named
    utc = offenders_frame(rep)["case_list"].tolist()  # UTC: the report's times, marked Z
    assert utc == [re.sub(r"(\d\d:\d\d)(;|$)", r"\1Z\2", r["case_list"]) for r in rep.offenders]


def test_the_default_view_shows_the_worst_place(store: tuple[Path, Engine]) -> None:
    """Per PoD while every bad case is in a PoD; a bad case on a border router (no PoD) makes
    the tab open per site, where it is counted (issue 26 item 6)."""
    from dataclasses import replace

    from netopsai.ui.gradio.reliability import default_scope, outside_pods

    rep = reliability_report(store[1], "1d", "pod")
    assert all(r["pods"] for r in rep.cases if r["bad"])  # this day's bad cases are all in PoDs
    assert (outside_pods(rep), default_scope(rep)) == (0, "pod")
    border = {**rep.cases[0], "case": "C99", "bad": True, "pods": "", "sites": "dc1"}
    moved = replace(rep, cases=[*rep.cases, border])
    assert (outside_pods(moved), default_scope(moved)) == (1, "site")
    quiet = {**border, "bad": False}  # a case that made no bad minute does not move the view
    assert default_scope(replace(rep, cases=[*rep.cases, quiet])) == "pod"


def test_the_plots_axes_have_titles_in_words() -> None:
    """No axis titled by its column name (bad_minutes, alarms_per_case, bucket)."""
    import gradio as gr

    from netopsai.ui.gradio.reliability_tab import _layout

    with gr.Blocks():
        ui = _layout("America/New_York")
    for key in ("scopes", "ttr", "noise"):
        plot = ui[key]
        for title, column in ((plot.x_title, plot.x), (plot.y_title, plot.y)):
            assert title and title != column and "_" not in title.split(" (")[0], (key, title)


def test_digest_timer_runs_the_command() -> None:
    """deploy/systemd: the weekly timer starts a oneshot that runs this command with --slack."""
    import shlex

    systemd = REPO / "deploy" / "systemd"
    service = (systemd / "netopsai-reliability-digest.service").read_text()
    [cmd] = [ln.split("=", 1)[1] for ln in service.splitlines() if ln.startswith("ExecStart=")]
    argv = shlex.split(cmd)
    assert argv[0] == "/opt/netopsai/bin/netopsai" and argv[1:3] == ["report", "reliability"]
    assert "--slack" in argv and "Type=oneshot" in service
    assert "OnCalendar=Mon" in (systemd / "netopsai-reliability-digest.timer").read_text()


def test_loss_minutes_come_from_lossy_counter_samples(tmp_path: Path) -> None:
    """Two back-to-back samples past the threshold are 10 bad minutes; one below it is none;
    loss_per_5min: null counts no loss."""
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, T)
    lossy = [(REPEAT, "Ethernet49", T - timedelta(hours=2), 1200, 300),
             (REPEAT, "Ethernet49", T - timedelta(hours=2) + timedelta(minutes=5), 1000, 0),
             (REPEAT, "Ethernet50", T - timedelta(hours=1), 500, 400),  # 900: under 1,000
             ("dc2-leaf-03", "Ethernet1", T - timedelta(hours=3), 0, 5000)]
    with Session(engine) as s:
        for table in (m.Alarm, m.InterfaceEvent, m.CounterSample):
            s.exec(delete(table))
        for dev, port, at, errors, discards in lossy:
            s.add(m.CounterSample(device=dev, interface=port, at=at, in_errors=errors,
                                  in_discards=discards, source="snmp"))
        s.commit()
    pods = {r["scope"]: r for r in reliability_report(engine, "1d", "pod").scopes}
    assert (pods["dc1-pod1"]["loss_minutes"], pods["dc1-pod1"]["bad_minutes"]) == (10, 10)
    assert (pods["dc2-pod1"]["loss_minutes"], pods["dc2-pod1"]["bad_minutes"]) == (5, 5)
    assert sum(r["loss_minutes"] for r in pods.values()) == 15
    off = reliability_report(engine, "1d", "pod", ReliabilitySettings(loss_per_5min=None))
    assert sum(r["bad_minutes"] for r in off.scopes) == 0
    assert any("loss_per_5min is off" in d for d in off.definitions)

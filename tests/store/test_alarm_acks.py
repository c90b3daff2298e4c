"""Acknowledgements and silences kept in our store (netopsai.store.acks) and the CLI over them:
`netopsai alarms ack | silence | unack | acks`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect
from sqlmodel import Session, select

from netopsai.common.errors import NetopsError
from netopsai.launch.app import main
from netopsai.store import acks
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.network import network_clock
from tests.conftest import CLOCK


def alarm_ids(engine: Engine) -> list[int]:
    with Session(engine) as s:
        return [int(i) for i in s.exec(select(m.Alarm.id).order_by(m.Alarm.id)) if i is not None]


def test_the_latest_action_decides_and_a_silence_ends(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    a, b, c = alarm_ids(engine)[:3]
    acks.record(engine, a, "ack", "alice", "fibre team on it", CLOCK)
    acks.record(engine, b, "silence", "bob", "planned work", CLOCK, CLOCK + timedelta(hours=2))
    acks.record(engine, c, "ack", "carol", "", CLOCK)
    acks.record(engine, c, "unack", "carol", "wrong alarm", CLOCK)
    now = acks.states(engine, [a, b, c], CLOCK + timedelta(minutes=5))
    assert set(now) == {a, b}  # c: taken back
    assert (now[a].state, now[a].by, now[a].why) == ("acked", "alice", "fibre team on it")
    assert now[a].text() == "acked by alice: fibre team on it"
    assert now[b].state == "silenced"
    assert now[b].text() == "silenced by bob until 2025-11-04 22:00 UTC: planned work"  # named
    later = acks.states(engine, [b], CLOCK + timedelta(hours=3))  # the silence is over
    assert later[b].state == "acked" and "silence ended 2025-11-04 22:00 UTC" in later[b].text()
    assert [h.action for h in acks.history(engine, c)] == ["unack", "ack"]  # newest first
    assert acks.states(engine, [], CLOCK) == {}


def test_bad_actions_are_one_line_errors(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    newest = alarm_ids(engine)
    with pytest.raises(NetopsError, match=r"unknown alarm id 99999; the newest alarms are \d+"):
        acks.record(engine, 99999, "ack", "alice", "", CLOCK)
    with pytest.raises(NetopsError, match="say who you are"):
        acks.record(engine, newest[0], "ack", "  ", "", CLOCK)
    with pytest.raises(NetopsError, match="a silence needs an end after now"):
        acks.record(engine, newest[0], "silence", "bob", "", CLOCK, CLOCK)
    with pytest.raises(NetopsError, match="unknown action 'close'"):
        acks.record(engine, newest[0], "close", "bob", "", CLOCK)
    assert acks.history(engine) == []  # nothing half-written


def test_a_store_made_before_acks_gains_the_table(tmp_path: Path) -> None:
    """A store of an earlier release (its tables, none of the ones added with acks), opened
    without the engine's upgrade-on-open: the first read or write of acks brings it up."""
    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    older = [t for t in SQLModel.metadata.sorted_tables if t.name not in ("alarmack", "apitoken")]
    SQLModel.metadata.create_all(engine, tables=older)
    with Session(engine) as s:
        s.add(m.Alarm(kind="LINK_DOWN", category="link", device="dc1-leaf-01", raised_at=CLOCK))
        s.commit()
    assert not inspect(engine).has_table("alarmack")
    first = alarm_ids(engine)[0]
    assert acks.states(engine, [first], CLOCK) == {}
    assert inspect(engine).has_table("alarmack")
    acks.record(engine, first, "ack", "alice", "", CLOCK)
    assert acks.states(engine, [first], CLOCK)[first].by == "alice"
    assert [a.alarm_id for a in acks.history(engine)] == [first]


@pytest.fixture
def lab_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["lab", "init", "--now", "2025-11-04T20:00:00Z"]) == 0
    return tmp_path


def test_cli_ack_silence_unack_and_list(lab_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engine = engine_for(f"sqlite:///{lab_home / 'netopsai.db'}")
    a, b = alarm_ids(engine)[:2]
    capsys.readouterr()
    assert main(["alarms", "ack", str(a), "--by", "alice", "--why", "fibre team on it"]) == 0
    assert capsys.readouterr().out.startswith(f"alarm {a} acknowledged by alice")
    assert main(["alarms", "silence", str(b), "--for", "2h", "--by", "bob"]) == 0
    assert f"alarm {b} silenced until 2025-11-04 22:00 UTC by bob" in capsys.readouterr().out
    assert main(["alarms", "acks"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [f"2025-11-04 20:00 UTC  #{b}  silence until 2025-11-04 22:00 UTC  by bob",
                      f"2025-11-04 20:00 UTC  #{a}  ack  by alice: fibre team on it"]  # zone named
    assert main(["alarms", "unack", str(a), "--by", "alice"]) == 0
    assert acks.states(engine, [a, b], network_clock(engine)).keys() == {b}


@pytest.mark.parametrize("args, message", [
    (["alarms", "ack", "99999", "--by", "x"], "error: unknown alarm id 99999; the newest alarms are"),
    (["alarms", "silence", "1", "--for", "soon"], "error: bad duration 'soon'"),
    (["alarms", "ack", "abc"], "error: Invalid value for 'alarm_id'"),
    (["alarms", "acks", "--id", "99999"], "error: unknown alarm id 99999"),
])
def test_cli_bad_input_is_one_line(lab_home: Path, capsys: pytest.CaptureFixture[str],
                                   args: list[str], message: str) -> None:
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.strip().splitlines()) == 1 and "Traceback" not in err

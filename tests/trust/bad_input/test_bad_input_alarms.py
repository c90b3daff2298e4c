"""Bad input to acknowledging and silencing alarms (issue 23 item 7): each is one line on stderr,
exit 2, no traceback, and nothing stored — an id no database column holds, a silence of a
million days, a name or comment carrying a control character (an ESC sequence would act in the
terminal of whoever lists the acks; a line break would forge a row), an empty name, an empty
window."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.common.errors import NetopsError
from netopsai.store import acks
from netopsai.store.engine import engine_for
from tests.cli_helpers import run_cli, small_lab_home
from tests.store_helpers import dump

HUGE = "99999999999999999999999"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("acks"))


@pytest.fixture(scope="module")
def alarm(home: Path) -> str:
    return an_alarm(home)


def an_alarm(home: Path) -> str:
    err = run_cli(home, "alarms", "ack", "0").stderr  # names the newest alarm ids
    return err.split("the newest alarms are ")[1].split(",")[0].strip()


def one_line(done: subprocess.CompletedProcess[str], needle: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert "\x1b" not in done.stderr and done.stdout == ""


BAD = [
    (["ack", HUGE], f"unknown alarm id {HUGE}; the newest alarms are"),
    (["unack", HUGE], f"unknown alarm id {HUGE}"),
    (["silence", "ID", "--for", "999999999d"], "a silence lasts at most 366 days, not 999999999d"),
    (["silence", "ID", "--for", "367d"], "a silence lasts at most 366 days"),
    (["silence", "ID", "--for", "-2h"], "bad duration '-2h'"),
    (["silence", "ID", "--for", ""], "bad duration ''"),
    (["silence", "ID", "--for", "0m"], "a silence needs an end after now"),
    (["ack", "ID", "--by", "evil\x1b]0;PWNED\x07\x1b[2J"], "who (by) has a control character "
                                                          "(U+001B at position 5)"),
    (["ack", "ID", "--why", "CHG-1\nFORGED #1 ack by admin"], "why has a control character "
                                                              "(U+000A at position 6)"),
    (["ack", "ID", "--why", "on it\rREWRITTEN"], "why has a control character (U+000D"),
    (["silence", "ID", "--why", "tab\there"], "why has a control character (U+0009"),
    (["ack", "ID", "--why", "bidi \u202eesrever"], "why has a control character (U+202E"),
    (["ack", "ID", "--by", ""], "say who you are (by)"),
    (["ack", "ID", "--by", "   "], "say who you are (by)"),
]


@pytest.mark.parametrize("args, needle", BAD, ids=[repr(a)[:60] for a, _ in BAD])
def test_bad_ack_is_one_line_and_stores_nothing(home: Path, alarm: str, args: list[str],
                                                needle: str) -> None:
    before = dump(engine_for(f"sqlite:///{home / 'netopsai.db'}"))
    one_line(run_cli(home, "alarms", *[alarm if a == "ID" else a for a in args]), needle)
    assert dump(engine_for(f"sqlite:///{home / 'netopsai.db'}")) == before


def test_after_every_bad_ack_none_is_listed(home: Path, alarm: str) -> None:
    listed = run_cli(home, "alarms", "acks", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) == []


def test_acks_of_an_id_beyond_any_column(home: Path) -> None:
    one_line(run_cli(home, "alarms", "acks", "--id", HUGE), f"unknown alarm id {HUGE}")


def test_cases_with_an_empty_window(home: Path) -> None:
    """An empty --window used to read the tool's default hour (not the command's 2h) and say
    "0 alarms" as if it had read what was asked."""
    one_line(run_cli(home, "alarms", "cases", "--window", ""), "--window is empty")
    one_line(run_cli(home, "alarms", "cases", "--window", "   "), "--window is empty")


def test_a_plain_ack_still_works(tmp_path: Path) -> None:
    """The checks refuse controls only: a name with accents and a comment with a no-break
    space are plain text and stored as given."""
    lab = small_lab_home(tmp_path)
    alarm = an_alarm(lab)
    done = run_cli(lab, "alarms", "ack", alarm, "--by", "Zoë", "--why", "CHG-7\u00a0on it")
    assert done.returncode == 0, done.stderr
    [row] = json.loads(run_cli(lab, "alarms", "acks", "--json").stdout)
    assert (row["by"], row["why"]) == ("Zoë", "CHG-7\u00a0on it")


def test_record_refuses_what_the_web_app_could_send(lab_engine: Engine) -> None:
    """store.acks is also the web app's door: the same checks hold there, before anything is
    written (an id out of range is not even looked up)."""
    engine = lab_engine
    now = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
    with pytest.raises(NetopsError, match="control character"):
        acks.record(engine, 1, "ack", "ops\x9b2J", "", now)
    with pytest.raises(NetopsError, match=f"unknown alarm id {2**63}"):
        acks.record(engine, 2**63, "ack", "ops", "", now)
    with pytest.raises(NetopsError, match="at most 366 days"):
        acks.record(engine, 1, "silence", "ops", "", now,
                    now + timedelta(days=400))
    with pytest.raises(NetopsError, match="at most 366 days, not 999999999d"):
        acks.silence_end(now, "999999999d")
    assert acks.silence_end(now, "2h") == now + timedelta(hours=2)
    assert acks.history(engine) == []

"""Who sees what in the web app (trust, F9): with login on, a conversation belongs to its user —
another user who opens the same thread id finds nothing of it and cannot confirm its diagnosis
— and guessing passwords is throttled per user name."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from netopsai.copilot.service import Copilot
from netopsai.ui.gradio import auth
from netopsai.ui.gradio.chat import ChatHandler

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"


def test_a_thread_id_opens_only_its_owners_conversation(backends: Any) -> None:
    chat = ChatHandler(Copilot(backends))
    list(chat.turn("who owns 10.1.3.20?", [], "shared-id", "alice"))
    mine = chat.resume("shared-id", "alice", asked=True)
    assert mine.history and "dc1-host-03-1" in str(mine.history[-2].content)  # then its evidence list
    theirs = chat.resume("shared-id", "mallory", asked=True)
    assert theirs.history == [] and 'id="ev-' not in theirs.evidence
    assert "not found" in theirs.status
    # and without login (user None, a single-user loopback app) the web's own threads resume
    list(chat.turn("who owns 10.1.3.20?", [], "plain"))
    assert chat.resume("plain", asked=True).history


def test_another_user_cannot_confirm_a_diagnosis(backends: Any, tmp_path: Path,
                                                 monkeypatch: Any) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))  # incident memory of this test only
    chat = ChatHandler(Copilot(backends))
    list(chat.turn(QUESTION, [], "diag", "alice"))  # the healthy lab: a diagnosis of `none`
    assert "found no root cause (none)" in chat.feedback("diag", True, "alice")  # hers: seen
    assert "this thread has no diagnosis yet" in chat.feedback("diag", True, "mallory")  # his: none


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def blocking(check: Any) -> Callable[[str, str], bool]:
    """The login check (a coroutine, as Gradio awaits it) called as a plain function."""
    assert check is not None
    return lambda name, password: bool(asyncio.run(check(name, password)))


def test_wrong_passwords_lock_the_name_then_it_recovers(tmp_path: Path) -> None:
    users = tmp_path / "users"
    auth.add_user(users, "oncall", "correct horse")
    auth.add_user(users, "other", "battery staple")
    clock = Clock()
    check = blocking(auth.authenticator(users, auth.Throttle(clock)))
    assert [check("oncall", f"guess-{i}") for i in range(auth.Throttle.FREE)] == [False] * auth.Throttle.FREE
    assert check("oncall", "correct horse") is False  # locked: even the right one is refused now
    assert check("other", "battery staple") is True  # other names are not locked out
    clock.now += auth.Throttle.FIRST_LOCK_S + 1
    assert check("oncall", "wrong again") is False  # one more failure: a longer lock
    clock.now += auth.Throttle.FIRST_LOCK_S + 1
    assert check("oncall", "correct horse") is False  # still locked (the lock doubled)
    clock.now += auth.Throttle.FIRST_LOCK_S * 2
    assert check("oncall", "correct horse") is True  # and a success clears the slate
    assert check("oncall", "typo") is False and check("oncall", "correct horse") is True

"""The web login's throttle (issue 23, Low): wrong passwords lock a name only for the address
they came from, an address spraying names is locked, a flood from many addresses is slowed for
everyone (never refused), and a flood of made-up names cannot grow the throttle's memory."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from netopsai.ui.gradio import auth

PASSWORD = "correct horse"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Waits:
    """A fake asyncio.sleep that records what the login would have waited."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def checker(tmp_path: Path, throttle: auth.Throttle, waits: Waits | None = None):  # type: ignore[no-untyped-def]
    users = tmp_path / "users"
    auth.add_user(users, "oncall", PASSWORD)
    check = auth.authenticator(users, throttle, waits or Waits())
    assert check is not None

    def attempt(name: str, password: str, address: str) -> bool:
        async def run() -> bool:
            auth.LOGIN_ADDRESS.set(address)  # as the web app's guard sets it per request
            return await check(name, password)
        return asyncio.run(run())
    return attempt


def test_a_stranger_cannot_lock_out_a_name(tmp_path: Path) -> None:
    clock = Clock()
    attempt = checker(tmp_path, auth.Throttle(clock))
    stranger, oncall = "203.0.113.9", "198.51.100.7"
    assert not any(attempt("oncall", f"guess-{i}", stranger) for i in range(auth.Throttle.FREE))
    assert attempt("oncall", PASSWORD, stranger) is False  # the stranger's guesses stop here
    assert attempt("oncall", PASSWORD, oncall) is True  # the on-call still gets in
    clock.now += auth.Throttle.FIRST_LOCK_S + 1
    assert attempt("oncall", "again", stranger) is False
    clock.now += auth.Throttle.FIRST_LOCK_S + 1
    assert attempt("oncall", PASSWORD, stranger) is False  # the lock doubled for the stranger


def test_an_address_spraying_names_is_locked(tmp_path: Path) -> None:
    throttle = auth.Throttle(Clock())
    attempt = checker(tmp_path, throttle)
    for i in range(auth.Throttle.ADDRESS_FREE):  # a few guesses at each of many names
        attempt(f"user{i // 4}", "guess", "203.0.113.9")
    assert throttle.locked("a-name-never-tried", "203.0.113.9")
    assert attempt("oncall", PASSWORD, "203.0.113.9") is False
    assert attempt("oncall", PASSWORD, "198.51.100.7") is True


def test_a_global_flood_is_slowed_with_backoff_not_refused(tmp_path: Path) -> None:
    waits = Waits()
    attempt = checker(tmp_path, auth.Throttle(Clock()), waits)
    flood = auth.Throttle.GLOBAL_FREE + 40
    for i in range(flood):  # one guess from each of many addresses: no per-address lock helps
        attempt("oncall", "guess", f"10.66.{i // 250}.{i % 250}")
    slowed = waits.seconds  # only attempts that found more than GLOBAL_FREE failures before them
    assert len(slowed) == flood - auth.Throttle.GLOBAL_FREE - 1
    assert slowed == sorted(slowed) and slowed[-1] > slowed[0] * 8  # it backs off as it goes on
    assert slowed[-1] <= auth.Throttle.GLOBAL_MAX_DELAY_S
    before = len(waits.seconds)
    assert attempt("oncall", PASSWORD, "198.51.100.7") is True  # a real user: slowed, let in
    assert len(waits.seconds) == before + 1 and waits.seconds[-1] > 0


def test_the_global_slowdown_ends_after_its_window() -> None:
    clock = Clock()
    throttle = auth.Throttle(clock)
    for i in range(auth.Throttle.GLOBAL_FREE + 20):
        throttle.record("oncall", f"10.0.0.{i}", ok=False)
    assert throttle.delay() > 0
    clock.now += auth.Throttle.GLOBAL_WINDOW_S + 1
    assert throttle.delay() == 0


def test_made_up_names_cannot_grow_memory() -> None:
    class Small(auth.Throttle):
        MAX_KEYS = 100

    clock = Clock()
    throttle = Small(clock)
    for i in range(1000):
        throttle.record(f"made-up-{i}", "203.0.113.9", ok=False)
        clock.now += 0.01
    assert len(throttle.strikes) <= Small.MAX_KEYS
    assert throttle.locked("anyone", "203.0.113.9")  # the address's own lock is not dropped


def test_old_failures_stop_counting() -> None:
    clock = Clock()
    throttle = auth.Throttle(clock)
    for _ in range(auth.Throttle.FREE - 1):
        throttle.record("oncall", "198.51.100.7", ok=False)
        clock.now += auth.Throttle.FORGET_S + 1  # one typo an hour and more apart
    throttle.record("oncall", "198.51.100.7", ok=False)
    assert not throttle.locked("oncall", "198.51.100.7")


def test_megabyte_names_are_remembered_short(tmp_path: Path) -> None:
    """The second hostile pass: 100 failures with 1 MB names held 100 MB in the throttle."""
    throttle = auth.Throttle(Clock())
    attempt = checker(tmp_path, throttle)
    for i in range(20):
        assert attempt(f"{i}-" + "x" * (1 << 20), "guess", f"203.0.113.{i}") is False
    assert all(len(name) <= auth.MAX_NAME + 1 for name, _ in throttle.strikes)
    assert attempt("oncall", PASSWORD, "198.51.100.7") is True
    with pytest.raises(auth.NetopsError, match="1 to 64 characters"):
        auth.add_user(tmp_path / "users", "y" * 65, PASSWORD)

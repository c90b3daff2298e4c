"""The `ask` front door (launch/thin.py, issue 28 item 4): a plain `ask` is answered before typer
loads, by the server on the home's socket (rich and pydantic not loaded either) or, with none,
by the copilot in the process; either way it prints what the full command line prints —
stdout, stderr and exit code. Through the socket, a fake server plays each reply (an answer, a
question not placed, an input error, --json, a refused call) so both paths see the very same
one; standalone, a small lab with an ACL fault answers both. thin_http reads replies sized by
Content-Length or chunked, and words a reply that is not HTTP as unreachable."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from netopsai.cli import thin_http
from netopsai.launch.thin import Asked, plain_ask
from tests.store_helpers import acl_home

FULL = "from netopsai.launch.app import run; run()"  # the full command line, typer first
THIN = ["-m", "netopsai.cli"]  # the front door
UNPLACED = ("_I could not place this: no rule of the offline planner matches this question. "
            "Ask things like \"who owns 10.1.1.20\", \"hosts in dc1-pod1\", \"flapping links in "
            "the last 24h\" or \"10.1.1.20 to 10.2.1.20 not communicating\"._")
ANSWER = ("**Reachable: no** — an ACL at dc1-leaf-03 [E5].\n\n- **Impact:** total [E5]\n\n"
          "| a | b |\n|---|---|\n| x\x1b[31m | y |\n")


class Fake:
    """An HTTP server on a Unix socket that answers every request with one canned reply."""

    def __init__(self, path: Path) -> None:
        self.reply = b""
        self.bodies: list[dict[str, Any]] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        path.chmod(0o600)
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break  # the client left before its request was whole
                    data += chunk
                if b"\r\n\r\n" not in data:
                    continue
                head, _, body = data.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(body) < length:
                    body += conn.recv(65536)
                self.bodies.append(json.loads(body))
                conn.sendall(self.reply)

    def answer(self, status: int, payload: object, chunked: bool = False) -> None:
        raw = json.dumps(payload).encode()
        if chunked:
            mid = len(raw) // 2
            body = b"%x\r\n%s\r\n%x;ext=1\r\n%s\r\n0\r\n\r\n" % (mid, raw[:mid], len(raw) - mid, raw[mid:])
            self.reply = (b"HTTP/1.1 %d X\r\ntransfer-encoding: chunked\r\n\r\n" % status) + body
        else:
            self.reply = b"HTTP/1.1 %d X\r\ncontent-length: %d\r\n\r\n%s" % (status, len(raw), raw)

    def close(self) -> None:
        # Wake the accept() first and wait for the thread, then give the descriptor back. Closing
        # it under a thread about to call accept() let that thread accept on whatever socket got
        # the number next: in CI a later test's fake Slack API (same process) had one of its
        # chat.update calls answered with this fake's canned reply.
        self.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return home


@pytest.fixture
def fake(home: Path) -> Iterator[Fake]:
    f = Fake(home / "api.sock")
    try:
        yield f
    finally:
        f.close()


def cli(home: Path, how: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return subprocess.run([sys.executable, "-X", "importtime", *how, *args], capture_output=True,
                          text=True, env={**env, "NETOPSAI_HOME": str(home)}, timeout=300)


def split(r: subprocess.CompletedProcess[str]) -> tuple[set[str], str]:
    """(the modules imported, stderr without the import lines)."""
    mods = {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}
    err = "".join(line + "\n" for line in r.stderr.splitlines() if not line.startswith("import time:"))
    return mods, err


def reply(answer: str, errors: list[str] | None = None) -> dict[str, Any]:
    return {"answer": answer, "input_errors": errors or [], "thread": "server's", "citations": ["E5"],
            "elapsed_ms": 1.0, "intent": "trace"}


CASES = [
    ("an answer", 200, reply(ANSWER), ["ask", "why?"]),
    ("not placed", 200, reply(UNPLACED), ["ask", "blorf"]),
    ("an input error", 200, reply("_Unknown device dc9._", ["unknown device dc9"]), ["ask", "dc9?"]),
    ("json, options after", 200, reply(ANSWER), ["ask", "why?", "--json", "--thread", "t1"]),
    ("thread=", 200, reply(ANSWER), ["ask", "--thread=t2", "why?"]),
    ("refused", 403, {"error": "not yours"}, ["ask", "why?"]),
    ("chunked", 200, reply(ANSWER), ["ask", "why?", "--json", "--thread", "t3"]),
]


@pytest.mark.parametrize(("name", "status", "payload", "args"), CASES, ids=[c[0] for c in CASES])
def test_thin_prints_what_the_full_command_line_prints(home: Path, fake: Fake, name: str, status: int,
                                                       payload: dict[str, Any], args: list[str]) -> None:
    fake.answer(status, payload, chunked=name == "chunked")
    full = cli(home, ["-c", FULL], *args)
    thin = cli(home, THIN, *args)
    full_mods, full_err = split(full)
    thin_mods, thin_err = split(thin)
    assert "typer" in full_mods and "typer" not in thin_mods  # the front door answered
    assert not {"rich", "pydantic", "langgraph", "http.client"} & thin_mods
    assert thin.returncode == full.returncode
    assert thin.stdout == full.stdout
    new_id = re.compile(r"cli-[0-9a-f]{8}")  # each run a new conversation: the ids differ
    assert new_id.sub("cli-ID", thin_err) == new_id.sub("cli-ID", full_err)
    assert [b["question"] for b in fake.bodies] == [args[1 + args[1].startswith("--")]] * 2
    assert (home / "last_thread").read_text().strip() == fake.bodies[-1]["thread"]


def test_continue_follows_the_last_thread(home: Path, fake: Fake) -> None:
    fake.answer(200, reply(ANSWER))
    assert cli(home, THIN, "ask", "why?").returncode == 0
    first = fake.bodies[-1]["thread"]
    assert first.startswith("cli-") and len(first) == len("cli-") + 8
    assert cli(home, THIN, "ask", "and now?", "--continue").returncode == 0
    assert fake.bodies[-1]["thread"] == first


@pytest.mark.parametrize("argv", [
    [], ["tool", "x"], ["ask"], ["ask", "  "], ["ask", "a", "b"], ["ask", "--help"], ["ask", "-x", "q"],
    ["ask", "q", "--json", "--json"], ["ask", "q", "--thread"], ["ask", "q", "--thread", "--json"],
    ["ask", "q", "--thread="], ["ask", "q", "--jsonx"], ["ask", "--", "q"],
])
def test_anything_but_a_plain_ask_goes_to_the_full_command_line(argv: list[str]) -> None:
    assert plain_ask(argv) is None


def test_a_plain_ask_in_any_order() -> None:
    assert plain_ask(["ask", "--continue", "q", "--json"]) == Asked("q", True, None, True)
    assert plain_ask(["ask", "--thread", "t", "q"]) == Asked("q", False, "t", False)


def test_no_server_words_errors_as_the_full_command_line(home: Path) -> None:
    full = cli(home, ["-c", FULL], "ask", "--thread", "x\x07", "q")
    thin = cli(home, THIN, "ask", "--thread", "x\x07", "q")
    (full_mods, full_err), (thin_mods, thin_err) = split(full), split(thin)
    assert "typer" in full_mods and "typer" not in thin_mods
    assert (thin.returncode, thin.stdout, thin_err) == (full.returncode, full.stdout, full_err)
    assert thin_err.startswith("error: --thread has a control")


@pytest.fixture(scope="module")
def lab_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = acl_home(tmp_path_factory.mktemp("thin-alone"), "thin-alone")
    home.chmod(0o700)
    return home


@pytest.mark.integration
@pytest.mark.parametrize("args", [["who owns 10.1.3.20?"], ["blorf zzz", "--json"],
                                  ["10.1.3.20 to 10.2.1.40 not communicating"]])
def test_standalone_answers_as_the_full_command_line(lab_home: Path, args: list[str]) -> None:
    """No server: the copilot answers in the process, typer never loads, and the answer, its
    JSON but for timings, and the exit code are the full command line's."""
    runs = {how: cli(lab_home, cmd, "ask", *args, "--thread", f"alone-{how}")
            for how, cmd in (("full", ["-c", FULL]), ("thin", THIN))}
    assert "typer" not in split(runs["thin"])[0] and "langgraph" in split(runs["thin"])[0]
    assert runs["thin"].returncode == runs["full"].returncode == 0
    if "--json" in args:
        got = {how: timeless(json.loads(r.stdout)) for how, r in runs.items()}
        assert got["thin"] == {**got["full"], "thread": "alone-thin"}
    else:
        assert runs["thin"].stdout == runs["full"].stdout


def timeless(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: timeless(v) for k, v in o.items() if k not in ("elapsed_ms", "ms")}
    return [timeless(x) for x in o] if isinstance(o, list) else o


def _pair() -> tuple[socket.socket, socket.socket]:
    a, b = socket.socketpair()
    a.settimeout(5)
    return a, b


@pytest.mark.parametrize("raw", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n",
    b"HTTP/1.0 200 OK\r\n\r\n{\"a\":1}",  # no length: to the close
])
def test_thin_http_reads_the_reply_however_sized(raw: bytes) -> None:
    a, b = _pair()
    b.sendall(raw)
    b.shutdown(socket.SHUT_WR)
    got = thin_http.post(a, "/api/ask", b"{}")
    assert (got.status, json.loads(got.body)) == (200, {"a": 1})
    sent = b.recv(65536)
    assert sent.startswith(b"POST /api/ask HTTP/1.1\r\n") and sent.endswith(b"\r\n\r\n{}")
    a.close()
    b.close()


@pytest.mark.parametrize("raw", [b"SSH-2.0-OpenSSH\r\n\r\n",
                                 b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}",
                                 b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])
def test_thin_http_a_reply_that_is_not_http_is_unreachable(raw: bytes) -> None:
    a, b = _pair()
    b.sendall(raw)
    b.shutdown(socket.SHUT_WR)
    with pytest.raises(OSError):
        thin_http.post(a, "/", b"{}")
    a.close()
    b.close()

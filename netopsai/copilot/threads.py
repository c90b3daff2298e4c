"""The one owner of conversation thread ids. Every front end names its threads here, by its
`front`, the `owner` the thread is kept under (a web user, a Slack channel, an API token, an
alert's fingerprint) and the front end's own `id`; the key a checkpoint is stored under is made
only by `key`, and new ids only by `new_id`. The formats are the ones threads were stored under
before there was an owner, so every saved conversation still opens:

    web:USER:ID  slack:CHANNEL:TS  api:TOKEN:ID  mcp:CALLER:ID  mcp:ID  triage:FINGERPRINT:SECONDS
    cli-HEX8 (or the id given)  arena-SCENARIO-NS  and a bare id (the owner's socket, tests)
"""

from __future__ import annotations

import uuid
from typing import NamedTuple

COLON_FRONTS = ("web", "slack", "api", "mcp", "triage")  # front:owner:id
DASH_FRONTS = ("cli", "arena")  # front-id: made here, or any id the person typed
NEW_ID_HEX = {"web": 16, "api": 16, "mcp": 12, "cli": 8}  # the length each front end's ids had


class ThreadId(NamedTuple):  # not a dataclass: the thin `ask` imports this, dataclasses is ~7 ms
    front: str  # "" for a bare id (the owner's own socket, a typed --thread)
    owner: str
    id: str

    @property
    def key(self) -> str:
        return key(self.front, self.owner, self.id)


def key(front: str, owner: str, id: str) -> str:
    """The key a thread's checkpoints are kept under."""
    if front in COLON_FRONTS:
        return f"{front}:{owner}:{id}" if owner else f"{front}:{id}"
    if front in DASH_FRONTS:
        return f"{front}-{owner}-{id}" if owner else f"{front}-{id}"
    return id


def parse(stored: str) -> ThreadId:
    """A stored key read back into its parts (any format threads were ever kept under)."""
    head, sep, rest = stored.partition(":")
    if sep and head in COLON_FRONTS:
        owner, sep2, tail = rest.partition(":")
        return ThreadId(head, owner, tail) if sep2 else ThreadId(head, "", rest)
    head, sep, rest = stored.partition("-")
    if sep and head in DASH_FRONTS:
        owner, sep2, tail = rest.rpartition("-")
        return ThreadId(head, owner, tail) if sep2 and head == "arena" else ThreadId(head, "", rest)
    return ThreadId("", "", stored)


def new_id(front: str) -> str:
    """A fresh, unguessable id of the front end's length (threads stay private)."""
    return uuid.uuid4().hex[:NEW_ID_HEX.get(front, 12)]


def belongs(stored: str, front: str, owner: str) -> bool:
    """Whether a stored key is one of this front end's owner's threads (a Slack button acts only
    on a conversation of the channel it was clicked in)."""
    return stored.startswith(key(front, owner, ""))

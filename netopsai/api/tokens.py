"""Bearer tokens for the HTTP API: made and revoked with `netopsai tokens`, kept as SHA-256
hashes (a token is 32 random bytes, so a fast hash loses nothing to guessing), each with scopes:
`read` for every read-only call, `confirm` to add a diagnosis to incident memory. The store's
token table is reached through the copilot room (copilot/token_store.py)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine

from netopsai.common.errors import NetopsError
from netopsai.copilot.token_store import (
    TokenRow,
    add_token,
    ensure_schema,
    revoke_token,
    token_by_hash,
    token_rows,
)

SCOPES = ("read", "confirm")
PREFIX = "nops_"  # recognisable in a leaked log or a secret scanner
NAME_MAX = 64


@dataclass(frozen=True)
class Caller:
    name: str
    scopes: frozenset[str]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a token, or None. Thread ids are kept as `api:NAME:THREAD` (and
    `mcp:NAME:…`): a `:` in a name would let token `a:b` reach token `a`'s thread `b:…`, and a
    control character would forge lines in a log that names the caller."""
    if not name:
        return "a token needs a name, e.g. alertmanager or ide-alice"
    if ":" in name:
        return f"a token name cannot contain ':' (thread ids are kept as api:NAME:THREAD): {name!r}"
    if any(not ch.isprintable() or ch.isspace() for ch in name):
        return f"a token name cannot contain spaces or control characters: {name!r}"
    if len(name) > NAME_MAX:
        return f"a token name is at most {NAME_MAX} characters, not {len(name)}"
    return None


def create(engine: Engine, name: str, scopes: list[str]) -> str:
    """A new token for `name`; returned once, never stored."""
    name = name.strip()
    bad = sorted(set(scopes) - set(SCOPES))
    problem = name_problem(name)
    if problem:
        raise NetopsError(problem)
    if bad or not scopes:
        raise NetopsError(f"unknown scope {bad[0]!r}; scopes: {', '.join(SCOPES)}" if bad else
                          f"a token needs a scope: {', '.join(SCOPES)}")
    ensure_schema(engine)
    token = PREFIX + secrets.token_urlsafe(32)
    add_token(engine, name, _digest(token), ",".join(dict.fromkeys(scopes)), datetime.now(UTC))
    return token


def revoke(engine: Engine, name: str) -> None:
    revoke_token(engine, name, datetime.now(UTC))


def listing(engine: Engine) -> list[TokenRow]:
    return token_rows(engine)


def verify(engine: Engine, token: str) -> Caller | None:
    """The caller a presented token belongs to, or None (unknown or revoked)."""
    digest = _digest(token)
    row = token_by_hash(engine, digest)
    if row is None or row.revoked_at is not None or not hmac.compare_digest(row.token_hash, digest):
        return None
    if name_problem(row.name):  # made before names were checked: it could reach another's threads
        return None
    return Caller(row.name, frozenset(row.scopes.split(",")))

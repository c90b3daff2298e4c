"""The API's bearer tokens as the store keeps them (issue 27 item 2): api/tokens.py decides what
a token is (names, scopes, the SHA-256 it is kept as) and reaches the store's token table only
here, as a front end may not import the store. Thin: the same queries and writes the API ran
itself, with the schema brought up to date first where it did so, and the same one-line errors."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlmodel import Session, select

from netopsai.common.errors import NetopsError
from netopsai.store.engine import create_all
from netopsai.store.tables import ApiToken

if TYPE_CHECKING:
    from sqlalchemy import Engine

TokenRow = ApiToken  # a stored token (name, token_hash, scopes, created_at, revoked_at)


def add_token(engine: Engine, name: str, token_hash: str, scopes: str, at: datetime) -> None:
    """Store a new token under `name` (a name in use, revoked or not, is refused)."""
    with Session(engine) as s:
        if s.exec(select(ApiToken).where(ApiToken.name == name)).first():
            raise NetopsError(f"a token named {name!r} exists; revoke it first or pick another name")
        s.add(ApiToken(name=name, token_hash=token_hash, scopes=scopes, created_at=at))
        s.commit()


def revoke_token(engine: Engine, name: str, at: datetime) -> None:
    """Mark the active token named `name` revoked at `at`; none active is a NetopsError."""
    ensure_schema(engine)
    with Session(engine) as s:
        row = s.exec(select(ApiToken).where(ApiToken.name == name, ApiToken.revoked_at == None)  # noqa: E711
                     ).first()
        if row is None:
            raise NetopsError(f"no active token named {name!r}")
        row.revoked_at = at
        s.add(row)
        s.commit()


def token_rows(engine: Engine) -> list[TokenRow]:
    """Every stored token, revoked ones too, by name."""
    ensure_schema(engine)
    with Session(engine) as s:
        return list(s.exec(select(ApiToken).order_by(ApiToken.name)))


def token_by_hash(engine: Engine, token_hash: str) -> TokenRow | None:
    """The stored token with this hash, or None. The schema is not touched: a check of every
    request reads only."""
    with Session(engine) as s:
        return s.exec(select(ApiToken).where(ApiToken.token_hash == token_hash)).first()


def ensure_schema(engine: Engine) -> None:
    """The store's schema brought to this release's (its token table included)."""
    create_all(engine)

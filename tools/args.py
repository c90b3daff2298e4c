"""Argument types shared by the tools."""

from __future__ import annotations

from ipaddress import IPv4Address
from typing import Annotated

from pydantic import AfterValidator


def _ipv4(v: str) -> str:
    try:
        return str(IPv4Address(v.strip()))
    except ValueError:
        raise ValueError(f"{v!r} is not a valid IPv4 address") from None


IPv4 = Annotated[str, AfterValidator(_ipv4)]

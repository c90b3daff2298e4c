"""`ingest.domains`: the domain suffixes host names carry, checked and kept in one form; and the
one rule that reads names with them: a name with a configured domain and without it is one
device (leaf1, LEAF1 and leaf1.dc.example.net under dc.example.net)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")  # one DNS label


def check_domain(entry: str) -> str:
    """A domain suffix in lower case, without a leading dot ("example.net"); anything else is
    refused by name rather than silently matching nothing."""
    d = entry.strip().lstrip(".").lower()
    if not all(_LABEL.fullmatch(label) for label in d.split(".")):
        raise PydanticCustomError(
            "domain", "'{entry}' is not a domain suffix (letters, digits, hyphens and dots, "
            "e.g. example.net)", {"entry": entry})
    return d


Domain = Annotated[str, AfterValidator(check_domain)]


def strip_domain(name: str, domains: tuple[str, ...]) -> str | None:
    """`name` without the longest configured domain it ends with (`ingest.domains`: with
    example.net and dc.example.net, leaf1.dc.example.net is leaf1)."""
    low = name.lower()
    for d in sorted(domains, key=len, reverse=True):
        if low.endswith("." + d) and len(low) > len(d) + 1:
            return name[:-len(d) - 1]
    return None


def device_key(name: str, domains: tuple[str, ...]) -> str:
    """One key for every stored spelling of a device: in lower case, without a configured
    domain (leaf1, LEAF1 and leaf1.dc.example.net are one device under dc.example.net)."""
    return (strip_domain(name, domains) or name).lower()

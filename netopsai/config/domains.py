"""`ingest.domains`: the domain suffixes host names carry, checked and kept in one form."""

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

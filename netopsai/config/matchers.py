"""Alertmanager-style label matchers (`severity=critical`, `alertname=~"DCI.*"`, `env!=lab`):
which alerts auto-triage takes. Regexes are anchored at both ends, as Alertmanager's are. Kept
with the config, which checks a rule's matchers when config.yaml is read; the API's triage
applies them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from netopsai.common.errors import NetopsError

_MATCHER = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"?(.*?)"?\s*$')
Matcher = Callable[[Mapping[str, str]], bool]


def parse_matcher(text: str) -> Matcher:
    m = _MATCHER.match(text)
    if not m:
        raise NetopsError(f"bad label matcher {text!r}: use label=value, label!=value, "
                          f"label=~regex or label!~regex")
    label, op, value = m.groups()
    if op in ("=~", "!~"):
        try:
            rx = re.compile(f"(?:{value})\\Z")
        except re.error as exc:
            raise NetopsError(f"bad regex in label matcher {text!r}: {exc}") from None
        want = op == "=~"
        return lambda labels: bool(rx.match(labels.get(label, ""))) == want
    want = op == "="
    return lambda labels: (labels.get(label, "") == value) == want


def matches(matchers: list[str], labels: Mapping[str, str]) -> bool:
    return all(parse_matcher(m)(labels) for m in matchers)

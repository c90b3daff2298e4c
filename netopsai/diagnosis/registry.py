"""Registries of symptom predicates and verification checks, by name.

The taxonomy names them. A name resolves, in order, to: a function registered here with
`@check("name")` / `@symptom("name")`; a dotted path (`package.module:function` or
`package.module.function`) imported on first use; an entry point of the group
`netopsai.diagnosis.checks` (or `.symptoms`). So users add checks without touching the engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from netopsai.diagnosis.base import Verdict
    from netopsai.diagnosis.context import Context

CheckFn = Callable[["Context"], "Verdict"]
SymptomFn = Callable[["Context"], float]
CHECKS: dict[str, CheckFn] = {}
SYMPTOMS: dict[str, SymptomFn] = {}
GROUPS = {"check": "netopsai.diagnosis.checks", "symptom": "netopsai.diagnosis.symptoms"}


def check(name: str) -> Callable[[CheckFn], CheckFn]:
    """Register a verification check: ctx -> Verdict (confirmed / rejected / unknown)."""
    def register(fn: CheckFn) -> CheckFn:
        CHECKS[name] = fn
        return fn
    return register


def symptom(name: str) -> Callable[[SymptomFn], SymptomFn]:
    """Register a symptom predicate: ctx -> plausibility in [0, 1] from evidence in hand."""
    def register(fn: SymptomFn) -> SymptomFn:
        SYMPTOMS[name] = fn
        return fn
    return register


def _builtin() -> None:
    """The built-in checks and symptoms register on import."""
    for module in ("checks", "checks_device", "checks_path", "checks_roce", "symptoms"):
        importlib.import_module(f"netopsai.diagnosis.{module}")


def _import(path: str) -> Any:
    module, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None


def _entry_point(kind: str, name: str) -> Any:
    for ep in entry_points(group=GROUPS[kind]):
        if ep.name == name:
            return ep.load()
    return None


def resolve(kind: str, name: str) -> Any:
    """The function a taxonomy name means; a clear error naming it when nothing matches."""
    _builtin()
    table: dict[str, Any] = CHECKS if kind == "check" else SYMPTOMS
    fn = table.get(name)
    if fn is None and ("." in name or ":" in name):
        fn = _import(name)
    if fn is None:
        fn = _entry_point(kind, name)
    if fn is None or not callable(fn):
        raise NetopsError(f"unknown {kind} {name!r}: register it with @{kind}(...), give a dotted "
                          f"path, or an entry point in {GROUPS[kind]}")
    table[name] = fn
    return fn

"""Registries of symptom predicates and verification checks, by name.

The taxonomy names them. A name resolves, in order, to: a function registered here with
`@check("name")` / `@symptom("name")` (the built-in modules, BUILTIN, load on the first
look-up); an entry point of the group `netopsai.diagnosis.checks` (or `.symptoms`); a dotted
path (`package.module:function` or `package.module.function`) imported on first use. Both
tables are the one registry every extension kind uses (netopsai/common/registry.py). So users
add checks without touching the engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from netopsai.common.errors import NetopsError
from netopsai.common.registry import Registry

if TYPE_CHECKING:
    from netopsai.diagnosis.base import Verdict
    from netopsai.diagnosis.context import Context

CheckFn = Callable[["Context"], "Verdict"]
SymptomFn = Callable[["Context"], float]
GROUPS = {"check": "netopsai.diagnosis.checks", "symptom": "netopsai.diagnosis.symptoms"}
# the modules whose @check / @symptom functions are the built-in ones
BUILTIN = tuple(f"netopsai.diagnosis.{m}"
                for m in ("checks", "checks_device", "checks_path", "checks_roce", "symptoms"))
CHECKS: Registry[str, CheckFn] = Registry("check", GROUPS["check"], BUILTIN)
SYMPTOMS: Registry[str, SymptomFn] = Registry("symptom", GROUPS["symptom"], BUILTIN)


def check(name: str) -> Callable[[CheckFn], CheckFn]:
    """Register a verification check: ctx -> Verdict (confirmed / rejected / unknown)."""
    def register(fn: CheckFn) -> CheckFn:
        return CHECKS.add(name, fn)
    return register


def symptom(name: str) -> Callable[[SymptomFn], SymptomFn]:
    """Register a symptom predicate: ctx -> plausibility in [0, 1] from evidence in hand."""
    def register(fn: SymptomFn) -> SymptomFn:
        return SYMPTOMS.add(name, fn)
    return register


def _import(path: str) -> Any:
    module, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None


def resolve(kind: str, name: str) -> Any:
    """The function a taxonomy name means; a clear error naming it when nothing matches."""
    table: Registry[str, Any] = CHECKS if kind == "check" else SYMPTOMS
    fn = table.get(name)  # a registered one, else an installed package's entry point
    if fn is None and ("." in name or ":" in name):
        fn = _import(name)
    if fn is None or not callable(fn):
        raise NetopsError(f"unknown {kind} {name!r}: register it with @{kind}(...), give a dotted "
                          f"path, or an entry point in {GROUPS[kind]}")
    table.add(name, fn)
    return fn

"""The lab's fault kinds, one table (shared/specs/scenario.md, fault kinds and labels): what each
does to the lab and the target it needs. A kind registers itself with `@fault_kind(name,
needs)` in the module that defines it; the built-in ones are fault_kinds.py (the data-centre
fabric's) and fault_kinds_ai.py (the GPU fabric's), loaded on the first look-up, and a package
installed from elsewhere adds one through the entry-point group `netopsai.lab.faults` (an entry
point naming a FaultKind, or a module whose import registers one). The scenario loader and the
injector read this table, so a new kind is one decorated function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from netopsai.common.registry import Registry

if TYPE_CHECKING:
    from netopsai.lab.faults import Injector, Resolved

Apply = Callable[["Injector", "Resolved", datetime, dict[str, Any]], None]
Needs = Literal["link", "device", "any"]  # a link (or an interface with one), a device, or either


@dataclass(frozen=True)
class FaultKind:
    name: str
    apply: Apply
    needs: Needs = "any"


def _adopt(name: str, obj: object) -> list[tuple[str, FaultKind]]:
    return [(obj.name, obj)] if isinstance(obj, FaultKind) else []


BUILTIN = ("netopsai.lab.fault_kinds", "netopsai.lab.fault_kinds_ai")
FAULT_KINDS: Registry[str, FaultKind] = Registry("fault kind", "netopsai.lab.faults", BUILTIN,
                                                 _adopt)


def fault_kind(name: str, needs: Needs = "any") -> Callable[[Apply], Apply]:
    """Register what a fault kind does to the lab, and the target it needs."""
    def register(fn: Apply) -> Apply:
        FAULT_KINDS.add(name, FaultKind(name, fn, needs))
        return fn
    return register

"""The one registry every extension kind uses (netopsai/common/registry.py): built-ins loaded on
the first read and only once, entry points found on a miss and loaded once, a built-in never
replaced by an installed package, a broken package skipped."""

from __future__ import annotations

import sys
import threading
import types
import uuid
from pathlib import Path

import pytest

from netopsai.common.registry import Registry


def plant(tmp: Path, monkeypatch: pytest.MonkeyPatch, module: str, body: str,
          group: str | None = None, entries: str = "") -> None:
    """A module on sys.path and, with `group`, a distribution declaring `entries` in it."""
    (tmp / f"{module}.py").write_text(body)
    if group is not None:
        info = tmp / f"{module}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[{group}]\n{entries}\n")
    monkeypatch.syspath_prepend(str(tmp))


# what the planted modules reach back to (a module of its own, whatever name pytest gives this one)
SHARED = types.SimpleNamespace(regs={}, gates={}, count=[0])
sys.modules["_registry_test_shared"] = SHARED  # type: ignore[assignment]


def fresh() -> str:
    return f"reg_{uuid.uuid4().hex[:8]}"


def test_builtins_register_on_the_first_read_and_only_once(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    name = fresh()
    reg: Registry[str, int] = Registry("thing", builtins=(name,))
    sys.modules.pop(name, None)
    plant(tmp_path, monkeypatch, name,
          "from _registry_test_shared import regs, count\ncount[0] += 1\n"
          f"regs['{name}'].add('one', 1)\n")
    SHARED.regs[name] = reg
    before = SHARED.count[0]
    assert name not in sys.modules  # nothing loaded at construction
    assert reg["one"] == 1
    assert "one" in reg and list(reg) == ["one"] and reg.get("two") is None
    assert SHARED.count[0] == before + 1  # imported once for all those reads


def test_an_entry_point_is_found_on_a_miss_and_a_builtin_wins(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    group, name = f"netopsai.test.{fresh()}", fresh()
    reg: Registry[str, int] = Registry("thing", group=group)
    reg.add("shipped", 1)
    plant(tmp_path, monkeypatch, name, "SEVEN = 7\nTWO = 2\n", group,
          f"plugged = {name}:SEVEN\nshipped = {name}:TWO")
    assert reg["plugged"] == 7
    assert reg["shipped"] == 1  # the installed package's "shipped" does not replace ours
    assert sorted(reg) == ["plugged", "shipped"]


def test_a_package_installed_after_the_first_scan_is_still_found(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    group = f"netopsai.test.{fresh()}"
    reg: Registry[str, int] = Registry("thing", group=group)
    assert len(reg) == 0 and "late" not in reg  # the group has been read: empty
    name = fresh()
    plant(tmp_path, monkeypatch, name, "LATE = 3\n", group, f"late = {name}:LATE")
    assert reg["late"] == 3


def test_a_broken_package_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     caplog: pytest.LogCaptureFixture) -> None:
    group, name = f"netopsai.test.{fresh()}", fresh()
    reg: Registry[str, int] = Registry("thing", group=group)
    reg.add("fine", 1)
    plant(tmp_path, monkeypatch, name, "raise RuntimeError('no such library')\n", group,
          f"broken = {name}:X")
    assert list(reg) == ["fine"]
    with pytest.raises(KeyError):
        reg["broken"]
    assert "thing plugin broken not loaded: RuntimeError: no such library" in caplog.text


def test_every_thread_sees_the_whole_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first reads race: a thread that finds the built-ins half imported waits for them."""
    name = fresh()
    reg: Registry[str, int] = Registry("thing", builtins=(name,))
    SHARED.regs[name] = reg
    gate = threading.Event()
    SHARED.gates[name] = gate
    plant(tmp_path, monkeypatch, name,
          f"from _registry_test_shared import regs, gates\nregs['{name}'].add('a', 1)\n"
          f"gates['{name}'].wait(5)\nregs['{name}'].add('b', 2)\n")
    seen: list[list[str]] = []
    first = threading.Thread(target=lambda: seen.append(sorted(reg)))
    first.start()
    while "a" not in reg._table and first.is_alive():  # the first reader is inside the import
        first.join(0.01)
    second = threading.Thread(target=lambda: seen.append(sorted(reg)))
    second.start()
    second.join(0.2)
    gate.set()
    first.join()
    second.join()
    assert seen == [["a", "b"], ["a", "b"]]



KINDS = {  # table -> (its entry-point group, a built-in it must hold)
    "netopsai.tools.base:REGISTRY": ("netopsai.tools", "alarms"),
    "netopsai.config.sources:SOURCES": ("netopsai.backends", ("alarms", "store")),
    "netopsai.backends.receiver_kinds:RECEIVERS": ("netopsai.receivers", "syslog"),
    "netopsai.diagnosis.registry:CHECKS": ("netopsai.diagnosis.checks", "pfc_storm"),
    "netopsai.diagnosis.registry:SYMPTOMS": ("netopsai.diagnosis.symptoms", "trace_silent"),
    "netopsai.diagnosis.job_registry:JOB_RULES": ("netopsai.diagnosis.job_rules", "pfc_storm"),
    "netopsai.lab.fault_registry:FAULT_KINDS": ("netopsai.lab.faults", "gpu_host_down"),
    "netopsai.copilot.recipes:RECIPES": ("netopsai.recipes", "port_timeline"),
}


@pytest.mark.parametrize("table", sorted(KINDS))
def test_every_kind_fills_its_table_with_nothing_imported_first(table: str) -> None:
    """A fresh interpreter imports only the table's own module: the first read loads the
    built-ins (the tools' table was empty there until someone imported tools.registry)."""
    import subprocess

    group, member = KINDS[table]
    module, name = table.split(":")
    code = (f"import importlib\nt = getattr(importlib.import_module({module!r}), {name!r})\n"
            f"print(type(t).__name__, t.group, len(t), {member!r} in t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    kind, got_group, count, held = out.stdout.split()
    assert (kind, got_group, held) == ("Registry", group, "True") and int(count) > 0


def test_a_key_with_a_home_imports_that_module_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`home` names the module of one key: a look-up imports it and no other built-in; a key with
    no home reads the whole table as before (the other built-ins, then the entry points)."""
    one, two = fresh(), fresh()
    reg: Registry[str, int] = Registry("thing", builtins=(one, two),
                                       home=lambda key: {"one": one, "two": two}.get(key))
    for name, key, value in ((one, "one", 1), (two, "two", 2)):
        sys.modules.pop(name, None)
        plant(tmp_path, monkeypatch, name, f"from _registry_test_shared import regs\n"
              f"regs['{name}'].add('{key}', {value})\n")
        SHARED.regs[name] = reg
    assert reg["one"] == 1
    assert one in sys.modules and two not in sys.modules  # the other built-in stays unimported
    assert reg.get("three") is None  # no home: the whole table is read
    assert two in sys.modules and sorted(reg) == ["one", "two"]


def test_a_tool_is_looked_up_without_importing_the_other_tools() -> None:
    """The tool registry names each tool's module (tools/base.py): a fresh process that runs one
    tool imports that tool's module and none of the others' (a cold `ask`, issue 28 item 4)."""
    import subprocess

    code = ("import sys\nfrom netopsai.tools.base import REGISTRY\n"
            "assert REGISTRY['changelog'].name == 'changelog'\n"
            "from netopsai.tools import tool_names\n"
            "print(sorted(n for n in tool_names() if 'netopsai.tools.' + n in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['changelog']"

"""Our YAML lab spec (inventory/*.yaml) as a real inventory: the lab's topology builder, no history.

The lab builds the rows and the store writes them: `import_files` is the store's importer
(store/inventory_import.py: NetBox CSVs, validation, one transaction) with this module's
`yaml_batch` as its reader of specs, so the store imports nothing of the lab (issue 27 item 6).
Validation errors point at the file, the line and the field of the YAML, with the closest
valid name where there is one (a misspelt key or scale).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from sqlalchemy import Engine

from netopsai.common.errors import MalformedFile, closest, parse_yaml
from netopsai.lab.spec import LabSpec
from netopsai.lab.topology import build_topology
from netopsai.store.csv_rows import Problem
from netopsai.store.inventory_import import ImportResult
from netopsai.store.inventory_import import import_files as import_into_store
from netopsai.store.inventory_sync import InventoryBatch


def import_files(engine: Engine, paths: list[Path], scale: str = "small", seed: int = 7,
                 replace: bool = False, force: bool = False) -> ImportResult:
    """NetBox CSV exports and YAML specs into the store, all or nothing (`netopsai inventory
    import`): the store's importer, reading each spec with `yaml_batch`."""
    return import_into_store(engine, paths, scale, seed, replace, force, spec_reader=yaml_batch)


def yaml_batch(path: Path, scale: str, seed: int) -> InventoryBatch:
    """The spec's topology at `scale` as inventory rows (no alarms, changes or flaps)."""
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text)
    except OSError as exc:
        raise Problem(label, 0, "", f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise Problem(label, 0, "", "not UTF-8 text") from None
    except (yaml.YAMLError, RecursionError):
        root = None  # parse_yaml says what is wrong with it
    try:
        data = parse_yaml(text, label)
    except MalformedFile as exc:
        raise Problem(label, exc.line or 0, "", f"not valid YAML: {exc.problem}") from None
    if not isinstance(data, dict):
        raise Problem(label, 1, "", "a lab spec is a mapping (name, sites, scales, ...)")
    try:
        spec = LabSpec.model_validate(data)
    except ValidationError as exc:
        raise _located(label, root, data, exc) from None
    if scale not in spec.scales:
        near = closest(scale, spec.scales)
        line = _line_of(root, ("scales",))
        raise Problem(label, line, "scales", f"no scale {scale!r} in this spec" +
                      (f"; closest: {near[0]}" if near else f"; valid: {', '.join(spec.scales)}"))
    topo = build_topology(spec, spec.scales[scale], seed, datetime.now(UTC))
    devices = [{k: v for k, v in d.items() if k != "booted_at"} for d in topo.devices]
    return InventoryBatch(
        source="yaml", sites=topo.sites, pods=topo.pods, segments=topo.segments,
        devices=devices, hosts=topo.hosts,
        interfaces=[{k: v for k, v in i.items() if k != "link_id"} for i in topo.interfaces],
        links=[{k: v for k, v in lk.items() if k != "id"} for lk in topo.links])


def _located(label: str, root: yaml.Node | None, data: dict[str, Any],
             exc: ValidationError) -> Problem:
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    fld = ".".join(str(p) for p in loc)
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        parent = _value_at(data, loc[:-1])
        keys = [str(k) for k in parent] if isinstance(parent, dict) else []
        near = closest(str(loc[-1]), keys)
        if near:  # point at the misspelt key
            return Problem(label, _line_of(root, (*loc[:-1], near[0])), fld,
                           f"{msg}; closest key present: {near[0]}")
        return Problem(label, _line_of(root, loc[:-1]), fld, msg)
    return Problem(label, _line_of(root, loc), fld, msg)


def _value_at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _line_of(node: yaml.Node | None, path: tuple[Any, ...]) -> int:
    """1-based line of the YAML node at `path` (the deepest one found)."""
    line = node.start_mark.line + 1 if node is not None else 0
    for part in path:
        if isinstance(node, yaml.MappingNode):  # the key's line: a nested value starts below it
            pair = next(((k, v) for k, v in node.value if k.value == str(part)), None)
            if pair is None:
                break
            line, node = pair[0].start_mark.line + 1, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line

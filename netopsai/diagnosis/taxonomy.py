"""The taxonomy: a tree of root-cause hypotheses (taxonomy.yaml), extended by user files.

Extension files (`NETOPSAI_HOME/taxonomy.d/*.yaml`, or directories passed in) use the same
format. A node with a new id is added; a node with an existing id is merged: scalar fields
replace, list fields (symptoms, checks, next_steps) extend. So a user adds a leaf, or adds a
check to an existing one, without editing the engine or the built-in file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from netopsai.common.errors import NetopsError, parse_yaml

ROOT = "root"
LISTS = ("symptoms", "checks", "next_steps")


@dataclass
class Node:
    id: str
    parent: str = ROOT
    description: str = ""
    symptoms: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)
    label: str = ""  # the root-cause label a confirmed leaf gives (default: its id)

    @property
    def result_label(self) -> str:
        return self.label or self.id


@dataclass
class Taxonomy:
    nodes: dict[str, Node]

    def children(self, node_id: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.parent == node_id]

    def is_leaf(self, node_id: str) -> bool:
        return not self.children(node_id)

    def leaves(self) -> list[Node]:
        return [n for n in self.nodes.values() if self.is_leaf(n.id) and n.checks]

    def labels(self) -> set[str]:
        return {n.result_label for n in self.leaves()}

    def leaf_for(self, label: str) -> Node | None:
        return next((n for n in self.leaves() if n.result_label == label), None)

    def ancestors(self, node_id: str) -> list[Node]:
        out, cur = [], self.nodes.get(node_id)
        while cur is not None and cur.parent in self.nodes:
            cur = self.nodes[cur.parent]
            out.append(cur)
        return out


def _read(text: str, where: str) -> list[dict[str, Any]]:
    return _nodes(parse_yaml(text, where), where)


BUILTIN_JSON = "taxonomy.json"


def _builtin() -> list[dict[str, Any]]:
    """The package's own taxonomy: taxonomy.yaml, the file people read and edit, as its JSON copy
    (taxonomy.json, written by `python -m netopsai.diagnosis.taxonomy`; a test keeps the two
    equal). A diagnosis then never imports PyYAML, whose import and parse were ~12-20 ms of a
    cold diagnosis `ask` (issue 28 item 4, RESULTS "cold-ask-21"); users' files keep
    parse_yaml, whose errors name the line."""
    import json

    text = resources.files("netopsai.diagnosis").joinpath(BUILTIN_JSON).read_text()
    return _nodes(json.loads(text), BUILTIN_JSON)


def builtin_json() -> str:
    """taxonomy.yaml as taxonomy.json holds it (its nodes, in order; one node a line)."""
    import json

    import yaml

    text = resources.files("netopsai.diagnosis").joinpath("taxonomy.yaml").read_text()
    nodes = _nodes(yaml.safe_load(text), "taxonomy.yaml")
    return '{"nodes": [\n' + ",\n".join(json.dumps(n, ensure_ascii=False) for n in nodes) + "\n]}\n"


def _nodes(data: object, where: str) -> list[dict[str, Any]]:
    data = data or {}
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, list) or not all(isinstance(n, dict) and n.get("id") for n in nodes):
        raise NetopsError(f"{where}: expected 'nodes:' a list of mappings each with an 'id'")
    return nodes


def _merge(nodes: dict[str, Node], raw: dict[str, Any], where: str) -> None:
    unknown = set(raw) - set(Node.__dataclass_fields__)
    if unknown:
        raise NetopsError(f"{where}: node {raw['id']!r} has unknown field(s) {sorted(unknown)}")
    old = nodes.get(raw["id"])
    if old is None:
        fields: dict[str, Any] = {k: (list(v) if k in LISTS else v) for k, v in raw.items()}
        nodes[raw["id"]] = Node(**fields)
        return
    for key, value in raw.items():
        if key in LISTS:
            getattr(old, key).extend(v for v in value if v not in getattr(old, key))
        elif key != "id":
            setattr(old, key, value)


def extension_dirs() -> list[Path]:
    from netopsai.config.settings import StoreSettings

    return [StoreSettings().home / "taxonomy.d"]


def load_taxonomy(extra: list[Path] | None = None) -> Taxonomy:
    """The built-in taxonomy merged with every *.yaml of the extension directories."""
    nodes: dict[str, Node] = {}
    for raw in _builtin():
        _merge(nodes, raw, "taxonomy.yaml")
    for folder in extension_dirs() if extra is None else extra:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            for raw in _read(path.read_text(), str(path)):
                _merge(nodes, raw, str(path))
    bad = [n.id for n in nodes.values() if n.parent != ROOT and n.parent not in nodes]
    if bad:
        raise NetopsError(f"taxonomy: node(s) {bad} name a parent that does not exist")
    return Taxonomy(nodes)


if __name__ == "__main__":  # after an edit of taxonomy.yaml: write its JSON copy beside it
    Path(__file__).with_name(BUILTIN_JSON).write_text(builtin_json())

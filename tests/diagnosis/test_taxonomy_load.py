"""The built-in taxonomy is read with libyaml's loader when PyYAML has it (a tenth of the
pure-Python loader's time in a cold diagnosis, issue 28 item 4): the same nodes either way."""

from __future__ import annotations

from importlib import resources

import yaml

from netopsai.common.errors import parse_yaml
from netopsai.diagnosis.taxonomy import _builtin, load_taxonomy


def test_builtin_nodes_are_what_the_pure_python_loader_reads() -> None:
    text = resources.files("netopsai.diagnosis").joinpath("taxonomy.yaml").read_text()
    pure = parse_yaml(text, "taxonomy.yaml")
    assert isinstance(pure, dict)
    assert hasattr(yaml, "CSafeLoader")  # the fast path is the one taken on this machine
    assert _builtin() == pure["nodes"]
    assert set(load_taxonomy(extra=[]).nodes) == {n["id"] for n in pure["nodes"]}

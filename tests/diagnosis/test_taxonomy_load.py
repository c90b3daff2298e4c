"""The built-in taxonomy is read from taxonomy.json, the JSON copy of taxonomy.yaml, so a
diagnosis never imports PyYAML (~12-20 ms of a cold diagnosis `ask`, issue 28 item 4): the
copy must hold exactly the nodes the YAML does, and users' taxonomy.d files are still YAML."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

from netopsai.common.errors import parse_yaml
from netopsai.diagnosis.taxonomy import BUILTIN_JSON, _builtin, builtin_json, load_taxonomy


def test_the_json_copy_holds_the_nodes_of_taxonomy_yaml() -> None:
    text = resources.files("netopsai.diagnosis").joinpath("taxonomy.yaml").read_text()
    pure = parse_yaml(text, "taxonomy.yaml")
    assert isinstance(pure, dict)
    assert _builtin() == pure["nodes"], ("taxonomy.json is stale: after editing taxonomy.yaml run "
                                         "`python -m netopsai.diagnosis.taxonomy`")
    shipped = resources.files("netopsai.diagnosis").joinpath(BUILTIN_JSON).read_text()
    assert shipped == builtin_json()  # byte for byte what the writer makes: nothing hand-edited
    assert set(load_taxonomy(extra=[]).nodes) == {n["id"] for n in pure["nodes"]}


def test_a_diagnosis_taxonomy_does_not_import_yaml(tmp_path: Path) -> None:
    """In a fresh interpreter (PyYAML not loaded by anything else): the built-in taxonomy with
    no extension files leaves yaml unimported; an extension file is read with it."""
    (tmp_path / "taxonomy.d").mkdir()
    code = ("import sys; from pathlib import Path; from netopsai.diagnosis.taxonomy import load_taxonomy; "
            "t = load_taxonomy(); print(len(t.nodes), 'yaml' in sys.modules); "
            "d = Path(sys.argv[1]) / 'taxonomy.d'; "
            "(d / 'mine.yaml').write_text('nodes:\\n  - id: link.mine\\n    parent: link\\n'); "
            "t = load_taxonomy(); print('link.mine' in t.nodes, 'yaml' in sys.modules)")
    env = {**os.environ, "NETOPSAI_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True,
                         text=True, check=True).stdout.split("\n")
    count, imported = out[0].split()
    assert int(count) > 10 and imported == "False"
    assert out[1] == "True True"  # a user's YAML file still read (and with it, PyYAML)

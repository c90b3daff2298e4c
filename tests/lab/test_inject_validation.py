"""Validate before change (trust, F8): `netopsai lab inject` checks every field of a scenario —
the fault's time, its numeric params, its CIDRs — before it touches the store, so a bad file is
one line on stderr, a non-zero exit, and the lab exactly as it was (not re-built first)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from netopsai.lab.manage import lab_info
from netopsai.store.engine import engine_for
from tests.cli_helpers import run_cli, small_lab_home

LINK = {"link": "dc1-leaf-03:Ethernet49"}




@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("inject"))


@pytest.mark.parametrize(("fault", "named"), [
    ({"kind": "link_down", "at": "-99999d", "target": LINK}, "'at' '-99999d' is more than 30 days before"),
    ({"kind": "link_down", "at": "+10m", "target": LINK}, "'at' '+10m' is after the lab clock"),
    ({"kind": "link_flap", "target": LINK, "params": {"count": 1_000_000_000}}, "count must be a number"),
    ({"kind": "link_flap", "target": LINK, "params": {"count": -3}}, "count must be a number from 1"),
    ({"kind": "mtu_mismatch", "target": LINK, "params": {"mtu": -1}}, "mtu must be a number from 68"),
    ({"kind": "congestion", "target": LINK, "params": {"util": "lots"}}, "util must be a number"),
    ({"kind": "acl_block", "target": {"device": "dc1-leaf-03"}, "params": {"dst": "10.2.1.300/24"}},
     "bad prefix '10.2.1.300/24' for param dst"),
    ({"kind": "link_down", "target": LINK, "params": {"reason": "gremlins"}},
     "params.reason must be one of admin, optic"),
    ({"kind": "dci_link_down", "target": LINK}, "needs a DCI circuit or a backbone link"),
], ids=["at-99999d", "at-future", "count-1e9", "count-negative", "mtu-negative", "util-text", "bad-cidr",
        "reason", "dci-on-fabric"])
@pytest.mark.parametrize("seed", [7, 8], ids=["same-lab", "other-lab"])  # 8: the lab would be re-built
def test_a_bad_scenario_changes_nothing(home: Path, tmp_path: Path, fault: dict[str, object],
                                        named: str, seed: int) -> None:
    before = lab_info(engine_for(f"sqlite:///{home / 'netopsai.db'}"))
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"id": "bad", "lab": {"seed": seed}, "faults": [fault],
                                    "question": "10.1.3.20 to 10.2.1.40 not communicating"}))
    done = run_cli(home, "lab", "inject", str(path))
    assert done.returncode != 0 and named in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert lab_info(engine_for(f"sqlite:///{home / 'netopsai.db'}")) == before

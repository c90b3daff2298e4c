"""config.yaml `roce:` (netopsai/config/roce.py): the RoCE diagnoses' thresholds in one place,
checked like every section (a bad value is one line naming roce.<field>), read by the job rules
and the device/flow checks alike, so a setting changes their verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.common.errors import NetopsError
from netopsai.config.load import load_netconfig
from netopsai.config.roce import RoceSettings, roce_override, roce_settings
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for

HOST, LEAF = "dc1-gpu1-010", "dc1-gpu1-rail2-leaf02"
JOB_Q = "job 4711 hit an NCCL timeout"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("NETOPSAI_HOME", str(home))
    for name in ("STORM_PER_5MIN", "SPREAD_PER_5MIN", "FAR_ABOVE", "HOT_PCT", "IDLE_PCT"):
        monkeypatch.delenv(f"NETOPSAI_ROCE_{name}", raising=False)
    return home


def _config(home: Path, text: str) -> None:
    (home / "config.yaml").write_text(text, encoding="utf-8")


def test_defaults_are_documented() -> None:
    s = RoceSettings()
    assert (s.storm_per_5min, s.spread_per_5min, s.far_above, s.hot_pct, s.idle_pct) == \
        (1_000_000, 100_000, 4.0, 90.0, 20.0)
    assert all(f.description for f in RoceSettings.model_fields.values())
    assert roce_settings() == s  # no config.yaml: the defaults


@pytest.mark.parametrize("yaml_text,field", [
    ("roce:\n  storm_per_5min: 0\n", "roce.storm_per_5min"),
    ("roce:\n  far_above: 0.5\n", "roce.far_above"),
    ("roce:\n  hot_pct: 150\n", "roce.hot_pct"),
    ("roce:\n  hot_pct: 50\n  idle_pct: 60\n", "roce.idle_pct"),
    ("roce:\n  spread_per_5min: 2000000\n", "roce.spread_per_5min"),
    ("roce:\n  storm_per_5mins: 5\n", "roce.storm_per_5mins"),
])
def test_a_bad_value_is_one_line_naming_the_field(_own_home: Path, yaml_text: str,
                                                  field: str) -> None:
    _config(_own_home, yaml_text)
    with pytest.raises(NetopsError) as err:
        load_netconfig(_own_home)
    assert field in str(err.value) and "\n" not in str(err.value), str(err.value)
    with pytest.raises(NetopsError) as err:  # the diagnosis' own read says the same line
        roce_settings()
    assert field in str(err.value)


def test_the_file_and_environment_are_read_and_injection_wins(
        _own_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(_own_home, "roce:\n  storm_per_5min: 2000000\n")
    assert roce_settings().storm_per_5min == 2_000_000
    monkeypatch.setenv("NETOPSAI_ROCE_HOT_PCT", "95")
    assert (roce_settings().storm_per_5min, roce_settings().hot_pct) == (2_000_000, 95.0)
    with roce_override(RoceSettings(storm_per_5min=7)):
        assert roce_settings().storm_per_5min == 7
    assert roce_settings().storm_per_5min == 2_000_000


def _lab(tmp_path: Path, kind: str, target: dict[str, str], **params: Any) -> Engine:
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "roce-settings", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": JOB_Q,
        "faults": [{"kind": kind, "at": "-25m", "target": target, "params": params}]}))
    return engine


def _label(engine: Engine, question: str) -> str:
    return str(Copilot(lab_backends(engine)).answer(question, "t")["root_cause"]["label"])


def test_a_storm_threshold_above_the_storm_names_no_storm(tmp_path: Path, _own_home: Path) -> None:
    """The lab's storm sends 2.4 million pause frames per 5 minutes: named at the default
    threshold by the job rules and the device checks; with `roce.storm_per_5min: 3000000` in
    config.yaml, by neither."""
    engine = _lab(tmp_path, "pfc_storm", {"interface": f"{HOST}:mlx5_2"})
    device_q = f"what is wrong with {LEAF}?"
    assert _label(engine, JOB_Q) == _label(engine, device_q) == "link.pfc_storm"
    _config(_own_home, "roce:\n  storm_per_5min: 3000000\n")
    assert _label(engine, JOB_Q) != "link.pfc_storm"
    assert _label(engine, device_q) != "link.pfc_storm"


def test_a_hot_threshold_above_the_uplink_names_no_collision(tmp_path: Path) -> None:
    engine = _lab(tmp_path, "ecmp_collision", {"link": f"{LEAF}:Ethernet10"}, job="4711")
    assert _label(engine, JOB_Q) == "link.ecmp_collision"
    with roce_override(RoceSettings(hot_pct=99.0)):  # the collided uplink runs at 98%
        assert _label(engine, JOB_Q) != "link.ecmp_collision"
        assert _label(engine, f"what is wrong with {LEAF}?") != "link.ecmp_collision"

"""The real `netopsai` console script in a subprocess, with NETOPSAI_HOME in a temporary folder.

Bad input anywhere: a non-zero exit, exactly one line on stderr naming the problem (and the
closest valid value where there is one), no traceback, and the store left as it was.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.lab.manage import lab_info
from netopsai.lab.spec import load_spec
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool

NOW = "2025-11-04T20:00:00Z"
SC = load_spec("default").scales["small"]
EVIDENCE_KEYS = {"id", "tool", "args", "window", "summary", "columns", "rows", "facts", "partial",
                 "errors"}
_SCRIPT = Path(sys.executable).with_name("netopsai")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "netopsai.cli"]
HEAVY = ("gradio", "langgraph", "langchain", "langchain_core", "langchain_openai")


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(home), COLUMNS="200", NO_COLOR="1", TERM="dumb", **extra)
    return env


def cli(home: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300,
                          env=env_for(home, **extra_env), check=False)


def good(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    return r.stdout


def bad(r: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def tool_json(home: Path, name: str, args: dict[str, Any]) -> dict[str, Any]:
    out = good(cli(home, "tool", name, json.dumps(args), "--json"))
    assert out.count("\n") == 1  # exactly one JSON document, on one line
    return json.loads(out)


def table_dump(home: Path, skip: tuple[str, ...] = ()) -> dict[str, list[str]]:
    con = sqlite3.connect(home / "netopsai.db")
    try:
        tables = [t for (t,) in con.execute(
            "select name from sqlite_master where type = 'table' order by name") if t not in skip]
        return {t: sorted(map(repr, con.execute(f'select * from "{t}"'))) for t in tables}
    finally:
        con.close()


def store_state(home: Path) -> tuple[Any, ...]:
    """Everything in the store, plus what `lab status` and a tool query report from it."""
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    ev = run_tool("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}, lab_backends(engine))
    alarms = run_tool("alarms", {"window": "7d"}, lab_backends(engine))
    return table_dump(home), lab_info(engine), ev.model_dump(), alarms.model_dump()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with a healthy small lab; only commands that must not change it run here."""
    h = tmp_path_factory.mktemp("home")
    out = good(cli(h, "lab", "init", "--now", NOW))
    assert out.strip() == f"lab default/small seed 7 ready, clock {NOW}"
    return h


# ---------------------------------------------------------------- the happy paths

def test_lab_status_reports_spec_scale_seed_and_clock(home):
    assert good(cli(home, "lab", "status")).strip() == f"lab default/small seed 7 clock {NOW}"


@pytest.mark.parametrize(("name", "args"), [
    ("metadata", {"query": "pods", "site": "dc1"}),
    ("telemetry", {"metric": "oper_status", "window": "24h"}),
    ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}),
    ("changelog", {"window": "7d", "site": "dc2"}),
    ("alarms", {"window": "2h", "category": "dci"}),
])
def test_tool_json_prints_one_evidence_with_the_spec_keys(home, name, args):
    doc = tool_json(home, name, args)
    assert set(doc) >= EVIDENCE_KEYS
    assert doc["tool"] == name and doc["id"] == "E1" and doc["errors"] == []
    assert doc["partial"] is False and doc["summary"]
    for k, v in args.items():
        assert doc["args"][k] == v
    if name != "metadata":
        assert set(doc["window"]) == {"start", "end"}
    assert all(set(row) <= set(doc["columns"]) | {"segment_range"} for row in doc["rows"])


def test_tool_json_values_match_the_spec(home):
    pods = tool_json(home, "metadata", {"query": "pods", "site": "dc1"})
    assert [p["pod"] for p in pods["rows"]] == [f"dc1-pod{i}" for i in range(1, SC.pods_per_site + 1)]
    trace = tool_json(home, "traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"})
    assert trace["facts"]["reached"] is True
    assert trace["rows"][0]["device"] == "dc1-leaf-03"
    assert {"reached", "stopped_at", "reason", "hops", "ecmp_paths"} <= set(trace["facts"])


def test_tool_without_json_prints_a_table_and_the_summary(home):
    out = good(cli(home, "tool", "metadata", '{"query": "neighbors", "name": "dc1-leaf-03"}'))
    assert "[E1] metadata" in out
    assert "dc1-spine-01" in out and "Ethernet49" in out
    assert "dc1-leaf-03 has" in out


def test_inject_then_reset(tmp_path):
    h = tmp_path / "inject-home"
    good(cli(h, "lab", "init", "--now", NOW))
    healthy = table_dump(h, skip=("meta",))
    scenario = tmp_path / "uplink.yaml"
    scenario.write_text(textwrap.dedent(f"""\
        id: leaf-uplink-down-01
        lab: {{spec: default, scale: small, seed: 7}}
        now: "{NOW}"
        faults:
          - kind: link_down
            at: "-25m"
            target: {{link: "dc1-leaf-03:Ethernet49"}}
        question: "10.1.3.20 to 10.1.5.30 slow"
        expect: {{root_cause: link.down, device: [dc1-leaf-03, dc1-spine-01]}}
        """))
    out = good(cli(h, "lab", "inject", str(scenario)))
    assert "leaf-uplink-down-01" in out and "link_down" in out and "re-initialised" not in out
    assert good(cli(h, "lab", "status")).strip() == f"lab default/small seed 7 clock {NOW}"

    trace = tool_json(h, "traceroute", {"src": "10.1.3.20", "dst": "10.1.5.30"})
    assert trace["facts"]["reached"] is True
    assert trace["facts"]["ecmp_paths"] == SC.spines_per_pod - 1
    assert trace["rows"][0]["out_interface"] != "Ethernet49"
    b = lab_backends(engine_for(f"sqlite:///{h / 'netopsai.db'}"))
    tel = run_tool("telemetry", {"metric": "oper_status", "devices": ["dc1-leaf-03"]}, b)
    assert tel.facts["down_now"] == 1
    assert [(r["interface"], r["state_at_end"], r["down_s"]) for r in tel.rows] == [
        ("Ethernet49", "down", 25 * 60)]
    opened = run_tool("alarms", {"state": "open"}, b)
    assert ("dc1-leaf-03", "Ethernet49") in {(r["device"], r["interface"]) for r in opened.rows}

    out = good(cli(h, "lab", "reset"))
    assert "default/small seed 7" in out
    assert good(cli(h, "lab", "status")).strip() == f"lab default/small seed 7 clock {NOW}"
    assert table_dump(h, skip=("meta",)) == healthy
    trace = tool_json(h, "traceroute", {"src": "10.1.3.20", "dst": "10.1.5.30"})
    assert trace["facts"]["ecmp_paths"] == SC.spines_per_pod
    assert run_tool("alarms", {"state": "open"}, b).rows == []

    later = tmp_path / "later.yaml"  # another clock: the lab is re-initialised for it
    later.write_text('id: later-01\nnow: "2025-11-05T08:00:00Z"\nfaults: []\n')
    assert "re-initialised" in good(cli(h, "lab", "inject", str(later)))
    assert good(cli(h, "lab", "status")).strip().endswith("clock 2025-11-05T08:00:00Z")


def test_same_seed_gives_the_same_lab_in_another_process(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    good(cli(a, "lab", "init", "--seed", "11", "--now", NOW, PYTHONHASHSEED="1"))
    good(cli(b, "lab", "init", "--seed", "11", "--now", NOW, PYTHONHASHSEED="2"))
    assert table_dump(a, skip=("meta",)) == table_dump(b, skip=("meta",))


def test_tool_and_lab_do_not_import_the_heavy_front_ends(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("id: quiet-01\nfaults:\n  - kind: host_down\n    target: {device: dc1-host-03-1}\n")
    code = textwrap.dedent(f"""
        import json, sys
        from netopsai.launch.app import main
        codes = [main(["lab", "init", "--now", "{NOW}"]), main(["lab", "status"]),
                 main(["tool", "traceroute", '{{"src": "10.1.3.20", "dst": "10.2.1.40"}}', "--json"]),
                 main(["tool", "metadata", '{{"query": "sites"}}']),
                 main(["lab", "inject", {str(scenario)!r}]), main(["lab", "reset"])]
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
        print("RESULT " + json.dumps({{"codes": codes, "heavy": heavy}}))
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=env_for(tmp_path / "home"), check=False)
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout.rsplit("RESULT ", 1)[1])
    assert result["codes"] == [0] * 6, r.stderr
    assert result["heavy"] == []


# ---------------------------------------------------------------- bad input

def _fault(kind: str, target: str, params: str = "") -> str:
    text = f"id: t-{kind.replace('_', '-')}\nfaults:\n  - kind: {kind}\n    target: {target}\n"
    return text + (f"    params: {params}\n" if params else "")


SCENARIOS = {
    "malformed": "id: x\nfaults: [\n  - kind: link_down\n",
    "not-a-mapping": "- link_down\n- link_flap\n",
    "unknown-device": _fault("link_down", '{link: "dc1-leaf-3:Ethernet49"}'),
    "unknown-interface": _fault("link_down", '{link: "dc1-leaf-03:Ethernet94"}'),
    "unknown-kind": _fault("link_dwn", '{link: "dc1-leaf-03:Ethernet49"}'),
    "unknown-label": "id: t4\nfaults: []\nexpect: {root_cause: link.dwn}\n",
    "unknown-scale": "id: t5\nlab: {scale: smal}\nfaults: []\n",
    "bad-prefix": _fault("acl_block", "{device: dc1-leaf-03}", '{dst: "10.2.1.0/33"}'),
    "wrong-target": _fault("link_down", "{device: dc1-leaf-03}"),
}

TRACE = '{"src": "10.1.3.20", "dst": "10.2.1.40"}'
BAD = [
    ("invalid-ip", ["tool", "traceroute", '{"src": "10.1.3.256", "dst": "10.2.1.40"}'], ["10.1.3.256"]),
    ("unknown-device", ["tool", "metadata", '{"query": "device", "name": "dc1-leaf-3"}'],
     ["dc1-leaf-3", "dc1-leaf-03"]),
    ("unknown-device-json", ["tool", "telemetry", '{"metric": "flaps", "devices": ["dc2-spine-1"]}',
                             "--json"], ["dc2-spine-1", "dc2-spine-01"]),
    ("unknown-pod", ["tool", "metadata", '{"query": "segments", "pod": "dc1-pod9"}'],
     ["dc1-pod9", "dc1-pod1"]),
    ("unknown-site", ["tool", "alarms", '{"site": "dc3"}'], ["dc3", "dc1"]),
    ("reversed-window", ["tool", "changelog",
                         '{"window": {"start": "2025-11-04T20:00:00Z", "end": "2025-11-04T10:00:00Z"}}'],
     ["precedes"]),
    ("empty-window", ["tool", "alarms",
                      '{"window": {"start": "2025-11-04T10:00:00Z", "end": "2025-11-04T10:00:00Z"}}'],
     ["empty"]),
    ("future-at", ["tool", "traceroute", TRACE[:-1] + ', "at": "2030-01-01T00:00:00Z"}'],
     ["after the lab clock"]),
    ("malformed-json", ["tool", "metadata", '{"query": sites}'], ["malformed JSON"]),
    ("unknown-argument", ["tool", "alarms", '{"severity": "major"}'], ["severity"]),
    ("unknown-tool", ["tool", "metadatx", "{}"], ["metadatx", "metadata"]),
    ("missing-tool-name", ["tool"], ["name"]),
    ("inject-missing-file", ["lab", "inject", "{dir}/nope.yaml"], ["not found", "nope.yaml"]),
    ("inject-malformed-yaml", ["lab", "inject", "{dir}/malformed.yaml"], ["malformed YAML", "line"]),
    ("inject-not-a-mapping", ["lab", "inject", "{dir}/not-a-mapping.yaml"], ["mapping"]),
    ("inject-unknown-device", ["lab", "inject", "{dir}/unknown-device.yaml"],
     ["dc1-leaf-3", "dc1-leaf-03"]),
    ("inject-unknown-interface", ["lab", "inject", "{dir}/unknown-interface.yaml"],
     ["Ethernet94", "Ethernet49"]),
    ("inject-unknown-kind", ["lab", "inject", "{dir}/unknown-kind.yaml"], ["link_dwn", "link_down"]),
    ("inject-unknown-label", ["lab", "inject", "{dir}/unknown-label.yaml"], ["link.dwn", "link.down"]),
    ("inject-unknown-scale", ["lab", "inject", "{dir}/unknown-scale.yaml"], ["smal", "small"]),
    ("inject-bad-prefix", ["lab", "inject", "{dir}/bad-prefix.yaml"], ["10.2.1.0/33"]),
    ("inject-wrong-target", ["lab", "inject", "{dir}/wrong-target.yaml"], ["link_down", "link"]),
    ("init-unknown-scale", ["lab", "init", "--scale", "huge"], ["huge"]),
    ("init-close-scale", ["lab", "init", "--scale", "meduim"], ["meduim", "medium"]),
    ("init-unknown-spec", ["lab", "init", "--spec", "defualt"], ["defualt", "default"]),
    ("init-bad-seed", ["lab", "init", "--seed", "abc"], ["--seed"]),
    ("init-bad-now", ["lab", "init", "--now", "yesterday"], ["yesterday"]),
    ("init-unknown-option", ["lab", "init", "--scal", "small"], ["--scal", "--scale"]),
    ("reset-unknown-option", ["lab", "reset", "--hard"], ["--hard"]),
    ("status-extra-argument", ["lab", "status", "dc1"], ["dc1"]),
    ("unknown-command", ["frobnicate"], ["frobnicate"]),
]


@pytest.fixture(scope="module")
def scenario_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("scenarios")
    for name, text in SCENARIOS.items():
        (d / f"{name}.yaml").write_text(text)
    return d


@pytest.mark.parametrize(("args", "needles"), [pytest.param(a, n, id=i) for i, a, n in BAD])
def test_bad_input_is_one_line_and_changes_nothing(home, scenario_dir, args, needles):
    before = store_state(home)
    r = cli(home, *(a.replace("{dir}", str(scenario_dir)) for a in args))
    line = bad(r, *needles)
    assert line.startswith("error: ")
    assert store_state(home) == before


def test_bad_target_in_a_scenario_for_another_clock_changes_nothing(tmp_path):
    h = tmp_path / "h"
    good(cli(h, "lab", "init", "--now", NOW))
    before = store_state(h)
    sc = tmp_path / "other-clock.yaml"
    sc.write_text('id: other-clock\nnow: "2025-11-05T08:00:00Z"\nfaults:\n  - kind: link_down\n'
                  '    target: {link: "dc1-leaf-3:Ethernet49"}\n')
    bad(cli(h, "lab", "inject", str(sc)), "dc1-leaf-3", "dc1-leaf-03")
    assert store_state(h) == before


def test_commands_before_any_lab_exists(tmp_path):
    h = tmp_path / "empty"
    for args in (["tool", "metadata", '{"query": "sites"}', "--json"], ["tool", "traceroute", TRACE],
                 ["lab", "reset"], ["lab", "status"]):
        bad(cli(h, *args), "no lab", "netopsai lab init")
    assert not (h / "netopsai.db.healthy").exists()  # the failed commands built no lab


def test_no_arguments_shows_the_usage_not_a_traceback(tmp_path):
    r = cli(tmp_path, "lab")
    assert r.returncode != 0
    assert "Traceback" not in r.stdout + r.stderr
    assert "init" in r.stdout + r.stderr and "inject" in r.stdout + r.stderr

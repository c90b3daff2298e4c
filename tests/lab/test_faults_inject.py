"""Injection around the faults: `lab reset` brings the healthy lab back, re-init only when the
scenario's lab or clock differs, bad scenarios fail with one line and change nothing, and noise
stays off the question's path and the fault's target."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info, reset_lab
from netopsai.lab.scenario import load_scenario
from tests.fault_helpers import (
    QUESTION,
    Lab,
    Route,
    alarms,
    call,
    device,
    fingerprint,
    interface,
    lab_fixture,  # noqa: F401  (registers the `lab` fixture)
    path_fixture,  # noqa: F401  (registers the `path` fixture)
    port_history,
    scenario,
)


# -- re-init and reset ---------------------------------------------------------------------------
def test_inject_at_the_init_clock_does_not_reinit_but_another_clock_does(lab: Lab) -> None:
    assert lab.inject().reinit is False
    later = lab.clock + timedelta(hours=1)
    done = inject(lab.engine, scenario(later))
    assert done.reinit is True and lab_info(lab.engine).clock == later


@pytest.mark.parametrize("kind", ["device_down", "acl_block", "mtu_mismatch"])
def test_reset_restores_the_healthy_lab(lab: Lab, path: Route, backends: Backends, kind: str) -> None:
    fault = {"device_down": {"kind": kind, "target": {"device": path.spine}},
             "acl_block": {"kind": kind, "target": {"device": path.src_tor}},
             "mtu_mismatch": {"kind": kind, "target": {"interface": path.uplink.near}}}[kind]
    lab.inject(fault, noise={"alarms": 5, "changes": 3, "flaps": 1})
    assert not lab.trace(size=9000).facts["reached"] or alarms(lab.b, state="open")
    injected = lab_info(lab.engine).version
    reset_lab(lab.engine)
    assert lab_info(lab.engine).version != injected  # caches keyed by version are dropped
    ev = lab.trace(size=9000)
    assert ev.facts["reached"] and ev.facts["path_devices"] == path.devices
    assert ev.facts["good_paths"] == path.ecmp
    assert alarms(lab.b, state="open") == []
    for tool, args in (("alarms", {"window": "7d"}), ("changelog", {"window": "7d"}),
                       ("metadata", {"query": "devices"})):
        assert call(lab.b, tool, **args).rows == call(backends, tool, **args).rows
    assert interface(lab.b, path.uplink.near) == interface(backends, path.uplink.near)
    assert device(lab.b, path.spine) == device(backends, path.spine)


# -- bad input -----------------------------------------------------------------------------------
BAD_FAULTS = [  # (fault, words the one-line message must contain)
    ({"kind": "device_down", "target": {"device": "dc1-leaf-3"}},
     ["unknown device", "'dc1-leaf-3'", "dc1-leaf-03"]),
    ({"kind": "link_down", "target": {"link": "dc1-leaf-03:Ethernt52"}},
     ["unknown interface", "'Ethernt52'", "Ethernet52"]),
    ({"kind": "link_dwn", "target": {"link": "dc1-leaf-03:Ethernet52"}},
     ["unknown fault kind", "'link_dwn'", "link_down"]),
    ({"kind": "link_down", "target": {"device": "dc1-leaf-03"}}, ["link_down", "link or interface"]),
    ({"kind": "crc_errors", "target": {"interface": "dc1-leaf-03:Vlan103"}}, ["crc_errors", "link"]),
    ({"kind": "dci_link_down", "target": {"link": "dc1-leaf-03:Ethernet52"}}, ["DCI", "fabric"]),
    ({"kind": "host_down", "target": {"device": "dc1-leaf-03"}}, ["host", "dc1-leaf-03", "leaf"]),
    ({"kind": "acl_block", "target": {"device": "dc1-leaf-03"}, "params": {"dst": "10.2.1.0/33"}},
     ["bad prefix", "10.2.1.0/33"]),
    ({"kind": "link_down", "at": "-25x", "target": {"link": "dc1-leaf-03:Ethernet52"}}, ["25x"]),
    ({"kind": "link_flap", "target": {"link": "dc1-leaf-03:Ethernet52"}, "params": {"count": "lots"}},
     ["count", "lots"]),
]


@pytest.mark.parametrize(("fault", "words"), BAD_FAULTS, ids=[f["kind"] + str(i)
                                                               for i, (f, _) in enumerate(BAD_FAULTS)])
def test_bad_fault_fails_with_one_line_and_changes_nothing(lab: Lab, path: Route, fault: dict[str, Any],
                                                          words: list[str]) -> None:
    # a fault is already in: a bad inject must neither reset it away nor add anything
    lab.inject({"kind": "link_down", "target": {"link": path.first("dci").near}})
    before = fingerprint(lab.engine)
    with pytest.raises(NetopsError) as err:
        lab.inject({"kind": "change", "target": {"device": path.src_tor}}, fault)
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert fingerprint(lab.engine) == before
    assert len(alarms(lab.b, state="open", category="dci")) == 2


def test_bad_target_on_a_scenario_that_needs_a_new_lab_changes_nothing(lab: Lab) -> None:
    # another clock means a re-init; the bad target must be found before that happens
    before = fingerprint(lab.engine)
    bad = scenario(lab.clock + timedelta(hours=3), {"kind": "device_down",
                                                   "target": {"device": "dc1-leaf-3"}})
    with pytest.raises(NetopsError, match="unknown device 'dc1-leaf-3'"):
        inject(lab.engine, bad)
    assert fingerprint(lab.engine) == before
    assert lab_info(lab.engine).clock == lab.clock


BAD_FILES = [  # (YAML text, words the message must contain)
    ("id: x\nfaults: [{kind: link_down, target: {link: dc1-leaf-03:Ethernet52}\n",
     ["malformed YAML", "line"]),
    ("- just\n- a list\n", ["YAML mapping"]),
    ("id: x\nfaults:\n  - {kind: link_dwon, target: {device: dc1-leaf-03}}\n",
     ["unknown fault kind", "link_down"]),
    ("id: x\nfaults:\n  - {kind: link_down, targt: {device: dc1-leaf-03}}\n", ["faults.0.targt"]),
    ("id: Bad_Id\n", ["id"]),
    ("id: x\nexpect: {root_cause: link.dwn}\n", ["root-cause label", "link.down"]),
]


@pytest.mark.parametrize(("text", "words"), BAD_FILES, ids=range(len(BAD_FILES)))
def test_bad_scenario_file(lab: Lab, tmp_path: Path, text: str, words: list[str]) -> None:
    before = fingerprint(lab.engine)
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(NetopsError) as err:
        load_scenario(f)
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert fingerprint(lab.engine) == before


def test_good_scenario_file_loads_and_injects(lab: Lab, tmp_path: Path) -> None:
    f = tmp_path / "ok.yaml"
    f.write_text(f"id: leaf-acl-01\nnow: '{lab.at(timedelta())}'\nquestion: {QUESTION}\n"
                 "faults:\n  - {kind: acl_block, at: -25m, target: {device: dc1-leaf-03}}\n"
                 "expect: {root_cause: config.acl_block, device: dc1-leaf-03}\n")
    done = inject(lab.engine, load_scenario(f))
    assert done.faults == ["acl_block"] and not done.reinit
    assert lab.trace().rows[-1]["status"] == "!X"


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(NetopsError, match="not found"):
        load_scenario(tmp_path / "nope.yaml")


# -- noise ---------------------------------------------------------------------------------------
NOISE = {"alarms": 30, "changes": 10, "flaps": 2}
WINDOW = "7h"  # noise lies in the 6 hours before the clock


def _events(lab: Lab) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]], dict[str, int]]:
    b = lab.b
    al = {(r["kind"], r["device"], r["interface"], r["raised_at"], r["state"])
          for r in alarms(b, window=WINDOW)}
    ch = {(r["ticket"], r["device"], r["status"]) for r in call(b, "changelog", window=WINDOW).rows}
    fl = {k: r["flaps"] for k, r in port_history(b, metric="flaps", window=WINDOW).items()}
    return al, ch, fl


@pytest.mark.parametrize("fault", ["acl_block", "link_down"])
def test_noise_stays_off_the_path_and_the_target(lab: Lab, path: Route, fault: str) -> None:
    target = ({"kind": "acl_block", "target": {"device": path.src_tor}} if fault == "acl_block"
              else {"kind": "link_down", "target": {"link": path.uplink.near}})
    lab.inject(target, sid=f"noise-{fault.replace('_', '-')}")
    quiet = _events(lab)
    lab.inject(target, noise=NOISE, sid=f"noise-{fault.replace('_', '-')}")
    noisy = _events(lab)
    new_alarms, new_changes = noisy[0] - quiet[0], noisy[1] - quiet[1]
    new_flaps = {k: n - quiet[2].get(k, 0) for k, n in noisy[2].items() if n != quiet[2].get(k, 0)}
    # as many as asked: every flap shows on both ends and raises a (cleared) alarm on each
    assert len(new_alarms) == NOISE["alarms"] + 2 * NOISE["flaps"]
    assert {a[4] for a in new_alarms} == {"closed"}
    assert len(new_changes) == NOISE["changes"] and {c[2] for c in new_changes} == {"completed"}
    assert len(new_flaps) == 2 * NOISE["flaps"]
    # none of it on the fault's devices or on the path the question's trace takes now
    off = set(path.devices) | set(lab.trace().facts["path_devices"]) | {path.src_tor}
    if fault == "link_down":
        off.add(path.uplink.peer)
    noisy_devices = ({a[1] for a in new_alarms} | {c[1] for c in new_changes}
                     | {k.split(":")[0] for k in new_flaps})
    assert noisy_devices and not noisy_devices & off, noisy_devices & off

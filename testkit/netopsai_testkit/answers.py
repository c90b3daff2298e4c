"""Faulted labs asked issue 25's question classes: shared by the answer tests
(tests/diagnosis/test_answers_*.py, the real model's tests) and bench/bench_real_model.py."""

from __future__ import annotations

from typing import Any

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario

SCENARIO_QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"  # the scenario's label only


def lab_copilot(engine: Any, faults: list[dict[str, Any]]) -> Copilot:
    """FAULTS injected 25 minutes before the lab's clock, with some noise, and a Copilot on it."""
    inject(engine, Scenario.model_validate({
        "id": "answers", "now": lab_info(engine).clock, "question": SCENARIO_QUESTION,
        "faults": [{"at": "-25m", **f} for f in faults],
        "noise": {"alarms": 20, "changes": 6, "flaps": 2}}))
    return Copilot(lab_backends(engine))


A, B = "10.2.27.20", "10.1.13.20"  # dc2-leaf-27's host to dc1-leaf-13's, across the DCI
# Issue 25's classes the real model is asked: (faults, question, the injected fault's label and
# device, words the answer must keep)
CLASSES: dict[str, tuple[list[dict[str, Any]], str, tuple[str, str], str]] = {
    "past-window": ([{"kind": "device_reboot", "at": "-468m", "target": {"device": "dc1-border-02"}}],
                    f"between {A} and {B} at 12:12 today?", ("device.reboot", "dc1-border-02"), "12:12"),
    "return-path": ([{"kind": "acl_block", "target": {"device": "dc2-leaf-27"},
                      "params": {"dst": "10.2.27.0/24"}}],
                    f"SYNs arrive at {B} from {A} but nothing comes back",
                    ("config.acl_block", "dc2-leaf-27"), "return path"),
    "hurried": ([{"kind": "acl_block", "target": {"device": "dc2-leaf-27"},
                  "params": {"dst": "10.1.13.0/24"}}],
                f"{A} cant rech {B} pls chk", ("config.acl_block", "dc2-leaf-27"), "dc2-leaf-27"),
}

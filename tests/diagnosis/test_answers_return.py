"""Both directions (issue 25 item 2): a flow that delivers is traced back as well, and an ACL
that only the return path crosses (on the source's ToR, denying the source's own segment) is
the answer's cause, said as a return-path fault — never a healthy pair or a break nearby."""

from __future__ import annotations

from typing import Any

import pytest

from tests.diagnosis.test_answers_headline import ask, first_line, lab_copilot

BACK_ACL = {"kind": "acl_block", "target": {"device": "dc2-leaf-27"},
            "params": {"dst": "10.2.27.0/24"}}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def test_a_fault_only_on_the_return_path_is_named_as_such(make_lab: Any) -> None:
    r = ask(lab_copilot(make_lab(), [BACK_ACL]),
            "users on 10.2.27.20 report problems reaching 10.1.13.20")
    assert r["root_cause"]["label"] == "config.acl_block"
    assert r["root_cause"]["device"] == "dc2-leaf-27"
    head = first_line(r)
    assert head.startswith("**Reachable: one way only**") and "return path stops at dc2-leaf-27" in head
    assert "Nearby" not in head
    assert any(e["tool"] == "traceroute" and e["args"]["src"] == "10.1.13.20" for e in r["evidence"])

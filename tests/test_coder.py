"""The coder agent (netopsai/coder.py): recipes over real tool evidence from an injected lab, the
sandbox's containment (each violation contained and reported as such, layer by layer), and the
LLM path with a scripted chat model, including the one retry.

Every sandbox run starts Python with pandas (~0.7 s), so tests share runs where they can. The
layer tests switch one protection off to prove the other holds on its own; those that need root
(network namespace, dropping to an unprivileged user) say so when skipped. CI runs as root."""

from __future__ import annotations

import os
import socket
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.coder import extract_code, run_generated, run_recipe
from netopsai.evidence import Evidence
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.planner.rules import RECIPES as PLANNED
from netopsai.recipes import RECIPES
from netopsai.sandbox import SandboxResult, SandboxSettings, netns_available, prestart, run_code, worker
from netopsai.sandbox import worker_args as sandbox_worker_args
from netopsai.tools.registry import run_tool

SRC, DST = "10.1.3.20", "10.2.1.40"
TICKET = "CHG-4242"
ROOT = os.geteuid() == 0
NEEDS_ROOT = pytest.mark.skipif(not ROOT, reason="dropping to an unprivileged user needs root")
NEEDS_NETNS = pytest.mark.skipif(not netns_available(),
                                 reason="`unshare --net` needs root and a kernel that allows it")
FLAPS = Evidence(id="E1", tool="telemetry", args={"metric": "flaps"},
                 columns=["device", "interface", "flaps"],
                 rows=[{"device": "dc1-spine-04", "interface": "Ethernet17", "flaps": 5},
                       {"device": "dc1-leaf-21", "interface": "Ethernet52", "flaps": 2},
                       {"device": "dc1-spine-04", "interface": "Ethernet18", "flaps": 1}])


def call(b: Backends, tool: str, **args: Any) -> Evidence:
    ev = run_tool(tool, args, b)
    assert not ev.errors, ev.errors
    return ev


def table(e: Evidence) -> dict[str, dict[str, Any]]:
    return {e.id: {"columns": e.columns, "rows": e.rows, "meta": {"tool": e.tool}}}


def settings(tmp: Path, **kw: Any) -> SandboxSettings:
    """Temp dirs under the test's own dir, so leftover processes can be found by path. Cold runs
    unless the test asks for the warm worker (the `path` fixture)."""
    return SandboxSettings(tmp_root=str(tmp), **{"warm": False, **kw})


def survivors(tmp: Path) -> list[int]:
    """Processes still running from this test's sandboxes: their command line names tmp (cold
    runs) or their working directory is under it (runs forked from the warm worker). A process
    SIGKILLed a moment ago keeps its cwd until it has finished exiting: allow it a few seconds."""
    deadline = time.monotonic() + 5
    while True:
        found = []
        for p in psutil.process_iter(["pid", "cmdline", "cwd", "status"]):
            if p.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(str(tmp) in part for part in p.info["cmdline"] or []) or \
                    str(p.info["cwd"] or "").startswith(str(tmp)):
                found.append(p.info["pid"])
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.fixture(scope="module", autouse=True)
def _stop_workers() -> Iterator[None]:
    yield
    worker.shutdown()


@pytest.fixture(params=["cold", "warm"])
def path(request: pytest.FixtureRequest) -> Callable[..., SandboxSettings]:
    """Settings for a run by either path: a fresh interpreter, or a fork of the warm worker
    (started and awaited here, so the run cannot fall back to cold unnoticed)."""
    warm = request.param == "warm"

    def make(tmp: Path, **kw: Any) -> SandboxSettings:
        s = settings(tmp, warm=warm, **kw)
        assert not warm or prestart(s, wait=True), "the warm worker did not start"
        return s
    return make


def run_by(path: Callable[..., SandboxSettings], code: str, tmp: Path,
           inputs: dict[str, dict[str, Any]] | None = None, **kw: Any) -> SandboxResult:
    s = path(tmp, **kw)
    res = run_code(code, inputs, settings=s)
    assert res.warm == s.warm, "ran by the other path"
    return res


# -- recipes over real tool evidence -------------------------------------------------------------

class Faulty:
    """A fresh lab with a flapping link on the SRC -> DST path, a change record on its near end
    just before, and CRC errors on the destination ToR's path port; noise elsewhere."""

    def __init__(self, engine: Engine) -> None:
        self.b = lab_backends(engine)
        hops = call(self.b, "traceroute", src=SRC, dst=DST).rows
        self.path = [h["device"] for h in hops]
        self.flap_dev, self.flap_port = hops[1]["device"], hops[1]["out_interface"]  # spine uplink
        self.flap_peer = hops[2]["device"]
        dst_tor = hops[-2]  # the last switch before the destination host: its ToR
        self.crc_dev, self.crc_port = dst_tor["device"], dst_tor["interface"]
        self.crc_pod = call(self.b, "metadata", query="device", name=self.crc_dev).rows[0]["pod"]
        self.clock = self.b.inventory.clock()
        inject(engine, Scenario.model_validate({
            "id": "coder", "now": self.clock, "question": f"{SRC} to {DST} not communicating",
            "faults": [
                {"kind": "change", "at": "-27m", "target": {"device": self.flap_dev},
                 "params": {"summary": "Upgrade optics firmware", "ticket": TICKET}},
                {"kind": "link_flap", "at": "-25m", "params": {"count": 5},
                 "target": {"link": f"{self.flap_dev}:{self.flap_port}"}},
                {"kind": "crc_errors", "at": "-25m",
                 "target": {"interface": f"{self.crc_dev}:{self.crc_port}"}}],
            "noise": {"alarms": 20, "changes": 8, "flaps": 2}}))

    def analyse(self, question: str, recipe: str) -> Evidence:
        """Plan the question offline, run the planned calls, then the planned recipe on them."""
        p = plan(question, Vocabulary.from_inventory(self.b.inventory), self.clock)
        assert p.recipe == recipe, (p.intent, p.recipe)
        inputs = [run_tool(c.tool, c.args, self.b, f"E{i}") for i, c in enumerate(p.calls, 1)]
        assert inputs and all(not e.errors for e in inputs)
        ev = run_recipe(recipe, inputs, question)
        assert ev.errors == [], ev.errors
        assert (ev.tool, ev.args["recipe"], ev.args["inputs"]) == ("coder", recipe, [e.id for e in inputs])
        assert ev.facts["code"] == RECIPES[recipe].source and ev.facts["violation"] is None
        assert ev.id == f"E{len(inputs) + 1}" and ev.rows and set(ev.rows[0]) == set(ev.columns)
        return ev


@pytest.fixture
def faulty(make_lab: Callable[..., Engine]) -> Faulty:
    return Faulty(make_lab())


def test_library_covers_every_planner_recipe() -> None:
    assert set(RECIPES) == set(PLANNED)


def test_flaps_vs_changes_finds_the_change_behind_the_flapping_link(faulty: Faulty) -> None:
    ev = faulty.analyse("did the flaps line up with changes in the last 6h?", "flaps_vs_changes")
    rows = {(r["device"], r["interface"]): r for r in ev.rows}
    near = rows[(faulty.flap_dev, faulty.flap_port)]
    assert near["lined_up"] and near["ticket"] == TICKET and near["flaps"] == 5
    assert 0 < near["minutes_from_change"] <= 30  # the flaps began after the change started
    assert not any(r["lined_up"] for r in ev.rows if r["device"] == faulty.flap_peer)  # no change there
    assert ev.rows[0] == near and TICKET in ev.summary and faulty.flap_dev in ev.summary


def test_alarms_vs_changes_pairs_the_flap_alarm_with_the_change(faulty: Faulty) -> None:
    ev = faulty.analyse("correlate alarms with changes in the last 6h", "alarms_vs_changes")
    lined = [(r["kind"], r["device"], r["ticket"]) for r in ev.rows if r["lined_up"]]
    assert ("LINK_FLAP", faulty.flap_dev, TICKET) in lined
    assert all(dev != faulty.flap_peer for _, dev, _ in lined)
    assert len(ev.rows) > len(lined)  # the noise alarms are listed, not lined up


def test_path_alarms_names_the_alarmed_hops_in_path_order(faulty: Faulty) -> None:
    ev = faulty.analyse(f"any alarms on the path from {SRC} to {DST} in the last 2h", "path_alarms")
    assert [r["device"] for r in ev.rows] == list(dict.fromkeys(faulty.path))
    alarmed = {r["device"] for r in ev.rows if r["alarms"]}
    assert alarmed == {faulty.flap_dev, faulty.flap_peer, faulty.crc_dev}  # noise stays off the path
    flap = next(r for r in ev.rows if r["device"] == faulty.flap_dev)
    assert flap["open"] == 1 and "LINK_FLAP" in flap["kinds"] and flap["hop"] == 2
    assert "3 of" in ev.summary and faulty.crc_dev in ev.summary


def test_path_changes_finds_the_change_on_the_path(faulty: Faulty) -> None:
    ev = faulty.analyse(f"changes on the path from {SRC} to {DST} in the last 6h", "path_changes")
    changed = {r["device"]: r for r in ev.rows if r["changes"]}
    assert list(changed) == [faulty.flap_dev] and TICKET in changed[faulty.flap_dev]["tickets"]
    assert len(ev.rows) == len(set(faulty.path))


def test_top_per_pod_ranks_the_crc_port_first_in_its_pod(faulty: Faulty) -> None:
    ev = faulty.analyse("top 3 error ports per PoD in the last 24 hours", "top_per_pod")
    first = next(r for r in ev.rows if r["pod"] == faulty.crc_pod and r["rank"] == 1)
    assert (first["device"], first["interface"]) == (faulty.crc_dev, faulty.crc_port)
    for pod in {r["pod"] for r in ev.rows}:
        ranked = [r for r in ev.rows if r["pod"] == pod]
        assert [r["rank"] for r in ranked] == list(range(1, len(ranked) + 1)) and len(ranked) <= 3
        assert [r["total"] for r in ranked] == sorted((r["total"] for r in ranked), reverse=True)
    assert ev.args["params"]["top"] == 3 and faulty.crc_dev in ev.summary


def test_a_recipe_over_quiet_evidence_says_so(backends: Backends) -> None:
    inputs = [run_tool("telemetry", {"metric": "flaps", "window": "10m"}, backends, "E1"),
              run_tool("changelog", {"window": "10m"}, backends, "E2")]
    assert inputs[0].rows == [] and not inputs[0].errors
    ev = run_recipe("flaps_vs_changes", inputs, "did the flaps line up with changes?")
    assert ev.errors == [] and ev.rows == [] and "flaps" in ev.columns
    assert "no flapping ports" in ev.summary


def test_recipe_refuses_missing_inputs_and_unknown_names_without_running() -> None:
    ev = run_recipe("path_alarms", [FLAPS], "alarms on the path")
    assert ev.errors and "traceroute and alarms" in ev.errors[0] and ev.facts["code"] == ""
    ev = run_recipe("nope", [FLAPS], "?")
    assert ev.errors and "top_per_pod" in ev.errors[0] and ev.tool == "coder"


# -- the sandbox ---------------------------------------------------------------------------------

def test_happy_path_tables_stdout_and_scratch_files(path: Callable[..., SandboxSettings],
                                                   tmp_path: Path) -> None:
    code = ("open('scratch.txt', 'w').write('kept in the sandbox dir')\n"
            "print('rows:', len(E1), open('scratch.txt').read())\nprint('x' * 5000)\n"
            "result = E1.groupby('device')['flaps'].sum().sort_values(ascending=False)\n")
    res = run_by(path, code, tmp_path, table(FLAPS), max_stdout=200)
    assert res.ok and res.error is None and res.violation is None, res.error
    assert res.columns == ["device", "flaps"]
    assert res.rows == [{"device": "dc1-spine-04", "flaps": 6}, {"device": "dc1-leaf-21", "flaps": 2}]
    assert res.stdout.startswith("rows: 3 kept in the sandbox dir") and res.stdout.endswith("truncated]")
    assert {"rlimits", "audit-hook"} <= set(res.isolation)
    if ROOT:
        assert "user:nobody" in res.isolation and ("netns" in res.isolation) == netns_available()
    assert list(tmp_path.iterdir()) == []  # the temp dir is gone


@pytest.mark.parametrize(("code", "error"), [
    ("result = (", "SyntaxError: '(' was never closed (line 1)"),
    ("x = 1\nresult = E1['nope']", "KeyError: 'nope' (line 2)"),
])
def test_bad_code_is_an_error_not_a_crash(code: str, error: str, path: Callable[..., SandboxSettings],
                                          tmp_path: Path) -> None:
    res = run_by(path, code, tmp_path, table(FLAPS))
    assert (res.ok, res.error, res.violation) == (False, error, None)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A port on loopback that the sandboxed code tries to reach; nothing must arrive."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        srv.setblocking(False)
        yield srv


def connects(srv: socket.socket) -> bool:
    """Whether a connection reached the listener (the sandbox has exited by now)."""
    try:
        srv.accept()[0].close()
    except BlockingIOError:
        return False
    return True


@pytest.mark.parametrize("layers", [
    pytest.param({}, id="netns-and-hook"),
    pytest.param({"audit_hook": False}, id="netns-only", marks=NEEDS_NETNS),
    pytest.param({"netns": False}, id="hook-only"),
])
def test_network_access_is_contained(layers: dict[str, bool], listener: socket.socket,
                                     path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    port = listener.getsockname()[1]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nresult = 1"
    res = run_by(path, code, tmp_path, **layers)
    assert (res.ok, res.violation) == (False, "network"), res.error
    assert not connects(listener)


def test_control_without_either_layer_the_connection_arrives(
        listener: socket.socket, path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    """Proves the listener check above can fail: unprotected, the same code gets through."""
    port = listener.getsockname()[1]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nresult = 1"
    res = run_by(path, code, tmp_path, audit_hook=False, netns=False)
    assert res.ok and connects(listener), res.error


def test_writes_outside_its_dir_are_refused(path: Callable[..., SandboxSettings],
                                            tmp_path: Path) -> None:
    target = Path(tempfile.gettempdir()) / f"netopsai-escape-{uuid.uuid4().hex}" / "x"
    code = (f"import os\nos.makedirs({str(target.parent)!r}, exist_ok=True)\n"
            f"open({str(target)!r}, 'w').write('escaped')\nresult = 1")
    try:
        res = run_by(path, code, tmp_path / "runs")
        assert (res.ok, res.violation) == (False, "filesystem") and "os.mkdir" in (res.error or "")
        assert not target.exists() and not target.parent.exists()
    finally:
        if target.parent.exists():
            target.unlink(missing_ok=True)
            target.parent.rmdir()


@NEEDS_ROOT
def test_without_the_hook_the_unprivileged_user_cannot_write_root_dirs(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    owned = tmp_path / "root-owned"
    owned.mkdir(mode=0o700)
    code = f"open({str(owned / 'x')!r}, 'w').write('escaped')\nresult = 1"
    res = run_by(path, code, tmp_path / "runs", audit_hook=False)
    assert (res.ok, res.violation) == (False, "filesystem") and "Permission denied" in (res.error or "")
    assert list(owned.iterdir()) == []


def test_a_fork_bomb_that_swallows_refusals_is_still_reported(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except Exception:\n        pass"
    res = run_by(path, code, tmp_path, cpu_seconds=2)
    assert (res.ok, res.violation) == (False, "process") and "os.fork" in (res.error or "")
    assert survivors(tmp_path) == []


@NEEDS_ROOT
def test_without_the_hook_rlimit_nproc_stops_a_fork_bomb(path: Callable[..., SandboxSettings],
                                                         tmp_path: Path) -> None:
    code = "import os\nwhile True:\n    os.fork()"
    res = run_by(path, code, tmp_path, audit_hook=False, max_procs=8)
    assert (res.ok, res.violation) == (False, "process") and "BlockingIOError" in (res.error or "")
    assert survivors(tmp_path) == []


def test_an_infinite_loop_hits_the_cpu_limit(path: Callable[..., SandboxSettings],
                                             tmp_path: Path) -> None:
    res = run_by(path, "print('looping')\nwhile True:\n    pass", tmp_path, cpu_seconds=2)
    assert (res.ok, res.violation) == (False, "cpu") and "CPU time limit" in (res.error or "")
    assert res.stdout == "looping\n"  # output printed before the kill is kept


def test_a_sleeping_loop_is_killed_at_the_wall_clock_timeout(path: Callable[..., SandboxSettings],
                                                             tmp_path: Path) -> None:
    code = ("import time\nwhile True:\n"
            "    try:\n        time.sleep(60)\n    except BaseException:\n        pass\n")
    res = run_by(path, code, tmp_path, timeout_s=2)
    assert (res.ok, res.violation) == (False, "timeout") and "wall-clock" in (res.error or "")
    assert survivors(tmp_path) == []


def test_a_10gb_allocation_is_a_memory_violation(path: Callable[..., SandboxSettings],
                                                 tmp_path: Path) -> None:
    res = run_by(path, "blob = b'x' * (10 * 2**30)\nresult = len(blob)", tmp_path)
    assert (res.ok, res.violation, res.error) == (False, "memory", "MemoryError (line 1)")


def warm(tmp: Path, **kw: Any) -> SandboxSettings:
    s = settings(tmp, warm=True, **kw)
    assert prestart(s, wait=True), "the warm worker did not start"
    return s


def test_warm_runs_share_the_worker_but_no_state(tmp_path: Path) -> None:
    """Both runs are forks of one worker (same parent), yet what the first leaves in a module
    or a file is not seen by the second."""
    s = warm(tmp_path)
    first = run_code("import os\npd.LEAK = 1\nopen('left.txt', 'w').write('x')\n"
                     "result = os.getppid()", settings=s)
    second = run_code("import os\nresult = [os.getppid(), hasattr(pd, 'LEAK'), "
                      "os.path.exists('left.txt')]", settings=s)
    assert first.ok and second.ok and first.warm and second.warm, (first.error, second.error)
    assert second.value == [first.value, False, False]


@NEEDS_ROOT
def test_without_the_hook_a_warm_run_cannot_touch_its_worker(tmp_path: Path) -> None:
    """The worker keeps its user while each run drops to nobody: no signal, no memory access."""
    s = warm(tmp_path, audit_hook=False)
    kill = run_code("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nresult = 1", settings=s)
    peek = run_code("import os\nresult = len(open(f'/proc/{os.getppid()}/mem', 'rb').read(1))",
                    settings=s)
    assert (kill.ok, kill.warm) == (False, True) and "PermissionError" in (kill.error or "")
    assert (peek.ok, peek.warm) == (False, True) and "PermissionError" in (peek.error or "")
    again = run_code("result = 2", settings=s)
    assert (again.ok, again.warm, again.value) == (True, True, 2)  # the worker is still there


def test_a_busy_worker_sends_the_run_down_the_cold_path(tmp_path: Path) -> None:
    s = warm(tmp_path)
    held = worker.acquire(*sandbox_worker_args(s))
    assert held is not None
    try:
        res = run_code("result = 3", settings=s)
    finally:
        held.lock.release()
    assert (res.ok, res.warm, res.value) == (True, False, 3)
    assert run_code("result = 4", settings=s).warm


def test_a_dead_worker_is_replaced_and_its_run_falls_back(tmp_path: Path) -> None:
    s = warm(tmp_path)
    w = worker.acquire(*sandbox_worker_args(s))
    assert w is not None
    w.lock.release()
    w.proc.kill()
    w.proc.wait()
    res = run_code("result = 5", settings=s)
    assert (res.ok, res.warm, res.value) == (True, False, 5)
    worker.shutdown()  # forget the retry delay
    assert prestart(s, wait=True) and run_code("result = 6", settings=s).warm


def test_a_forked_copy_of_the_process_leaves_the_worker_alone(tmp_path: Path) -> None:
    """A fork (e.g. a batch worker) inherits the registry: its shutdown must not stop ours."""
    s = warm(tmp_path)
    pid = os.fork()
    if pid == 0:
        worker.shutdown()
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    res = run_code("result = 7", settings=s)
    assert (res.ok, res.warm, res.value) == (True, True, 7)


# -- the LLM path --------------------------------------------------------------------------------

class ScriptedChat(GenericFakeChatModel):
    """Replies from a script and records every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, *args: Any, **kwargs: Any) -> ScriptedChat:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted(*replies: str) -> ScriptedChat:
    return ScriptedChat(messages=iter([AIMessage(content=r) for r in replies]))


def block(code: str) -> str:
    return f"Here you go:\n```python\n{code}\n```\n"


def test_generated_code_is_retried_once_with_the_error(backends: Backends) -> None:
    ev_in = call(backends, "telemetry", metric="errors", pod="dc1-pod1", top=30, window="24h")
    assert len(ev_in.rows) > 5
    wrong = "worst = E1.sort_values('total', ascending=False)"  # forgets `result`
    fixed = ("result = E1.sort_values('total', ascending=False, kind='stable')"
             ".head(3)[['device', 'interface', 'total']]")
    llm = scripted(block(wrong), block(fixed))
    ev = run_generated(llm, "which 3 ports had the most errors?", [ev_in])
    assert ev.errors == [] and ev.facts["code"] == fixed + "\n" and len(llm.seen) == 2
    assert ev.columns == ["device", "interface", "total"]
    assert ev.rows == [{k: r[k] for k in ev.columns} for r in ev_in.rows[:3]]
    assert [a["ok"] for a in ev.facts["attempts"]] == [False, True]
    assert "result" in ev.facts["attempts"][0]["error"] and "first attempt failed" in ev.summary
    retry = llm.seen[1][-1].text
    assert "NameError" in retry and "result" in retry
    prompt = llm.seen[0][0].text
    assert "which 3 ports had the most errors?" in prompt and "E1" in prompt and "telemetry" in prompt
    assert "device, interface, total, max_per_5min" in prompt  # the columns
    assert f"Rows: {len(ev_in.rows)}" in prompt
    assert ev.facts["tokens"]["prompt"] > 0 and ev.args["generated"].startswith("which 3")


def test_prompt_gets_a_five_row_preview_never_the_table() -> None:
    big = Evidence(id="E7", tool="metadata", columns=["name"],
                   rows=[{"name": f"row-{i:03d}"} for i in range(200)])
    llm = scripted("I would rather not write code.", "Still no code.")
    ev = run_generated(llm, "count them", [big])
    prompt = llm.seen[0][0].text
    assert "row-004" in prompt and "row-005" not in prompt and "Rows: 200" in prompt
    assert len(llm.seen) == 2 and ev.errors and "no ```python code block" in ev.errors[0]
    assert ev.facts["code"] == "" and ev.rows == []


def test_a_violation_in_generated_code_is_reported_after_the_retry(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    bad = f"import socket\nsocket.create_connection(('127.0.0.1', {port}))\nresult = 1"
    llm = scripted(block(bad), block(bad))
    ev = run_generated(llm, "is it up?", [FLAPS])
    assert ev.facts["violation"] == "network" and ev.errors[0].startswith("sandbox violation (network)")
    assert ev.facts["violations"] == ["network", "network"] and ev.facts["code"] == bad + "\n"
    assert "stopped by the sandbox (network)" in ev.summary and not connects(listener)


def test_a_failing_model_is_an_error_not_a_crash() -> None:
    llm = scripted()  # no replies scripted: the first call raises
    ev = run_generated(llm, "anything", [FLAPS])
    assert ev.errors and ev.errors[0].startswith("model error") and ev.facts["attempts"] == []


def test_extract_code_prefers_the_python_block() -> None:
    assert extract_code("```\nplain\n```\n```python\nresult = 1\n```") == "result = 1\n"
    assert extract_code("```\nresult = 2\n```") == "result = 2\n"
    assert extract_code("no code here") is None


def test_sandbox_result_never_raises_on_bad_input(tmp_path: Path) -> None:
    res = run_code("result = 1", {"not an id": {"columns": [], "rows": []}}, settings=settings(tmp_path))
    assert isinstance(res, SandboxResult) and not res.ok and "identifiers" in (res.error or "")

"""Issue 15 §1, an AI fabric in the lab: the `ai` spec's rail-optimised GPU PoD (topology and
traces), its RoCE telemetry, the jobs on it (lab-made and imported from Slurm and Kubernetes)
and the RoCE fault kinds, each seen by the tool that should see it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.common.errors import MalformedFile, NetopsError
from netopsai.common.hostlist import expand
from netopsai.copilot.evidence import Evidence
from netopsai.lab.manage import init_lab
from netopsai.lab.spec import load_spec
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.jobs_import import import_jobs, list_jobs
from netopsai.tools.registry import run_tool
from tests.cli_helpers import run_cli
from tests.paths import DATA as TEST_DATA

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
DATA = TEST_DATA / "ai_fabric"
POD = "dc1-gpu1"


def new_ai_lab(path: Path, scale: str = "small") -> Engine:
    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "ai", scale, 7, CLOCK)
    return engine


@pytest.fixture(scope="module")
def ai_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """A healthy small AI lab shared by the read-only tests of this module."""
    return new_ai_lab(tmp_path_factory.mktemp("ai") / "netopsai.db")


@pytest.fixture(scope="module")
def ai(ai_engine: Engine) -> Backends:
    return lab_backends(ai_engine)


def call(b: Backends, tool: str, **args: Any) -> Evidence:
    ev = run_tool(tool, args, b)
    assert not ev.errors, ev.errors
    return ev


def nics(engine: Engine) -> list[m.HostAddress]:
    with Session(engine) as s:
        return list(s.exec(select(m.HostAddress).where(m.HostAddress.pod == POD)))


# -- 1. the GPU PoD ------------------------------------------------------------------------------
def test_small_ai_lab_builds_fast_and_rails_hold(tmp_path: Path) -> None:
    t0 = time.monotonic()
    engine = new_ai_lab(tmp_path / "ai.db")
    assert time.monotonic() - t0 < 10
    gp = load_spec("ai").scales["small"].gpu_pods[0]
    hosts = gp.racks * gp.hosts_per_rack
    with Session(engine) as s:
        gpu_hosts = s.exec(select(m.Device).where(m.Device.role == "gpu_host")).all()
        assert len(gpu_hosts) == hosts and all(d.pod == POD for d in gpu_hosts)
        assert all(d.loopback is None for d in gpu_hosts)
        ifs = s.exec(select(m.Interface).where(m.Interface.device == gpu_hosts[0].name)).all()
        assert sorted(i.name for i in ifs) == [f"mlx5_{k}" for k in range(gp.nics_per_host)]
        assert {i.speed_mbps for i in ifs} == {400000}
        pod = s.get(m.Pod, POD)
        assert pod is not None and pod.site == "dc1" and "GPU" in pod.description
    addrs = nics(engine)
    assert len(addrs) == hosts * gp.nics_per_host
    # NIC k of every host lands on a rail-k leaf, and no leaf carries two rails
    rails_of_leaf: dict[str, set[str]] = {}
    for a in addrs:
        assert a.tor.startswith(f"{POD}-rail{a.interface.removeprefix('mlx5_')}-leaf")
        rails_of_leaf.setdefault(a.tor, set()).add(a.interface)
    assert all(len(r) == 1 for r in rails_of_leaf.values())
    assert len(rails_of_leaf) == gp.nics_per_host * -(-hosts // gp.hosts_per_leaf)


def test_every_host_reaches_every_other_on_its_rail(ai: Backends, ai_engine: Engine) -> None:
    addrs = nics(ai_engine)
    for rail in ("mlx5_0", "mlx5_5"):
        on_rail = [a for a in addrs if a.interface == rail]
        src = on_rail[0]
        for dst in on_rail[1:]:
            tr = call(ai, "traceroute", src=src.ip, dst=dst.ip)
            assert tr.facts["reached"], tr.summary
            last = tr.rows[-1]
            assert last["device"] == dst.device and last["interface"] == rail
            hops = [r["device"] for r in tr.rows]
            if dst.tor == src.tor:  # one leaf between two hosts of a scalable unit
                assert hops == [src.tor, dst.device]
            else:  # other group: up to a spine, down the rail
                assert hops[0] == src.tor and hops[1].startswith(f"{POD}-spine-")
                assert hops[2] == dst.tor


def test_cross_rail_goes_through_a_spine_and_the_fabric_is_an_island(ai: Backends,
                                                                      ai_engine: Engine) -> None:
    addrs = nics(ai_engine)
    a = next(x for x in addrs if x.interface == "mlx5_0")
    b = next(x for x in addrs if x.interface == "mlx5_3" and x.device != a.device)
    tr = call(ai, "traceroute", src=a.ip, dst=b.ip)
    assert tr.facts["reached"] and tr.rows[1]["device"].startswith(f"{POD}-spine-")
    assert tr.facts.get("ecmp_paths", 4) >= 1
    dc = run_tool("traceroute", {"src": a.ip, "dst": "10.1.3.20"}, ai)
    assert not dc.facts.get("reached")


def test_large_ai_lab_counts(tmp_path: Path) -> None:
    spec = load_spec("ai")
    gp = spec.scales["large"].gpu_pods[0]
    gpus = gp.racks * gp.hosts_per_rack * gp.gpus_per_host
    assert 2000 <= gpus <= 4096
    engine = engine_for(f"sqlite:///{tmp_path / 'big.db'}")
    t0 = time.monotonic()
    init_lab(engine, "ai", "large", 7, CLOCK)
    assert time.monotonic() - t0 < 60
    hosts = gp.racks * gp.hosts_per_rack
    leaves = gp.nics_per_host * hosts // gp.hosts_per_leaf
    with Session(engine) as s:
        in_pod = s.exec(select(m.Device).where(m.Device.pod == POD)).all()
        assert sum(d.role == "gpu_host" for d in in_pod) == hosts
        assert sum(d.role == "leaf" for d in in_pod) == leaves
        assert sum(d.role == "spine" for d in in_pod) == gp.spines
        links = s.exec(select(m.Link).where(m.Link.kind == "fabric")).all()
        assert sum(lk.a_device.startswith(POD) for lk in links) == leaves * gp.spines
    assert len(nics(engine)) == hosts * gp.nics_per_host


# -- 2. RoCE telemetry ---------------------------------------------------------------------------
@pytest.mark.parametrize("metric,extra", [("pfc", {"pfc_tx", "pfc_rx"}),
                                          ("ecn", {"cnp_tx", "cnp_rx"}),
                                          ("retransmits", {"out_of_sequence"})])
def test_roce_metrics_answered_healthy(ai: Backends, metric: str, extra: set[str]) -> None:
    ev = call(ai, "telemetry", metric=metric, pod=POD, window="1h", top=5)
    assert ev.facts["flagged"] == 0 and ev.facts["ports"] > 0
    assert {"device", "interface", "total", "max_per_5min", "last_5min"} | extra <= set(ev.columns)
    # outside the GPU PoD nothing is lossless: the same metric reads zero
    dc = call(ai, "telemetry", metric=metric, pod="dc1-pod1", window="1h", top=3)
    assert all(r["total"] == 0 for r in dc.rows)


def test_roce_baseline_is_stable_and_nic_only_for_transport(ai: Backends) -> None:
    a = call(ai, "telemetry", metric="ecn", devices=[f"{POD}-001"], window="2h", top=8)
    b = call(ai, "telemetry", metric="ecn", devices=[f"{POD}-001"], window="2h", top=8)
    assert a.rows == b.rows and a.rows[0]["total"] > 0 and a.rows[0]["cnp_tx"] > 0
    leaf = call(ai, "telemetry", metric="ecn", devices=[f"{POD}-rail0-leaf01"], window="2h")
    assert leaf.rows[0]["total"] > 0 and all(r["cnp_tx"] == 0 for r in leaf.rows)


# -- 3. jobs -------------------------------------------------------------------------------------
def test_lab_jobs_on_the_gpu_pod(ai_engine: Engine) -> None:
    jobs = list_jobs(ai_engine)
    gpu_hosts = {a.device for a in nics(ai_engine)}
    assert len(jobs) >= 4 and all(j.source == "lab" and j.owner and j.start for j in jobs)
    assert all(set(j.hosts) <= gpu_hosts and j.hosts for j in jobs)
    running = list_jobs(ai_engine, CLOCK)
    assert {j.state for j in running} == {"RUNNING"} and len(running) >= 2
    assert any(j.end is not None and j.state in ("COMPLETED", "FAILED") for j in jobs)


def test_hostlist_expansion() -> None:
    assert expand("gpu-[001-004,010]") == ["gpu-001", "gpu-002", "gpu-003", "gpu-004", "gpu-010"]
    assert expand("a[1-2]-n[08-09],login1") == ["a1-n08", "a1-n09", "a2-n08", "a2-n09", "login1"]
    assert expand("n[8-10]") == ["n8", "n9", "n10"] and expand("None assigned") == []
    for bad, why in (("n[3-1]", "backwards"), ("n[1-2", "without"), ("n[a-b]", "N or N-M")):
        with pytest.raises(NetopsError, match=why):
            expand(bad)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Engine]:
    engine = new_ai_lab(tmp_path / "jobs.db")
    yield engine
    engine.dispose()


def _imported(engine: Engine) -> dict[str, m.Job]:
    return {j.id: j for j in list_jobs(engine) if j.source != "lab"}


def test_sacct_import(store: Engine) -> None:
    done = import_jobs(store, DATA / "sacct.txt")
    assert done.fmt == "sacct" and done.jobs == 4 and "4 jobs imported" in done.line()
    jobs = _imported(store)
    assert set(jobs) == {"5101", "5102", "5103", "5104"}  # steps (5101.batch ...) folded away
    j = jobs["5101"]
    assert j.hosts == ["dc1-gpu1-001", "dc1-gpu1-002", "dc1-gpu1-003", "dc1-gpu1-004",
                       "dc1-gpu1-010"]
    assert (j.name, j.owner, j.state, j.end, j.source) == ("llama-70b-pretrain", "alice", "RUNNING",
                                                           None, "slurm")
    assert j.start is not None and j.start.replace(tzinfo=UTC) == datetime(2025, 11, 4, 14, tzinfo=UTC)
    assert jobs["5103"].state == "CANCELLED"
    assert jobs["5103"].hosts == ["dc1-gpu1-013", "dc1-gpu1-015", "dc1-gpu1-016"]
    assert jobs["5104"].hosts == [] and jobs["5104"].start is None
    assert import_jobs(store, DATA / "squeue.txt").jobs == 1  # squeue's header names too
    assert _imported(store)["5201"].hosts[-1] == "dc1-gpu1-008"
    assert import_jobs(store, DATA / "sacct.txt").jobs == 4  # again: replaced, not doubled
    assert len(_imported(store)) == 5


def test_k8s_import(store: Engine) -> None:
    done = import_jobs(store, DATA / "pods.json")
    assert done.fmt == "k8s" and done.jobs == 2  # coredns has no job label
    jobs = _imported(store)
    gpt = jobs["research/gpt-train"]
    assert gpt.hosts == ["dc1-gpu1-003", "dc1-gpu1-004"] and gpt.owner == "farid"
    assert gpt.state == "RUNNING" and gpt.end is None and gpt.source == "kubernetes"
    assert gpt.start is not None and gpt.start.replace(tzinfo=UTC) == datetime(2025, 11, 4, 18, 0, 1,
                                                                               tzinfo=UTC)
    prep = jobs["etl/data-prep"]
    assert prep.state == "COMPLETED" and prep.end is not None and prep.hosts == ["dc1-gpu1-009"]


@pytest.mark.parametrize("name,fmt,needle", [
    ("sacct_bad_hostlist.txt", None, "line 3"),
    ("sacct_no_nodelist.txt", "sacct", "no nodelist column"),
    ("pods_truncated.json", None, "malformed JSON"),
    ("pods.json", "sacct", "no jobid column"),
])
def test_bad_files_store_nothing(store: Engine, name: str, fmt: str | None, needle: str) -> None:
    with pytest.raises(NetopsError) as err:
        import_jobs(store, DATA / name, fmt)
    msg = str(err.value)
    assert needle in msg and "\n" not in msg and name in msg
    assert isinstance(err.value, MalformedFile)
    assert _imported(store) == {}


def test_jobs_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_cli(home, "lab", "init", "--spec", "ai", "--seed", "7").returncode == 0
    done = run_cli(home, "jobs", "import", str(DATA / "sacct.txt"), "--format", "sacct")
    assert done.returncode == 0 and "4 jobs imported (sacct)" in done.stdout, done.stderr
    listed = run_cli(home, "jobs", "list")
    assert "llama-70b-pretrain" in listed.stdout and "dc1-gpu1-[001" not in listed.stdout
    bad = run_cli(home, "jobs", "import", str(DATA / "sacct_bad_hostlist.txt"))
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert len((bad.stderr + bad.stdout).strip().splitlines()) == 1 and "line 3" in bad.stderr
    assert "6001" not in run_cli(home, "jobs", "list").stdout


# -- 4. the GPU fabric's faults ------------------------------------------------------------------
LEAF = f"{POD}-rail2-leaf01"
HOST = f"{POD}-003"  # its mlx5_2 is LEAF's Ethernet3


def scenario(kind: str, target: dict[str, str], **params: Any) -> Any:
    from netopsai.lab.scenario import Scenario

    return Scenario.model_validate({
        "id": f"ai-{kind.replace('_', '-')}", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": "the job on dc1-gpu1 is slow",
        "faults": [{"kind": kind, "at": "-25m", "target": target, "params": params}]})


@pytest.fixture
def faulted(tmp_path: Path) -> Any:
    from netopsai.lab.inject import inject

    def make(kind: str, target: dict[str, str], **params: Any) -> Backends:
        engine = engine_for(f"sqlite:///{tmp_path / (kind + '.db')}")
        inject(engine, scenario(kind, target, **params))
        return lab_backends(engine)
    return make


def open_alarms(b: Backends, kind: str) -> list[dict[str, Any]]:
    ev = call(b, "alarms", window="1h", state="open")
    return [r for r in ev.rows if r["kind"] == kind]


def test_pfc_storm_on_the_right_port_and_spreading(faulted: Any) -> None:
    b = faulted("pfc_storm", {"interface": f"{HOST}:mlx5_2"})
    ev = call(b, "telemetry", metric="pfc", pod=POD, window="30m", top=50)
    assert ev.facts["flagged"] > 2
    sender = max(ev.rows, key=lambda r: r["pfc_tx"])
    assert (sender["device"], sender["interface"]) == (HOST, "mlx5_2")
    receiver = max(ev.rows, key=lambda r: r["pfc_rx"])
    assert (receiver["device"], receiver["interface"]) == (LEAF, "Ethernet3")
    # the leaf pauses its uplinks in turn: the spines receive fewer, but many
    spines = [r for r in ev.rows if r["device"].startswith(f"{POD}-spine-") and r["pfc_rx"]]
    assert spines and all(r["pfc_rx"] < receiver["pfc_rx"] for r in spines)
    wd = open_alarms(b, "PFC_WATCHDOG")
    assert [(a["device"], a["interface"]) for a in wd] == [(LEAF, "Ethernet3")]


def test_nic_flap_seen_in_flaps_alarms_and_retransmits(faulted: Any) -> None:
    b = faulted("nic_flap", {"link": f"{HOST}:mlx5_2"}, count=6)
    flaps = call(b, "telemetry", metric="flaps", devices=[LEAF], window="30m")
    assert flaps.rows[0]["interface"] == "Ethernet3" and flaps.rows[0]["flaps"] == 6
    alarms = open_alarms(b, "LINK_FLAP")
    assert [(a["device"], a["interface"]) for a in alarms] == [(LEAF, "Ethernet3")]
    rt = call(b, "telemetry", metric="retransmits", pod=POD, window="30m", top=3)
    assert (rt.rows[0]["device"], rt.rows[0]["interface"]) == (HOST, "mlx5_2")
    assert rt.facts["flagged"] == 1 and rt.rows[0]["out_of_sequence"] > 0


def test_ecmp_collision_one_uplink_hot_siblings_idle(faulted: Any) -> None:
    b = faulted("ecmp_collision", {"link": f"{LEAF}:Ethernet10"}, job="4711")
    util = call(b, "telemetry", metric="utilization", devices=[LEAF], window="20m", top=20)
    by_if = {r["interface"]: r for r in util.rows}
    assert by_if["Ethernet10"]["max_pct"] >= 95
    assert all(by_if[f"Ethernet{i}"]["max_pct"] < 10 for i in (9, 11, 12))
    ecn = call(b, "telemetry", metric="ecn", pod=POD, window="20m", top=3)
    assert (ecn.rows[0]["device"], ecn.rows[0]["interface"]) == (LEAF, "Ethernet10")
    assert ecn.facts["flagged"] == 1
    hot = open_alarms(b, "HIGH_UTILIZATION")
    assert [(a["device"], a["interface"]) for a in hot] == [(LEAF, "Ethernet10")]


def test_rail_link_down_reroutes_and_alarms(faulted: Any, ai_engine: Engine) -> None:
    addrs = nics(ai_engine)
    src = next(a for a in addrs if a.tor == LEAF)
    dst = next(a for a in addrs if a.interface == "mlx5_2" and a.tor != LEAF)
    b = faulted("rail_link_down", {"link": f"{LEAF}:Ethernet9"})
    status = call(b, "telemetry", metric="oper_status", devices=[LEAF], window="30m")
    assert status.rows[0]["interface"] == "Ethernet9" and status.rows[0]["state_at_end"] == "down"
    assert {a["device"] for a in open_alarms(b, "LINK_DOWN")} == {LEAF, f"{POD}-spine-01"}
    tr = call(b, "traceroute", src=src.ip, dst=dst.ip)
    assert tr.facts["reached"] and f"{POD}-spine-01" not in [r["device"] for r in tr.rows]


def test_gpu_host_down_its_nics_dark(faulted: Any, ai_engine: Engine) -> None:
    addrs = nics(ai_engine)
    src = next(a for a in addrs if a.interface == "mlx5_0" and a.device != HOST)
    dst = next(a for a in addrs if a.interface == "mlx5_0" and a.device == HOST)
    b = faulted("gpu_host_down", {"device": HOST})
    tr = run_tool("traceroute", {"src": src.ip, "dst": dst.ip}, b)
    assert not tr.facts["reached"] and HOST in tr.summary
    downs = open_alarms(b, "LINK_DOWN")
    assert len(downs) == 8 and all(a["device"].startswith(f"{POD}-rail") for a in downs)
    dev = call(b, "metadata", query="device", name=HOST)
    assert dev.rows[0]["status"] == "down"


@pytest.mark.parametrize("kind,target,needle", [
    ("nic_flap", {"link": "dc1-host-03-1:eth0"}, "GPU PoD"),
    ("nic_flap", {"link": f"{LEAF}:Ethernet9"}, "NIC link"),
    ("ecmp_collision", {"link": f"{POD}-spine-01:Ethernet3"}, "named from the leaf"),
    ("gpu_host_down", {"device": "dc1-host-03-1"}, "needs a GPU host"),
    ("pfc_storm", {"device": HOST}, "needs a link or interface"),
])
def test_ai_faults_refuse_wrong_targets(tmp_path: Path, kind: str, target: dict[str, str],
                                        needle: str) -> None:
    from netopsai.lab.inject import inject

    engine = engine_for(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(NetopsError, match=needle):
        inject(engine, scenario(kind, target))


def test_ai_kinds_load_from_yaml_with_their_labels(tmp_path: Path) -> None:
    from netopsai.arena.cases import AI_LABEL, KINDS, LABEL
    from netopsai.lab.scenario import FAULT_KINDS, LABELS, load_scenario

    path = tmp_path / "s.yaml"
    path.write_text("id: pfc-storm-01\nlab: {spec: ai, scale: small, seed: 7}\n"
                    "faults:\n  - {kind: pfc_storm, at: -20m, target: {interface: 'x:y'}}\n"
                    "question: job 4711 slow\nexpect: {root_cause: link.pfc_storm, device: x}\n")
    assert load_scenario(path).expect is not None
    assert AI_LABEL["ecmp_collision"] == "link.ecmp_collision" and AI_LABEL["nic_flap"] == "link.flapping"
    assert set(AI_LABEL) <= set(FAULT_KINDS) and set(AI_LABEL.values()) <= set(LABELS)
    assert not set(AI_LABEL) & set(KINDS) and "pfc_storm" not in LABEL  # the generator is unchanged

"""Batch connectivity checks (issue 4 §3): input formats and bad lines, a batch on a lab with
injected faults (grouped by failing device and cause), stop/resume, Ctrl-C, and the CLI end to
end. Lab addresses are data: nothing here sends a packet."""

from __future__ import annotations

import csv
import json
import threading
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai import batch
from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.batch import command
from netopsai.common.errors import NetopsError
from netopsai.copilot.batch import output
from netopsai.copilot.batch.parse import parse_input
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
SRC = "10.1.1.20"  # dc1-host-01-1, the first host of dc1 in the small lab
ACL_TOR, ACL_DST = "dc1-leaf-03", "10.2.1.0/24"  # the ToR drops traffic to one dc2 segment
DOWN_TOR, DOWN_HOST_IP = "dc1-leaf-05", "10.1.5.20"  # the host link dc1-leaf-05:Ethernet1 is down
DEAD_TOR = "dc2-leaf-05"  # device down: its hosts 10.2.5.x cannot leave
FAULTS = Scenario.model_validate({"id": "batch-faults", "faults": [
    {"kind": "acl_block", "target": {"device": ACL_TOR}, "params": {"dst": ACL_DST}},
    {"kind": "link_down", "target": {"link": f"{DOWN_TOR}:Ethernet1"}},
    {"kind": "device_down", "target": {"device": DEAD_TOR}}]})
COLUMNS = ["line", "src", "dst", "reachable", "hops", "failing_hop", "failing_device", "cause",
           "reason", "evidence", "error", "stopped_at", "interface", "status"]


def small_lab(path: Path) -> Engine:
    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "default", "small", 7, CLOCK)
    return engine


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Backends:
    engine = small_lab(tmp_path_factory.mktemp("faulty") / "netopsai.db")
    inject(engine, FAULTS)
    return lab_backends(engine)


@pytest.fixture(scope="module")
def hosts(faulty: Backends) -> list[dict[str, Any]]:
    return faulty.inventory.hosts(None, None, None)


class Counting:
    """The lab's alarms/changes backend, counting the queries the batch makes."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.alarm_calls, self.change_calls = inner, 0, 0

    def alarms(self, *args: Any) -> Any:
        self.alarm_calls += 1
        return self.inner.alarms(*args)

    def changes(self, *args: Any) -> Any:
        self.change_calls += 1
        return self.inner.changes(*args)

    def __getattr__(self, name: str) -> Any:  # whatever else the diagnosis asks, uncounted
        return getattr(self.inner, name)


def counted(b: Backends) -> tuple[Backends, Counting]:
    c = Counting(b.alarms)
    return Backends(b.inventory, b.telemetry, b.paths, c, c), c  # type: ignore[arg-type]


def fault_pairs(hosts: list[dict[str, Any]]) -> str:
    """Every host behind the ACL ToR to every host of the blocked segment (16 fail there),
    a few hosts to the host whose link is down (fail at its ToR), two hosts of the dead ToR
    (they stop at themselves, the fault is the ToR's), and healthy controls."""
    behind = [h["ip"] for h in hosts if h["tor"] == ACL_TOR]
    blocked = [h["ip"] for h in hosts if h["segment"] == ACL_DST]
    lines = ["src,dst", *(f"{s},{d}" for s in behind for d in blocked)]
    lines += [f"{s},{DOWN_HOST_IP}" for s in ("10.1.1.20", "10.1.2.30", "10.1.20.20")]
    lines += ["10.2.5.20,10.1.1.20", "10.2.5.30,10.2.2.20"]
    lines += ["10.1.4.20,10.2.1.20",  # the blocked segment from another ToR: reachable
              f"{behind[0]},10.2.2.40",  # the ACL ToR to another segment: reachable
              "10.1.5.30,10.1.1.20",  # the down host's neighbour: reachable
              "10.1.1.20,10.9.9.9"]  # no such segment: a tool error, not a failure
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- input formats

def test_plain_ips_are_checked_from_the_source() -> None:
    pairs, errors = batch.parse_pairs("10.2.1.20\n  10.2.1.30  \n", SRC)
    assert errors == []
    assert [(p.line, p.src, p.dst) for p in pairs] == [(1, SRC, "10.2.1.20"), (2, SRC, "10.2.1.30")]


@pytest.mark.parametrize("text", [
    "10.1.1.20,10.2.1.20\n10.1.2.20,10.2.1.30\n",
    "src,dst\n10.1.1.20,10.2.1.20\n10.1.2.20,10.2.1.30\n",
    "Source IP, Destination IP\n10.1.1.20 , 10.2.1.20\n10.1.2.20,10.2.1.30,\n",
    "\ufeffsrc,dst\r\n10.1.1.20\t10.2.1.20\r\n10.1.2.20 10.2.1.30\r\n",
])
def test_csv_with_and_without_header(text: str) -> None:
    pairs, errors = batch.parse_pairs(text, None)
    assert errors == []
    assert [(p.src, p.dst) for p in pairs] == [("10.1.1.20", "10.2.1.20"), ("10.1.2.20", "10.2.1.30")]
    header = text.lstrip("\ufeff").lower().startswith(("src", "source"))
    assert [p.line for p in pairs] == ([2, 3] if header else [1, 2])


def test_a_dst_src_header_is_honoured() -> None:
    pairs, _ = batch.parse_pairs("dst,src\n10.2.1.20,10.1.1.20\n", None)
    assert [(p.src, p.dst) for p in pairs] == [("10.1.1.20", "10.2.1.20")]


def test_comments_blanks_and_duplicates() -> None:
    text = ("# pairs for the change window\n\n10.1.1.20,10.2.1.20  # web -> db\n"
            "   \n10.1.1.20,10.2.1.20\n10.2.1.30\n# 10.9.9.9\n10.2.1.30\n10.1.2.20,10.2.1.30\n")
    p = parse_input(text, SRC)
    assert p.errors == []
    assert [(x.line, x.src, x.dst) for x in p.pairs] == [
        (3, "10.1.1.20", "10.2.1.20"), (6, SRC, "10.2.1.30"), (9, "10.1.2.20", "10.2.1.30")]
    assert p.duplicates == 2


def test_bad_lines_are_reported_with_their_numbers_and_the_rest_still_run() -> None:
    text = ("10.1.1.20,10.2.1.20\n10.1.1.300,10.2.1.20\n10.1.1.20,10.2.1.20,10.2.1.30\n"
            "hello\n10.2.1.20,10.2.1.20\n10.2.2.20\n10.1.2.20,10.2.1.30\n")
    pairs, errors = batch.parse_pairs(text, None)
    assert [(p.line, p.dst) for p in pairs] == [(1, "10.2.1.20"), (7, "10.2.1.30")]
    assert errors == ["line 2: '10.1.1.300' is not an IPv4 address",
                      "line 3: expected an IP or src,dst but got 3 columns",
                      "line 4: a single IP needs a probe source (--source)",
                      "line 5: source and destination are both 10.2.1.20",
                      "line 6: a single IP needs a probe source (--source)"]
    _, with_source = batch.parse_pairs(text, SRC)
    assert "line 4: 'hello' is not an IPv4 address" in with_source
    assert not any(e.startswith("line 6:") for e in with_source)


def test_default_source_is_the_first_host_of_dc1(faulty: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NETOPSAI_PROBE_SOURCE", raising=False)
    first = faulty.inventory.hosts("dc1", None, None)[0]
    assert batch.default_source(faulty) == first["ip"] == SRC
    monkeypatch.setenv("NETOPSAI_PROBE_SOURCE", "10.2.3.20")
    assert batch.default_source(faulty) == "10.2.3.20"


# ---------------------------------------------------------------- a batch on a faulty lab

def _by_dst(results: list[batch.PairResult]) -> dict[tuple[str, str], batch.PairResult]:
    return {(r.src, r.dst): r for r in results}


def test_failures_are_grouped_by_device_and_cause(faulty: Backends, hosts: list[dict[str, Any]]) -> None:
    backends, counter = counted(faulty)
    pairs, errors = batch.parse_pairs(fault_pairs(hosts), None)
    assert errors == [] and len(pairs) == 25
    seen: list[int] = []
    results = batch.BatchChecker(backends, concurrency=4).run(pairs, on_result=lambda r: seen.append(r.line))
    assert sorted(seen) == [p.line for p in pairs] == [r.line for r in results]
    s = batch.summarize(results)
    assert (s["total"], s["reachable"], s["failing"], s["errors"]) == (25, 3, 21, 1)
    assert [(g["device"], g["cause"], g["pairs"]) for g in s["groups"]] == [
        (ACL_TOR, "config.acl_block", 16), (DOWN_TOR, "link.down", 3), (DEAD_TOR, "device.down", 2)]
    assert s["groups"][0]["text"] == f"16 pairs fail at {ACL_TOR}: config.acl_block"
    # shared requests (the open alarms, changes and alarms on the same devices) are run once per
    # batch: unshared, every failing pair would query changes once and alarms twice
    assert 0 < counter.change_calls < s["failing"] and 0 < counter.alarm_calls < s["failing"]
    by = _by_dst(results)
    behind = next(h["ip"] for h in hosts if h["tor"] == ACL_TOR)
    acl = by[(behind, "10.2.1.20")]
    assert (acl.reachable, acl.failing_device, acl.cause, acl.failing_hop) == (False, ACL_TOR,
                                                                              "config.acl_block", 2)
    assert acl.evidence[:4] == ["traceroute E1", "changelog E2", "alarms E3", "alarms E4"]
    down = by[("10.1.20.20", DOWN_HOST_IP)]
    assert (down.failing_device, down.cause, down.interface) == (DOWN_TOR, "link.down", "Ethernet1")
    dead = by[("10.2.5.20", "10.1.1.20")]
    assert (dead.failing_device, dead.stopped_at, dead.failing_hop) == (DEAD_TOR, "dc2-host-05-1", 1)
    for key in (("10.1.4.20", "10.2.1.20"), ("10.1.5.30", "10.1.1.20")):
        ok = by[key]
        assert ok.reachable and ok.cause is None and ok.failing_device is None and ok.hops > 0
        assert ok.evidence == ["traceroute E1"]
    bad = by[("10.1.1.20", "10.9.9.9")]
    assert not bad.reachable and bad.cause is None and "no segment" in (bad.error or "")


def test_a_healthy_batch_fetches_no_alarms(faulty: Backends) -> None:
    backends, counter = counted(faulty)
    pairs, _ = batch.parse_pairs("10.1.1.20,10.2.2.20\n10.1.2.20,10.1.9.30\n", None)
    results = batch.BatchChecker(backends).run(pairs)
    assert all(r.reachable and r.cause is None for r in results) and len(results) == 2
    assert (counter.alarm_calls, counter.change_calls) == (0, 0)


def test_processes_and_threads_agree(tmp_path: Path, hosts: list[dict[str, Any]]) -> None:
    """Worker processes (what big CLI batches use) and eight threads on a cold lab (its route
    memos filling concurrently) give the same answers."""
    engine = small_lab(tmp_path / "netopsai.db")
    inject(engine, FAULTS)
    pairs, _ = batch.parse_pairs(fault_pairs(hosts), None)
    threads = batch.BatchChecker(lab_backends(engine), concurrency=8).run(pairs)
    procs = batch.BatchChecker(lab_backends(engine), concurrency=2, processes=True).run(pairs)
    assert [asdict(r) for r in procs] == [asdict(r) for r in threads]
    assert sum(1 for r in procs if r.cause == "config.acl_block") == 16


def test_the_batch_snapshot_traces_exactly_as_the_lab_backend(faulty: Backends,
                                                              hosts: list[dict[str, Any]]) -> None:
    """SnapshotPaths (the lab state read once per batch) must return LabPaths' rows."""
    from netopsai.backends.lab.paths import LabPaths
    from netopsai.copilot.batch.snapshot import SnapshotPaths, pin_of

    pin = pin_of(faulty)
    assert pin is not None
    live, snap = faulty.paths, SnapshotPaths(faulty.paths.engine, pin)  # type: ignore[attr-defined]
    assert type(live) is LabPaths
    pairs, _ = batch.parse_pairs(fault_pairs(hosts), None)
    for p in pairs[:-1]:
        assert snap.traceroute(p.src, p.dst, 60, None) == live.traceroute(p.src, p.dst, 60, None)
    assert snap.traceroute(SRC, "10.2.2.20", 9000, None) == live.traceroute(SRC, "10.2.2.20", 9000, None)
    for paths in (live, snap):
        with pytest.raises(NetopsError, match="10.9.9.9 is in no segment"):
            paths.traceroute(SRC, "10.9.9.9", 60, None)


def test_stop_ends_the_run_after_the_results_so_far(faulty: Backends, hosts: list[dict[str, Any]]) -> None:
    pairs, _ = batch.parse_pairs(fault_pairs(hosts), None)
    stop = threading.Event()
    got: list[batch.PairResult] = []

    def on_result(r: batch.PairResult) -> None:
        got.append(r)
        if len(got) == 5:
            stop.set()
    results = batch.BatchChecker(faulty, concurrency=1).run(pairs, on_result=on_result, stop=stop)
    assert len(results) == 5 == len(got)


def test_summary_groups_biggest_first() -> None:
    def r(line: int, reachable: bool, device: str | None, cause: str | None,
          error: str | None = None) -> batch.PairResult:
        return batch.PairResult(line, "10.0.0.1", f"10.0.1.{line}", reachable, 3, None, device,
                                cause, "", [], error)
    s = batch.summarize([r(1, False, "a", "link.down"), r(2, True, None, None),
                         r(3, False, "b", "config.acl_block"), r(4, False, "b", "config.acl_block"),
                         r(5, True, "c", "link.errors"), r(6, False, None, None, "boom")])
    assert (s["total"], s["reachable"], s["failing"], s["degraded"], s["errors"]) == (6, 2, 3, 1, 1)
    assert [g["text"] for g in s["groups"]] == [
        "2 pairs fail at b: config.acl_block", "1 pair fails at a: link.down",
        "1 pair degraded at c: link.errors (still reachable over other paths)"]


@pytest.mark.parametrize("as_json", [False, True])
def test_rows_read_back_as_written(as_json: bool, tmp_path: Path) -> None:
    rows = [batch.PairResult(1, "10.1.1.20", "10.2.1.20", False, 2, 2, ACL_TOR, "config.acl_block",
                             "stops at\nleaf", ["traceroute E1", "alarms E2"], None, ACL_TOR, None),
            batch.PairResult(2, "10.1.1.20", "10.2.2.20", True, 11, None, None, None, "ok",
                             ["traceroute E1"])]
    path = tmp_path / "out"
    with path.open("w", newline="") as fh:
        sink = output.Sink(fh, as_json, header=True, order=[2, 1])  # written in the order asked
        for x in rows:
            sink.write(x)
    back = output.read_done(path, as_json)[::-1]
    assert [asdict(x) for x in back[1:]] == [asdict(rows[1])]
    assert [x.status for x in back] == ["unreachable", "reachable"]
    assert back[0].reason == ("stops at\nleaf" if as_json else "stops at leaf")  # CSV: one line a row
    assert back[0].evidence == rows[0].evidence
    assert back[0].failing_hop == 2 and back[0].reachable is False


# ---------------------------------------------------------------- the command, in process

def write_input(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_interrupt_leaves_a_valid_file_and_resume_completes_it(
        faulty: Backends, hosts: list[dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    engine = faulty.paths.engine  # type: ignore[attr-defined]
    src = write_input(tmp_path / "pairs.csv", fault_pairs(hosts))
    out = tmp_path / "out.jsonl"
    real = output.Sink.write

    def write_then_interrupt(self: output.Sink, r: batch.PairResult) -> None:
        real(self, r)
        if self.rows >= 6:  # rows come out in input order, several at once when one was late
            raise KeyboardInterrupt
    monkeypatch.setattr(output.Sink, "write", write_then_interrupt)
    with pytest.raises(SystemExit) as stopped:
        command.cli_main(engine, src, out=out, as_json=True, concurrency=2)
    assert stopped.value.code == 130
    assert "run it again with --resume" in capsys.readouterr().err
    partial = [json.loads(x) for x in out.read_text().splitlines()]
    # the six in order, then any finished pair held back for order: nothing finished is lost
    assert len(partial) >= 6 and all(set(x) == set(COLUMNS) for x in partial)
    assert [x["line"] for x in partial[:6]] == sorted(x["line"] for x in partial[:6])
    monkeypatch.setattr(output.Sink, "write", real)
    results = command.cli_main(engine, src, out=out, as_json=True, resume=True)
    final = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(final) == len({(x["src"], x["dst"]) for x in final}) == 25 == len(results)
    assert final[:len(partial)] == partial
    assert f"resuming: {len(partial)} pairs already" in capsys.readouterr().err


def test_resume_cuts_a_torn_last_row(faulty: Backends, tmp_path: Path) -> None:
    engine = faulty.paths.engine  # type: ignore[attr-defined]
    src = write_input(tmp_path / "ips.txt", "10.2.1.20\n10.2.1.30\n10.2.2.20\n")
    out = tmp_path / "out.csv"
    command.cli_main(engine, write_input(tmp_path / "one.txt", "10.2.1.20\n"), out=out, source=SRC)
    with out.open("a") as fh:
        fh.write("2,10.1.1.20,10.2.1.3")  # a kill -9 mid-row
    command.cli_main(engine, src, out=out, resume=True, source=SRC)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert rows[0]["dst"] == "10.2.1.20"  # the earlier run's row, kept
    assert sorted(r["dst"] for r in rows) == ["10.2.1.20", "10.2.1.30", "10.2.2.20"]
    assert list(rows[0]) == COLUMNS


def test_command_input_errors(faulty: Backends, tmp_path: Path) -> None:
    engine = faulty.paths.engine  # type: ignore[attr-defined]
    cases = [(tmp_path / "missing.txt", {}, "batch file not found"),
             (tmp_path, {}, "is a directory"),
             (write_input(tmp_path / "empty.txt", "# nothing\n\n"), {}, "no valid line to check"),
             (write_input(tmp_path / "bad.txt", "10.1.1.999\n"), {}, "line 1: '10.1.1.999' is not"),
             (write_input(tmp_path / "ok.txt", "10.2.1.20\n"), {"resume": True}, "--resume needs -o"),
             (tmp_path / "ok.txt", {"source": "dc1-host-01-1"}, "probe source 'dc1-host-01-1'"),
             (tmp_path / "ok.txt", {"concurrency": 0}, "at least 1"),
             (tmp_path / "ok.txt", {"resume": True, "out": write_input(tmp_path / "x.csv", "a,b\n1,2\n")},
              "not a netopsai batch CSV")]
    for path, kw, needle in cases:
        with pytest.raises(NetopsError, match=needle.replace("(", r"\(")) as exc:
            command.cli_main(engine, path, **kw)
        assert "\n" not in str(exc.value)


# ---------------------------------------------------------------- the batch answers as `ask`

PARITY_PAIRS = [("10.1.3.20", "10.2.1.40"), ("10.2.1.40", "10.1.3.20"), ("10.1.3.30", "10.2.1.30")]
PARITY_FAULTS = {
    "acl": [{"kind": "acl_block", "target": {"device": "dc1-leaf-03"}, "params": {"dst": "10.2.1.0/24"}},
            {"kind": "change", "at": "-27m", "target": {"device": "dc1-leaf-03"},
             "params": {"summary": "Apply new ACL set", "ticket": "CHG-1042"}}],
    "host_down": [{"kind": "host_down", "target": {"device": "dc2-host-01-3"}}],
    "blackhole": [{"kind": "blackhole", "target": {"device": "dc2-leaf-01"},
                   "params": {"dst": "10.2.1.0/24"}}],
    "dead_tor": [{"kind": "device_down", "target": {"device": "dc2-leaf-01"}}],
}


@pytest.mark.parametrize("name", sorted(PARITY_FAULTS))
def test_a_failing_row_names_what_ask_names(make_lab: Any, tmp_path: Path, name: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """One diagnosis for both: each failing pair's cause and device are the copilot's
    root cause for the same pair, with the lab's background noise around the fault."""
    from netopsai.copilot.service import Copilot
    from netopsai.lab.manage import lab_info

    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))  # no incident memory of the user's
    engine = make_lab()
    inject(engine, Scenario.model_validate({
        "id": f"parity-{name.replace('_', '-')}", "now": lab_info(engine).clock,
        "faults": [{"at": "-25m", **f} for f in PARITY_FAULTS[name]],
        "noise": {"alarms": 20, "changes": 6, "flaps": 2}}))
    backends = lab_backends(engine)
    pairs, _ = batch.parse_pairs("".join(f"{s},{d}\n" for s, d in PARITY_PAIRS), None)
    rows = [r for r in batch.BatchChecker(backends, concurrency=2).run(pairs) if r.cause]
    assert rows, f"{name}: no pair failed"
    copilot = Copilot(backends)
    for r in rows:
        rc = copilot.answer(f"{r.src} to {r.dst} not communicating", f"t-{r.line}")["root_cause"]
        assert rc is not None and (r.cause, r.failing_device) == (rc["label"], rc["device"]), (name, r)

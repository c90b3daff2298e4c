"""SNMP on real device recordings (issue 12 §8): does the poller read every interface of each?

    .venv/bin/python -m bench.bench_snmp_recordings [--only GLOB] [--compressed] [--batch-mb 160]
                                                    [--timeout 2] [--out bench/RESULTS.md]
                                                    [--json FILE] [--from-json FILE] [--no-write]

Every recording of a real device under snmpsim-data's network/ and os/ (its community is its
path under data/ without the extension; `--only` filters by a glob on it). The reference is the
FILE: the ifIndex values of its ifDescr rows (1.3.6.1.2.1.2.2.1.2.<ifIndex>), and for each
interface column the indexes whose recorded value we should see (a non-empty name, a known
status, a counter). Recordings with no ifTable are polled and reported, but not counted.

snmpsim (testkit's peers/snmpsim.py's SnmpSim, on 127.0.0.1) serves the recordings in batches of at
most `--batch-mb` of decompressed text (indexing is the slow part of its startup, and a batch
that fails to start costs only itself). Default: decompressed files, a fast agent;
`--compressed` serves the .bz2 as shipped, which snmpsim reads by decompressing from the start
on each lookup: a slow agent. Each recording is first touched with one GET (snmpsim opens its
index then, which for a big file takes seconds no real agent would spend), then polled alone
with netopsai.backends.snmp.walk.poll_targets (timeout 2 s, 1 retry, production defaults
otherwise): one device per round, since all recordings share one single-threaded simulator.
A recording is read completely when the poll is ok, not partial, and every ifIndex is read.
The `<!-- snmp-recordings:begin -->` section of the results file holds one part per mode, each
replaced when that mode is re-run (a run with `--only` writes nothing); `--json` saves the raw
rows, and `--from-json` renders (and writes) a saved run again.
"""

from __future__ import annotations

import argparse
import asyncio
import bz2
import fnmatch
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget  # noqa: E402
from netopsai.backends.snmp.walk import IF_COLUMNS, STATUS, IfReading, poll_targets  # noqa: E402
from netopsai_testkit.peers.snmpsim import SnmpSim  # noqa: E402

IF_DESCR = IF_COLUMNS["descr"] + "."
TOPS = ("network", "os")
COUNTERS = ("in_octets", "out_octets", "in_errors", "in_discards", "out_discards")
KEY = "snmp-recordings"
# failures investigated and found to be the simulator's, shown beside the row when it fails again
EXPLAINED = {
    ("compressed", "network/wifi/ruijie-m18000"):
        "snmpsim's, not the walker's: it reads a .bz2 by seeking and a backwards seek decompresses "
        "from the file's start, so GETBULKs holding two columns (which alternate between them) cost "
        "4.6-13.6 ms per varbind against 1.0-1.6 ms for one column; without the deadline the walk "
        "reads all 10 columns of the 3271 interfaces in 216 s, and decompressed in 7-9 s",
}
MODES = {"decompressed": "Decompressed recordings: a fast agent",
         "compressed": "Compressed recordings (.bz2 served as shipped): a slow agent"}
HEAD = ("## SNMP on real device recordings (issue 12 §8)\n\n"
        "The issue measured 9 of 12 read completely (a Juniper MX960, the Huawei S12704 and the "
        "Ruijie N18010 gave no SNMP response). `bench/bench_snmp_recordings.py` (decompressed) and "
        "`--compressed`; each mode's part is replaced when that mode is re-run.\n")


@dataclass
class Recording:
    community: str
    path: Path
    mb: float = 0.0  # decompressed text
    want: set[int] = field(default_factory=set)  # ifIndex of the ifDescr rows
    cols: dict[str, set[int]] = field(default_factory=dict)  # column -> indexes with a value


def _data_dir() -> Path:
    import snmpsim_data
    return Path(snmpsim_data.__file__).parent / "data"


def _community(path: Path, data: Path) -> str:
    rel = str(path.relative_to(data))
    return rel.removesuffix(".bz2").removesuffix(".snmprec")


def _expects(key: str, tag: str, value: str) -> bool:
    """Whether a recorded value is one the walk should turn into a set field."""
    if key in ("descr", "name"):  # `4x` is hex; the walk strips NULs and blanks
        text = bytes.fromhex(value).decode("latin-1") if "x" in tag and len(value) % 2 == 0 else value
        return bool(text.strip("\x00 ").strip())
    if key in ("admin", "oper"):
        return value.isdigit() and int(value) in STATUS
    if key == "speed_mbps":
        return value.isdigit() and int(value) > 0
    return True  # a counter: any recorded value


def reference(rec: Recording) -> Recording:
    """Read the recording's interface columns from the file (streamed: some are 240 MB)."""
    col_of = {oid + ".": key for key, oid in IF_COLUMNS.items()}
    size = 0
    opener = bz2.open if rec.path.suffix == ".bz2" else open
    with opener(rec.path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            size += len(line)
            if not line.startswith("1.3.6.1.2.1.2.2.1.") and not line.startswith("1.3.6.1.2.1.31.1.1.1."):
                continue
            oid, _, rest = line.rstrip("\n").partition("|")
            tag, _, value = rest.partition("|")
            pre, _, idx = oid.rpartition(".")
            key = col_of.get(pre + ".")
            if key is None or not idx.isdigit():
                continue
            if key == "descr":
                rec.want.add(int(idx))
            if _expects(key, tag, value):
                rec.cols.setdefault(key, set()).add(int(idx))
    rec.mb = size / 1e6
    return rec


def recordings(only: str | None) -> list[Recording]:
    data = _data_dir()
    paths = sorted(p for top in TOPS for p in (data / top).rglob("*.snmprec*"))
    recs = [Recording(_community(p, data), p) for p in paths]
    return [reference(r) for r in recs if not only or fnmatch.fnmatch(r.community, only)]


def batches(recs: list[Recording], budget_mb: float) -> list[list[Recording]]:
    """Smallest first, each batch within the budget (a bigger recording is served alone)."""
    out: list[list[Recording]] = []
    size = budget_mb + 1
    for r in sorted(recs, key=lambda r: r.mb):
        if size + r.mb > budget_mb:
            out.append([])
            size = 0.0
        out[-1].append(r)
        size += r.mb
    return out


@contextmanager
def serve(batch: list[Recording], compressed: bool) -> Iterator[tuple[SnmpSim, float]]:
    """SnmpSim over the batch (shipped .bz2 files through its own copying; a plain .snmprec is
    copied beside them); yields the simulator and its startup time."""
    root = Path(tempfile.mkdtemp(prefix="netopsai-bench-recordings-"))
    sim = SnmpSim(root, [r.community for r in batch if r.path.suffix == ".bz2"],
                  compressed=compressed)
    for r in batch:
        if r.path.suffix != ".bz2":
            dest = sim.data / f"{r.community}.snmprec"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(r.path, dest)
    try:
        t0 = time.perf_counter()
        sim.start()
        yield sim, time.perf_counter() - t0
    finally:
        sim.stop()
        shutil.rmtree(root, ignore_errors=True)


async def _touch(port: int, community: str, timeout: float) -> str:
    """One GET of sysDescr with a long timeout: makes snmpsim open the recording's index."""
    import pysnmp.hlapi.v3arch.asyncio as h

    engine = h.SnmpEngine()
    try:
        t = await h.UdpTransportTarget.create(("127.0.0.1", port), timeout=timeout, retries=0)
        res = await h.get_cmd(engine, h.CommunityData(community, mpModel=1), t, h.ContextData(),
                              h.ObjectType(h.ObjectIdentity("1.3.6.1.2.1.1.1.0")), lookupMib=False)
        return str(res[0] or "")
    finally:
        engine.close_dispatcher()


def _gaps(rec: Recording, got: dict[int, IfReading]) -> dict[str, list[int]]:
    """Per column, the recorded indexes whose value the reading lacks."""
    def has(row: IfReading | None, key: str) -> bool:
        if row is None:
            return False
        v = getattr(row, key)
        if key in ("admin", "oper"):
            return bool(v != "unknown")
        if key == "speed_mbps":
            return bool(v)
        return v is not None if key in COUNTERS else v != ""
    out = {key: sorted(i for i in rec.cols.get(key, ()) if not has(got.get(i), key))
           for key in IF_COLUMNS}
    return {k: v for k, v in out.items() if v}


def poll_one(sim: SnmpSim, rec: Recording, timeout: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    touch = asyncio.run(_touch(sim.port, rec.community, 120.0))
    open_s = time.perf_counter() - t0
    target = SnmpTarget(host="127.0.0.1", port=sim.port, name=rec.community,
                        auth=SnmpAuth(community=SecretStr(rec.community)))
    t0 = time.perf_counter()
    r = poll_targets([target], timeout=timeout, retries=1)[0]
    wall = time.perf_counter() - t0
    missing = sorted(rec.want - set(r.interfaces))
    complete = bool(rec.want) and r.ok and not r.partial and not missing
    return {"community": rec.community, "mb": round(rec.mb, 1), "expected": len(rec.want),
            "read": len(rec.want & set(r.interfaces)), "extra": len(set(r.interfaces) - rec.want),
            "missing": missing, "partial": r.partial, "error": r.error, "ok": r.ok,
            "complete": complete, "gaps": {k: v[:8] + [len(v)] for k, v in _gaps(rec, r.interfaces).items()},
            "wall_s": round(wall, 2), "open_s": round(open_s, 2), "touch_error": touch,
            "sys_descr": r.sys_descr[:60]}


def run(recs: list[Recording], a: argparse.Namespace) -> tuple[list[dict[str, Any]], list[dict]]:
    rows: list[dict[str, Any]] = []
    starts: list[dict[str, Any]] = []
    for i, batch in enumerate(batches(recs, a.batch_mb), 1):
        mb = sum(r.mb for r in batch)
        print(f"batch {i}: {len(batch)} recordings, {mb:.0f} MB ...", flush=True)
        try:
            with serve(batch, a.compressed) as (sim, start_s):
                starts.append({"batch": i, "recordings": len(batch), "mb": round(mb), "start_s": start_s})
                print(f"  snmpsim up in {start_s:.1f} s", flush=True)
                for rec in batch:
                    rows.append(poll_one(sim, rec, a.timeout))
                    _print_row(rows[-1])
        except RuntimeError as exc:  # snmpsim did not start: the batch's recordings say so
            rows += [{"community": r.community, "mb": round(r.mb, 1), "expected": len(r.want),
                      "read": 0, "extra": 0, "missing": sorted(r.want), "partial": "",
                      "error": f"snmpsim: {exc}"[:300], "ok": False, "complete": False, "gaps": {},
                      "wall_s": 0.0, "open_s": 0.0, "touch_error": "", "sys_descr": ""}
                     for r in batch]
    return sorted(rows, key=lambda r: r["community"]), starts


def _verdict(r: dict[str, Any]) -> str:
    if not r["expected"]:
        return "no ifTable" + ("" if r["ok"] else " (poll failed)")
    if r["complete"]:
        return "complete" + (" (column gaps)" if r["gaps"] else "")
    return "partial" if r["partial"] else ("FAILED" if not r["ok"] else "INCOMPLETE")


def _print_row(r: dict[str, Any]) -> None:
    print(f"  {r['community']:58s} {r['read']:5d}/{r['expected']:<5d} {_verdict(r):22s} "
          f"{r['wall_s']:7.2f} s  {r['error'] or r['partial']}"[:220], flush=True)


def _problem(r: dict[str, Any]) -> str:
    parts = []
    if r["missing"]:
        parts.append(f"{len(r['missing'])} missing (first: {', '.join(map(str, r['missing'][:6]))})")
    if r["extra"]:
        parts.append(f"{r['extra']} interfaces read that the file's ifDescr rows lack")
    for key in ("error", "partial", "touch_error"):
        if r[key]:
            parts.append(r[key] if key == "partial" else f"{key}: {r[key]}")
    if r["gaps"]:
        parts.append("column gaps: " + "; ".join(f"{k} {v[-1]} (first {v[:3]})"
                                                 for k, v in r["gaps"].items()))
    return " — ".join(parts).replace("|", "/")


def render(rows: list[dict[str, Any]], starts: list[dict], a: argparse.Namespace, wall: float,
           when: dict[str, str]) -> str:
    m = _machine()
    counted = [r for r in rows if r["expected"]]
    ok = [r for r in counted if r["complete"]]
    lines = [
        f"### {MODES[_mode(a)]}", "",
        f"- Date: {when['date']} UTC; code {when['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}",
        f"- {len(rows)} recordings of snmpsim-data network/ and os/"
        f"{f' matching {a.only}' if a.only else ''}; snmpsim on 127.0.0.1 in {len(starts)} batches "
        f"(startup {sum(s['start_s'] for s in starts):.0f} s in all, largest "
        f"{max((s['start_s'] for s in starts), default=0):.0f} s); poll_targets one recording at a "
        f"time, timeout {a.timeout:g} s, 1 retry; whole run {wall / 60:.1f} min",
        f"- **{len(ok)} of {len(counted)} recordings with an ifTable read completely** (every ifIndex "
        "of the file's ifDescr rows, not partial, no error); "
        f"{len(rows) - len(counted)} recordings have no ifTable and are not counted", "",
        "| recording | text MB | ifTable rows | read | result | poll time |",
        "| --- | ---: | ---: | ---: | --- | ---: |"]
    for r in rows:
        lines.append(f"| {r['community']} | {r['mb']:g} | {r['expected']} | {r['read']} | "
                     f"{_verdict(r)} | {r['wall_s']:.1f} s |")
    bad = [r for r in rows
           if not r["complete"] and (r["expected"] or not r["ok"]) or r["gaps"] or r["extra"]]
    if bad:
        lines += ["", "Failures and gaps, in full:", ""]
        lines += [f"- `{r['community']}`: {_verdict(r)}: {_problem(r)}"
                  + (f" — **cause**: {why}" if (why := EXPLAINED.get((_mode(a), r["community"]))) else "")
                  for r in bad]
    times = sorted(r["wall_s"] for r in counted)
    opens = [r["open_s"] for r in rows]
    if times:
        lines += ["", f"Poll time per recording: median {times[len(times) // 2]:.2f} s, max "
                  f"{times[-1]:.1f} s, total {sum(times):.0f} s. Not in it: snmpsim opening a "
                  f"recording's index at its first request (the touch GET; up to {max(opens):.0f} s, "
                  f"{sum(opens):.0f} s in all), which no real agent spends."]
    return "\n".join(lines) + "\n"


def _mode(a: argparse.Namespace) -> str:
    return "compressed" if a.compressed else "decompressed"


def merged(path: Path, mode: str, part: str) -> str:
    """The section's body with this mode's part replaced and the other mode's part kept."""
    text = path.read_text() if path.exists() else ""
    parts = {}
    for m in MODES:
        hit = re.search(rf"<!-- {KEY}\[{m}\] -->\n(.*?)<!-- /{KEY}\[{m}\] -->\n", text, re.S)
        if hit:
            parts[m] = hit.group(1)
    parts[mode] = part
    return HEAD + "".join(f"\n<!-- {KEY}[{m}] -->\n{parts[m]}<!-- /{KEY}[{m}] -->\n"
                          for m in MODES if m in parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", help="a glob on the community, e.g. 'network/router/*'")
    ap.add_argument("--compressed", action="store_true", help="serve the .bz2 as shipped (slow agent)")
    ap.add_argument("--batch-mb", type=float, default=160.0)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--json", type=Path, help="also dump the raw rows here")
    ap.add_argument("--from-json", type=Path, help="render a saved run instead of running")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    if a.from_json:
        saved = json.loads(a.from_json.read_text())
        for k in ("only", "compressed", "timeout"):
            setattr(a, k, saved["args"][k])
        rows, starts, wall, when = saved["rows"], saved["starts"], saved["wall_s"], saved["when"]
    else:
        os.environ.setdefault("SNMPSIM_ALLOW_ROOT", "true")
        t0 = time.perf_counter()
        recs = recordings(a.only)
        print(f"{len(recs)} recordings, references read in {time.perf_counter() - t0:.1f} s", flush=True)
        rows, starts = run(recs, a)
        wall = time.perf_counter() - t0
        when = {"date": f"{datetime.now(UTC):%Y-%m-%d %H:%M}", "rev": _machine()["rev"]}
    part = render(rows, starts, a, wall, when)
    print(part)
    if a.json:
        a.json.write_text(json.dumps({"rows": rows, "starts": starts, "args": vars(a), "wall_s": wall,
                                                 "when": when},
                                     default=str, indent=1))
    if not a.no_write and not a.only:  # a filtered run is for investigating, not for the record
        write_section(a.out, KEY, merged(a.out, _mode(a), part))


if __name__ == "__main__":
    main()

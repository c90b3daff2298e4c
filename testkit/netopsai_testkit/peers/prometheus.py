"""A real Prometheus scraping real SNMP agents through Debian's prometheus-snmp-exporter, all on
127.0.0.1 free ports with temporary config and storage. snmp.yml is written by hand with numeric
OIDs (v0.21 syntax: one module per community, `walk`, `metrics` with indexes and lookups)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from netopsai_testkit.peers.process import free_port

IF = "1.3.6.1.2.1.2.2.1"
IFX = "1.3.6.1.2.1.31.1.1.1"
METRICS = {  # name -> (oid, type)
    "ifAdminStatus": (f"{IF}.7", "gauge"), "ifOperStatus": (f"{IF}.8", "gauge"),
    "ifInDiscards": (f"{IF}.13", "counter"), "ifInErrors": (f"{IF}.14", "counter"),
    "ifOutDiscards": (f"{IF}.19", "counter"), "ifHCInOctets": (f"{IFX}.6", "counter"),
    "ifHCOutOctets": (f"{IFX}.10", "counter"), "ifHighSpeed": (f"{IFX}.15", "gauge"),
}


def _binary(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.skip(f"{name} is not installed (apt-get install prometheus prometheus-snmp-exporter)")
    return path


def snmp_module(community: str) -> dict[str, Any]:
    lookups = [{"labels": ["ifIndex"], "labelname": "ifName", "oid": f"{IFX}.1", "type": "DisplayString"},
               {"labels": ["ifIndex"], "labelname": "ifDescr", "oid": f"{IF}.2", "type": "DisplayString"}]
    return {"version": 2, "auth": {"community": community}, "timeout": "5s", "retries": 1,
            "max_repetitions": 25, "walk": [f"{IF}.2", f"{IFX}.1", *(o for o, _ in METRICS.values())],
            "metrics": [{"name": n, "oid": o, "type": t,
                         "indexes": [{"labelname": "ifIndex", "type": "gauge"}], "lookups": lookups}
                        for n, (o, t) in METRICS.items()]}


@dataclass
class PromStack:
    root: Path
    snmp_endpoint: str
    devices: Mapping[str, str]  # device label -> community
    scrape_s: float = 1.0
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    exporter_port: int = 0
    prom_port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.prom_port}"

    def _write_configs(self) -> None:
        modules = {f"m{i}": snmp_module(c) for i, c in enumerate(self.devices.values())}
        (self.root / "snmp.yml").write_text(yaml.safe_dump(modules))
        exporter = f"127.0.0.1:{self.exporter_port}"
        jobs = [{"job_name": f"snmp-{dev}", "metrics_path": "/snmp", "params": {"module": [mod]},
                 "scrape_interval": f"{self.scrape_s:g}s", "scrape_timeout": f"{self.scrape_s:g}s",
                 "static_configs": [{"targets": [self.snmp_endpoint], "labels": {"device": dev}}],
                 "relabel_configs": [
                     {"source_labels": ["__address__"], "target_label": "__param_target"},
                     {"target_label": "__address__", "replacement": exporter}]}
                for (dev, _), mod in zip(self.devices.items(), modules, strict=True)]
        (self.root / "prometheus.yml").write_text(yaml.safe_dump({"scrape_configs": jobs}))

    def _spawn(self, args: list[str], log: str) -> None:
        with (self.root / log).open("wb") as out:
            self.procs.append(subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT))

    def start(self) -> None:
        self.exporter_port, self.prom_port = free_port(), free_port()
        self._write_configs()
        self._spawn([_binary("prometheus-snmp-exporter"), f"--config.file={self.root / 'snmp.yml'}",
                     f"--web.listen-address=127.0.0.1:{self.exporter_port}"], "exporter.log")
        self._spawn([_binary("prometheus"), f"--config.file={self.root / 'prometheus.yml'}",
                     f"--storage.tsdb.path={self.root / 'tsdb'}",
                     f"--web.listen-address=127.0.0.1:{self.prom_port}"], "prometheus.log")
        self._wait(lambda: self._get("/-/ready") is not None, "Prometheus ready", 60)

    def _get(self, path: str) -> bytes | None:
        try:
            with urllib.request.urlopen(self.url + path, timeout=2) as resp:  # noqa: S310 (loopback)
                return bytes(resp.read())
        except OSError:
            return None

    def _wait(self, ok: Any, what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ok():
                return
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.3)
        logs = {p.name: p.read_text()[-400:] for p in self.root.glob("*.log")}
        raise RuntimeError(f"{what} did not happen: {logs}")

    def series_count(self, query: str) -> int:
        body = self._get("/api/v1/query?" + urllib.parse.urlencode({"query": query}))
        return len(json.loads(body)["data"]["result"]) if body else 0

    def wait_for(self, query: str, n: int, timeout: float = 120) -> None:
        """Until `query` returns at least n series (scrapes have landed)."""
        self._wait(lambda: self.series_count(query) >= n, f"{n} series of {query}", timeout)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()


def start_stack(snmp_endpoint: str, devices: Mapping[str, str], scrape_s: float = 1.0) -> Iterator[PromStack]:
    root = Path(tempfile.mkdtemp(prefix="netopsai-prom-"))
    stack = PromStack(root, snmp_endpoint, devices, scrape_s)
    try:
        stack.start()
        yield stack
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)


"""A million pairs (issue 28 item 3): workers diagnose the failing pairs themselves when every
source the diagnosis reads is the lab store they open, so the driver only merges rows — the
same rows the driver's own diagnosis gives — and no worker process outlives the batch."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import psutil

from netopsai import batch
from netopsai.backends.lab import lab_backends
from netopsai.copilot.batch.runner import remote_diagnosis, store_url
from tests.batch.test_batch import FAULTS, fault_pairs, faulty, hosts, inject, small_lab  # noqa: F401

__all__ = ["faulty", "hosts"]


class _OtherTelemetry:
    """A configured telemetry source (Prometheus, SNMP): not the lab's."""


def test_workers_diagnose_only_when_the_diagnosis_reads_the_lab_store(tmp_path: Path) -> None:
    engine = small_lab(tmp_path / "netopsai.db")
    backends = lab_backends(engine)
    url = store_url(backends)
    assert url is not None and remote_diagnosis(backends, url)
    assert not remote_diagnosis(replace(backends, telemetry=_OtherTelemetry()), url)  # type: ignore[arg-type]
    other = small_lab(tmp_path / "other.db")
    assert not remote_diagnosis(replace(backends, alarms=lab_backends(other).alarms), url)


def test_worker_diagnoses_equal_the_drivers(tmp_path: Path, hosts: list[dict[str, Any]]) -> None:  # noqa: F811
    engine = small_lab(tmp_path / "netopsai.db")
    inject(engine, FAULTS)
    pairs, _ = batch.parse_pairs(fault_pairs(hosts), None)
    driver = batch.BatchChecker(lab_backends(engine), concurrency=1).run(pairs)
    checker = batch.BatchChecker(lab_backends(engine), concurrency=2, processes=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    workers = checker.run(pairs)
    assert [asdict(r) for r in workers] == [asdict(r) for r in driver]
    assert sum(1 for r in workers if r.cause) >= 16
    assert checker.shared.fetched == 0  # the driver fetched nothing: the workers diagnosed
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    assert not left, [p.cmdline() for p in left]  # multiprocessing's resource tracker included

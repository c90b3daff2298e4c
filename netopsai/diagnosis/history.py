"""Feeding incident memory: confirming a diagnosis (through `Copilot.confirm`, which the CLI,
Gradio and Slack all call), and importing a history file of past incidents (YAML or JSON)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from netopsai.common.errors import NetopsError, parse_json, parse_yaml, read_text
from netopsai.diagnosis.memory import IncidentMemory
from netopsai.store.tables import Incident

UNCONFIRMABLE = ("none", "inconclusive")


def confirm(memory: IncidentMemory, diagnosis: dict[str, Any] | None, who: str, source: str,
            question: str = "") -> Incident:
    """Save a diagnosis the on-call agrees with: its symptoms, label, location, evidence."""
    if not diagnosis:
        raise NetopsError("nothing to confirm: this thread has no diagnosis yet")
    label = diagnosis.get("label")
    if label in UNCONFIRMABLE or not label:
        raise NetopsError(f"nothing to confirm: the last diagnosis found no root cause ({label})")
    summary = " ".join(f.get("text", "") for f in diagnosis.get("because") or [])
    return memory.add(diagnosis.get("symptoms") or summary, label, diagnosis.get("device"),
                      diagnosis.get("interface"), evidence_summary=summary[:2000],
                      question=question, confirmed_by=who, source=source)


def _rows(path: Path) -> list[Any]:
    text = read_text(path, "history file")
    data = parse_json(text, str(path)) if path.suffix == ".json" else parse_yaml(text, str(path))
    if isinstance(data, dict):
        data = data.get("incidents")
    if not isinstance(data, list):
        raise NetopsError(f"{path}: expected a list of incidents (or 'incidents:' holding one)")
    return data


def import_history(memory: IncidentMemory, path: Path, labels: set[str]) -> int:
    """Load past incidents; every entry is checked before any is stored."""
    keep = ("device", "interface", "evidence_summary", "question", "confirmed_by")
    rows = []
    for i, raw in enumerate(_rows(path), 1):
        if not isinstance(raw, dict) or not raw.get("symptoms") or not raw.get("label"):
            raise NetopsError(f"{path}: incident {i} needs 'symptoms' and 'label'")
        if raw["label"] not in labels:
            raise NetopsError(f"{path}: incident {i} has unknown label {raw['label']!r}; "
                              f"known: {', '.join(sorted(labels))}")
        at = raw.get("at") or datetime.now(UTC)
        if isinstance(at, str):
            try:
                at = datetime.fromisoformat(at.replace("Z", "+00:00"))
            except ValueError:
                raise NetopsError(f"{path}: incident {i} has a bad time {raw['at']!r}") from None
        rows.append((str(raw["symptoms"]), raw["label"], at,
                     {k: raw[k] for k in keep if raw.get(k) is not None}))
    for symptoms, label, at, extra in rows:
        extra.setdefault("confirmed_by", "import")
        memory.add(symptoms, label, at=at, source="import", **extra)
    return len(rows)

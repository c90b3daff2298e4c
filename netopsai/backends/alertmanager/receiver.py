"""An Alertmanager webhook receiver (webhook payload version 4): firing alerts raise alarms,
resolved ones close the alarm their fingerprint raised. A payload that is not valid is refused
whole with 400 and a one-line reason, and nothing of it is stored. Served by server.HookServer
(one asyncio loop, timeouts, a connection cap, optional bearer or basic auth)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from netopsai.backends.alertmanager.server import MAX_BODY, HookServer, Refused, WebhookAuth
from netopsai.store.apply import Event
from netopsai.store.naming import is_relay

__all__ = ["MAX_BODY", "PayloadError", "WebhookAuth", "WebhookReceiver", "parse_payload"]
log = logging.getLogger("netopsai.ingest")
CATEGORIES = ("link", "device", "bgp", "dci", "backbone", "optics", "capacity")
_INFER = (("bgp", "bgp"), ("optic", "optics"), ("rx_power", "optics"), ("dci", "dci"),
          ("backbone", "backbone"), ("util", "capacity"), ("bandwidth", "capacity"),
          ("link", "link"), ("interface", "link"), ("ifoper", "link"), ("portdown", "link"),
          ("port_down", "link"))
DEVICE_LABELS = ("device", "sysName", "instance", "host", "hostname", "node", "target")


class PayloadError(ValueError):
    """Why a webhook payload was refused, in one line."""


def _time(value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise PayloadError(f"{where} must be an RFC 3339 time string")
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise PayloadError(f"{where} is not an RFC 3339 time: {value[:40]!r}") from None


def _device(labels: dict[str, str]) -> str:
    for label in DEVICE_LABELS:
        value = labels.get(label, "").strip()
        if value:
            if label == "instance":  # host:port or [v6]:port
                value = value.rsplit(":", 1)[0] if value.count(":") == 1 or "]" in value else value
                value = value.strip("[]")
            return value
    return "alertmanager"


def _category(labels: dict[str, str]) -> str:
    given = labels.get("category", "")
    if given in CATEGORIES:
        return given
    name = labels["alertname"].lower()
    return next((cat for word, cat in _INFER if word in name), "device")


def _alert_event(alert: Any, i: int, sender: str, now: datetime) -> Event:
    where = f"alerts[{i}]"
    if not isinstance(alert, dict):
        raise PayloadError(f"{where} must be an object")
    status = alert.get("status")
    if status not in ("firing", "resolved"):
        raise PayloadError(f"{where}.status must be firing or resolved, not {status!r}")
    labels = alert.get("labels")
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise PayloadError(f"{where}.labels must be an object of strings")
    if not labels.get("alertname"):
        raise PayloadError(f"{where}.labels has no alertname")
    annotations = alert.get("annotations") or {}
    if not isinstance(annotations, dict):
        raise PayloadError(f"{where}.annotations must be an object")
    starts = _time(alert.get("startsAt"), f"{where}.startsAt")
    ends = _time(alert["endsAt"], f"{where}.endsAt") if alert.get("endsAt") else None
    fp = alert.get("fingerprint") or hashlib.sha1(
        json.dumps(labels, sort_keys=True).encode()).hexdigest()[:16]
    if not isinstance(fp, str):
        raise PayloadError(f"{where}.fingerprint must be a string")
    text = str(annotations.get("summary") or annotations.get("description") or "")
    interface = labels.get("interface") or labels.get("ifName") or labels.get("ifDescr")
    # Alertmanager re-sends a firing alert with a new endsAt each time: not part of its identity
    ident = f"{fp}|{status}|{starts.isoformat()}|{ends.isoformat() if status == 'resolved' and ends else ''}"
    return Event(source="alertmanager", action="raise" if status == "firing" else "clear",
                 message=f"{labels['alertname']} {status}: {text}".strip()[:4000],
                 received_at=now, fingerprint=hashlib.sha1(ident.encode()).hexdigest(),
                 host=sender, name=_device(labels), kind=labels["alertname"],
                 category=_category(labels), subject=fp, interface=interface,
                 severity=labels.get("severity", "major"), site=labels.get("site"),
                 at=starts if status == "firing" else (ends if ends and ends.year > 1 else now),
                 resolve_sender=False)


def parse_payload(body: bytes, sender: str) -> list[Event]:
    """Every alert of one webhook POST as an Event, or PayloadError for the whole payload."""
    try:
        doc = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PayloadError(f"body is not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("alerts"), list):
        raise PayloadError("payload must be an object with an 'alerts' list (webhook version 4)")
    now = datetime.now(UTC)
    return [_alert_event(a, i, sender, now) for i, a in enumerate(doc["alerts"])]


class WebhookReceiver(HookServer):
    """Serves on host:port (0 = a free port; `port` is the bound one after `start`); each
    payload's alerts go to `sink` as Events. `auth`: None takes any POST.

    Alertmanager speaks for every device, so its alerts are believed about the devices they
    name only from a sender that proved who it is (the webhook's auth) or is listed in
    `ingest.relays`; from anyone else, as from a syslog sender, an alert naming another device
    is kept marked `[unverified sender]` and raises nothing (netopsai.store.naming)."""

    def __init__(self, host: str, port: int, sink: Callable[[Event], None],
                 auth: WebhookAuth | None = None, relays: tuple[str, ...] = (),
                 **limits: Any) -> None:
        super().__init__(host, port, auth, **limits)
        self.sink = sink
        self.relays = relays
        self.received = 0

    def handle(self, body: bytes, sender: str) -> str:
        try:
            events = parse_payload(body, sender)
        except PayloadError as exc:
            raise Refused(400, str(exc)) from None
        vouched = self.auth is not None or is_relay(sender, self.relays)
        for ev in events:
            ev.resolve_sender = not vouched
            self.sink(ev)
        self.received += len(events)
        return json.dumps({"status": "ok", "alerts": len(events)})

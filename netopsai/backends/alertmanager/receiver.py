"""An Alertmanager webhook receiver (webhook payload version 4): firing alerts raise alarms,
resolved ones close the alarm their fingerprint raised. A payload that is not valid is refused
whole with 400 and a one-line reason, and nothing of it is stored."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from netopsai.store.apply import Event

log = logging.getLogger("netopsai.ingest")
MAX_BODY = 1 << 20
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


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            return self._reply(400, "a Content-Length header is required")
        if int(length) > MAX_BODY:
            return self._reply(413, f"payload over {MAX_BODY} bytes")
        body = self.rfile.read(int(length))
        try:
            events = parse_payload(body, self.client_address[0])
        except PayloadError as exc:
            return self._reply(400, str(exc).replace("\n", " "))
        for ev in events:
            self.server.sink(ev)
        self.server.received += len(events)
        self._reply(200, json.dumps({"status": "ok", "alerts": len(events)}), "application/json")

    def do_GET(self) -> None:  # noqa: N802
        self._reply(405, "POST Alertmanager webhook payloads here")

    def _reply(self, code: int, text: str, ctype: str = "text/plain; charset=utf-8") -> None:
        data = (text + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("webhook %s: " + format, self.client_address[0], *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    sink: Callable[[Event], None]
    received: int = 0


class WebhookReceiver:
    """Serves on host:port (0 = a free port; `port` is the bound one after `start`)."""

    def __init__(self, host: str, port: int, sink: Callable[[Event], None]) -> None:
        self.host, self.port, self.sink = host, port, sink
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def received(self) -> int:
        return self._server.received if self._server else 0

    def start(self) -> None:
        server = _Server((self.host, self.port), _Handler)
        server.sink = self.sink
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="netopsai-webhook",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

"""Auto-triage: Alertmanager posts its alerts to `netopsai api` (a webhook receiver with the
API's bearer token); firing alerts that match a configured rule are diagnosed, each with the
question an on-call would ask about it, and the cited answer is posted to the rule's Slack
channel. The same alert is not diagnosed again within `repeat_minutes` (Alertmanager re-sends
firing alerts). Read-only, like everything else: nothing is done on a device."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from netopsai.backends.alertmanager.receiver import PayloadError, parse_payload
from netopsai.common.errors import NetopsError
from netopsai.config.matchers import matches
from netopsai.copilot import threads

if TYPE_CHECKING:
    from netopsai.config.network import TriageSettings
    from netopsai.copilot.service import Copilot

log = logging.getLogger(__name__)
Post = Callable[[str, Mapping[str, Any], str], None]  # (channel, answer, thread)


def question_for(labels: Mapping[str, str], interface: str | None) -> str | None:
    """What an on-call would ask about this alert: a flow's endpoints, a port, or a device."""
    src = labels.get("src") or labels.get("source_ip")
    dst = labels.get("dst") or labels.get("destination_ip")
    if src and dst:
        return f"{src} to {dst} not communicating"
    device = labels.get("device") or labels.get("instance", "").split(":")[0]
    if device and interface:
        return f"what happened to {device} {interface}?"
    return f"what is wrong with {device}?" if device else None


@dataclass
class Selected:
    fingerprint: str
    question: str
    channel: str


class Triage:
    def __init__(self, copilot: Copilot, settings: TriageSettings, post: Post) -> None:
        self.copilot, self.settings, self.post = copilot, settings, post
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def select(self, body: bytes) -> tuple[list[Selected], int]:
        """(the alerts to diagnose, how many were left alone); PayloadError for a bad payload."""
        events = parse_payload(body, "api")
        alerts = json.loads(body)["alerts"]
        chosen: list[Selected] = []
        for ev, alert in zip(events, alerts, strict=True):
            labels = alert["labels"]
            rule = next((r for r in self.settings.rules if matches(r.match, labels)), None)
            question = question_for(labels, ev.interface)
            fingerprint = ev.subject or ev.fingerprint  # Alertmanager's, else the receiver's
            if ev.action != "raise" or rule is None or question is None or self._recent(fingerprint):
                continue
            chosen.append(Selected(fingerprint, question, rule.channel))
        return chosen, len(alerts) - len(chosen)

    def _recent(self, fingerprint: str) -> bool:
        now = time.monotonic()
        with self._lock:
            last = self._seen.get(fingerprint)
            if last is not None and now - last < self.settings.repeat_minutes * 60:
                return True
            self._seen[fingerprint] = now
            return False

    def start(self, chosen: list[Selected]) -> None:
        """Diagnose and post in the background: Alertmanager wants its webhook answered fast."""
        for s in chosen:
            threading.Thread(target=self._run, args=(s,), daemon=True,
                             name=f"netopsai-triage-{s.fingerprint}").start()

    def _run(self, s: Selected) -> None:
        thread = threads.key("triage", s.fingerprint, str(int(time.time())))
        try:
            self.post(s.channel, self.copilot.answer(s.question, thread), thread)
        except NetopsError as exc:
            log.warning("triage of %s (%s) failed: %s", s.fingerprint, s.question, exc)
        except Exception:  # a failed post must not take the API down
            log.exception("triage of %s failed", s.fingerprint)


__all__ = ["PayloadError", "Post", "Selected", "Triage", "question_for"]

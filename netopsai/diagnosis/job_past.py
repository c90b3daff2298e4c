"""What came and went on a job's NICs and rails inside its window (issue 25 item 1).

The job rules look at the window's end: a port down now, an alarm still open. A rail link that
went down at 19:35 and came back at 19:41 is the likely reason of "job 4711 hit an NCCL timeout
at 19:40", yet nothing of it is open when the window ends. Its alarms (raised and cleared) and
its ports' state history (down and up again) name it here, with start and end, instead of
"nothing found"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from netopsai.backends.rows import AlarmRecord, StatusRow
from netopsai.common.localtime import events
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.device_window import KIND_LABEL, PORTS_SHOWN
from netopsai.diagnosis.episodes import closed, told
from netopsai.diagnosis.job_rules import Reads


def _alarms(reads: Reads) -> list[tuple[str, AlarmRecord]]:
    eid = (reads.cite("alarms") or [""])[0]
    rows = [(eid, r) for r in reads.alarms()
            if reads.concerns_job(r["device"], r.get("interface") or "")]
    return closed(rows)


def _ports(reads: Reads) -> list[StatusRow]:
    return [r for r in reads.ports() if int(r.get("transitions") or 0)
            and r.get("state_at_end") == "up"
            and reads.concerns_job(r["device"], r.get("interface") or "")]


def _ports_text(ports: list[StatusRow], zone: str) -> str:
    shown = "; ".join(f"{r['device']} {r['interface']} {events(r.get('events') or '', zone)}".strip()
                      for r in ports[:PORTS_SHOWN])
    return f"{len(ports)} of the job's ports went down and came back ({shown})"


def came_and_went(d: Diagnosis, reads: Reads, name: str, window: str, asked: bool) -> None:
    """Over 'nothing found': what began and ended on the job's ports in the window, with start
    and end, cited. Asked about a time (`asked`: "at 19:40", a window) it is the likely cause,
    said as over (relation 'past'); asked without one, a blip hours before is no cause of
    what the on-call sees now: nothing is down now, and it is said as what came and went."""
    eps, ports = _alarms(reads), _ports(reads)
    if not (eps or ports) or d.label != "none":
        return
    if not asked:
        said = told(eps, reads.zone) if eps else _ports_text(ports, reads.zone)
        cites = [*dict.fromkeys(e for e, _ in eps[:3] if e), *(reads.cite("status") if ports else [])]
        d.answer = Finding(f"{name}'s NICs and rails now: nothing down — earlier in {window}, "
                           f"cleared since: {said}", cites)
        d.secondary = [Finding(f"came and went on {name}'s ports in {window}: {said}", cites),
                       *d.secondary]
        return
    parts = [told(eps, reads.zone)] if eps else []
    if ports and eps:  # the alarms said it: the state history backs them up
        parts.append(f"the ports' state history agrees ({len(ports)} went down and came back)")
    elif ports:
        parts.append(_ports_text(ports, reads.zone))
    cites = [*dict.fromkeys(e for e, _ in eps[:3] if e), *(reads.cite("status") if ports else [])]
    first: Mapping[str, Any] = eps[0][1] if eps else {}
    d.label = KIND_LABEL.get(str(first.get("kind")), "link.down") if eps else (
        "link.flapping" if any(int(r.get("flaps") or 0) > 1 for r in ports) else "link.down")
    d.device = first.get("device") or ports[0]["device"]
    d.interface = first.get("interface") if eps else ports[0].get("interface")
    d.confidence, d.relation = 0.7, "past"
    text = "; ".join(parts)
    d.answer = Finding(f"On {name}'s NICs and rails: came and went in {window} — {text}", cites)
    d.because = [Finding("nothing is down at the window's end: the events above began and "
                         "ended inside it, and the job's traffic over that port stopped while it "
                         "was down", cites), *d.because[1:]]
    d.next_steps = [f"Match the job's failure time with {d.device} {d.interface or ''} going down "
                    "(its logs), and check that port's optics and cabling before it recurs.",
                    *d.next_steps]

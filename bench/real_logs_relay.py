"""Real lines relayed through real syslog servers on this machine (issue 24: "as the world sends
them"). A measurement apart from bench/real_logs_score.py, never mixed into its counts.

Every counted real line of bench/real_logs/ that carries the device's own message is sent over
UDP on loopback, each from its own sender address (127.1.x.y), to a real rsyslog and a real
syslog-ng started here (testkit's peers/syslog_servers.py: own config in a temp folder, no system
service). What they write is scored with the corpus labels, per family and per server form:

- `rsyslog_traditional` (RSYSLOG_TraditionalFileFormat), `rsyslog_rfc3339` (RSYSLOG_FileFormat)
  and `syslogng_file` (syslog-ng's default): each file line through the file loader's
  `file_events` (what `netopsai ingest --file` runs), one line per file whose time is the row's
  `reference_utc`, as bench/real_logs_score.py does;
- `rsyslog_fwd_rfc5424` (RSYSLOG_SyslogProtocol23Format) and `syslogng_relay` (a `network()`
  destination, legacy BSD header), captured raw: each datagram through the live receiver's
  `syslog_event`, from the relay's address, which is declared in `ingest.relays`.

The device's message, per `header_form` (bench/real_logs/README.md): `datagram`, `rfc5424`,
`kiwi` are sent byte for byte; `server_file` with `relay_header` loses the server's stamp and
host (what follows is what the device sent; `<13>`, RFC 3164's default PRI, goes first unless
the device's own PRI is there); `server_file` without it and `show_logging` are the device's
own stamp and line, sent after `<13>` — `show_logging` only where the stamp is a form syslog
clients put on the wire (`SENT_STAMPS`); dmesg uptimes, logread ctime, daemon log-file dates
(`ymd`) and undated lines are left out, counted as such.

Right time: the corpus's `time_utc`, within 1 s; where the line has none, no time or the
server's own stamp (the receive time is the server's). A device time that is the server's clock
instead counts as "server stamp taken". The servers run now and the lines are from their own
years, so a stamp without a year (`bsd`, `bsd_frac`, or `year_assumed`) is judged without its
year: rsyslog writes the year of its own clock into RFC 3339 and RFC 5424, which is right for a
server running when the line was sent. Right host: the name the device gives in what it
sent (the corpus's `host` when it appears there: origin id, HOSTNAME), else the sender's
address as the server writes it; a relayed datagram named after the relay (127.0.0.1) is wrong.

    .venv/bin/python -m bench.real_logs_relay [--results bench/RESULTS.md] [--misses N]
        [--sample N] [--keep DIR]
"""

from __future__ import annotations

import re
import socket
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import real_logs_score as rls  # the corpus, its labels, the ingest's entry points

FILE_FORMS = ("rsyslog_traditional", "rsyslog_rfc3339", "syslogng_file")
RELAY_FORMS = ("rsyslog_fwd_rfc5424", "syslogng_relay")
FORMS = FILE_FORMS[:2] + RELAY_FORMS[:1] + FILE_FORMS[2:] + RELAY_FORMS[1:]
YEARLESS = {"bsd", "bsd_frac"}  # stamps without a year: the server's clock supplies one
SENT_STAMPS = {"bsd", "bsd_frac", "bsd_year", "year_first", "rfc3339", "kv_date"}
MARKER = "netopsai-relay-"  # the start and end markers the harness sends
RELAY_ADDR = "127.0.0.1"  # both servers send their relayed datagrams from here
_SERVER_HEAD = re.compile(r"\s*(?:[A-Z][a-z]{2} +\d{1,2}(?: \d{4})? \d\d:\d\d:\d\d(?:\.\d+)?"
                          r"|\d{4}-\d\d-\d\dT\S+)\s+(\S+) (.*)$", re.S)
_PRI = re.compile(r"<\d{1,3}>")
KINDS = {"link_updown": ("LINK_DOWN", "ERR_DISABLED"), "lineproto_updown": ("LINK_DOWN",),
         "admin_updown": ("ADMIN_DOWN", "LINK_DOWN"), "bgp": ("BGP_",), "ospf": ("OSPF_",),
         "isis": ("ISIS_",), "bfd": ("BFD_",), "optics": ("OPTICS_",),
         "transceiver_inserted": ("TRANSCEIVER_",), "transceiver_removed": ("TRANSCEIVER_",),
         "stp": ("STP_", "ERR_DISABLED"), "lacp": ("LACP_",)}


def device_message(row: dict[str, Any]) -> tuple[bytes | None, str]:
    """What the device sent (bytes), or None and why the line is left out."""
    line, form = row["line"], row["header_form"]
    if form in rls.DATAGRAM_FORMS:
        if not rls.arrives_as_datagram(row):  # a line of Kiwi's own file: Kiwi's columns, not a wire form
            return None, "a Kiwi log-file line"
        return line.encode(), "sent as published"
    if form == "server_file" and "relay_header" in row["features"]:
        m = _SERVER_HEAD.match(line)
        if not m:
            return None, "server header not split"
        rest = m.group(2)
        return (rest if _PRI.match(rest) else "<13>" + rest).encode(), "server header taken off"
    if form == "show_logging" and row["stamp"] not in SENT_STAMPS:
        return None, f"stamp {row['stamp']} is not a wire form"
    return ("<13>" + line.lstrip()).encode(), "device line after <13>"


def counted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if not r.get("derived") and r.get("counted") is not False]


def sample(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to `n` sure network-state lines with a device time that the ingest reads right as
    published, spread round-robin over (family, header form, stamp form): relaying them must
    not lose what the published line had."""
    ingest = rls.Ingest()
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in sorted(counted(rows), key=lambda r: (r["nos"], r["header_form"], r["stamp"], r["id"])):
        if (r["expect"]["network_state"] and not r.get("unsure") and r["expect"]["time_utc"]
                and device_message(r)[0] is not None
                and rls.judge(r, ingest.event(r))["complete"]):
            groups[(r["nos"], r["header_form"], r["stamp"])].append(r)
    picked: list[dict[str, Any]] = []
    depth = 0
    while len(picked) < n and any(len(g) > depth for g in groups.values()):
        picked += [g[depth] for g in groups.values() if len(g) > depth][:n - len(picked)]
        depth += 1
    return picked


def sender_of(i: int) -> str:
    return f"127.1.{i // 250}.{i % 250 + 1}"


def _key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text)[-16:]


def align(sent: list[tuple[dict[str, Any], bytes]], lines: list[str],
          lookahead: int = 60) -> list[str | None]:
    """Each sent row's output line. Servers keep a sender's order, so a row is the next line
    ending in its message's last characters; rows a server wrote without that text (rsyslog's
    files leave out RFC 5424 structured data) take the unclaimed lines between their matched
    neighbours when the counts agree; a row still without a line counts as lost."""
    norm = [re.sub(r"[^A-Za-z0-9]", "", x) for x in lines]
    hits: list[int | None] = []
    pos = 0
    for _row, data in sent:
        key = _key(data.decode("utf-8", "replace"))
        hit = next((j for j in range(pos, min(pos + lookahead, len(lines)))
                    if key and norm[j].endswith(key)), None)
        hits.append(hit)
        pos = pos if hit is None else hit + 1
    i = 0
    while i < len(hits):
        if hits[i] is not None:
            i += 1
            continue
        end = i
        while end < len(hits) and hits[end] is None:
            end += 1
        lo = max((h for h in hits[:i] if h is not None), default=-1)
        hi = next((h for h in hits[end:] if h is not None), len(lines))
        free = [j for j in range(lo + 1, hi) if MARKER not in lines[j]]
        if len(free) == end - i:
            hits[i:end] = free
        i = end
    return [None if h is None else lines[h] for h in hits]


def run_servers(sent: list[tuple[dict[str, Any], bytes]], folder: Path) -> dict[str, list[str]]:
    """Start both servers, send every line to each from its own address, return each output
    form's lines (relayed datagrams as text) once the end marker is everywhere."""
    from netopsai_testkit.peers.syslog_servers import SERVERS, missing

    why = missing()
    if why:
        raise SystemExit(f"real_logs_relay: {why}")
    servers = [cls(folder / cls.name) for cls in SERVERS]
    try:
        for s in servers:
            s.start()
        _marker(servers, MARKER + "ready")
        for i, (_row, data) in enumerate(sent):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.bind((sender_of(i), 0))
                for s in servers:
                    sock.sendto(data, ("127.0.0.1", s.port))
            if i % 40 == 39:
                time.sleep(0.02)  # the servers' socket buffers, not a timing test
        _marker(servers, MARKER + "end")
        outs: dict[str, list[str]] = {}
        for s in servers:
            outs.update(s.outputs())
        return outs
    finally:
        for s in servers:
            s.stop()


def _marker(servers: list[Any], token: str) -> None:
    for attempt in range(100):
        for s in servers:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.sendto(f"<13>netopsai: marker {token}".encode(), ("127.0.0.1", s.port))
        try:
            for s in servers:
                s.wait_for(token, 0.5 if attempt < 99 else 30)
            return
        except RuntimeError:
            if attempt == 99:
                raise


def _year_free(t: datetime, year: int) -> datetime:
    try:
        return t.replace(year=year)
    except ValueError:  # 29 February
        return t.replace(year=year, day=28)


def server_stamp(got: datetime | None, window: tuple[datetime, datetime]) -> bool:
    """Whether `got` is the servers' clock while they ran (any whole-hour zone, any year)."""
    if got is None:
        return False
    lo, hi = window[0] - timedelta(seconds=2), window[1] + timedelta(seconds=2)
    g = _year_free(got, lo.year)
    return any(lo <= g + timedelta(hours=k) <= hi for k in range(-14, 15))


def judge(row: dict[str, Any], ev: Any, want_host: str, window: tuple[datetime, datetime],
          relayed: bool) -> dict[str, bool]:
    exp = row["expect"]
    want_t, got_t = rls._when(exp["time_utc"]), ev.device_time
    if want_t is None:
        time_ok = got_t is None or server_stamp(got_t, window)
    elif got_t is None:
        time_ok = False
    else:
        if row.get("year_assumed") or row["stamp"] in YEARLESS:
            got_t = _year_free(got_t, want_t.year)
        time_ok = abs((got_t - want_t).total_seconds()) <= 1
    host_ok = (ev.name or "").lower() == want_host.lower()
    want_if, got_if = exp["interface"], ev.interface
    iface_ok = (want_if is None and got_if is None) or (
        want_if is not None and got_if is not None and rls._same_port(got_if, want_if))
    kind_ok = ev.kind is not None and (exp["kind"] not in KINDS or any(
        ev.kind.startswith(p) for p in KINDS[exp["kind"]]))
    state = exp["state"]
    state_ok = state is None or (state == "down" and ev.action == "raise") or (
        state == "up" and ev.action == "clear")
    recognised = ev.kind is not None
    return {"recognised": recognised, "kind": kind_ok, "state": state_ok, "time": time_ok,
            "host": host_ok, "interface": iface_ok,
            "complete": recognised and time_ok and host_ok and iface_ok,
            "server_stamp": want_t is not None and server_stamp(ev.device_time, window),
            "relay_named": relayed and (ev.name or "") == RELAY_ADDR != want_host,
            "noise_alarm": exp["kind"] in rls.NOISE_KINDS and ev.action == "raise"}


class Loader:
    """The ingest's two entry points for what the servers produced."""

    def __init__(self) -> None:
        import math
        from dataclasses import replace

        from netopsai.backends.syslog.clock import Zones
        from netopsai.backends.syslog.files import file_events
        from netopsai.backends.syslog.receiver import SyslogContext, syslog_event

        self._zones, self._ctx, self._replace, self._inf = Zones, SyslogContext, replace, math.inf
        self._file_events, self._syslog_event = file_events, syslog_event
        self._dir = tempfile.TemporaryDirectory(prefix="real-logs-relay-")

    def event(self, row: dict[str, Any], form: str, text: str) -> Any:
        import os

        ctx = self._ctx(zones=self._zones.from_names(row.get("stated_zone") or "UTC"),
                        relays=(RELAY_ADDR,))
        ref = rls._when(row["reference_utc"]) or datetime(2024, 1, 1, tzinfo=UTC)
        if form in RELAY_FORMS:
            return self._syslog_event(text.encode(), RELAY_ADDR, received_at=ref, context=ctx)
        path = Path(self._dir.name) / f"{form}.log"
        path.write_bytes(text.encode() + b"\n")
        os.utime(path, (ref.timestamp(), ref.timestamp()))
        ctx = self._replace(ctx, max_skew_s=self._inf)  # load_files believes a file's clocks
        return next(iter(self._file_events(path, ctx, datetime.now(UTC))))


def want_host(row: dict[str, Any], data: bytes, sender: str) -> str:
    """The device's own name when what it sent carries it, else its address."""
    label = row["expect"]["host"]
    if not label:
        return sender
    head = _SERVER_HEAD.match(row["line"]) if "relay_header" in row["features"] else None
    if head and head.group(1).lower() == label.lower():  # the first server's name for it
        return sender
    return label if label.lower() in data.decode("utf-8", "replace").lower() else sender


def measure(rows: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    left_out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    sent: list[tuple[dict[str, Any], bytes]] = []
    for row in counted(rows):
        data, why = device_message(row)
        if data is None:
            left_out[row["nos"]][why] += 1
        else:
            sent.append((row, data))
    start = datetime.now(UTC)
    outs = run_servers(sent, folder)
    window = (start, datetime.now(UTC))
    loader, published = Loader(), rls.Ingest()
    as_published = {row["id"]: rls.judge(row, published.event(row))["complete"]
                    for row, _ in sent if row["expect"]["network_state"]}
    results: list[dict[str, Any]] = []
    for form in FORMS:
        for i, ((row, data), text) in enumerate(zip(sent, align(sent, outs[form]), strict=True)):
            rec: dict[str, Any] = {"id": row["id"], "nos": row["nos"], "form": form,
                                   "header_form": row["header_form"], "stamp": row["stamp"],
                                   "unsure": bool(row.get("unsure")),
                                   "state_line": bool(row["expect"]["network_state"]),
                                   "noise": row["expect"]["kind"] in rls.NOISE_KINDS,
                                   "text": text, "lost": text is None, "line": row["line"]}
            if text is not None:
                ev = loader.event(row, form, text)
                rec["judged"] = judge(row, ev, want_host(row, data, sender_of(i)), window,
                                      form in RELAY_FORMS)
                rec["got"] = {"kind": ev.kind, "action": ev.action, "name": ev.name,
                              "interface": ev.interface, "device_time": ev.device_time}
                rec["want_host"] = want_host(row, data, sender_of(i))
            rec["published_complete"] = as_published.get(row["id"], False)
            results.append(rec)
    return {"results": results, "left_out": {k: dict(v) for k, v in left_out.items()},
            "sent": len(sent), "window": window}


if __name__ == "__main__":
    from bench.real_logs_relay_report import main

    sys.exit(main())

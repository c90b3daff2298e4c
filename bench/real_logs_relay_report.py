"""Tables and the RESULTS.md section of bench/real_logs_relay.py (real lines relayed through real
servers on this machine). Figures are over counted, sure lines; `unsure` lines are counted apart.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import real_logs_relay as relay
from bench import real_logs_score as rls

BEGIN, END = "<!-- real-logs-relay:begin -->", "<!-- real-logs-relay:end -->"
STATE_KEYS = ("recognised", "kind", "state", "time", "host", "interface", "complete")


def _blank() -> dict[str, int]:
    return dict.fromkeys(("sent", "lost", "unsure", "state_lines", *STATE_KEYS, "published", "lines",
                          "h_time", "h_host", "server_stamp", "relay_named",
                          "noise", "noise_alarm"), 0)


def cells(results: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, int]]:
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(_blank)
    for r in results:
        for key in ((r["nos"], r["form"]), ("all", r["form"])):
            c = out[key]
            c["sent"] += 1
            if r["lost"]:
                c["lost"] += 1
                continue
            if r["unsure"]:
                c["unsure"] += 1
                continue
            j = r["judged"]
            c["lines"] += 1
            c["h_time"] += j["time"]
            c["h_host"] += j["host"]
            c["server_stamp"] += j["server_stamp"]
            c["relay_named"] += j["relay_named"]
            if r["state_line"]:
                c["state_lines"] += 1
                c["published"] += r["published_complete"]
                for k in STATE_KEYS:
                    c[k] += j[k]
            if r["noise"]:
                c["noise"] += 1
                c["noise_alarm"] += j["noise_alarm"]
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0] == "all", kv[0][0],
                                                    relay.FORMS.index(kv[0][1]))))


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}" if d else "–"


def table(cs: dict[tuple[str, str], dict[str, int]]) -> list[str]:
    out = ["| family | server form | sent | lost | state lines | complete % | as published % | "
           "recognised % | kind % | state % | time % | host % | interface % | all lines: "
           "time % | all lines: host % | server stamp taken | relay named as device | "
           "noise → alarm |", "|---|---|" + "---:|" * 16]
    for (nos, form), c in cs.items():
        d, n = c["state_lines"], c["lines"]
        out.append(
            f"| {nos} | {form} | {c['sent']} | {c['lost']} | {d} | {_pct(c['complete'], d)} | "
            f"{_pct(c['published'], d)} | " + " | ".join(_pct(c[k], d) for k in STATE_KEYS[:-1])
            + f" | {_pct(c['h_time'], n)} | {_pct(c['h_host'], n)} | {c['server_stamp']} | "
            f"{c['relay_named']} | {c['noise_alarm']}/{c['noise']} |")
    return out


_ZONE_TAG = re.compile(r"\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d)? \S+ [A-Z]{2,5}(?::| - )")
_INNER_5424 = re.compile(r"^(?:<\d+>)?[A-Z][a-z]{2} +\d+ [\d:]+ \S+ 1 \d{4}-\d\d-\d\dT")
_SPLIT_STAMP = re.compile(r"(?:\d{4}-\d{1,2}-\d{1,2}[T ]|\d\d-[A-Z][a-z]{2}-\d{4} )\d\d(?::| -)? ")
_MONTH = re.compile(r"^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$")
_EMPTY_FIELD = re.compile(r"^<\d+>1 \S+ \S+ \S+  ")
_APP_KV = re.compile(r"^<\d+>1 \S+ \S+ date=\d")
_APP_MARK = re.compile(r"^<\d+>1 \S+ \S+ [*.][A-Z][a-z]{2} ")
_COLON_ORIGIN = re.compile(r" : [\w.-]+: ")
_HUAWEI_TAG = re.compile(r"[A-Z]+/\d/\w+")
_OFFSET = re.compile(r"\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)")
CLASSES = {  # label: (whose, what it is)
    "offset": ("server's format", "an RFC 3339 stamp's UTC offset does not survive a BSD header"),
    "server_offset": ("server's format", "rsyslog writes its own UTC offset (+00:00) on a device "
                      "stamp that had none, so the device's zone is lost (a parser could prefer "
                      "`ingest.timezones` over a server-made offset)"),
    "zone_tag": ("parser miss", "the server takes the device's stamp and leaves its zone word as "
                 "the tag (`… 16:39:13 HOST CEST: %LINK…`; RFC 5424 APP-NAME `CEST`)"),
    "inner_5424": ("parser miss", "syslog-ng's network() source keeps an RFC 5424 line whole "
                   "behind its own BSD stamp and host; the inner RFC 5424 header is not peeled"),
    "split_stamp": ("parser miss", "rsyslog cannot read `2018-7-23 01:00:34`, `14-Nov-2023 "
                    "10:22:15`, `May  5 2015 11:02:10+08:00` or a colon-less offset, splits it "
                    "into host and tag and stamps the line itself; the device's stamp is still "
                    "in the text"),
    "offset_as_host": ("parser miss", "syslog-ng reads `2026-03-28T16:10:00+0800` without its "
                       "offset and leaves `+0800` as the host"),
    "mark_split": ("parser miss", "rsyslog's RFC 5424 forward puts `*Jun` (clock mark and month) "
                   "in APP-NAME and the rest of the device's stamp in MSG"),
    "kv_split": ("parser miss", "rsyslog's RFC 5424 forward puts FortiOS's `date=…` in APP-NAME "
                 "and `time=…` in MSG"),
    "colon_origin": ("parser miss", "`: NAME: stamp:` (IOS origin id after an empty tag) behind "
                     "the server's header: neither the name nor the stamp is taken"),
    "kiwi_inner": ("parser miss", "a Kiwi forward (`Original Address=…`) behind the server's "
                   "header: `Original` is taken as the host"),
    "empty_field": ("parser miss", "rsyslog's RFC 5424 forward with an empty PROCID (`bird[]`, "
                    "two spaces): the frame is not read at all"),
    "tag_cut": ("server's format", "rsyslog's RFC 5424 APP-NAME keeps Huawei's module (`SRM`) "
                "and drops `/3/OPTPWRABNORMAL`"),
    "app_tag": ("parser miss", "rsyslog's RFC 5424 forward moves the tag or mnemonic "
                "(`%LINK-3-UPDOWN`, `WAN_Connection`) into APP-NAME; the message is not read "
                "with it"),
    "sd_dropped": ("server's format", "rsyslog's file formats drop RFC 5424 structured data "
                   "(Junos names the port there)"),
    "name_after_host": ("parser miss", "the device's own name after the server's host (origin "
                        "id as APP-NAME, `HOST  NAME prog:` from a two-space line, ASA `asa %ASA`)"),
    "other": ("to look at", "other"),
}


def classify(r: dict[str, Any]) -> str | None:
    """Why a line the server wrote was judged wrong (None: nothing wrong). The first rule that
    fits names it; they were written from the lines this harness saw go wrong."""
    j, text, form = r["judged"], r["text"] or "", r["form"]
    state_bad = r["state_line"] and r["published_complete"] and not (
        j["recognised"] and j["interface"])
    if j["time"] and j["host"] and not state_bad:
        return None
    fwd = form == "rsyslog_fwd_rfc5424"
    name = (r.get("got") or {}).get("name") or ""
    checks = (
        ("inner_5424", _INNER_5424.search(text)),
        ("kiwi_inner", "Original Address=" in text and name == "Original"),
        ("split_stamp", form.startswith("rsyslog") and (
            _SPLIT_STAMP.search(text) or _MONTH.match(name))),
        ("offset_as_host", re.fullmatch(r"[+-]\d{4}", name)),
        ("empty_field", _EMPTY_FIELD.search(text)),
        ("kv_split", _APP_KV.search(text)),
        ("mark_split", _APP_MARK.search(text)),
        ("colon_origin", _COLON_ORIGIN.search(text) and not j["host"]),
        ("tag_cut", fwd and _HUAWEI_TAG.search(r["line"]) and not _HUAWEI_TAG.search(text)),
        ("app_tag", fwd and j["time"] and j["host"]),
        ("sd_dropped", r["header_form"] == "rfc5424" and form in relay.FILE_FORMS[:2]
         and j["host"] and (j["time"] or form == "rsyslog_traditional")),
        ("zone_tag", not j["time"] and _ZONE_TAG.search(text)),
        ("server_offset", not j["time"] and form in ("rsyslog_rfc3339", "rsyslog_fwd_rfc5424")
         and not _OFFSET.search(r["line"])),
        ("offset", not j["time"] and _OFFSET.search(r["line"]) and form in BSD_FORMS),
        ("name_after_host", not j["host"] and j["time"]),
    )
    return next((label for label, hit in checks if hit), "other")


BSD_FORMS = ("rsyslog_traditional", "syslogng_file", "syslogng_relay")


def patterns(results: list[dict[str, Any]], top: int = 12) -> list[str]:
    """Why lines came out wrong after a server, by class: what the server's format loses and
    what the parser misses that is still in the text."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        if not r["lost"] and not r["unsure"] and (c := classify(r)):
            groups[c].append(r)
    out = ["| class | whose | lines (of all forms) | forms | families | examples |",
           "|---|---|---:|---|---|---|"]
    for c, rs in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]:
        whose, what = CLASSES[c]
        ids = list(dict.fromkeys(r["id"] for r in rs))
        forms = ", ".join(f for f in relay.FORMS if any(r["form"] == f for r in rs))
        fams = ", ".join(sorted({r["nos"] for r in rs}))
        out.append(f"| {what} | {whose} | {len(rs)} | {forms} | {fams} | {', '.join(ids[:4])} |")
    return out


def left_out(lo: dict[str, dict[str, int]]) -> str:
    total = Counter[str]()
    for why in lo.values():
        total.update(why)
    return "; ".join(f"{why}: {n}" for why, n in total.most_common())


def report(m: dict[str, Any], top: int = 12) -> str:
    cs = cells(m["results"])
    lines = [f"Lines sent: {m['sent']} real, counted lines (each to both servers); left out "
             f"(no device message a server could receive): {left_out(m['left_out'])}.", ""]
    lines += table({k: v for k, v in cs.items() if k[0] == "all"}) + [""]
    lines += ["Per family × server form:", ""] + table(
        {k: v for k, v in cs.items() if k[0] != "all"}) + [""]
    lines += ["Miss patterns the servers' forms reveal (for the parser's owner; not fixed "
              "here):", ""] + patterns(m["results"], top)
    return "\n".join(lines)


def write_results(path: Path, body: str) -> None:
    """Replace (or append) this measurement's own section of RESULTS.md, nothing else."""
    section = (
        f"{BEGIN}\n## Real lines relayed through real servers on this machine (issue 24)\n\n"
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {rls.machine()}; "
        "`.venv/bin/python -m bench.real_logs_relay --results bench/RESULTS.md`. A measurement "
        "apart from the public corpus's figures above (never added to them): the corpus's real "
        "lines sent over UDP on loopback to rsyslog 8.2302 and syslog-ng 3.38 started by the "
        "harness, their files and relayed datagrams loaded back through the ingest "
        "(`file_events` / `syslog_event`, the relay declared in `ingest.relays`), scored with the "
        "corpus's labels. Sent: datagram, RFC 5424 and Kiwi lines byte for byte; a server-file "
        "line without its first server's stamp and host when the corpus marks a relay header, "
        "else whole after `<13>`; a `show logging` line after `<13>` where its stamp is a wire "
        "form. Right time: the device's own stamp within 1 s (without its year when the stamp "
        "has none: the servers run in 2026); the server's clock only for a line with no device "
        "time. Right host: the name the device put in what it sent (origin id, HOSTNAME), else "
        "its sender address as the server writes it (each line has its own 127.1.x.y); never the "
        "relay (127.0.0.1). Details: bench/real_logs_relay.py. Percentages are of "
        "network-state lines, \"all lines\" of "
        "every line the server wrote; \"as published\" is the same lines scored as published "
        "by bench/real_logs_score.py.\n\n"
        f"{body}\n{END}\n")
    text = path.read_text() if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Real lines relayed through real syslog servers")
    ap.add_argument("--results", type=Path, help="write this measurement's section here")
    ap.add_argument("--misses", type=int, default=12, help="miss patterns to list")
    ap.add_argument("--keep", type=Path, help="keep the servers' files in this folder")
    ap.add_argument("--json", type=Path, help="write every judged line here (JSON Lines)")
    ap.add_argument("--corpus", type=Path, default=rls.CORPUS)
    ap.add_argument("--sample", type=int, help="only this many lines (relay.sample)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="relay-servers-") as tmp:
        rows = rls.load(args.corpus)
        m = relay.measure(relay.sample(rows, args.sample) if args.sample else rows,
                          args.keep or Path(tmp))
    body = report(m, args.misses)
    print(body)
    if args.json:
        with args.json.open("w") as f:
            for r in m["results"]:
                f.write(json.dumps(r, default=str) + "\n")
    if args.results:
        write_results(args.results, body)
    return 0

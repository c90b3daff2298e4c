"""Tables and the RESULTS.md section of bench/real_logs_relay.py (real lines relayed through real
servers on this machine). Figures are over counted, sure lines; `unsure` lines are counted apart.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import real_logs_relay as relay
import real_logs_score as rls

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


def patterns(results: list[dict[str, Any]], top: int = 12) -> list[str]:
    """Where relaying costs what the published line had: state lines complete as published and
    not after the server, and any line whose device time or host the server's form broke."""
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for r in results:
        if r["lost"] or r["unsure"]:
            continue
        j = r["judged"]
        bad = [k for k in ("time", "host") if not j[k]]
        if r["state_line"] and r["published_complete"]:
            bad += [k for k in ("recognised", "interface") if not j[k]]
        for k in bad:
            groups[(r["form"], k, r["nos"], r["header_form"], r["stamp"])].append(r["id"])
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]
    return [f"- {form}: **{what}** wrong on {len(ids)} {nos} `{hf}`/`{stamp}` lines "
            f"(e.g. {', '.join(ids[:3])})" for (form, what, nos, hf, stamp), ids in ranked]


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
        "`.venv/bin/python bench/real_logs_relay.py --results bench/RESULTS.md`. A measurement "
        "apart from the public corpus's figures above (never added to them): the corpus's real "
        "lines sent over UDP on loopback to rsyslog 8.2302 and syslog-ng 3.38 started by the "
        "harness, their files and relayed datagrams loaded back through the ingest "
        "(`file_events` / `syslog_event`, the relay declared in `ingest.relays`), scored with the "
        "corpus's labels. Rules (what is sent, right time, right host): the docstring of "
        "bench/real_logs_relay.py. Percentages are of network-state lines, \"all lines\" of "
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

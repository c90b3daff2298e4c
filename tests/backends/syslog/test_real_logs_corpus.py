"""The real-line acceptance corpus (bench/real_logs/, issue 24 item 4) is well-formed: every
line carries its public source and labels in the schema, and the corpus keeps the size it has
reached. How well the ingest scores on it is bench/real_logs_score.py's business, not this test's."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from tests.paths import REPO

CORPUS = REPO / "bench" / "real_logs"
KINDS = {"link_updown", "lineproto_updown", "admin_updown", "bgp", "ospf", "isis", "bfd",
         "optics", "transceiver_inserted", "transceiver_removed", "stp", "lacp", "mac_flap",
         "duplicate_ip", "cdp_lldp_mismatch", "speed_duplex", "hardware_error", "config_change",
         "auth", "noise", "device_restart"}
FORMS = {"datagram", "rfc5424", "kiwi", "server_file", "show_logging"}
STAMPS = {"bsd", "bsd_frac", "bsd_year", "year_first", "rfc3339", "ymd", "kv_date", "ctime", "uptime", "none"}
FEATURES = {"clock_mark", "zone_name", "xr_node", "relay_header", "origin_host", "seq"}
STATES = {"up", "down", None}
TOP = {"id", "line", "nos", "header_form", "stamp", "features", "derived", "counted", "source",
       "provenance", "stated_zone", "zone_assumed", "year_assumed", "reference_utc", "expect"}
EXPECT = {"time_utc", "host", "interface", "kind", "state", "network_state"}
# floors: what the corpus has reached (raise them as it grows, never lower them)
MIN_COUNTED = 2794
MIN_FAMILIES = 10
MIN_PER_FAMILY = 3
MIN_STATE_LINES = 705
MIN_FOUR_FORM_FAMILIES = 7  # families with real lines in at least 4 header forms (issue: 10)


def _rows() -> list[dict[str, Any]]:
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for n, text in enumerate(path.read_text().splitlines(), 1):
            assert text.strip(), f"{path.name}:{n} is blank"
            row = json.loads(text)
            row["_file"] = path.stem
            rows.append(row)
    return rows


ROWS = _rows()


def _iso(text: str) -> datetime:
    at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert at.tzinfo is not None, text
    return at


def test_the_corpus_is_there_and_has_a_readme() -> None:
    assert ROWS, "no corpus files"
    assert (CORPUS / "README.md").is_file()


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_line_is_labelled_in_the_schema(row: dict[str, Any]) -> None:
    missing = TOP - set(row)
    assert not missing, f"{row['id']} lacks {missing}"
    assert row["nos"] == row["_file"], "one file per NOS family"
    assert row["id"].startswith(row["nos"] + "-")
    line = row["line"]
    assert line.strip() and "\n" not in line and "\r" not in line  # trailing blanks are kept as sent
    assert row["header_form"] in FORMS and row["stamp"] in STAMPS
    assert set(row["features"]) <= FEATURES
    assert isinstance(row["derived"], bool) and isinstance(row["counted"], bool)
    assert not (row["derived"] and row["counted"]), "a derived variant never counts"
    if row["derived"]:
        assert row.get("wrapping"), "a derived variant says how it was wrapped"
    src = row["source"]
    assert isinstance(src, dict) and (src.get("repo") and (src.get("path") or src.get("url")))
    if src.get("url"):
        assert re.match(r"https?://", src["url"])
    assert len(row["provenance"]) > 10
    _iso(row["reference_utc"])
    exp = row["expect"]
    assert set(exp) >= EXPECT, f"{row['id']} expect lacks {EXPECT - set(exp)}"
    assert exp["kind"] in KINDS and exp["state"] in STATES
    assert isinstance(exp["network_state"], bool)
    if exp["time_utc"] is not None:
        _iso(exp["time_utc"])
    elif row["stamp"] not in ("uptime", "none"):
        pytest.fail(f"{row['id']}: a stamped line needs its time")
    if exp["kind"] in ("noise", "config_change", "auth"):
        assert not exp["network_state"]
    if row["stated_zone"] is None and exp["time_utc"] is not None and "zone_name" not in \
            row["features"] and row["stamp"] not in ("rfc3339",):
        assert row["zone_assumed"], f"{row['id']}: a time read without a zone is assumed UTC"


def test_lines_are_unique_within_a_family() -> None:
    seen = Counter((r["nos"], r["line"]) for r in ROWS)
    twice = [k for k, n in seen.items() if n > 1]
    assert not twice, twice[:3]
    ids = Counter(r["id"] for r in ROWS)
    assert all(n == 1 for n in ids.values())


def test_the_corpus_keeps_its_size() -> None:
    counted = [r for r in ROWS if r["counted"] and not r["derived"]]
    per_family = Counter(r["nos"] for r in counted)
    assert len(counted) >= MIN_COUNTED, len(counted)
    big = [f for f, n in per_family.items() if n >= MIN_PER_FAMILY]
    assert len(big) >= MIN_FAMILIES, per_family
    assert sum(r["expect"]["network_state"] for r in counted) >= MIN_STATE_LINES
    forms: dict[str, set[str]] = {}
    for r in counted:
        forms.setdefault(r["nos"], set()).add(r["header_form"])
    four = sorted(f for f, got in forms.items() if len(got) >= 4)
    assert len(four) >= MIN_FOUR_FORM_FAMILIES, four

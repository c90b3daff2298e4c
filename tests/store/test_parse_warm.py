"""The parsing workers load what their parsers load lazily (the syslog vendor rules: 1.5 s of
YAML and compiling) when they start, before `wait_ready` answers — not while a storm's first
batch waits for its parse (issue 28 item 1)."""

from __future__ import annotations

from pathlib import Path

from netopsai.backends.syslog import rules
from netopsai.backends.syslog.receiver import SyslogContext, parser
from netopsai.store.parsing import Parsing
from netopsai_testkit.marking import MarkingParser


def test_a_worker_warms_its_parsers_before_it_is_ready(tmp_path: Path) -> None:
    mark = tmp_path / "warmed"
    parsing = Parsing({"test": MarkingParser(str(mark))}, workers=1)
    try:
        assert parsing.wait_ready(120)
        assert mark.read_text() == "warm"  # no batch was submitted
    finally:
        parsing.close()


def test_the_syslog_parser_warms_its_rules() -> None:
    rules.rules.cache_clear()
    rules._by_needle.cache_clear()
    parser(SyslogContext()).warm()
    assert rules._by_needle.cache_info().currsize == 1
    assert rules.rules.cache_info().currsize == 1

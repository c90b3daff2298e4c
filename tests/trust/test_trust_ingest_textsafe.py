"""netopsai.common.textsafe.visible: network text's control characters become visible marks."""

from __future__ import annotations

import pytest

from netopsai.common.textsafe import NEWLINE_MARK, visible


@pytest.mark.parametrize(("raw", "shown"), [
    ("Interface Ethernet1/1 is down", "Interface Ethernet1/1 is down"),
    ("naïve 名前 – ok", "naïve 名前 – ok"),
    ("\x1b[2J\x1b[31mpwned", "␛[2J␛[31mpwned"),
    ("up\nJan 1 00:00:00 spine-1 forged", f"up{NEWLINE_MARK}Jan 1 00:00:00 spine-1 forged"),
    ("a\r\nb", f"a{NEWLINE_MARK}b"),
    ("a\rb", f"a{NEWLINE_MARK}b"),
    ("bell\x07nul\x00del\x7f", "bell␇nul␀del␡"),
    ("tab\there", "tab here"),
    ("csi\x9b2J", "csi<U+009B>2J"),
    ("name\u202etxt", "name<U+202E>txt"),
    ("sep\u2028next", f"sep{NEWLINE_MARK}next"),
])
def test_visible_marks_controls(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_visible_output_has_no_controls_and_is_idempotent() -> None:
    every = "".join(chr(c) for c in range(0x00, 0xA0)) + "\u202a\u2066\u2029"
    once = visible(every)
    assert all(ch.isprintable() or ch == " " for ch in once), once
    assert visible(once) == once
    # every printable ASCII character survives untouched, in order
    assert "".join(chr(c) for c in range(0x20, 0x7F)) in once

"""Network text with its control characters made visible.

Syslog lines, trap varbinds, interface descriptions and alarm names come from
the network, and any sender can put control characters in them: an ESC
sequence that recolours or clears an on-call's terminal, a CR/LF that makes
one stored message print as two forged lines, a bidi override that shows a
name backwards. `visible` keeps such text readable and inert: every C0/C1
control (and the few invisible Unicode characters that reorder or break a
line) becomes a printable mark, so the same string is safe to store, print in
a terminal, write to CSV or show in a table. It is idempotent: marks are
ordinary characters, so text passed twice reads the same.
"""

from __future__ import annotations

# A line break inside one message is the forgery that matters most (a second
# "line" that looks like its own log entry), so it gets one unmistakable mark
# whether the sender used LF, CR LF or a lone CR.
NEWLINE_MARK = "⏎"

# Unicode's Control Pictures (U+2400 + code) name every C0 control by its
# abbreviation (␛ ESC, ␀ NUL, ␇ BEL): readable in every font that has them,
# and not a control themselves.
_C0 = {code: chr(0x2400 + code) for code in range(0x20)}
_C0[0x7F] = "␡"
# A tab is whitespace, not a forgery; one space keeps a table's columns.
_C0[0x09] = " "
_C0[0x0A] = NEWLINE_MARK
_C0[0x0D] = NEWLINE_MARK

# C1 controls (U+0080..U+009F, e.g. U+009B, the one-character CSI) have no
# picture of their own: shown as their code, which is what an on-call would
# search for.
_C1 = {code: f"<U+{code:04X}>" for code in range(0x80, 0xA0)}

# Invisible characters that change how the rest of a line reads: the bidi
# overrides and isolates (text shown in another order than stored) and the
# Unicode line/paragraph separators (a line break by another name).
_INVISIBLE = {code: f"<U+{code:04X}>" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_INVISIBLE[0x2028] = NEWLINE_MARK
_INVISIBLE[0x2029] = NEWLINE_MARK
_INVISIBLE[0x85] = NEWLINE_MARK  # NEL, the C1 "next line"

_TABLE = {**_C0, **_C1, **_INVISIBLE}

# The first words of a stored event whose sender was not the device it names (nor a relay):
# kept, raised nothing (netopsai.store.naming). A mark in the text, so every view that shows
# the message shows it, and one constant, so the tools that count such events agree.
UNVERIFIED = "[unverified sender]"


def visible(text: str) -> str:
    """`text` with every control character replaced by a visible mark.

    ESC becomes "␛" (so "\\x1b[31m" reads "␛[31m"), a line break inside the
    text (LF, CR LF, lone CR, NEL, U+2028/9) becomes one "⏎", a tab one space,
    other C0 controls their Control Picture, C1 controls and bidi overrides
    "<U+XXXX>". Printable text, including non-ASCII letters, is unchanged.
    """
    if text.isprintable():
        return text  # the common case: no copy, no table walk
    return text.replace("\r\n", "\n").translate(_TABLE)

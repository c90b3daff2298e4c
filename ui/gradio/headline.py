"""The answer's headline pinned above the chat, as HTML: the line itself is built by
netopsai.copilot.headline (shared with Slack and the terminal, so every front end says the same);
here it gets its escaping, device links and tag. Pure: no gradio here."""

from __future__ import annotations

import html
import re

from netopsai.copilot.headline import MAX_CHARS, headline, plain
from netopsai.ui.gradio.views import device_href

__all__ = ["MAX_CHARS", "headline", "headline_html", "plain"]

_KINDS = {"answer": "conclusion", "working": "working", "error": "error", "gone": "no answer",
          "empty": ""}
EMPTY = "Ask a question: the answer's conclusion stays here, above its steps."


def _word(word: str, names: set[str] | frozenset[str]) -> str:
    """One word of the line, escaped: a device name as a link to its page; a word with a hyphen
    or a colon (a name, a time) kept on one line."""
    bare = word.strip(".,;:()")
    if bare and bare in names:
        link = f'<a class="nw" href="{device_href(bare)}">{html.escape(bare)}</a>'
        return html.escape(word).replace(html.escape(bare), link, 1)
    if re.search(r"[-:/]", word):
        return f'<span class="nw">{html.escape(word)}</span>'
    return html.escape(word)


def headline_html(text: str, kind: str = "answer", names: set[str] | frozenset[str] = frozenset()) -> str:
    """The pinned line as HTML: escaped, device names as links to their page, a tag saying
    what it is (the conclusion, a question being worked on, an error, no answer)."""
    words = " ".join(_word(w, names) for w in (text or EMPTY).split(" "))
    tag = _KINDS.get(kind, "")
    label = f'<span class="np-head-tag">{tag}</span> ' if tag and text else ""
    return (f'<div class="np-head np-head-{kind if text else "empty"}" role="status">'
            f'<div class="np-head-text">{label}{words}</div></div>')

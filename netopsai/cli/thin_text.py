"""An answer as `ask` prints it into a pipe or a file: its headline first, a blank line, then the
markdown itself (nothing wrapped, padded or cut), every control character made visible. Light on
purpose (re and the copilot's pure text helpers only): the thin `ask` (launch/thin.py) prints with
it without loading rich or typer; cli/render.py prints the same text through it."""

from __future__ import annotations

from netopsai.common.textsafe import visible

ASK_PICK = 'Ask one with netopsai ask "QUESTION".'  # how `ask` says to ask an example


def lines(text: object) -> str:
    """Text of several lines (an answer, a config diff) for a terminal or a file: its line
    breaks (LF, CR LF) kept, every other control character made visible (a lone CR too: it
    would overwrite the line it ends)."""
    return "\n".join(visible(line) for line in str(text).replace("\r\n", "\n").split("\n"))


def headline_line(answer: object) -> str:
    """An answer's headline (netopsai.copilot.headline: the line the web app pins and Slack posts
    first), one line and visible, for the first line a terminal prints; "" when it has none."""
    from netopsai.copilot.headline import headline

    return visible(headline(str(answer or "")))


def short_text(answer: str, pick: str) -> tuple[str, list[str]] | None:
    """A "could not place" answer as the web app and Slack show it (netopsai.copilot.nextmove.unplaced):
    its one line, then up to four examples as a numbered list and `pick`, how to ask one; None
    for any other answer. Replaces the paragraph that lists every kind of question."""
    from netopsai.copilot.nextmove import unplaced

    short = unplaced(answer)
    if short is None:
        return None
    line, shown = short
    numbered = [f"  {i}. {q}" for i, q in enumerate(shown, 1)]
    return "\n".join([line, "", "Try one of these:", *numbered, "",
                      f"{pick} Ask \"help\" for everything netopsai answers offline."]), shown


def answer_parts(answer: str, pick: str) -> tuple[str, str, bool, list[str]]:
    """(headline, body, short, examples shown): the body is the short "could not place" text
    (`short`) or the whole answer, made visible either way."""
    head = headline_line(answer)
    short = short_text(answer, pick)
    if short is None:
        return head, lines(answer), False, []  # it quotes network text: controls made visible
    text, shown = short
    first, rest = text.split("\n", 1)
    return head, lines(rest.lstrip("\n") if visible(first) == head else text), True, shown


def piped(head: str, body: str) -> str:
    """What a pipe gets: the headline as the first line, a blank line, the body; one final
    line break."""
    out = (f"{head}\n\n" if head else "") + body
    return out if out.endswith("\n") else out + "\n"

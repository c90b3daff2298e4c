"""Words typed in a hurry, read as meant before any rule sees them (issue 25 item 3).

On-calls write "whats wrong w/ DC1-LEAF-03", "hosts are nt pinging b/w pods", "cant ssh rn",
"10.2.14.30:443 hangs", "alrams past hr". The forms here come from operators' own words in
public tickets (tests/data/phrasings/hurried.yaml keeps them with their sources):

- shorthand: w/ -> with, w/o -> without, b/w -> between, thru, pls, rn, lst, hrs, intf, pwr,
  retrans, pfcwd, pkts ...;
- contractions typed without their apostrophe (cant, wont, dont, isnt, doesnt, whats, nt) and
  with a typographic one (can’t);
- an address with its port (10.2.1.40:22, "10.2.1.40 port 22", "telnet 10.2.2.40 179"): the
  address stays, the port is kept apart as a hint (the path checks read addresses, not ports);
- misspelt planner words, by edit distance (planner/spelling.py).

Names are left as typed: the inventory's names are matched in any case and with their own
typos by planner/names.py. Every replacement is one regular-expression pass, so the cost stays
linear in the question's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netopsai.planner.spelling import correct

# typed -> meant, for a whole word (matched in any case); each seen in real tickets or chats
SHORT = {
    "pls": "please", "plz": "please", "plse": "please", "thru": "through", "rn": "right now",
    "atm": "right now", "lst": "last", "yday": "yesterday", "yest": "yesterday",
    "2day": "today", "b4": "before", "btwn": "between", "betw": "between",
    "intf": "interface", "intfs": "interfaces", "iface": "interface", "ifaces": "interfaces",
    "pwr": "power", "pkt": "packet", "pkts": "packets", "retrans": "retransmits",
    "retx": "retransmits", "pfcwd": "pfc watchdog", "nbr": "neighbor", "nbrs": "neighbors",
    "rtr": "router", "rtrs": "routers", "dwn": "down",
    # the apostrophe left out (or a word spelt as it sounds)
    "cant": "can't", "wont": "won't", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't",
    "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "werent": "weren't",
    "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "havent": "haven't",
    "hasnt": "hasn't", "aint": "isn't", "nt": "not", "whats": "what's", "wats": "what's",
    "wat": "what", "thats": "that's", "theres": "there's", "somethings": "something's",
    "hows": "how's", "wheres": "where's", "whos": "who's",
    # English words that are, in an on-call's question, slips for another
    "loosing": "losing", "looses": "loses", "loos": "loss",
}
_SHORT = re.compile(r"(?<![\w./:@'-])(?:" + "|".join(sorted(map(re.escape, SHORT), key=len, reverse=True))
                    + r")(?![\w/:@'-]|\.[A-Za-z0-9])", re.I)
# "w/ X", "w/X", "w/o", "b/w"; never "w/e" (whatever) or a path ("a/b/w")
_SLASHED = re.compile(r"(?<![\w/])(?:(w/o(?:ut)?)(?![\w/])|(b/[wt])(?![\w/])|(w/)(?![/]|[A-Za-z]\b))", re.I)
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])[’‘´`](?=[A-Za-z])")
_AND = re.compile(r"(?<=\s)&(?=\s)")
_ADDR = r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}"
# "10.2.1.40:22", "10.2.1.40 port 22", "10.2.1.40 tcp/22": the address stays, the port goes
_PORTED = re.compile(_ADDR + r"(?P<rest>:(?P<p1>\d{1,5})|\s{1,3}(?:on\s{1,3})?(?:port|tcp|udp)"
                     r"\s{0,3}[/:#]?\s{0,3}(?P<p2>\d{1,5}))(?![\d.:/])", re.I)
# "telnet 10.2.2.40 179", "nc -zv 10.2.11.20 22": a port-testing tool, then address and port
_TOOL_PORT = re.compile(r"\b(?:telnet|nc|ncat|netcat|nmap|curl|openssl s_client)\s{1,3}(?:-{1,2}\w{1,10}"
                        r"\s{1,3}){0,4}" + _ADDR + r"(?P<rest>\s{1,3}(?P<p1>\d{1,5}))(?![\d.:/])", re.I)


@dataclass
class Hurried:
    """The question as meant: its text, the ports named with addresses, what was read as what."""

    text: str
    ports: list[int] = field(default_factory=list)
    read_as: dict[str, str] = field(default_factory=dict)  # misspelt word -> planner word

    @property
    def notes(self) -> list[str]:
        said = [f"read {typed!r} as {word!r}" for typed, word in self.read_as.items()]
        if self.ports:
            said.append(f"port {', '.join(map(str, self.ports))} noted: the path checks read "
                        "addresses, not ports")
        return said


def _keep_case(typed: str, meant: str) -> str:
    if typed.isupper() and len(typed) > 1:
        return meant.upper()
    return meant[0].upper() + meant[1:] if typed[0].isupper() else meant


def _ports(text: str) -> tuple[str, list[int]]:
    """Ports blanked from beside their addresses (same length: spans found later still fit)."""
    found: list[int] = []

    def blank(m: re.Match[str]) -> str:
        port = int(m.group("p1") or m.group("p2"))
        if not 0 < port <= 65535:
            return m.group(0)
        found.append(port)
        cut = m.start("rest") - m.start()
        return m.group(0)[:cut] + " " * (len(m.group(0)) - cut)
    text = _TOOL_PORT.sub(blank, text)
    text = _PORTED.sub(blank, text)
    return text, list(dict.fromkeys(found))


def _slashed(m: re.Match[str]) -> str:
    word = "without" if m.group(1) else "between" if m.group(2) else "with"
    return word + ("" if m.group(3) is None or m.end() == len(m.string) or m.string[m.end()] == " "
                   else " ")


def normalise(question: str, keep: frozenset[str] = frozenset()) -> Hurried:
    """The question with hurried words read as meant. `keep`: words never corrected (the words
    of the inventory's names)."""
    text = _APOSTROPHE.sub("'", question)
    text, ports = _ports(text)
    text = _SLASHED.sub(_slashed, text)
    text = _AND.sub("and", text)
    text = _SHORT.sub(lambda m: _keep_case(m.group(0), SHORT[m.group(0).lower()]), text)
    text, read = correct(text, keep)
    return Hurried(text, ports, read)

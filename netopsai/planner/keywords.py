"""Keyword entities: device roles, alarm categories, alarm state, telemetry metric.

Each table is tried in order and each match is blanked before the next entry, so the longer
phrase wins ("super spine" is not also a "spine"; "not cleared" is not also "cleared").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from netopsai.planner.roce import ROCE_WORDS, rail_scope

if TYPE_CHECKING:
    from netopsai.planner.entities import Entities, Vocabulary

Table = list[tuple[str, re.Pattern[str]]]


def _table(pairs: list[tuple[str, str]]) -> Table:
    return [(name, re.compile(rx, re.I)) for name, rx in pairs]


ROLES = _table([
    ("superspine", r"\bsuper[\s-]?spines?\b"),
    ("spine", r"\bspines?\b"),
    ("leaf", r"\b(?:tors?|leafs?|leaves|top[\s-]of[\s-]rack)\b"),
    ("border", r"\bborders?(?:[\s-](?:leafs?|routers?))?\b"),
    ("dci", r"\bdcis?\b"),
    ("host", r"\b(?:hosts?|servers?)\b"),
])
CATEGORIES = _table([
    ("dci", r"\bdci\b|\binter[\s-]?(?:dc|site|data[\s-]?cent(?:er|re))\b"),
    ("backbone", r"\bb-?bone\b|\bbackbone\b|\bwan\b"),
    ("bgp", r"\b[ie]?bgp\b"),
    ("routing", r"\bospf\b|\bis-?is\b|\bbfd\b|\badjacenc(?:y|ies)\b"),
    ("optics", r"\boptic(?:s|al)?\b|\btransceivers?\b|\bq?sfp\w*|\blight levels?\b|\brx[\s_-]?power\b"),
    ("capacity", r"\bcapacity\b|\bcongest\w*|\bsaturat\w*"),
    ("device", r"\bdevice (?:alarms?|alerts?|down|failures?)\b|\breboot\w*|\bpsus?\b|"
               r"\bpower suppl\w*|\bfans?\b|\bchassis\b|\bcrash\w*"),
    ("link", r"\blinks?\b|\bports?\b|\binterfaces?\b"),
])
STATES = _table([
    ("open", r"\bnot (?:yet )?(?:cleared|resolved|closed)\b|\b(?:open|active|ongoing|current(?:ly)?|"
             r"firing|unresolved|outstanding|still)\b"),
    ("closed", r"\b(?:closed|cleared|resolved|recovered|historical)\b"),
])
_PORTS = r"\b(?:ports?|links?|interfaces?)\b"
# a port that flaps, in on-calls' words: "keeps going up and down", "link up-down randomly",
# "periodic link down+up", "up/down cycling" (a bare "up/down" is a question of state)
_PAIR = r"(?:up(?:\s{0,3}(?:/|and|n|&)\s{0,3}|\s{1,3})down|down(?:\s{0,3}(?:/|and|n|&)\s{0,3}|\s{1,3})up)\b"
_OFTEN = (r"(?:random\w*|periodic\w*|repeated\w*|constant\w*|continual\w*|keeps?|kept|going|goes|go"
          r"|went|cycl\w*|again|all (?:day|night)|every|frequent\w*|on and off)")
_WORDS = r"\W{1,3}(?:\w{1,20}\W{1,3}){0,3}?"  # a few words between, at most
_UPDOWN = (r"\b(?:up-down|down-up|up\s?\+\s?down|down\s?\+\s?up)\b"
           rf"|\b{_OFTEN}{_WORDS}{_PAIR}|\b{_PAIR}{_WORDS}{_OFTEN}\b")
NEAR = 200  # "ports ... down" within a sentence, this far apart at most: unbounded, each "ports"
# rescanned its sentence to the end (quadratic in the question's length)
METRICS = _table([
    *ROCE_WORDS,
    ("flaps", r"\bflap\w*|\bbouncing\b|\bbounced\b|\bflak(?:e?y|iness)\b|\bon and off\b|\boff and on\b"
              rf"|{_UPDOWN}"),
    ("rx_power", r"\brx[\s_-]?power\b|\boptic(?:s|al)?\b|\blight levels?\b|\bdbm\b|\breceive power\b|"
                 r"\btransceivers?\b"),
    ("errors", r"\berrors?\b|\bcrcs?\b|\bfcs\b|\berrored\b|\bcorrupt\w*"),
    ("discards", r"\bdiscard\w*|\bdrops?\b|\bdropped\b|\bdropping\b"),
    ("utilization", r"\butili[sz]\w*|\butil\b|\bbandwidth\b|\bthroughput\b|\bbusiest\b|\bhott?est\b|"
                    r"\bhot[\s-]?spots?\b|\bcongest\w*|\bsaturat\w*|\btraffic (?:load|levels?)\b"
                    r"|\bhow (?:full|busy|loaded)\b|\bpipe (?:is )?full\b"),
    ("oper_status", r"\b(?:link|port|interface|oper(?:ational)?)[\s_-]?(?:status|state)s?\b|"
                    r"\bup/down\b|\bup or down\b|\bchanged? state\b|\bstate changes?\b|"
                    rf"\b(?:status|state) of (?:the |all )?{_PORTS}|"
                    rf"{_PORTS}[^.?!]{{0,{NEAR}}}\b(?:down|up)\b|\b(?:down|up)\b[^.?!]{{0,{NEAR}}}{_PORTS}|"
                    # "what went down between 09:40 and 09:45?", "which came back (up)?", "anything
                    # go down?": state changes asked of the whole network, with no port word
                    rf"\b(?:what|which|anything|any)\b[^.?!]{{0,{NEAR}}}\b(?:went|go(?:es)?|gone|"
                    r"going|came|comes?|coming)\s+(?:back(?:\s+up)?|down|up)\b"),
])


_UP_OR_DOWN = re.compile(r"\b(?:down|up)\b", re.I)


def _found(text: str, table: Table) -> list[tuple[int, str]]:
    """(position, name) of each entry found, blanking matches so later entries skip them."""
    hits = []
    for name, rx in table:
        for m in rx.finditer(text):
            hits.append((m.start(), name))
        text = rx.sub(lambda m: " " * len(m.group(0)), text)
    return sorted(hits)


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def keywords(rest: str, ent: Entities, vocab: Vocabulary) -> None:
    roles = _unique([n for _, n in _found(rest, ROLES)])
    ent.roles = [r for r in roles if r in vocab.roles or not vocab.roles]
    cats = _unique([n for _, n in _found(rest, CATEGORIES)])
    if {"dci", "backbone"} & set(cats):
        cats = [c for c in cats if c != "link"]  # "DCI link alerts": DCI/backbone alarms are link alarms
    ent.categories = cats
    states = {n for _, n in _found(rest, STATES)}
    ent.state = states.pop() if len(states) == 1 else ("any" if states else None)
    metrics = _found(rest, METRICS)
    ent.metric = metrics[0][1] if metrics else None
    if ent.metric is None and ent.interfaces and _UP_OR_DOWN.search(rest):
        ent.metric = "oper_status"  # "Ethernet49 down on dc1-leaf-04?": the port named is the word
    rail_scope(rest, ent, vocab)

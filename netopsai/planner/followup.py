"""Follow-ups in a thread: a short question that refers back to the previous turn.

"and its upstream switch?" keeps the previous subject (IP or device) under a new intent;
"same for the last 24h" and "and closed ones?" re-run the previous intent with one thing
changed; "what about dc2?" moves the previous question to another site (dc1-spine-02 becomes
dc2-spine-02 when the inventory has it). Whatever the new question says wins.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace

from netopsai.planner.entities import Entities, Vocabulary

FOLLOW = re.compile(r"^\s*(?:and|also|what about|how about|same|ok(?:ay)?|now|then|but|plus|"
                    r"what of)\b|\b(?:same|instead|as well|other way|other direction|reverse|return path)\b",
                    re.I)
REF = re.compile(r"\b(?:its|it|them|they|ones?|the path|the same)\b|\b(?:that|this|those|these) "
                 r"(?:ip|address|host|device|switch|router|box|link|port|one|path)s?\b"
                 r"|(?<!is )(?<!are )(?<!were )(?<!was )\bthere\b", re.I)
REVERSE = re.compile(r"\b(?:reverse|other way|other direction|backwards?|return path|way back)\b", re.I)
CARRIED = ("window", "at", "state", "top", "size", "categories", "globs", "zone", "since_change")


def _subject(ent: Entities) -> bool:
    return bool(ent.ips or ent.cidrs or ent.devices or ent.invalid or ent.unknown or ent.tickets)


def _anything(ent: Entities) -> bool:
    return _subject(ent) or any([ent.sites, ent.pods, ent.roles, ent.window, ent.categories,
                                 ent.state, ent.metric, ent.size, ent.at, ent.interfaces,
                                 ent.zone, ent.since_change])


def is_follow_up(question: str, rest: str, ent: Entities, intent: str) -> bool:
    """A follow-up opens like one ("and ...", "what about ..."), or names only a detail and no
    question of its own ("dc2?", "last 24h?"), or asks about "it" without saying what it is."""
    if FOLLOW.search(question):
        return True
    if intent == "unknown":
        return _anything(ent)
    return not _subject(ent) and bool(REF.search(rest))


def merge(intent: str, ent: Entities, prev: Entities, prev_intent: str, rest: str,
          vocab: Vocabulary) -> tuple[str, Entities, list[str]]:
    """The follow-up's intent and entities: the new question's, completed from the previous."""
    notes: list[str] = []
    new_intent = prev_intent if intent == "unknown" else intent
    m = replace(ent)
    if not _subject(ent):
        if ent.sites or ent.pods:
            m.devices, n1 = _move(prev.devices, ent.sites, vocab, vocab.devices)
            m.pods = ent.pods or _move(prev.pods, ent.sites, vocab, vocab.pods)[0]
            covered = {vocab.meta[d]["site"] for d in m.devices} | {vocab.pod_sites[p] for p in m.pods}
            m.sites = [s for s in ent.sites if s not in covered]
            notes += n1
        else:
            for name in ("ips", "cidrs", "devices", "endpoints", "sites", "pods", "tickets", "jobs"):
                setattr(m, name, list(getattr(prev, name)))  # copies: the previous turn stays as it was
            m.interfaces = ent.interfaces or list(prev.interfaces)
        m.roles = ent.roles or list(prev.roles)
    for name in CARRIED:
        if not getattr(ent, name):
            setattr(m, name, copy.deepcopy(getattr(prev, name)))
    if ent.window or ent.since_change:  # a new window replaces the previous, whichever its form,
        # and its zone goes with it (it was read in the zone this question named, or the default)
        m.window, m.since_change, m.zone = ent.window, ent.since_change, ent.zone
    if new_intent.startswith("telemetry.") and not ent.metric:
        m.metric = prev.metric
    if REVERSE.search(rest) and len(m.endpoints) >= 2:
        m.endpoints = [m.endpoints[1], m.endpoints[0], *m.endpoints[2:]]
        notes.append(f"reversed: from {m.endpoints[0]} to {m.endpoints[1]}")
    return new_intent, m, notes


def _move(names: list[str], sites: list[str], vocab: Vocabulary,
          pool: list[str]) -> tuple[list[str], list[str]]:
    """The same names in another site: dc1-spine-02 -> dc2-spine-02 if that exists."""
    moved, notes = [], []
    site_of = {**{d: m["site"] for d, m in vocab.meta.items()}, **vocab.pod_sites}
    for name in names:
        old = site_of.get(name)
        for site in sites:
            twin = name.replace(old, site, 1) if old else None
            if twin and twin in pool and twin not in moved:
                moved.append(twin)
                if twin != name:
                    notes.append(f"{name} in {site} is {twin}")
            elif old != site:
                notes.append(f"{name} has no counterpart in {site}")
    return moved, notes

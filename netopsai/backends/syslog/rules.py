"""Vendor syslog rules as data: one YAML file per NOS family in `rules/`, each rule a regular
expression over the message (after the header) with named groups, and what a match means.

A rule:

    - name: link-updown              # unique in its family
      needle: UPDOWN                 # a literal the line must contain (a cheap pre-filter)
      match: 'Interface (?P<interface>{IF}), changed state to (?P<state>down|up)'
      kind: LINK_DOWN                # the condition it raises or clears
      states: {down: raise, up: clear}     # by the `state` group (lower case); or
      action: raise                  # one action for every match: raise | clear | note | change
      clears: [ADMIN_DOWN]           # a clear also closes these kinds on the same subject
      severity: major                # default by kind

`states` values are an action, optionally with another kind: "raise ADMIN_DOWN". Groups the
engine reads: interface, peer (an address), neighbor (a name or id), component (PSU 2, fan tray
1), state, reason, user. `{IF}`, `{IP}` and `{NAME}` are shared sub-patterns. Interfaces stay
as written here; the store names them as the inventory does (netopsai.common.ifnames.same_port), so
`Hu0/0/0/8`, `HundredGigE0/0/0/8` and `Optics0/0/0/8` land on one port.
`change` makes a change record (a config commit), `note` keeps the line as recognised.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

import yaml

from netopsai.backends.syslog.needles import Needles

Action = Literal["raise", "clear", "note", "change"]
PATTERNS = {
    "IF": r"(?:[A-Za-z]|\d{2,3}GE)[\w./:-]*\d(?:\.\d+)?",  # Huawei's 100GE1/0/1 too
    # a candidate address, judged by the ipaddress module once matched (Rule.apply): an IPv6
    # one may end in `::` (fc00:0:11::), hold an IPv4 tail (::ffff:10.0.0.1) and a zone
    # (fe80::1%Ethernet1); trailing punctuation (`:` `.`) is left out by the ending's lookbehind
    "IP": r"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*(?:(?<=[0-9A-Fa-f])|(?<=::))"
          r"(?:%[\w./-]*\w)?)",
    "NAME": r"[\w.:-]+",
}
CATEGORY = {  # the alarm category of each kind the rules raise
    "LINK_DOWN": "link", "ADMIN_DOWN": "link", "LINK_FLAP": "link", "ERR_DISABLED": "link",
    "LACP_MEMBER_DOWN": "link", "STP_BLOCKED": "link", "STORM_CONTROL": "link", "MAC_FLAP": "link",
    "LOOP_DETECTED": "link", "DUPLICATE_ADDRESS": "link", "PFC_WATCHDOG": "link",
    "PORT_MISMATCH": "link", "SPEED_DUPLEX": "link", "POE": "link",
    "OPTICS_LOS": "optics", "OPTICS_LOL": "optics", "OPTICS_RX_LOW": "optics",
    "OPTICS_RX_HIGH": "optics", "OPTICS_TX_LOW": "optics", "OPTICS_TX_HIGH": "optics",
    "TRANSCEIVER_REMOVED": "optics",
    "BGP_DOWN": "bgp", "BGP_PREFIX_LIMIT": "bgp", "BGP_AUTH_FAIL": "bgp",
    "OSPF_DOWN": "routing", "ISIS_DOWN": "routing", "BFD_DOWN": "routing", "LDP_DOWN": "routing",
    "EIGRP_DOWN": "routing", "VRRP_FAULT": "routing",
    "PSU_FAILURE": "device", "FAN_FAILURE": "device", "TEMPERATURE_HIGH": "device",
    "HIGH_CPU": "device", "LOW_MEMORY": "device", "DEVICE_REBOOT": "device",
    "MODULE_DOWN": "device", "CHASSIS_ALARM": "device", "CONFIG_CHANGE": "device",
    "SUPERVISOR_SWITCHOVER": "device", "PROCESS_CRASH": "device",
}
SEVERITY = {"ADMIN_DOWN": "minor", "BGP_PREFIX_LIMIT": "minor", "HIGH_CPU": "minor",
            "MAC_FLAP": "minor", "DUPLICATE_ADDRESS": "minor",
            "DEVICE_REBOOT": "major", "CONFIG_CHANGE": "info"}


@dataclass(frozen=True)
class Parsed:
    """What one message says happened."""

    kind: str
    action: Action
    category: str
    rule: str = ""  # family/name
    interface: str | None = None
    peer: str | None = None
    neighbor: str | None = None
    component: str | None = None
    reason: str | None = None
    user: str | None = None
    severity: str = "major"
    clears: tuple[str, ...] = ()
    instant: bool = False  # raised and over at once (a reload)

    @property
    def subject(self) -> str | None:
        """What a clear must name to close this raise: the session, adjacency, part or port."""
        return self.peer or self.neighbor or self.component or self.interface


@dataclass(frozen=True)
class Rule:
    family: str
    name: str
    needle: str
    pattern: re.Pattern[str]
    kind: str
    action: str | None
    states: dict[str, str]
    clears: tuple[str, ...]
    severity: str | None
    instant: bool

    def apply(self, text: str) -> Parsed | None:
        if self.needle not in text:
            return None
        m = self.pattern.search(text)
        if m is None:
            return None
        got = {k: v.strip() for k, v in m.groupdict().items() if v}
        if "peer" in got:
            peer = address(got["peer"])
            if peer is None:  # a time, a MAC or 999.1.1.1 matched the candidate: not a peer
                return None
            got["peer"] = peer
        state = next((v for k, v in got.items() if k.startswith("state")), "")  # state, state2 ..
        decided = self.action or self.states.get(state.lower()) or self.states.get("*")
        if decided is None:
            return None
        action, _, kind = decided.partition(" ")
        kind = kind or self.kind
        # a rule's other forms of the port: interface2, interface3 ... (one per alternative)
        iface = got.get("interface") or next(
            (v for k, v in got.items() if k.startswith("interface")), None)
        return Parsed(kind=kind, action=action,  # type: ignore[arg-type]
                      category=CATEGORY.get(kind, "device"), rule=f"{self.family}/{self.name}",
                      interface=iface, peer=got.get("peer"),
                      neighbor=got.get("neighbor"), component=got.get("component"),
                      reason=got.get("reason"), user=got.get("user"),
                      severity=self.severity or SEVERITY.get(kind, "major"), clears=self.clears,
                      instant=self.instant)


def address(text: str) -> str | None:
    """An address as the message writes it (its case kept, so raise and clear still meet), less
    an IPv6 zone (`%Ethernet1`: the inventory and session rows hold the bare address, as the
    rules that skip the zone after a peer always stored it); None when it is no address."""
    bare = text.partition("%")[0]
    for cand in (bare, bare[:-1] if bare.endswith(":::") else ""):  # `Peer fc00::: moved`
        try:
            ipaddress.ip_address(cand)
        except ValueError:
            continue
        return cand
    return None


def _rule(family: str, raw: dict[str, Any]) -> Rule:
    missing = {"name", "needle", "match", "kind"} - set(raw)
    if missing or not ("action" in raw or "states" in raw):
        raise ValueError(f"rule {family}/{raw.get('name')}: needs name, needle, match, kind and "
                         f"action or states (missing {sorted(missing) or ['action/states']})")
    expr = raw["match"]
    for key, sub in PATTERNS.items():
        expr = expr.replace("{" + key + "}", sub)
    return Rule(family, raw["name"], raw["needle"], re.compile(expr), raw["kind"],
                raw.get("action"), {str(k).lower(): v for k, v in (raw.get("states") or {}).items()},
                tuple(raw.get("clears") or ()), raw.get("severity"), bool(raw.get("instant")))


@cache
def rules() -> tuple[Rule, ...]:
    """Every family's rules (the first match wins): by `order` (default 1), then family name,
    then as written."""
    folder = resources.files("netopsai.backends.syslog").joinpath("rules")
    families = [yaml.safe_load(entry.read_text()) for entry in folder.iterdir()
                if entry.name.endswith(".yaml")]
    # families whose messages carry a mnemonic first (order 1), plain-text ones after
    families.sort(key=lambda f: (f.get("order", 1), f["family"]))
    return tuple(_rule(f["family"], r) for f in families for r in f["rules"])


@cache
def _by_needle() -> tuple[Needles, dict[str, tuple[int, ...]]]:
    """The rules' needles as one search, and the rules (their places in `rules()`) of each."""
    places: dict[str, list[int]] = {}
    for i, rule in enumerate(rules()):
        places.setdefault(rule.needle, []).append(i)
    return Needles(n for n in places if n), {n: tuple(p) for n, p in places.items()}


def warm() -> None:
    """Read and compile the rules and their needle search now rather than at the first line."""
    _by_needle()


def classify(text: str) -> Parsed | None:
    """What a message says happened, or None for a line no rule knows (kept raw). Only the
    rules whose needle the text holds are tried, in their order: the same first match as
    trying every rule (`classify_each`), which a line's parse spent most of its time on."""
    needles, places = _by_needle()
    present = needles.present(text)
    present.add("")  # a rule without a needle (none today) is tried on every line
    every = rules()
    for i in sorted(i for n in present for i in places.get(n, ())):
        found = every[i].apply(text)
        if found is not None:
            return found
    return None


def classify_each(text: str) -> Parsed | None:
    """`classify` by trying every rule in turn: the reference the needle search must equal."""
    for rule in rules():
        found = rule.apply(text)
        if found is not None:
            return found
    return None

"""How on-calls word a connectivity complaint. A family follows the symptom a user would see
(nothing gets through, loss, slowness, big packets failing, a short outage); some questions
use generic wording whatever the fault, so the words alone do not give the cause away."""

from __future__ import annotations

import random

FAMILIES: dict[str, list[str]] = {
    "unreachable": [
        "{a} to {b} not communicating",
        "{a} can't reach {b}",
        "from {a}, {b} is unreachable",
        "cannot connect from {a} to {b}",
        "{a} and {b} are not able to talk to each other",
        "connections from {a} to {b} time out",
        "why is {a} unable to reach {b}?",
    ],
    "loss": [
        "packet loss between {a} and {b}",
        "intermittent drops from {a} to {b}",
        "{a} -> {b} is flaky, some packets are lost",
        "seeing loss on traffic from {a} to {b}",
    ],
    "slow": [
        "{a} to {b} is slow",
        "high latency between {a} and {b}",
        "transfers from {a} to {b} are slow since half an hour",
    ],
    "big": [
        "pings from {a} to {b} work but big transfers time out",
        "large packets from {a} to {b} get dropped, small pings are fine",
    ],
    "blip": [
        "connectivity between {a} and {b} dropped for a few minutes",
        "{a} lost connectivity to {b} briefly, is it stable now?",
    ],
    "generic": [
        "any issue between {a} and {b}?",
        "please check connectivity from {a} to {b}",
        "something is broken between {a} and {b}",
        "users on {a} report problems reaching {b}",
    ],
}
# the symptom family a fault kind shows its users
SYMPTOM = {
    "link_down": "unreachable", "device_down": "unreachable", "host_down": "unreachable",
    "acl_block": "unreachable", "blackhole": "unreachable", "bgp_down": "unreachable",
    "dci_link_down": "unreachable", "link_flap": "loss", "crc_errors": "loss",
    "optic_degraded": "loss", "congestion": "slow", "mtu_mismatch": "big",
    "device_reboot": "blip",
}
GENERIC_SHARE = 0.3
# every template names the source first: lab inject keeps noise off the path it traces from the
# question's first address to its second


def question(rng: random.Random, a: str, b: str, kind: str | None) -> str:
    """A question about the flow a -> b; `kind` is the fault the user suffers, None if healthy
    (a healthy path still gets complaints: any family)."""
    if kind is None:
        family = rng.choice(sorted(FAMILIES))
    elif rng.random() < GENERIC_SHARE:
        family = "generic"
    else:
        family = SYMPTOM.get(kind, "generic")
    return rng.choice(FAMILIES[family]).format(a=a, b=b)

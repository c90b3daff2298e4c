"""The batch parser's address shortcut (issue 28 item 4): a dotted quad already in the form
IPv4Address writes is taken as it is; every other text goes through IPv4Address. Both must
agree on every text, and the runner's sort key must order as IPv4Address does."""

from __future__ import annotations

import random
from ipaddress import IPv4Address

import pytest

from netopsai.copilot.batch.parse import Pair, _ip, ip_key, pair_key

EDGES = ["0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3.255", "1.2.3.260", "01.2.3.4", "1.2.3.04",
         "00.0.0.0", "1.2.3", "1.2.3.4.5", "\u0661.2.3.4", "1.2.3.4\n", " 1.2.3.4", "1..2.3", "+1.2.3.4",
         "1.2.3.4/32", "0x1.2.3.4", "10.1.2.30", "199.249.250.251"]


def _parsed(text: str) -> str | None:
    try:
        return str(IPv4Address(text))
    except ValueError:
        return None


def _ours(text: str) -> str | None:
    try:
        return _ip(text)
    except ValueError:
        return None


def test_every_text_reads_as_ipv4address_reads_it() -> None:
    rng = random.Random(28)
    octet = [lambda: str(rng.randrange(256)), lambda: str(rng.randrange(1000)),
             lambda: f"0{rng.randrange(100)}", lambda: ""]
    texts = EDGES + [".".join(rng.choice(octet)() for _ in range(4)) for _ in range(5000)]
    for text in texts:
        assert _ours(text) == _parsed(text), text
    assert sum(_parsed(t) is None for t in texts) > 1000  # bad forms were tried, not only good ones


@pytest.mark.parametrize("seed", [1, 2])
def test_the_sort_key_orders_as_ipv4address(seed: int) -> None:
    rng = random.Random(seed)
    ips = [str(IPv4Address(rng.getrandbits(32))) for _ in range(2000)] + ["9.0.0.1", "10.0.0.1", "100.0.0.1"]
    assert sorted(ips, key=ip_key) == sorted(ips, key=IPv4Address)


@pytest.mark.parametrize("seed", [1, 2])
def test_pairs_sort_by_destination_then_source_as_ipv4address(seed: int) -> None:
    rng = random.Random(seed)
    ips = [str(IPv4Address(rng.getrandbits(32))) for _ in range(60)] + ["9.0.0.1", "10.0.0.1", "100.0.0.1"]
    pairs = [Pair(n, rng.choice(ips), rng.choice(ips)) for n in range(3000)]
    want = sorted(pairs, key=lambda p: (IPv4Address(p.dst), IPv4Address(p.src)))
    assert sorted(pairs, key=pair_key) == want

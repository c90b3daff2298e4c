"""The namespace lab as a test peer: built in a temporary store under a unique namespace prefix,
torn down (namespaces and rows) when the test is done. Needs root and iproute2/traceroute/iptables."""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.backends.netns.lab import NetnsLab

BINARIES = ("ip", "traceroute", "iptables")


def skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "the namespace lab needs root (network namespaces); CI runs as root"
    missing = [b for b in BINARIES if shutil.which(b) is None]
    if missing:
        return f"the namespace lab needs {', '.join(missing)} (apt-get install iproute2 traceroute iptables)"
    return None


needs_netns = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


_LABS = itertools.count()


def unique_prefix() -> str:
    """nxt<pid>x<n><random>-: unique per lab (a counter within the process: two labs of one
    worker once drew the same random byte), and says which process made it."""
    return f"nxt{os.getpid()}x{next(_LABS)}{secrets.token_hex(1)}-"


@contextmanager
def netns_lab(home: Path, spec: str = "small") -> Iterator[tuple[Engine, NetnsLab]]:
    """A running namespace lab registered in a fresh store at `home`; always taken down."""
    from netopsai.backends.netns.lab import down, up
    from netopsai.backends.netns.sh import delete_ns
    from netopsai.store.engine import engine_for

    home.mkdir(parents=True, exist_ok=True)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    lab = up(engine, spec, unique_prefix())
    try:
        yield engine, lab
    finally:
        try:
            down(engine)
        finally:  # even if the store broke: no namespace outlives the test
            delete_ns(list(lab.namespaces.values()))

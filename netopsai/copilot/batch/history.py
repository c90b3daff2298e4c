"""Batch results kept as probe history (`netopsai batch --record`): the door to the store's
probe table (store/probes.py) for a front end, which may not import the store (issue 27 item 2).
Thin: the store's own calls, so the rows written, the counts and the one-line errors are its."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from netopsai.copilot.batch.check import PairResult

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.store.probes import Owner


def check_recordable(engine: Engine) -> None:
    """Before a long run: a NetopsError now if the store would refuse the rows at the end."""
    from netopsai.store.probes import check_writable

    check_writable(engine)


def record_results(engine: Engine, results: Iterable[PairResult], at: datetime, owner: Owner) -> int:
    """Store every result with the run's time `at` and where each address is (`owner`:
    Inventory.ip_owner); the rows written, or one NetopsError if the store refuses them."""
    from netopsai.store.probes import record

    return record(engine, results, at, owner)

"""What the launcher's tests share: the collector's state put back after a test that changes it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def gc_restored() -> Iterator[None]:
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()  # the frozen objects go back to the oldest generation, as before the test
    gc.set_threshold(*threshold)
    if enabled:
        gc.enable()
    else:
        gc.disable()

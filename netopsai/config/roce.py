"""config.yaml `roce:`: the thresholds the RoCE diagnoses judge a lossless fabric by (the job
diagnosis' rules, diagnosis/job_rules.py, and the device and flow checks, diagnosis/checks_roce.py
read this one definition).

The diagnosis code is not handed the configuration, so it asks `roce_settings()`: the settings
put in place with `use_roce` (a test, a benchmark, a program embedding the copilot), else those of
NETOPSAI_HOME's config.yaml and the NETOPSAI_ROCE_* environment, read again when either changes
(as the taxonomy is looked up per question), else the defaults."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from netopsai.config.section import Section


class RoceSettings(Section):
    """When pause frames are a storm and an uplink a collision. Rates are per 5-minute sample,
    the finest the counters keep."""

    storm_per_5min: int = Field(default=1_000_000, ge=1, description=(
        "PFC pause frames through one port in 5 minutes that make a storm (a stuck receiver); "
        "at line rate a port that never stops pausing sends ~2.4 million"))
    spread_per_5min: int = Field(default=100_000, ge=1, description=(
        "pause frames a job's port receives in 5 minutes that are worth following back to where "
        "they start (~4% of the time paused at 400G); fewer are the fabric's usual breathing"))
    far_above: float = Field(default=4.0, ge=1.0, description=(
        "a storm's port also has this many times the median pause frames of the other ports "
        "read (device and flow questions)"))
    hot_pct: float = Field(default=90.0, gt=0, le=100, description=(
        "an uplink this busy (percent of line rate) is hot"))
    idle_pct: float = Field(default=20.0, ge=0, lt=100, description=(
        "...while the median of its sibling uplinks is below this: an ECMP collision"))

    @field_validator("spread_per_5min")
    @classmethod
    def _spread_below_storm(cls, v: int, info: ValidationInfo) -> int:
        storm = info.data.get("storm_per_5min")
        if storm is not None and v >= storm:
            raise ValueError(f"must be below storm_per_5min ({storm:,}): a storm's own port is "
                             "named without following it")
        return v

    @field_validator("idle_pct")
    @classmethod
    def _idle_below_hot(cls, v: float, info: ValidationInfo) -> float:
        hot = info.data.get("hot_pct")
        if hot is not None and v >= hot:
            raise ValueError(f"must be below hot_pct ({hot:g}): an idle uplink is not a hot one")
        return v


_injected: RoceSettings | None = None
_cache: dict[tuple[Any, ...], RoceSettings] = {}


def use_roce(settings: RoceSettings | None) -> None:
    """Put these settings in place for every diagnosis of the process; None: back to the
    configuration's."""
    global _injected
    _injected = settings


@contextmanager
def roce_override(settings: RoceSettings) -> Iterator[RoceSettings]:
    """These settings for the duration of a block (tests, benchmarks)."""
    before = _injected
    use_roce(settings)
    try:
        yield settings
    finally:
        use_roce(before)


def roce_settings() -> RoceSettings:
    """The settings in place, else the configuration's (a bad value there is the config's
    one-line error, naming roce.<field>), else the defaults."""
    if _injected is not None:
        return _injected
    from netopsai.config.load import default_home

    home = default_home()
    path = home / "config.yaml"
    stamp = path.stat().st_mtime_ns if path.exists() else None
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("NETOPSAI_ROCE_")))
    key = (str(home), stamp, env)
    if key not in _cache:
        _cache.clear()  # only the current configuration is worth keeping
        _cache[key] = _read(path) if stamp or env else RoceSettings()
    return _cache[key]


def _read(path: Path) -> RoceSettings:
    """config.yaml's section only: secrets.yaml is none of the diagnosis' business."""
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import read_settings

    problems: list[str] = []
    settings = read_settings(path, problems)
    if settings is None:
        mine = [p for p in problems if "roce." in p]
        raise NetopsError((mine or problems or ["invalid configuration"])[0])
    return settings.roce

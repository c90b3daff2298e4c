"""Scenario files (shared/specs/scenario.md): a fault, a question and the expected diagnosis."""

from __future__ import annotations

from datetime import datetime, timedelta
from ipaddress import ip_network
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from netopsai.common.errors import NetopsError, parse_yaml, read_text, unknown
from netopsai.common.timewin import parse_time
from netopsai.lab.fault_registry import FAULT_KINDS  # the one table of fault kinds

LABELS = ("none", "inconclusive", "link.down", "link.flapping", "link.errors", "link.congestion",
          "device.down", "device.reboot", "config.acl_block", "config.mtu_mismatch",
          "routing.bgp_down", "routing.adjacency_down", "routing.blackhole", "dci.link_down",
          "host.down", "link.pfc_storm", "link.ecmp_collision")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Target(_Strict):
    device: str | None = None
    interface: str | None = None
    link: str | None = None
    prefix: str | None = None


# the numeric params each fault kind takes, and their sane ranges: a scenario is checked
# against these before the store is touched (a billion flaps must not re-build the lab first)
PARAM_RANGES: dict[str, dict[str, tuple[float, float]]] = {
    "link_down": {"for_min": (1, 10_080)},
    "rail_link_down": {"for_min": (1, 10_080)},
    "link_flap": {"count": (1, 1000)},
    "crc_errors": {"rate": (1, 10_000_000)},
    "optic_degraded": {"rx_power_dbm": (-40, 5)},
    "congestion": {"util": (0.01, 1.0)},
    "mtu_mismatch": {"mtu": (68, 9216)},
    "change": {"duration_min": (0, 10_080)},
    "nic_flap": {"count": (1, 1000)},
    "pfc_storm": {"rate": (1, 100_000_000)},
    "ecmp_collision": {"util": (0.01, 1.0)},
}
CIDR_PARAMS = {"acl_block": ("dst", "src"), "blackhole": ("dst",)}
MAX_BEFORE = timedelta(days=30)  # a fault this long before the lab clock has no history to sit in


class FaultSpec(_Strict):
    kind: str
    at: str = "-10m"
    target: Target = Field(default_factory=Target)
    params: dict[str, Any] = Field(default_factory=dict)

    def check_params(self) -> None:
        """Numeric params in range and CIDRs that parse: a NetopsError naming the first that is
        not (before anything is built)."""
        for name, (low, high) in PARAM_RANGES.get(self.kind, {}).items():
            value = self.params.get(name)
            if name in self.params and (isinstance(value, bool) or not isinstance(value, int | float)
                                        or not low <= value <= high):
                raise NetopsError(f"fault {self.kind}: param {name} must be a number from {low:g} to "
                                  f"{high:g}, got {value!r}")
        for name in CIDR_PARAMS.get(self.kind, ()):
            if name in self.params:
                try:
                    ip_network(str(self.params[name]), strict=False)
                except ValueError:
                    raise NetopsError(f"fault {self.kind}: bad prefix {self.params[name]!r} for param "
                                      f"{name} (a CIDR such as 10.2.1.0/24)") from None

    def time(self, clock: datetime) -> datetime:
        """When the fault starts: at most MAX_BEFORE before the lab clock and not after it."""
        t = parse_time(self.at, clock)
        if not clock - MAX_BEFORE <= t <= clock:
            raise NetopsError(f"fault {self.kind}: 'at' {self.at!r} is {_off(t, clock)} the lab clock; "
                              "use a time within the 30 days before it, e.g. -25m")
        return t


def _off(t: datetime, clock: datetime) -> str:
    return "after" if t > clock else "more than 30 days before"


class LabRef(_Strict):
    spec: str = "default"
    scale: str = "small"
    seed: int = 7


class Noise(_Strict):
    alarms: int = Field(default=0, ge=0, le=10000)
    changes: int = Field(default=0, ge=0, le=10000)
    flaps: int = Field(default=0, ge=0, le=10000)


class Expect(_Strict):
    root_cause: str
    device: str | list[str] | None = None
    interface: str | None = None
    must_cite: list[str] = Field(default_factory=list)


class Scenario(_Strict):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    lab: LabRef = Field(default_factory=LabRef)
    now: datetime | None = None
    faults: list[FaultSpec] = Field(default_factory=list)
    noise: Noise = Field(default_factory=Noise)
    question: str = ""
    expect: Expect | None = None


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    text = read_text(p, "scenario file")
    data = parse_yaml(text, str(p))
    if not isinstance(data, dict):
        raise NetopsError(f"{p}: a scenario is a YAML mapping with id, faults, question ...")
    try:
        sc = Scenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise NetopsError(f"{p}: {loc}: {err['msg']}") from None
    for f in sc.faults:
        if f.kind not in FAULT_KINDS:
            raise unknown("fault kind", f.kind, FAULT_KINDS)
        f.check_params()
    if sc.expect and sc.expect.root_cause not in LABELS:
        raise unknown("root-cause label", sc.expect.root_cause, LABELS)
    return sc

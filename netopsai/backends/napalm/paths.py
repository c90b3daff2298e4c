"""Device-side traceroute and ping through NAPALM, as a Paths backend.

The trace runs on the device that holds `src` (a device with credentials), towards `dst`;
hop addresses are mapped to inventory devices. Only live traces: a device cannot trace the past.
"""

from __future__ import annotations

from datetime import UTC, datetime
from statistics import mean
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, inspect
from sqlmodel import Session, or_, select

from netopsai.backends.base import Row
from netopsai.backends.napalm.device import DeviceTarget, connect, napalm_targets
from netopsai.backends.rows import Hop, Trace
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.inventory import interface_of

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

TTL, WAIT_S = 30, 2


class NapalmPaths:
    """Serves the Paths protocol from devices; `targets` maps inventory names to credentials."""

    def __init__(self, engine: Engine, targets: dict[str, DeviceTarget], driver_cls: Any = None) -> None:
        self.engine, self.targets, self.driver_cls = engine, targets, driver_cls

    def _source(self, src: str) -> tuple[str, DeviceTarget]:
        """The device that holds `src` and can be logged into."""
        for name, t in self.targets.items():
            if t.host == src:
                return name, t
        owner = owner_of(self.engine, src)[0]
        if owner and owner in self.targets:
            return owner, self.targets[owner]
        raise NetopsError(f"{src} is not an address of a device netopsai can log into "
                          f"({', '.join(sorted(self.targets)) or 'no devices configured'})")

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace:
        if at is not None:
            raise NetopsError("a device-side traceroute runs now; it cannot trace a past time")
        name, target = self._source(src)
        source = "" if src == target.host else src
        with connect(target.model_copy(update={"name": name}), self.driver_cls) as dev:
            out = dev.traceroute(dst, source=source, ttl=TTL, timeout=WAIT_S)
        if "error" in out:
            raise NetopsError(f"{name}: traceroute to {dst} failed: {out['error']}")
        return trace_row(self.engine, name, dst, out.get("success", {}))

    def ping(self, src: str, dst: str, size: int = 100, count: int = 5) -> Row:
        name, target = self._source(src)
        source = "" if src == target.host else src
        with connect(target.model_copy(update={"name": name}), self.driver_cls) as dev:
            out = dev.ping(dst, source=source, size=size, count=count, timeout=WAIT_S)
        if "error" in out:
            raise NetopsError(f"{name}: ping {dst} failed: {str(out['error']).strip()[:120]}")
        ok = out.get("success", {})
        sent = int(ok.get("probes_sent", 0))
        return {"device": name, "dst": dst, "sent": sent, "lost": int(ok.get("packet_loss", 0)),
                "loss_pct": round(100 * ok.get("packet_loss", 0) / sent, 1) if sent else 100.0,
                "rtt_min_ms": ok.get("rtt_min"), "rtt_avg_ms": ok.get("rtt_avg"),
                "rtt_max_ms": ok.get("rtt_max")}


def owner_of(engine: Engine, ip: str) -> tuple[str | None, str | None]:
    """(device, interface) holding an address, from the store."""
    if not inspect(engine).has_table("interface"):
        return None, None
    with Session(engine) as s:
        held = interface_of(s, ip)  # any address of a port: a secondary, an IPv6 one
        if held:
            return held
        d = s.exec(select(m.Device).where(or_(m.Device.loopback == ip, m.Device.mgmt_ip == ip))).first()
        return (d.name, None) if d else (None, None)


def trace_row(engine: Engine, source: str, dst: str, hops_in: dict[Any, Any]) -> Trace:
    """NAPALM's traceroute result as the Paths row the traceroute tool renders."""
    hops: list[Hop] = []
    for n in sorted(hops_in, key=int):
        probes = list((hops_in[n].get("probes") or {}).values())
        answered = [p for p in probes if p.get("ip_address")]
        ip = answered[0]["ip_address"] if answered else None
        device, iface = owner_of(engine, ip) if ip else (None, None)
        rtts = [float(p["rtt"]) for p in answered if p.get("rtt")]
        hops.append({"hop": int(n), "ip": ip, "device": device or ip, "interface": iface,
                     "out_interface": None, "rtt_ms": round(mean(rtts), 2) if rtts else None,
                     "loss_pct": round(100 * (len(probes) - len(answered)) / len(probes), 1)
                     if probes else 100.0, "status": "ok" if answered else "*"})
    reached = bool(hops) and hops[-1]["ip"] == dst
    if reached:
        hops[-1]["status"] = "reached"
    path = [source] + [str(h["device"]) for h in hops if h["ip"]]  # named, or its address
    last = next((h for h in reversed(hops) if h["ip"]), None)
    return {"hops": hops, "reached": reached,
            "stopped_at": None if reached else (last["device"] if last else source),
            "reason": None if reached else "* no reply beyond this hop",
            "ecmp_paths": 1, "good_paths": 1 if reached else 0, "path_devices": path,
            "ecmp_devices": [], "at": datetime.now(UTC), "failing": None}


def from_config(engine: Engine, cfg: NetConfig) -> NapalmPaths:
    """The backend registry's builder (netopsai.backends.registry)."""
    return NapalmPaths(engine=engine, targets=napalm_targets(cfg))

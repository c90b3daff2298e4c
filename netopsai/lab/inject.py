"""Apply a scenario to the lab: check every target first (so bad input changes nothing), bring
the lab to the scenario's spec/scale/seed/clock, apply the faults in order, add the noise."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from ipaddress import ip_network

from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, or_, select

from netopsai.common.errors import NetopsError, UnknownName, unknown
from netopsai.common.timewin import as_utc, iso, parse_time
from netopsai.lab.fabric import parse_ip
from netopsai.lab.fault_kinds import DCI_LINK_KINDS, LINK_DOWN_REASONS
from netopsai.lab.fault_kinds_ai import check_ai
from netopsai.lab.fault_registry import FAULT_KINDS
from netopsai.lab.faults import Injector, Resolved
from netopsai.lab.forwarding import Router
from netopsai.lab.loglines import mark_port_log, mirror_port_log
from netopsai.lab.manage import LabInfo, init_lab, lab_info, reset_lab, set_clock, touch
from netopsai.lab.noise import noise_rows
from netopsai.lab.scenario import FaultSpec, Scenario
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert, get_meta

IP_RE = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")


@dataclass
class Injected:
    scenario: str
    clock: datetime
    faults: list[str]
    reinit: bool  # the lab was rebuilt for the scenario's lab:/now:
    kept: bool = False  # the faults went on top of the lab's (--keep); else the lab was reset first
    lab: str = ""  # the lab they went into, "default/small seed 7"

    def words(self) -> str:
        """What `lab inject` prints: what happened to the faults already there, then the new ones."""
        faults = ", ".join(self.faults) or "no faults"
        stamp = f"{self.clock:%Y-%m-%dT%H:%M:%SZ}"
        if self.kept:
            return (f"scenario {self.scenario}: added {faults} to the faults already in lab "
                    f"{self.lab}; clock {stamp}")
        how = (f"re-initialised as {self.lab} (the scenario's lab: and now:)" if self.reinit
               else f"reset to healthy {self.lab}")
        return (f"scenario {self.scenario}: lab {how}, then injected {faults}; clock {stamp}. "
                "Faults injected before are gone (--keep adds to them instead)")


def lab_words(spec: str, scale: str, seed: int) -> str:
    return f"{spec}/{scale} seed {seed}"


def _resolve(s: Session, f: FaultSpec, question: str) -> Resolved:
    if f.kind not in FAULT_KINDS:  # a Scenario built in code skips load_scenario's check
        raise unknown("fault kind", f.kind, FAULT_KINDS)
    t = f.target
    r = Resolved(prefix=t.prefix)
    where = t.link or t.interface
    if where:
        if ":" not in where:
            raise NetopsError(f"{f.kind}: target {where!r} must be DEVICE:INTERFACE")
        dev, ifname = where.split(":", 1)
        _device(s, dev)
        itf = s.exec(select(m.Interface).where(
            m.Interface.device == dev, m.Interface.name == ifname)).first()
        if itf is None:
            names = s.exec(select(m.Interface.name).where(
                m.Interface.device == dev)).all()
            raise unknown(f"interface on {dev}", ifname, names)
        r.device, r.interface = dev, ifname
        r.link = s.get(m.Link, itf.link_id) if itf.link_id else None
    if t.device:
        _device(s, t.device)
        r.device = t.device
    needs = FAULT_KINDS[f.kind].needs
    if needs == "link" and r.link is None:
        raise NetopsError(f"{f.kind} needs a link or interface target with a link, e.g. "
                          f"{{link: dc1-leaf-03:Ethernet49}}")
    if needs == "device" and not t.device:
        raise NetopsError(f"{f.kind} needs a device target, e.g. {{device: dc1-leaf-03}}")
    if f.kind == "bgp_down" and not (t.device or r.link):
        raise NetopsError("bgp_down needs a link or device target")
    for key in ("dst", "src"):
        if key in f.params:
            _cidr(f.kind, str(f.params[key]))
    if f.kind == "blackhole":
        r.prefix = _cidr(f.kind, str(f.params.get("dst") or t.prefix or _question_dst(s, question)))
    if t.prefix:
        _cidr(f.kind, t.prefix)
    _check(s, f, r)
    return r


NUMERIC = {"count": int, "rate": int, "mtu": int, "duration_min": int, "for_min": int, "util": float,
           "rx_power_dbm": float}


def _check(s: Session, f: FaultSpec, r: Resolved) -> None:
    """What applying the fault would otherwise find out only after the lab was reset."""
    parse_time(f.at, datetime.now(UTC))  # the syntax only; the time is relative to the lab clock
    for key, typ in NUMERIC.items():
        if key in f.params:
            try:
                typ(f.params[key])
            except (TypeError, ValueError):
                raise NetopsError(f"{f.kind}: params.{key} must be a number, not "
                                  f"{f.params[key]!r}") from None
    reason = f.params.get("reason")
    if f.kind == "link_down" and reason is not None and reason not in LINK_DOWN_REASONS:
        raise NetopsError(f"link_down: params.reason must be one of "
                          f"{', '.join(LINK_DOWN_REASONS)}, not {reason!r}")
    if f.kind == "dci_link_down" and r.link is not None and r.link.kind not in DCI_LINK_KINDS:
        raise NetopsError(f"dci_link_down needs a DCI circuit or a backbone link; "
                          f"{r.device}:{r.interface} is a {r.link.kind} link")
    if f.kind == "host_down":
        dev = s.get(m.Device, r.device)
        if dev is None or dev.role != "host":
            raise NetopsError(f"host_down needs a host; {r.device} is a {dev.role if dev else '?'}")
    check_ai(s, f.kind, r)


def _device(s: Session, name: str) -> None:
    if s.get(m.Device, name) is None:
        raise unknown("device", name, s.exec(select(m.Device.name)).all())


def _cidr(kind: str, text: str) -> str:
    try:
        return str(ip_network(text, strict=False))
    except ValueError:
        raise NetopsError(f"{kind}: bad prefix {text!r}; use CIDR such as 10.2.1.0/24") from None


def _question_dst(s: Session, question: str) -> str:
    """Blackhole default: the segment of the question's destination address."""
    ips = IP_RE.findall(question)
    host = s.get(m.HostAddress, ips[-1]) if ips else None
    if host is None:
        raise NetopsError("blackhole needs params.dst (a CIDR) or a question naming the destination")
    return host.segment


def inject(engine: Engine, sc: Scenario, keep: bool = False) -> Injected:
    """The scenario's faults and noise, into a healthy lab: the lab is reset first (or rebuilt
    when the scenario's lab:/now: differ), so faults injected before are gone. `keep`: add them
    to the lab as it is instead (its spec, scale, seed and clock must be the scenario's)."""
    for f in sc.faults:  # cheap checks first: a bad param must not cost a scratch lab
        f.check_params()
    now = as_utc(sc.now) if sc.now else None
    reinit = False if keep else _needs_init(engine, sc, now)
    if keep:
        _can_keep(engine, sc, now)
    _validate(_scratch_lab(sc, now) if reinit else engine, sc, engine)  # before any change
    if reinit:
        init_lab(engine, sc.lab.spec, sc.lab.scale, sc.lab.seed, now)
    elif not keep:
        reset_lab(engine)
    info = lab_info(engine)
    clock = info.clock
    with Session(engine) as s:
        resolved = [(f, _resolve(s, f, sc.question)) for f in sc.faults]
        avoid = _avoid(engine, info.version, clock, sc, resolved)
        inj = Injector(s, info.seed, clock)
        for f, r in resolved:
            FAULT_KINDS[f.kind].apply(inj, r, f.time(clock), f.params)
        mirror_port_log(s)  # what the faulted ports logged
        set_clock(s, clock)
        touch(s)
        s.commit()
    if sc.noise.alarms or sc.noise.changes or sc.noise.flaps:
        # the question's path under the fault (it may reroute) must stay free of noise too
        avoid |= _question_path(engine, lab_info(engine).version, clock, sc.question)
        with Session(engine) as s:
            _noise(s, sc, clock, avoid)
            mark_port_log(s)
            touch(s)
            s.commit()
    return Injected(sc.id, clock, [f.kind for f in sc.faults], reinit, keep,
                    lab_words(info.spec, info.scale, info.seed))


def _store_lab(engine: Engine) -> LabInfo | None:
    try:
        return lab_info(engine)
    except NetopsError:
        return None


def _can_keep(engine: Engine, sc: Scenario, now: datetime | None) -> None:
    """--keep adds to the lab as it is: the scenario must be about that lab, at its clock."""
    info = _store_lab(engine)
    want = lab_words(sc.lab.spec, sc.lab.scale, sc.lab.seed)
    if info is None:
        raise NetopsError("--keep adds faults to the lab in the store, and there is none yet; "
                          "run 'netopsai lab init' or inject without --keep")
    have = lab_words(info.spec, info.scale, info.seed)
    if have != want:
        raise NetopsError(f"--keep adds faults to the lab as it is ({have}), but scenario {sc.id} "
                          f"is for {want} (its lab:, or the default without one); inject without "
                          "--keep to rebuild the lab, or make its lab: match")
    if now is not None and now != as_utc(info.clock):
        raise NetopsError(f"--keep adds faults at the lab's clock {iso(info.clock)}, but scenario "
                          f"{sc.id} sets now: {iso(now)}; remove its now: or inject without --keep")


def _validate(engine: Engine, sc: Scenario, store: Engine | None = None) -> None:
    """Every target resolved in the lab the scenario will run on. A device that lab lacks is
    reported with the lab it was looked for in and, when the store's lab has it, how to name
    that lab in the scenario."""
    info = lab_info(engine)
    with Session(engine) as s:
        for f in sc.faults:
            try:
                _resolve(s, f, sc.question)
            except UnknownName as exc:
                if exc.kind != "device":
                    raise
                raise NetopsError(f"{exc} — looked for in lab "
                                  f"{lab_words(info.spec, info.scale, info.seed)}"
                                  f"{_lab_hint(sc, store, exc.word)}") from None
            f.time(info.clock)


def _lab_hint(sc: Scenario, store: Engine | None, device: str) -> str:
    """Which lab a scenario needs, said where it can be: the store's, when it has the device."""
    why = "" if "lab" in sc.model_fields_set else " (the default: the scenario names no lab:)"
    info = _store_lab(store) if store is not None else None
    if info is not None and (info.spec, info.scale, info.seed) != (sc.lab.spec, sc.lab.scale,
                                                                   sc.lab.seed):
        with Session(store) as s:
            if s.get(m.Device, device) is not None:
                return (f"{why}; the store's lab {lab_words(info.spec, info.scale, info.seed)} has "
                        f"it: add `lab: {{spec: {info.spec}, scale: {info.scale}, seed: "
                        f"{info.seed}}}` to the scenario")
    return why + ("; the GPU fabric's devices need `lab: {spec: ai}`" if sc.lab.spec != "ai" else "")


def _scratch_lab(sc: Scenario, now: datetime | None) -> Engine:
    """The scenario's lab built in memory, to check its targets before the real store changes."""
    scratch = create_engine("sqlite://", poolclass=StaticPool)
    init_lab(scratch, sc.lab.spec, sc.lab.scale, sc.lab.seed, now)
    return scratch


def _needs_init(engine: Engine, sc: Scenario, now: datetime | None) -> bool:
    try:
        info = lab_info(engine)
    except NetopsError:
        return True
    with Session(engine) as s:
        init_clock = get_meta(s, "init_clock")
    return ((info.spec, info.scale, info.seed) != (sc.lab.spec, sc.lab.scale, sc.lab.seed)
            or (now is not None and init_clock != iso(now)))


def _avoid(engine: Engine, version: str, clock: datetime, sc: Scenario,
           resolved: list[tuple[FaultSpec, Resolved]]) -> set[str]:
    """Noise stays off the fault's devices and the question's healthy path."""
    avoid = {d for _, r in resolved for d in (r.device, r.link and r.link.a_device,
                                              r.link and r.link.b_device) if d}
    return avoid | _question_path(engine, version, clock, sc.question)


def _question_path(engine: Engine, version: str, clock: datetime, question: str) -> set[str]:
    """The devices a trace between the question's addresses crosses in one state version."""
    from netopsai.lab.forwarding import router_for
    from netopsai.lab.trace import TraceError, trace

    ips = IP_RE.findall(question)
    router: Router = router_for(engine, version, clock)
    devices: set[str] = set()
    for a, b in zip(ips, ips[1:], strict=False):
        try:
            parse_ip(a), parse_ip(b)
            devices.update(trace(router, a, b).path_devices)
        except (TraceError, ValueError):
            continue
    return devices


def _noise(s: Session, sc: Scenario, clock: datetime, avoid: set[str]) -> None:
    n = sc.noise
    if not (n.alarms or n.changes or n.flaps):
        return
    devices = [d.model_dump() for d in s.exec(select(m.Device))]
    links = [lk.model_dump() for lk in s.exec(select(m.Link).where(
        or_(m.Link.kind != "host")))]
    rows = noise_rows(random.Random(f"{sc.id}|{sc.lab.seed}"), devices, links,
                      clock - timedelta(hours=6), clock, alarms=n.alarms, changes=n.changes,
                      flaps=n.flaps, avoid=avoid, ticket_base=7000)
    bulk_insert(s, m.Alarm, rows["alarms"])
    bulk_insert(s, m.Change, rows["changes"])
    bulk_insert(s, m.InterfaceEvent, rows["events"])



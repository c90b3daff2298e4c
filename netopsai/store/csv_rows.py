"""NetBox CSV exports read into typed rows: devices, interfaces, cables, prefixes, IP addresses
(the inventory import's own parser: store/inventory_import.py).

Both NetBox CSV flavours are accepted: the bulk-import/export field names (`side_a_device`,
`device_type`, `is_primary` ...) and the table export's display headers (`Side A`,
`Termination A`, `Type` ...). Each row keeps its file and line so errors can name them.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from ipaddress import ip_interface, ip_network
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from netopsai.common.errors import closest

ROLE_ALIASES = {"server": "host", "host": "host", "tor": "leaf", "top-of-rack": "leaf",
                "leaf": "leaf", "spine": "spine", "superspine": "superspine",
                "super-spine": "superspine", "border": "border", "border-leaf": "border",
                "dci": "dci", "dci-router": "dci"}
DEVICE_STATUSES = ("active", "offline", "planned", "staged", "failed", "inventory",
                   "decommissioning")
CABLE_STATUSES = ("connected", "planned", "decommissioning")
PREFIX_STATUSES = ("active", "container", "reserved", "deprecated")
IP_ROLES = ("", "loopback", "secondary", "anycast", "vip", "vrrp", "hsrp", "glbp", "carp")
IP_STATUSES = ("active", "reserved", "deprecated", "dhcp", "slaac")
TRUE, FALSE = ("true", "1", "yes", "y", "x"), ("false", "0", "no", "n", "")


def _choice(value: str, choices: tuple[str, ...], what: str) -> str:
    v = value.strip().lower()
    if v in choices:
        return v
    near = closest(v, [c for c in choices if c])
    raise ValueError(f"{what} {value!r} is not valid" + (f"; closest: {near[0]}" if near else
                                                         f"; valid: {', '.join(choices)}"))


def _bool(value: str) -> bool:
    v = value.strip().lower()
    if v in TRUE or v in FALSE:
        return v in TRUE
    raise ValueError(f"{value!r} is not true/false")


def _one_of(choices: tuple[str, ...], what: str, default: str = "") -> AfterValidator:
    """A CSV cell that must be one of NetBox's choices (empty: the default)."""
    return AfterValidator(lambda v: _choice(v or default, choices, what))


# cell types shared by the row models: NetBox writes flags as words and leaves numbers blank
CsvBool = Annotated[bool, BeforeValidator(lambda v: _bool(v) if isinstance(v, str) else v)]
_BLANK_IS_NONE = BeforeValidator(lambda v: None if v in ("", None) else v)
DeviceStatus = Annotated[str, _one_of(DEVICE_STATUSES, "status", "active")]
CableStatus = Annotated[str, _one_of(CABLE_STATUSES, "status", "connected")]
PrefixStatus = Annotated[str, _one_of(PREFIX_STATUSES, "status", "active")]
IpStatus = Annotated[str, _one_of(IP_STATUSES, "status", "active")]
IpRole = Annotated[str, _one_of(IP_ROLES, "role")]


def _address_or_blank(v: str) -> str:
    """An interface address (10.1.0.5 or 10.1.0.5/24), checked: 10.250.0.300/24 is not one."""
    if v.strip():
        try:
            ip_interface(v.strip())
        except ValueError:
            raise ValueError(f"{v!r} is not an IP address") from None
    return v.strip()


ASN_MAX = 4_294_967_295  # 32-bit AS numbers (RFC 6793)
Asn = Annotated[int, Field(ge=0, le=ASN_MAX)]


class _Row(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True, extra="ignore")


class DeviceRow(_Row):
    name: str
    role: str
    site: str
    status: DeviceStatus = "active"
    location: str = ""
    rack: str = ""
    manufacturer: str = ""
    device_type: str = ""
    platform: str = ""
    primary_ip4: Annotated[str, AfterValidator(_address_or_blank)] = ""
    cf_asn: Annotated[Asn | None, _BLANK_IS_NONE] = None

    @field_validator("role")
    @classmethod
    def _role(cls, v: str) -> str:
        key = v.strip().lower().replace(" ", "-")
        if key in ROLE_ALIASES:
            return ROLE_ALIASES[key]
        near = closest(key, ROLE_ALIASES)
        raise ValueError(f"role {v!r} is not a known role" +
                         (f"; closest: {near[0]}" if near else f"; valid: {', '.join(ROLE_ALIASES)}"))


class InterfaceRow(_Row):
    device: str
    name: str
    type: str = ""
    enabled: CsvBool = True
    mtu: Annotated[int | None, _BLANK_IS_NONE] = None
    speed: Annotated[int | None, _BLANK_IS_NONE] = None  # NetBox speeds are in kbit/s
    description: str = ""
    mgmt_only: CsvBool = False


class CableRow(_Row):
    side_a_device: str
    side_a_type: str = "dcim.interface"
    side_a_name: str
    side_b_device: str
    side_b_type: str = "dcim.interface"
    side_b_name: str
    status: CableStatus = "connected"
    label: str = ""

    @field_validator("side_a_type", "side_b_type")
    @classmethod
    def _type(cls, v: str) -> str:
        return v.lower() or "dcim.interface"


class PrefixRow(_Row):
    prefix: str
    vrf: str = ""
    vlan: int | None = None
    status: PrefixStatus = "active"
    role: str = ""
    site: str = ""
    is_pool: CsvBool = False
    description: str = ""

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        return str(ip_network(v))  # host bits set or a bad address: ValueError

    @field_validator("vlan", mode="before")
    @classmethod
    def _vlan(cls, v: Any) -> Any:
        """A VID, or the export's 'Servers-101 (101)' display form."""
        if isinstance(v, str):
            digits = re.findall(r"\d+", v)
            return int(digits[-1]) if digits else None
        return v


class IpRow(_Row):
    address: str
    vrf: str = ""
    status: IpStatus = "active"
    role: IpRole = ""
    device: str = ""
    interface: str = ""
    is_primary: CsvBool = False
    dns_name: str = ""

    @field_validator("address")
    @classmethod
    def _address(cls, v: str) -> str:
        if "/" not in v:
            raise ValueError(f"address {v!r} needs a prefix length (like 10.1.1.1/24)")
        return str(ip_interface(v))


KINDS: dict[str, type[_Row]] = {"devices": DeviceRow, "interfaces": InterfaceRow,
                                "cables": CableRow, "prefixes": PrefixRow, "ip_addresses": IpRow}
HEADER_ALIASES = {
    "device_role": "role", "primary_ipv4": "primary_ip4", "primary_ip": "primary_ip4",
    "ip_address": "primary_ip4", "side_a": "side_a_device", "termination_a": "side_a_name",
    "side_b": "side_b_device", "termination_b": "side_b_name", "parent": "device",
    "assigned": "interface", "scope": "site", "asn": "cf_asn", "vid": "vlan",
}


@dataclass
class Problem(Exception):
    """One validation error, located."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: field {self.field!r}: {self.message}" if self.field else f"{where}: {self.message}"


@dataclass
class Located:
    """A validated row and where it came from."""

    row: Any
    file: str
    line: int


def normal_header(name: str, kind: str | None = None) -> str:
    key = re.sub(r"[\s\-]+", "_", name.strip().lower())
    if kind == "devices" and key == "type":
        return "device_type"  # the export's 'Type' column of devices is the device type
    return HEADER_ALIASES.get(key, key)


def detect_kind(headers: list[str]) -> str | None:
    cols = set(headers)
    if {"side_a_device", "side_b_device"} <= cols:
        return "cables"
    if "address" in cols:
        return "ip_addresses"
    if "prefix" in cols:
        return "prefixes"
    if {"device", "name"} <= cols:
        return "interfaces"
    if {"name", "role", "site"} <= cols:
        return "devices"
    return None


def read_csv(path: Path) -> tuple[str, list[Located]]:
    """A NetBox export's kind and its validated rows; raises the first Problem found."""
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # NetBox exports may carry a BOM
    except OSError as exc:
        raise Problem(label, 0, "", f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise Problem(label, 0, "", "not UTF-8 text (a NetBox CSV export is)") from None
    reader = csv.reader(text.splitlines())
    raw = next(reader, None)
    kind = detect_kind([normal_header(h) for h in raw or []])
    if kind is None:
        raise Problem(label, 1, "", "not a NetBox export of devices, interfaces, cables, "
                      f"prefixes or IP addresses (header: {', '.join(raw or [])})")
    headers = [normal_header(h, kind) for h in raw or []]
    model, rows = KINDS[kind], []
    for values in reader:
        if not any(v.strip() for v in values):
            continue
        data = dict(zip(headers, values, strict=False))
        try:
            rows.append(Located(model.model_validate(data), label, reader.line_num))
        except ValidationError as exc:
            err = exc.errors()[0]
            fld = str(err["loc"][0]) if err["loc"] else ""
            msg = str(err["msg"]).removeprefix("Value error, ")
            raise Problem(label, reader.line_num, fld, msg) from None
    return kind, rows

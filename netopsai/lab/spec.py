"""Lab specs (inventory/*.yaml): sites, scale presets, platforms, providers."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from netopsai.common.errors import NetopsError, parse_yaml, unknown

SCALES = ("small", "medium", "large")


class GpuPodSpec(BaseModel):
    """A rail-optimised GPU PoD (netopsai.lab.gpu_pod): hosts with GPUs and one NIC per rail;
    NIC k of every host in a group of `hosts_per_leaf` hosts goes to that group's rail-k leaf;
    every rail leaf goes up to every spine of the PoD."""

    site: str
    racks: int = Field(ge=1)
    hosts_per_rack: int = Field(default=4, ge=1)
    hosts_per_leaf: int = Field(default=32, ge=1, le=240)
    gpus_per_host: int = Field(default=8, ge=1)
    nics_per_host: int = Field(default=8, ge=1, le=16)
    spines: int = Field(default=4, ge=1)


class Scale(BaseModel):
    pods_per_site: int
    leafs_per_pod: int
    spines_per_pod: int
    superspines_per_plane: int
    borders: int
    dci: int
    hosts_per_rack: int
    gpu_pods: list[GpuPodSpec] = Field(default_factory=list)


class SiteSpec(BaseModel):
    name: str
    region: str = ""
    description: str = ""


class Platform(BaseModel):
    vendor: str
    model: str
    os_version: str


class Provider(BaseModel):
    name: str
    circuit_prefix: str


class History(BaseModel):
    days: int = 7
    flaps: int = 6
    alarms: int = 24
    changes: int = 18


class LabSpec(BaseModel):
    name: str
    description: str = ""
    sites: list[SiteSpec]
    scales: dict[str, Scale]
    speeds_mbps: dict[str, int]
    mtu: dict[str, int]
    platforms: dict[str, list[Platform]]
    providers: list[Provider]
    circuits_per_provider: int = 2
    asn: dict[str, int]
    history: History = History()


def spec_names() -> list[str]:
    files = resources.files("netopsai.inventory").iterdir()
    return sorted(f.name.removesuffix(".yaml") for f in files if f.name.endswith(".yaml"))


def load_spec(name: str = "default") -> LabSpec:
    """A packaged spec by name, or a YAML file by path."""
    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise NetopsError(f"spec file not found: {name}")
        text = path.read_text()
    else:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or name not in spec_names():
            raise unknown("lab spec", name, spec_names())
        text = resources.files("netopsai.inventory").joinpath(f"{name}.yaml").read_text()
    data = parse_yaml(text, f"lab spec {name}")
    try:
        return LabSpec.model_validate(data)
    except ValidationError as exc:
        first = str(exc).splitlines()[0]
        raise NetopsError(f"bad lab spec {name}: {first}") from None


def get_scale(spec: LabSpec, scale: str) -> Scale:
    if scale not in spec.scales:
        raise unknown("scale", scale, spec.scales)
    return spec.scales[scale]

"""Which backend serves each data source, and how to reach real networks.

NETOPSAI_HOME/config.yaml holds the choices and targets (env overrides such as
NETOPSAI_BACKEND_TELEMETRY=snmp or NETOPSAI_SNMP_TIMEOUT=2 win over the file); credentials live
apart in NETOPSAI_HOME/secrets.yaml, which must be readable by its owner only. With neither file
the embedded lab is used, as before. Loading and checking: netopsai.config.load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, SecretStr, field_validator, model_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from netopsai.config.domains import Domain
from netopsai.config.roce import RoceSettings
from netopsai.config.section import Section
from netopsai.config.services import (
    RaySettings,
    ReliabilitySettings,
    RetentionSettings,
    SnapshotSettings,
    TriageSettings,
)
from netopsai.config.sources import Role, names

ENV_PREFIX = "NETOPSAI_"
CONFIG_FILE = "config.yaml"
SECRETS_FILE = "secrets.yaml"

# auto: the lab's simulation for a lab store; for a store holding a real network, polled
# history (telemetry) and the system traceroute (paths); for the namespace lab, its live state


def _backend_name(role: Role) -> PlainValidator:
    """Backend names come from the backend registry (one line per backend there); entry points
    are read only for a name that is not built in. An unknown name fails as a Literal would,
    so the config's error names the closest valid value."""
    def check(value: Any) -> str:
        if isinstance(value, str) and (value in names(role) or value in names(role, plugins=True)):
            return value
        quoted = [repr(n) for n in names(role, plugins=True)]
        expected = ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else quoted[0]
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return PlainValidator(check)


TelemetryKind = Annotated[str, _backend_name("telemetry")]
PathsKind = Annotated[str, _backend_name("paths")]
# inventory, changes, alarms: the store's (filled by lab init, import, ingest, poll) unless a
# package registers another source for the role (config/sources.py)
InventoryKind = Annotated[str, _backend_name("inventory")]
ChangesKind = Annotated[str, _backend_name("changes")]
AlarmsKind = Annotated[str, _backend_name("alarms")]
NAPALM_DRIVERS = ("ios", "iosxr", "iosxr_netconf", "nxos", "nxos_ssh", "eos", "junos", "mock")
_CREDENTIAL_ARGS = ("password", "secret", "enable_password", "auth_key", "priv_key", "community")


class BackendChoice(Section):
    inventory: InventoryKind = "store"
    changes: ChangesKind = "store"
    alarms: AlarmsKind = "store"
    telemetry: TelemetryKind = "auto"
    paths: PathsKind = "auto"


class SnmpTarget(Section):
    host: str = Field(min_length=1, description="Address or name of the SNMP agent")
    port: int = Field(default=161, ge=1, le=65535)
    device: str | None = Field(default=None, description="Inventory name; default: the host")

    @property
    def name(self) -> str:
        return self.device or self.host


class SnmpSettings(Section):
    version: Literal["2c", "3"] = "2c"
    timeout: float = Field(default=1.0, gt=0, le=60, description="Seconds per request")
    retries: int = Field(default=1, ge=0, le=10)
    concurrency: int = Field(default=32, ge=1, le=1024, description="Agents polled at once")
    auth_protocol: Literal["md5", "sha", "sha224", "sha256", "sha384", "sha512"] = "sha"
    priv_protocol: Literal["none", "des", "3des", "aes", "aes192", "aes256"] = "aes"
    targets: list[SnmpTarget] = Field(default_factory=list)

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, v: Any) -> Any:
        """`version: 3` and `version: 2c` both read naturally in YAML."""
        return str(v) if isinstance(v, int) else v


class NapalmDevice(Section):
    name: str = Field(min_length=1, description="Inventory name of the device")
    host: str = Field(min_length=1)
    port: int | None = Field(default=None, ge=1, le=65535)
    driver: str = "ios"
    optional_args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("driver")
    @classmethod
    def _known_driver(cls, v: str) -> str:
        if v not in NAPALM_DRIVERS:
            from netopsai.common.errors import unknown

            raise ValueError(str(unknown("NAPALM driver", v, NAPALM_DRIVERS)))
        return v

    @field_validator("optional_args")
    @classmethod
    def _no_credentials(cls, v: dict[str, Any]) -> dict[str, Any]:
        found = sorted(k for k in v if k.lower() in _CREDENTIAL_ARGS)
        if found:
            raise ValueError(f"{found[0]!r} is a credential: put it in {SECRETS_FILE} (ssh section), "
                             "not in the config file")
        return v


class PrometheusSettings(Section):
    url: str = Field(default="http://127.0.0.1:9090", pattern=r"^https?://\S+$",
                     description="Prometheus base URL")
    timeout: float = Field(default=10.0, gt=0, le=300)
    device_label: str = Field(default="device", min_length=1,
                              description="The series label naming the device (set by the scrape config)")


class TracerouteSettings(Section):
    source: str | None = Field(default=None, description="Probe source address (default: routing)")
    max_hops: int = Field(default=30, ge=1, le=64)
    wait: float = Field(default=1.0, gt=0, le=10, description="Seconds to wait for each probe")
    concurrency: int = Field(default=8, ge=1, le=256, description="Traceroutes at once")


class IngestSettings(Section):
    host: str = "127.0.0.1"
    trap_port: int = Field(default=1162, ge=0, le=65535)
    syslog_port: int = Field(default=1514, ge=0, le=65535)
    webhook_port: int = Field(default=9095, ge=0, le=65535)
    # devices' clocks: the zone of a log line that names none (an IANA name), by device name or
    # address glob ({"sjc-*": America/Los_Angeles}) else `timezone`; how far (seconds) a clock
    # the device marks unsynchronised may be off before its events are placed at receipt
    timezone: str = "UTC"
    timezones: dict[str, str] = Field(default_factory=dict)
    max_skew_seconds: float = Field(default=300.0, ge=0)
    # senders that may speak for other devices (syslog relays, trap forwarders): addresses,
    # CIDRs or globs ("10.0.0.5", "10.9.0.0/24", "10.9.0.*"). Anyone else is believed only
    # about itself: a line naming a device from another address is kept, marked, and raises
    # nothing (netopsai.store.naming). A relay's own address never stands for the device.
    relays: list[str] = Field(default_factory=list)
    # domain suffixes host names carry ("example.net"): a question's "leaf9" meets the logs'
    # "leaf9.example.net" (the inventory's own names teach it too: netopsai.store.naming)
    domains: list[Domain] = Field(default_factory=list)

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str) -> str:
        _check_zone(v)
        return v

    @field_validator("timezones")
    @classmethod
    def _zones(cls, v: dict[str, str]) -> dict[str, str]:
        for zone in v.values():
            _check_zone(zone)
        return v

    @field_validator("relays")
    @classmethod
    def _relays(cls, v: list[str]) -> list[str]:
        for entry in v:
            _check_relay(entry)
        return v


def _check_relay(entry: str) -> None:
    """An address, a CIDR or a glob over addresses; anything else (a host name) would silently
    match nothing."""
    import ipaddress

    if any(c in entry for c in "*?["):
        return
    try:
        ipaddress.ip_network(entry.strip(), strict=False)
    except ValueError:
        raise PydanticCustomError(
            "relay", "'{entry}' is not an address, a CIDR (10.0.0.0/24) or a glob (10.0.0.*)",
            {"entry": entry}) from None


def _check_zone(name: str) -> None:
    from netopsai.common.errors import NetopsError
    from netopsai.common.zones import Zones

    try:
        Zones.from_names(name)
    except NetopsError as exc:
        raise PydanticCustomError("timezone", str(exc)) from None


class NetSettings(BaseSettings):
    """config.yaml, with NETOPSAI_<SECTION>_<FIELD> environment variables winning over it."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter="_",
                                      env_nested_max_split=1, extra="forbid")

    backend: BackendChoice = Field(default_factory=BackendChoice)
    snmp: SnmpSettings = Field(default_factory=SnmpSettings)
    napalm: list[NapalmDevice] = Field(default_factory=list)
    prometheus: PrometheusSettings = Field(default_factory=PrometheusSettings)
    traceroute: TracerouteSettings = Field(default_factory=TracerouteSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    triage: TriageSettings = Field(default_factory=TriageSettings)
    retention: RetentionSettings = Field(default_factory=RetentionSettings)
    ray: RaySettings = Field(default_factory=RaySettings)
    reliability: ReliabilitySettings = Field(default_factory=ReliabilitySettings)
    snapshots: SnapshotSettings = Field(default_factory=SnapshotSettings)
    roce: RoceSettings = Field(default_factory=RoceSettings)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings],
                                   init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        # the file's contents come in as init arguments; the environment overrides them
        return env_settings, init_settings


class SnmpCredentials(Section):
    community: SecretStr | None = None
    user: str | None = Field(default=None, description="SNMPv3 user name")
    auth_key: SecretStr | None = None
    priv_key: SecretStr | None = None


class SnmpSecrets(SnmpCredentials):
    """The credentials every target uses, and per-device overrides keyed by target name."""

    devices: dict[str, SnmpCredentials] = Field(default_factory=dict)

    def for_target(self, name: str) -> SnmpCredentials:
        own = self.devices.get(name)
        base = self.model_dump(exclude={"devices"})
        return SnmpCredentials(**(base | own.model_dump(exclude_none=True) if own else base))


class SshSecrets(Section):
    username: str | None = None
    password: SecretStr | None = None
    key_file: Path | None = None


class WebhookSecrets(Section):
    """What `netopsai ingest`'s Alertmanager webhook demands, as Alertmanager's `http_config`
    sends it: a bearer token (`authorization: {credentials: …}`) and/or basic auth
    (`basic_auth: {username, password}`). Neither set: the webhook takes any POST."""

    bearer_token: SecretStr | None = None
    username: str | None = None
    password: SecretStr | None = None

    @field_validator("username")
    @classmethod
    def _plain_name(cls, v: str | None) -> str | None:
        if v is not None and (":" in v or not v.isprintable()):
            raise ValueError("a basic-auth user name has no ':' and no control characters")
        return v

    @model_validator(mode="after")
    def _pair(self) -> WebhookSecrets:
        if (self.username is None) != (self.password is None):
            raise ValueError("webhook basic auth needs both username and password")
        return self


class Secrets(Section):
    """secrets.yaml: never logged, shown masked, passed to backends only when they connect."""

    snmp: SnmpSecrets = Field(default_factory=SnmpSecrets)
    ssh: SshSecrets = Field(default_factory=SshSecrets)
    webhook: WebhookSecrets = Field(default_factory=WebhookSecrets)


class NetConfig(BaseModel):
    """Everything the backend factory needs: the settings, the secrets and where they came from."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    settings: NetSettings = Field(default_factory=NetSettings)
    secrets: Secrets = Field(default_factory=Secrets)
    home: Path = Path(".")
    config_file: Path | None = None  # None: no config file, defaults (and env) only
    secrets_file: Path | None = None

    def secret_values(self) -> list[str]:
        """Every configured secret in clear: what tests (and a log filter) must never see."""
        out = []
        for section in (self.secrets.snmp, *self.secrets.snmp.devices.values(), self.secrets.ssh,
                        self.secrets.webhook):
            for value in section.__dict__.values():
                if isinstance(value, SecretStr) and value.get_secret_value():
                    out.append(value.get_secret_value())
        return out

"""Devices through NAPALM, read-only: targets, a guarded driver and one-line errors.

Only getters, get_config, traceroute and ping ever reach a driver: `ReadOnlyDriver` wraps
every connection and refuses any other attribute, so a config-changing call
(load_merge_candidate, commit_config, rollback ...) cannot happen by mistake. Passwords are
`SecretStr`, revealed only to the driver's constructor, and scrubbed from error text.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, SecretStr

from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

READ_ONLY = frozenset({
    "open", "close", "is_alive", "get_facts", "get_interfaces", "get_interfaces_ip",
    "get_lldp_neighbors", "get_config", "traceroute", "ping",
    # what an alarm snapshot reads (netopsai.backends.snapshot): getters too
    "get_interfaces_counters", "get_bgp_neighbors", "get_environment", "get_optics"})


class DeviceTarget(BaseModel):
    """How to reach one device; `name` is its inventory name when known."""

    host: str
    port: int = 22
    driver: str = "ios"
    username: str
    password: SecretStr = SecretStr("")
    timeout: int = 30
    name: str | None = None
    optional_args: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name or self.host


class ReadOnlyViolation(NetopsError):
    """Something asked a device driver for a method that is not on the read-only list."""


class DeviceError(NetopsError):
    """A device could not be read; the message is one line naming it, never a secret."""


class ReadOnlyDriver:
    """A NAPALM driver behind an allow-list of read-only methods."""

    def __init__(self, driver: Any, label: str) -> None:
        object.__setattr__(self, "_driver", driver)
        object.__setattr__(self, "_label", label)

    def __getattr__(self, attr: str) -> Any:
        if attr not in READ_ONLY:
            raise ReadOnlyViolation(f"{attr} refused on {self._label}: netopsai is read-only")
        return getattr(self._driver, attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        raise ReadOnlyViolation(f"setting {attr} refused on {self._label}: netopsai is read-only")


def driver_class(name: str) -> Any:
    from napalm import get_network_driver
    from napalm.base.exceptions import ModuleImportError

    try:
        return get_network_driver(name)
    except ModuleImportError:
        raise NetopsError(f"unknown NAPALM driver {name!r}; try ios, eos, junos, nxos_ssh, iosxr"
                          ) from None


@contextmanager
def connect(target: DeviceTarget, driver_cls: Any = None) -> Iterator[ReadOnlyDriver]:
    """An open, read-only connection; errors become DeviceError naming the device."""
    cls = driver_cls or driver_class(target.driver)
    args = {"port": target.port, **target.optional_args}
    try:
        drv = cls(target.host, target.username, target.password.get_secret_value(),
                  timeout=target.timeout, optional_args=args)
        guarded = ReadOnlyDriver(drv, target.label)
        guarded.open()
    except Exception as exc:  # noqa: BLE001 - every driver failure becomes one clear line
        raise DeviceError(describe(target, exc)) from None
    try:
        yield guarded
    except ReadOnlyViolation:
        raise
    except Exception as exc:  # noqa: BLE001
        raise DeviceError(describe(target, exc)) from None
    finally:
        with suppress(Exception):  # a failed close must not hide the result
            guarded.close()


def describe(target: DeviceTarget, exc: BaseException) -> str:
    """One line: which device, what went wrong, where. Never the password."""
    kind = _kind(exc)
    where = f"{target.host}:{target.port}, driver {target.driver}"
    if kind:
        return f"{target.label}: {kind} ({where})"
    first = (str(exc).strip().splitlines() or [""])[0][:160]
    secret = target.password.get_secret_value()
    if secret:
        first = first.replace(secret, "***")
    return f"{target.label}: {type(exc).__name__}{': ' + first if first else ''} ({where})"


def _kind(exc: BaseException) -> str | None:
    names = {c.__name__ for c in type(exc).__mro__}
    text = str(exc).lower()
    if names & {"NetmikoAuthenticationException", "AuthenticationException"} \
            or "authentication" in text:
        return "authentication failed"
    if names & {"NetmikoTimeoutException", "ReadTimeout"} or isinstance(exc, socket.timeout) \
            or "timed out" in text or "timeout" in text:
        return "timed out"
    if "ConnectionClosedException" in names:
        return "connection closed by the device"
    if names & {"ConnectionException", "NoValidConnectionsError"} or isinstance(exc, OSError):
        return "cannot connect"
    return None


def napalm_targets(cfg: NetConfig) -> dict[str, DeviceTarget]:
    """Inventory name -> DeviceTarget with the SSH credentials of secrets.yaml."""
    ssh = cfg.secrets.ssh
    out = {}
    for d in cfg.settings.napalm:
        extra: dict[str, Any] = dict(d.optional_args)
        if ssh.key_file is not None:  # napalm's SSH drivers take a key file as optional args
            extra |= {"key_file": str(ssh.key_file.expanduser()), "use_keys": True}
        port = {"port": d.port} if d.port else {}
        out[d.name] = DeviceTarget(host=d.host, driver=d.driver, name=d.name, optional_args=extra,
                                   username=ssh.username or "",
                                   password=ssh.password or SecretStr(""), **port)
    return out

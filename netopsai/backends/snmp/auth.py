"""SNMP targets and credentials. Secrets are pydantic SecretStr: they print as '**********', and
nothing here ever puts them in a message; a target is named by its device name or host:port."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from pysnmp.hlapi.v3arch.asyncio import CommunityData, UsmUserData


class SnmpAuth(BaseModel):
    """SNMP v2c (a community) or v3 (a USM user with optional auth and privacy keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal["2c", "3"] = "2c"
    community: SecretStr | None = None
    user: str | None = None
    auth_key: SecretStr | None = None
    auth_protocol: Literal["md5", "sha", "sha224", "sha256", "sha384", "sha512"] = "sha"
    priv_key: SecretStr | None = None
    priv_protocol: Literal["des", "3des", "aes", "aes192", "aes256"] = "aes"
    context: str = Field(default="", description="SNMPv3 context name (snmpsim picks a recording by it)")

    @model_validator(mode="after")
    def _complete(self) -> SnmpAuth:
        if self.version == "2c" and not self.community:
            raise ValueError("SNMP v2c needs a community")
        if self.version == "3" and not self.user:
            raise ValueError("SNMP v3 needs a user")
        if self.priv_key and not self.auth_key:
            raise ValueError("SNMP v3 privacy needs an auth key too")
        return self

    def pysnmp_auth(self) -> CommunityData | UsmUserData:
        import pysnmp.hlapi.v3arch.asyncio as h

        if self.version == "2c":
            assert self.community is not None
            return h.CommunityData(self.community.get_secret_value(), mpModel=1)
        auth = {"md5": h.usmHMACMD5AuthProtocol, "sha": h.usmHMACSHAAuthProtocol,
                "sha224": h.usmHMAC128SHA224AuthProtocol, "sha256": h.usmHMAC192SHA256AuthProtocol,
                "sha384": h.usmHMAC256SHA384AuthProtocol,
                "sha512": h.usmHMAC384SHA512AuthProtocol}[self.auth_protocol]
        priv = {"des": h.usmDESPrivProtocol, "3des": h.usm3DESEDEPrivProtocol,
                "aes": h.usmAesCfb128Protocol, "aes192": h.usmAesCfb192Protocol,
                "aes256": h.usmAesCfb256Protocol}[self.priv_protocol]
        kw: dict[str, Any] = {}
        if self.auth_key:
            kw |= {"authKey": self.auth_key.get_secret_value(), "authProtocol": auth}
        if self.priv_key:
            kw |= {"privKey": self.priv_key.get_secret_value(), "privProtocol": priv}
        return h.UsmUserData(self.user, **kw)

    def secrets(self) -> list[str]:
        """The secret values, so callers can check that no output carries one."""
        return [s.get_secret_value() for s in (self.community, self.auth_key, self.priv_key) if s]


class SnmpTarget(BaseModel):
    """One agent to poll. `name` is the inventory name; empty means 'use its sysName'."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    host: str
    port: int = Field(default=161, ge=1, le=65535)
    name: str = ""
    auth: SnmpAuth

    @property
    def label(self) -> str:
        """How messages name the target: never by its credentials."""
        return self.name or self.endpoint

    @property
    def endpoint(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_endpoint(text: str, default_port: int = 161) -> tuple[str, int]:
    """'HOST', 'HOST:PORT' or '[V6]:PORT' -> (host, port); a one-line error otherwise."""
    text = text.strip()
    host, port = text, str(default_port)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":") or port
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise NetopsError(f"bad SNMP target {text!r}; use HOST or HOST:PORT, e.g. 127.0.0.1:161")
    return host, int(port)

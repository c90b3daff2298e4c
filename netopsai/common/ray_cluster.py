"""The one way this project joins or starts a Ray cluster (`--engine ray`, config `ray:`), for
batch checks (netopsai.batch.ray_engine) and SNMP polling (netopsai.backends.snmp.ray_poll).

Without an address a private local cluster lives for the run (bound to 127.0.0.1, no dashboard,
no usage reporting) and is shut down on the way out, Ctrl-C included. With one, the cluster's
workers must be able to import netopsai and open the store (PostgreSQL for a cluster on other
machines: a SQLite file is only shared on one machine). An unreachable address is one line,
found with a short TCP connect before Ray's own minutes-long wait. The command line's address over
config.yaml's `ray:` is config/ray.py's `ray_options` (common imports no other room)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from netopsai.common.errors import NetopsError

OBJECT_STORE_MB = 200  # a local cluster's shared memory: chunks and results are small
CONNECT_TIMEOUT_S = 5.0  # an unreachable address: Ray's own wait is minutes, then an abort
# Ray reads these when imported or started: set before either, never overriding the caller's
RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",  # never report usage to anyone
    # "127.0.0.1" stays loopback: otherwise Ray swaps in the host's outward address
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
CONNECT_ENV = {  # joining a cluster: bound the waits (defaults 60 s and more, then an abort)
    "RAY_gcs_rpc_server_connect_timeout_s": "10",
    "RAY_gcs_server_request_timeout_seconds": "30",
}


@dataclass(frozen=True)
class RayOptions:
    """`address`: a running cluster (HOST:PORT of its GCS, or ray://HOST:PORT for Ray Client);
    None starts a local one. `workers`: actors or tasks at once (default: the cluster's CPUs)."""

    address: str | None = None
    workers: int | None = None


def _import_ray(address: str | None) -> Any:
    env = dict(RAY_ENV)
    if address:
        env |= CONNECT_ENV
        if _has_token():  # as ray.init(address="auto") would: `ray start` secures the cluster
            env["RAY_AUTH_MODE"] = "token"
    for key, value in env.items():  # Ray reads its configuration once, when first imported
        os.environ.setdefault(key, value)
    try:
        import ray
    except ImportError:
        raise NetopsError("--engine ray needs Ray: pip install 'netopsai[ray]'") from None
    return ray


def reachable(address: str) -> None:
    """A one-line error now rather than Ray's minutes of retries for a cluster that is not there
    (config/ray.py checks the configured address with it before a command writes anything)."""
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise NetopsError(f"bad Ray address {address!r}; use HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise NetopsError(f"cannot reach the Ray cluster at {address}: {why}") from None


@contextmanager
def ray_cluster(opts: RayOptions, local_cpus: int | None = None) -> Iterator[int]:
    """Connected to Ray for the block; yields the cluster's CPUs. A local cluster gets
    `local_cpus` (default: this machine's) and is always shut down when the block ends."""
    ray = _import_ray(opts.address)
    if ray.is_initialized():  # a caller's own session (tests, notebooks): use it as it is
        yield int(ray.cluster_resources().get("CPU", 1))
        return
    _connect(ray, opts, local_cpus)
    try:
        yield int(ray.cluster_resources().get("CPU", 1))
    finally:
        ray.shutdown()


def _connect(ray: Any, opts: RayOptions, local_cpus: int | None) -> None:
    import logging

    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
    if opts.address:
        reachable(opts.address)
        what, kw = f"join the Ray cluster at {opts.address}", {"address": opts.address, **quiet}
    else:
        # "local": a new private cluster, never one found through RAY_ADDRESS or `ray start`
        what, kw = "start a local Ray cluster", {
            "address": "local", "num_cpus": local_cpus or len(os.sched_getaffinity(0)),
            "include_dashboard": False, "_node_ip_address": "127.0.0.1",
            "object_store_memory": OBJECT_STORE_MB * 1024 * 1024, **quiet}
    try:
        ray.init(**kw)
    except Exception as exc:  # an open port that is no Ray, another Ray version, no shared memory
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise NetopsError(f"cannot {what}: {first}") from None


def _has_token() -> bool:
    """This machine holds a Ray cluster token (Ray 2.60's token authentication, on by default
    for `ray start`), which Ray itself only uses for an explicit address when told to."""
    from pathlib import Path

    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token"
    return bool(os.environ.get("RAY_AUTH_TOKEN")) or Path(path).is_file()


def worker_count(opts: RayOptions, cpus: int, items: int) -> int:
    """Actors or tasks at once: the configured number, else one per CPU; never more than the
    cluster can run at once (one CPU each) nor than there are items."""
    return max(1, min(opts.workers or cpus, cpus, items))

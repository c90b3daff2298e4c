"""config.yaml `ray:` for `--engine ray` (batch, poll): the command line's address over the
configured one, checked before the command writes anything. It reads the configuration, so it
lives here rather than beside the cluster code it feeds (common/ray_cluster.py imports no other
room)."""

from __future__ import annotations

from netopsai.common.ray_cluster import RayOptions, reachable
from netopsai.config.load import load_netconfig


def ray_options(address: str | None) -> RayOptions:
    """The command line's address over the configuration's `ray:` section (config.yaml),
    checked before the command writes anything (a batch's CSV header, say)."""
    conf = load_netconfig().settings.ray
    opts = RayOptions(address or conf.address, conf.workers)
    if opts.address:
        reachable(opts.address)
    return opts

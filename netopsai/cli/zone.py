"""The network's zone for what a command prints for a person (issue 25 item 5): config.yaml's
`ingest.timezone` (UTC by default). Times printed through common/localtime name it."""

from __future__ import annotations


def network_zone() -> str:
    """The configured zone; UTC when config.yaml cannot be read, so that a listing (jobs,
    tokens) still prints, its times then marked UTC, which is what they are. `netopsai config
    check` names the problem; commands that need the configuration fail on it themselves."""
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import load_netconfig

    try:
        return load_netconfig().settings.ingest.timezone
    except NetopsError:
        return "UTC"

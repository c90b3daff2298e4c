"""config.yaml sections of the long-running services a team runs: auto-triage (api), retention
(ingest, poll, `db prune`), Ray, the reliability report and device snapshots. Re-exported by
netopsai.config.network, where NetSettings puts them together."""

from __future__ import annotations

from pydantic import Field, field_validator

from netopsai.config.section import Section


class TriageRule(Section):
    """Alerts to diagnose on arrival and where to post the answer: every matcher must hold
    (Alertmanager's syntax: label=value, label!=value, label=~regex, label!~regex)."""

    match: list[str] = Field(min_length=1)
    channel: str = Field(min_length=1, description="Slack channel id (or #name) for the answer")

    @field_validator("match")
    @classmethod
    def _matchers(cls, value: list[str]) -> list[str]:
        from netopsai.config.matchers import parse_matcher

        for m in value:
            parse_matcher(m)  # a bad matcher fails when config.yaml is read, naming it
        return value


class TriageSettings(Section):
    """Auto-triage (netopsai api, POST /api/triage/alertmanager): firing alerts matching a rule
    are diagnosed and the cited answer posted to the rule's channel."""

    rules: list[TriageRule] = Field(default_factory=list)
    repeat_minutes: int = Field(default=30, ge=0, description=(
        "Alertmanager re-sends a firing alert; the same alert is diagnosed again only after this"))


class RetentionSettings(Section):
    """How long history is kept (`netopsai db prune`, and hourly in ingest and poll). Days; null
    keeps it forever. 5-minute counter samples older than `samples_days` are rolled up into
    hourly figures first, so long windows still answer, at hourly detail."""

    samples_days: int | None = Field(default=14, ge=1, description="5-minute counter samples")
    rollups_days: int | None = Field(default=365, ge=1, description="hourly counter roll-ups")
    raw_events_days: int | None = Field(default=30, ge=1, description=(
        "events as received (syslog lines, traps, Alertmanager alerts)"))
    interface_events_days: int | None = Field(default=180, ge=1, description=(
        "port up/down transitions (each port's latest is always kept: it is its state now)"))
    closed_alarms_days: int | None = Field(default=365, ge=1, description=(
        "alarms cleared this long ago, with their acknowledgements"))
    # 35: the reliability report's default window is 30 days, and a calendar month's report
    # (up to 31 days) run a few days late still finds all of its month's probes; a 1,000-pair
    # run every 5 minutes is 288,000 rows a day, so a year would be ~100 M rows of little use
    probes_days: int | None = Field(default=35, ge=1, description=(
        "recorded batch probe results (`netopsai batch --record`)"))
    prune_every_minutes: int = Field(default=60, ge=0, description=(
        "how often ingest and poll prune while they run; 0 never"))


class RaySettings(Section):
    """Batch checks and SNMP polling on Ray (`--engine ray`): `address` of a running cluster
    (ray://host:10001 or host:6379), or none to start a local one for the run."""

    address: str | None = None
    workers: int | None = Field(default=None, ge=1, description=(
        "tasks at once (default: the cluster's CPUs)"))


class ReliabilitySettings(Section):
    """What `netopsai report reliability` counts as a bad minute for a scope (a PoD, a site, a
    zone): a minute with an open case of these severities or impacts, a port losing at least
    `loss_per_5min` packets (errors and discards) in a 5-minute sample, a port flapping at
    least `flap_transitions` times within `flap_window_minutes`, or a recorded batch probe of
    a pair with an end in the scope unreachable (for up to `probe_interval_minutes`)."""

    severities: list[str] = Field(default_factory=lambda: ["critical"], description=(
        "alarm severities whose open case makes its minutes bad"))
    impacts: list[str] = Field(default_factory=lambda: ["traffic_lost"], description=(
        "alarm impacts whose open case makes its minutes bad, whatever the severity"))
    loss_per_5min: int | None = Field(default=1000, ge=1, description=(
        "input errors plus discards in one port's 5-minute counter sample that count as loss "
        "(those 5 minutes are bad); null: loss is not counted"))
    flap_transitions: int = Field(default=3, ge=1)
    flap_window_minutes: int = Field(default=10, ge=1)
    probe_interval_minutes: int = Field(default=5, ge=1, le=1440, description=(
        "how long one unreachable probe counts as bad: until the pair's next probe, at most "
        "this (the probe timer's interval); degraded probes are not counted"))
    digest_channel: str | None = Field(default=None, description=(
        "Slack channel for the weekly digest (opt-in: none sends nothing)"))


class SnapshotSettings(Section):
    """Device snapshots when an alarm opens (ingest) or a port goes down (poll), for devices in
    `napalm:` or the SNMP targets: read-only getters, bounded so a storm is not a storm of
    logins."""

    enabled: bool = True
    workers: int = Field(default=4, ge=1, le=64, description="devices read at once")
    min_interval_minutes: float = Field(default=10, ge=0, description=(
        "at most one snapshot per device this often"))

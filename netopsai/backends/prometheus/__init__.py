"""Prometheus: telemetry from series that snmp_exporter scraped (PromQL query_range)."""

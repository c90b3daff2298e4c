"""SNMP (pysnmp): credentials, the ifTable walk, the poller that stores readings, and live telemetry."""

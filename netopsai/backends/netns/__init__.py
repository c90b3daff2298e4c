"""The namespace lab: a routed lab of Linux network namespaces (plan, build, faults, store record)
and telemetry and alarms read live from it."""

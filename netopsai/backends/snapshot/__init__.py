"""Device snapshots when an alarm opens (issue 15 §4): capture.py reads one device (NAPALM
getters, or SNMP without a NAPALM entry), snapshotter.py runs captures off the receiving path
with bounded concurrency and a per-device rate limit. Rows: store.tables.DeviceSnapshot, read
through netopsai.store.snapshots."""

"""NAPALM, read-only: guarded device connections, discovery into the inventory, config snapshots,
and traceroute from a device as a Paths backend."""

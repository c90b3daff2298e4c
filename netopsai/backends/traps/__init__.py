"""SNMP traps: the receiver that turns traps into Events for the store's queued writer."""

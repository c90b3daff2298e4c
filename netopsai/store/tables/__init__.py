"""The store's tables (SQLModel). Times are UTC (SQLModel stores aware datetimes); device names
are the inventory's names.

Counter samples hold measured or anomalous 5-minute samples; the lab's healthy baseline
counters are synthesised on read (netopsai.lab.counters) so that a 10,000-device lab with a
week of history fits in seconds and megabytes, not 100M rows.

One module per concern (network.py: the network; records.py: what the services keep);
every table is importable from here: `from netopsai.store import tables as m`, then `m.Device`.
"""

from netopsai.store.tables.columns import big
from netopsai.store.tables.network import (
    COUNTER_FIELDS,
    AclEntry,
    Alarm,
    BgpSession,
    Change,
    CounterRollup,
    CounterSample,
    Device,
    HostAddress,
    Interface,
    InterfaceAddress,
    InterfaceEvent,
    Link,
    Meta,
    Pod,
    Segment,
    Site,
    StaticRoute,
)
from netopsai.store.tables.records import (
    AlarmAck,
    ApiToken,
    ConfigSnapshot,
    DeviceSnapshot,
    Incident,
    Job,
    LabFault,
    RawEvent,
    SnmpCounterState,
    SpoolMark,
)

__all__ = [
    "AclEntry",
    "Alarm",
    "AlarmAck",
    "ApiToken",
    "BgpSession",
    "COUNTER_FIELDS",
    "Change",
    "ConfigSnapshot",
    "CounterRollup",
    "CounterSample",
    "Device",
    "DeviceSnapshot",
    "HostAddress",
    "Incident",
    "Interface",
    "InterfaceAddress",
    "InterfaceEvent",
    "Job",
    "LabFault",
    "Link",
    "Meta",
    "Pod",
    "RawEvent",
    "Segment",
    "Site",
    "SnmpCounterState",
    "SpoolMark",
    "StaticRoute",
    "big",
]

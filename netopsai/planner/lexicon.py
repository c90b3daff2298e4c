"""The planner's own words: what a misspelt word may be corrected to (planner/spelling.py), and
the words around them that are never corrected.

Only the words the offline planner reads are targets ("alrams" -> alarms, "discrads" ->
discards, "happend" -> happened): a correction to a word no rule reads would change nothing but
the risk. tests/test_planner_hurried_words.py checks that every word here is read by one of the
planner's patterns (or by the window parser), so the list follows the rules.

This module imports nothing: tests/data/phrasings/english_near.py (which builds english_near.py
from an English word list) loads it on its own.
"""

from __future__ import annotations

# What each rule reads, grouped as the rules are (rules.py, complaints.py, keywords.py, roce.py,
# jobs.py, windows.py); inflections are listed because typos are of the word as typed.
_GROUPS = {
    "alarms": "alarm alarms alert alerts alerting firing trap traps",
    "changes": "change changes changed changing maintenance deploy deployed deployment deployments "
               "modified modification modifications rollout rollouts upgrade upgrades upgraded "
               "upgrading rollback touched",
    "analysis": "correlate correlated correlation grouped group related dedup duplicate",
    "inventory": "upstream uplink uplinks parent plugged connected attached neighbor neighbors "
                 "neighbour neighbours peer peers lldp wired cabling site sites datacenter "
                 "datacenters region regions pods segment segments subnet subnets prefix prefixes "
                 "vlan vlans addressing host hosts server servers machine machines interface "
                 "interfaces port ports device devices switch switches router routers inventory "
                 "list enumerate owns owner whose belongs assigned lookup where details tell "
                 "about info information describe model version vendor uptime status",
    "history": "history timeline events event logs happened bounced bounce",
    "trace": "trace traceroute tracert path paths route routes hops through traverse",
    "complaints": "communicate communicating communication talk talking reach reaching reachable "
                  "unreachable reachability working connect connecting connection connections "
                  "connectivity respond responding response responses ping pinging pings cannot "
                  "unable fails failing failed failure packet packets loss losing lost lose "
                  "dropped dropping drops slow slowness latency timeout timeouts timing timed "
                  "times jitter broken flaky intermittent intermittently issue issues problem "
                  "problems down hang hangs hanging freeze freezes freezing frozen stall stalls "
                  "stalled stalling stuck refused denied answer answers answering reply replies "
                  "never nothing access login",
    "health": "wrong going happening healthy okay fine alright sick unhealthy trouble health "
              "troubleshoot diagnose diagnosis crash crashed crashes crashing dead offline "
              "unresponsive forwarding stopped hosed something anything",
    "metrics": "flap flaps flapping flapped bouncing cycling errors error errored corrupt "
               "corrupted discards discard discarded utilization utilisation utilized bandwidth "
               "throughput busiest hottest congestion congested saturated saturation traffic "
               "load levels optics optical transceiver transceivers light power receive state "
               "status operational full",
    "roce": "pause frames storm storms priority control notification notifications marks "
            "retransmits retransmit retransmission retransmissions sequence rail rails fabric "
            "cluster backend watchdog",
    "roles": "superspine superspines spine spines leaf leafs leaves border borders hosts "
             "servers",
    "categories": "backbone adjacency adjacencies capacity chassis reboot rebooted reboots "
                  "fans supply supplies link links",
    "states": "cleared resolved closed open active ongoing current currently unresolved "
              "outstanding still recovered historical",
    "jobs": "nccl allreduce collective collectives training",
    "time": "last past previous within hour hours minute minutes second seconds week weeks "
            "today yesterday tonight morning afternoon evening night overnight since before "
            "after around between midnight noon monday tuesday wednesday thursday friday "
            "saturday sunday january february march april june july august september october "
            "november december",
    "asking": "which what please",
}
VOCAB: frozenset[str] = frozenset(w for words in _GROUPS.values() for w in words.split())

# Network words that are in no English list, near a planner word: never "corrected"
# ("sflow" is not a slow flow, "vxlan" not a vlan).
_JARGON = (
    "vxlan evpn lacp mlag ecmp nccl rdma roce ospf isis mpls vrrp hsrp rstp mstp snmp sflow "
    "netflow ipfix qsfp dwdm icmp dhcp ipv4 ipv6 srv6 dscp dcqcn tcam asic nics gpus ibgp ebgp "
    "ldap ntpd frr bird sonic junos iosxr nxos arista cumulus syslog syslogs netbox slurm "
    "calico cilium flannel kube kubectl infiniband mellanox pfcwd loopback irb svi vrfs")
JARGON = frozenset(_JARGON.split())
MIN_LENGTH = 4  # shorter words are too close to too many others to be guessed at


def radius(word: str) -> int:
    """How many edits a typed word may be from the word it is read as: one for a short word,
    two from seven letters (two slips in "unexpecetdly" still leave it plain)."""
    return 1 if len(word) < 7 else 2

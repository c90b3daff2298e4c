"""Device roles every room reads alike: which are end hosts, and each role's tier in the fabric
(hosts at the bottom, DCI routers at the top). The lab builds its topology with them, the store
answers inventory questions with them, the tools place a port's peer by them."""

from __future__ import annotations

HOST_ROLES = ("host", "gpu_host")  # end hosts: no loopback, no BGP
TIERS = {"host": 0, "gpu_host": 0, "leaf": 1, "tor": 1, "spine": 2, "superspine": 3, "border": 4, "dci": 5}

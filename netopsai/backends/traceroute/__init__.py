"""System traceroute: the Paths backend, running the probe, parsing its output, mapping hops to
devices, and reading where a path stopped."""

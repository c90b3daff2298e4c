"""The embedded lab: a generated two-DC fabric in the store, a clock, a forwarding model and faults."""

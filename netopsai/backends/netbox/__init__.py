"""NetBox: the CSV exports' rows, read and validated for the inventory import."""

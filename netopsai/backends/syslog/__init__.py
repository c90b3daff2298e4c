"""Syslog: the UDP receiver and the vendor line parser."""

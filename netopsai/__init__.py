"""netopsai: a chat copilot for network on-calls."""

__version__ = "0.1.0"

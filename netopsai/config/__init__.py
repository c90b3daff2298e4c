"""Configuration: environment settings (settings.py), the network config (network.py), and loading
and checking it (load.py)."""

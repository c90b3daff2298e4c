"""The telemetry tool's port answers: what changed first, ports down on purpose or never up
counted apart (states.py), times in the asked zone (zoned.py), role words narrowing the ports
(roles.py)."""

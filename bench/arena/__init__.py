"""NetOpsArena runs (run_public, run_classes, run_ai): `python -m bench.arena.NAME`."""

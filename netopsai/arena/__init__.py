"""NetOpsArena: generated fault scenarios, a runner that asks the copilot about each in a fresh
lab, baselines, and scoring (shared/specs/scenario.md)."""

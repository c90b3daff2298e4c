"""Contract tests: one shared suite per tool interface, run against every backend serving it."""

#!/usr/bin/env bash
# Set up and run the whole test suite: lint, types, then pytest (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
# the CPU torch build first (for the `embed` extra's dense incident memory): else pip pulls a multi-GB CUDA one
.venv/bin/pip install -q --disable-pip-version-check torch==2.13.0
# `llm` compiles llama.cpp once (~5 min on 2 cores; pip keeps the wheel in its cache), portable
# code rather than this CPU's extensions, so the cached wheel also runs on another machine
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" \
    .venv/bin/pip install -q --disable-pip-version-check -e '.[test,embed,llm]'
# the suite's shared helpers (real peers, the scripted model, the fake Slack API), installed so
# tests and bench import them as a package (testkit/pyproject.toml)
.venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e ./testkit
# Debian packages behind the real-peer tests (chromium, prometheus, traceroute, nftables ...)
bash scripts/system-deps.sh
.venv/bin/ruff check .
# mypy and grimp (import-linter) read files, and tools/ ui/ prompts/ inventory/ are netopsai's
# subpackages only through setup.py's package_dir: build/view is the package as it installs
.venv/bin/python scripts/package_view.py
.venv/bin/mypy  # what to check: [tool.mypy] in pyproject.toml
(cd build/view && ../../.venv/bin/lint-imports)  # the import contract: [tool.importlinter]
# two workers: the machines have two cores, and the CLI tests spend most time starting Python.
# worksteal: a worker that runs out takes queued tests from the other, so a run does not end
# with one worker idle behind the other's minute-long tests (the real model, the slow agent);
# the slowest 30 are printed, so a CI log says where the suite's time went
.venv/bin/pytest -q -n 2 --dist worksteal --durations=30 -p no:randomly "$@"

#!/usr/bin/env bash
# Set up and run netopsai on the embedded lab (a fresh machine needs only python3).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e .
export NETOPSAI_HOME="${NETOPSAI_HOME:-$HOME/.netopsai}"
.venv/bin/netopsai lab status >/dev/null 2>&1 || .venv/bin/netopsai lab init --scale small
.venv/bin/netopsai lab status
.venv/bin/netopsai tool metadata '{"query": "pods", "site": "dc1"}'
.venv/bin/netopsai tool traceroute '{"src": "10.1.3.20", "dst": "10.2.1.40"}'

#!/usr/bin/env bash
# Set up and run netopsai: the Gradio web app on the embedded lab (built on first run),
# at http://127.0.0.1:7860. A fresh machine needs only python3.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e .
export NETOPSAI_HOME="${NETOPSAI_HOME:-$HOME/.netopsai}" GRADIO_ANALYTICS_ENABLED=False
exec .venv/bin/netopsai serve "$@"

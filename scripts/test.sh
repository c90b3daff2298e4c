#!/usr/bin/env bash
# Set up and run the whole test suite: lint, types, then pytest (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
# the browser tests drive Debian's Chromium (no `playwright install` download); get it when missing
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq </dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium </dev/null
    else
        echo "chromium missing and not root: the browser tests will skip (apt-get install chromium)" >&2
    fi
fi
.venv/bin/ruff check .
.venv/bin/mypy netopsai tools ui
# two workers: the machines have two cores, and the CLI tests spend most time starting Python
.venv/bin/pytest -q -n 2 -p no:randomly "$@"

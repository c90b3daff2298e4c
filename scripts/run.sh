#!/usr/bin/env bash
# Set up and run netopsai: the Gradio web app on the embedded lab (built on first run),
# at http://127.0.0.1:7860. A fresh machine needs only python3.
# Each step says what it does and how long it usually takes; pip's own lines go to
# .venv/pip-install.log (shown when it fails), one line per 20 packages goes to the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[netopsai] %s\n' "$*"; }
started=$SECONDS

if [ -x .venv/bin/python ]; then
    say "1/3 virtualenv .venv: already there"
else
    say "1/3 creating the virtualenv .venv (a few seconds)"
    python3 -m venv .venv
fi

# pip again only when pyproject.toml or setup.py changed since the last install
stamp=.venv/.netopsai-installed
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ] && [ "$stamp" -nt setup.py ] \
        && [ -x .venv/bin/netopsai ]; then
    say "2/3 netopsai and its libraries: installed already"
else
    say "2/3 installing netopsai and its libraries into .venv (about 2 minutes on a fresh machine," \
        "~140 packages; seconds when they are there)"
    log=.venv/pip-install.log
    t0=$SECONDS
    if ! .venv/bin/pip install --disable-pip-version-check --progress-bar off -e . 2>&1 | tee "$log" \
            | awk '/^(Collecting|Processing) /{ n++; if (n % 25 == 0) { printf "[netopsai]     %d packages found\n", n; fflush() } }
                   /^Installing collected packages/{ k = split($0, names, ",")
                       printf "[netopsai]     installing %d packages (about 30 s)\n", k; fflush() }'; then
        say "pip failed; its last lines (all of them in $log):"
        tail -n 25 "$log" >&2
        exit 1
    fi
    touch "$stamp"
    say "    installed in $((SECONDS - t0)) s"
fi

export NETOPSAI_HOME="${NETOPSAI_HOME:-$HOME/.netopsai}" GRADIO_ANALYTICS_ENABLED=False
if [ -n "${DATABASE_URL:-}" ] || [ -f "$NETOPSAI_HOME/netopsai.db" ]; then
    where="in $NETOPSAI_HOME"; [ -z "${DATABASE_URL:-}" ] || where="at \$DATABASE_URL"
    say "3/3 starting the web app on the store $where (about 10 s)"
else
    say "3/3 starting the web app; the first run builds the embedded lab in $NETOPSAI_HOME" \
        "(about 15 s)"
fi
say "    set up in $((SECONDS - started)) s. The command line is .venv/bin/netopsai: run" \
    "'source .venv/bin/activate' in your shell to have 'netopsai' on PATH (the README's tour)."
say "    Ctrl-C stops the server."
exec .venv/bin/netopsai serve "$@"

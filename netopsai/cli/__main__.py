"""`python -m netopsai.cli`: the same command line as the installed `netopsai` script, through
its front door (cli/thin.py: a plain `ask` with a server answers before typer loads)."""

from netopsai.cli.thin import run

run()

"""`python -m netopsai.cli`: the same command line as the installed `netopsai` script."""

from netopsai.cli.app import run

run()

"""`python -m netopsai`: the same command line as the installed `netopsai` script, through its
front door (launch/thin.py: a plain `ask` answers before typer loads)."""

from netopsai.launch.thin import run

run()

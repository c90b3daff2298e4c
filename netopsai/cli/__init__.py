"""The command-line front end: one module per command group (core.py: tool, ask, chat), the
renderers and the thin door's text. The `netopsai` process's root typer app, and the commands
that start other front ends, live in the launcher room above (netopsai/launch/)."""

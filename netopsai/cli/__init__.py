"""The command line: the typer app (app.py), one module per command group, chat and render."""

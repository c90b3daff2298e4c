"""The launcher: the `netopsai` process entry, the room above every front end. Its typer app
(app.py) mounts the command line's own commands (netopsai/cli/) and the commands that start the
other front ends: `serve` and `slack` (ui/), `batch`, `bench` (arena/), `api`, `mcp` and
`tokens` (api/). thin.py is the console script's front door. Nothing here is imported by a
front end (the import contract's top layer)."""

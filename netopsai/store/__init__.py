"""The store: SQLModel tables, the engine, the queued writer and what events do to the store, the
one inventory writer, and the readers behind the inventory, changes, alarms and stored-
telemetry Protocols."""

# tables outside tables/ register on SQLModel.metadata here, so whoever imports any store
# module (the engine, Alembic's env, create_all) sees every table
from netopsai.store import probes as _probes  # noqa: F401

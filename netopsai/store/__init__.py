"""The store: SQLModel tables, the engine, the queued writer and what events do to the store, the
one inventory writer, and the readers behind the inventory, changes, alarms and stored-
telemetry Protocols."""

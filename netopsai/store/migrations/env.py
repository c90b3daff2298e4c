"""Alembic's environment: the store's own engine and connection (netopsai.store.migrate passes
it in), the SQLModel tables as the target, batch mode so SQLite can alter tables."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import netopsai.store.tables  # noqa: F401  (registers every table on SQLModel.metadata)

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata,
                  render_as_batch=True, compare_type=True)
with context.begin_transaction():
    context.run_migrations()

"""The store's schema history (Alembic): one revision per schema change, applied by
netopsai.store.migrate (on start for SQLite, `netopsai db upgrade` for PostgreSQL)."""

"""Alembic's environment: run by :func:`leaderboard.migrate.upgrade` on a connection it opened.

The connection comes in ``config.attributes["connection"]`` with its transaction
already begun (and, on PostgreSQL, the migration lock taken), so every revision
of one upgrade commits or rolls back together.  There is no offline (``--sql``) mode.
"""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import leaderboard.models  # noqa: F401  (the tables, for autogenerate)

if context.is_offline_mode():
    raise SystemExit("Arena's migrations run online only: open the store (any arena command that uses --db)")

connection = context.config.attributes.get("connection")
if connection is None:
    raise SystemExit("run Arena's migrations through leaderboard.migrate (python -m leaderboard.migrate --help)")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,  # SQLite alters tables by copying them
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()

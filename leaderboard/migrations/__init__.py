"""The Alembic revisions that make and upgrade the store's schema (see leaderboard.migrate)."""

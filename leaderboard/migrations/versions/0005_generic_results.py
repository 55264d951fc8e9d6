"""Generic results: the store keeps no game's own columns.

A match's participants are its seats (bots) and its game's reference participants
(``GameSpec.reference(players)``), each with a score and a place:

- New table ``match_references`` (match, name, score, place): filled from
  ``matches.imaginary_cash``/``imaginary_place`` (Union Pacific's imaginary shareholder at a
  table of two, named ``imaginary`` as the game's spec names it); then those two columns
  are dropped.
- ``seats.cash`` is renamed ``seats.score`` (its values unchanged); ``seats.behind_imaginary``
  is dropped (it repeated what the places say).
- Saved ratings are per game: ``rating_snapshots.game`` and ``rating_history.game`` (a
  tournament's rows: its game; overall rows: ``union_pacific``, the only game a database
  made before this revision could hold), and the overall rows are unique per game.  The
  reference participant's name in them becomes ``(imaginary)`` (it was ``(imaginary shareholder)``).

The columns are renamed and dropped in place (SQLite 3.35 and later, PostgreSQL): no table
is copied, so the ``match_counts`` triggers on ``matches`` stay.

Revision ID: 0005_generic_results
Revises: 0004_scale
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_generic_results"
down_revision = "0004_scale"
branch_labels = None
depends_on = None

_OLD_REFERENCE = "(imaginary shareholder)"
_REFERENCE = "(imaginary)"
_OLD_GAME = "union_pacific"


def upgrade() -> None:
    connection = op.get_bind()
    sqlite = connection.dialect.name == "sqlite"
    if sqlite and tuple(int(p) for p in connection.exec_driver_sql("SELECT sqlite_version()").scalar().split(".")[:2]) < (3, 35):
        raise RuntimeError("this revision needs SQLite 3.35 or later (ALTER TABLE ... DROP COLUMN)")
    op.create_table(
        "match_references",
        sa.Column("match_id", sa.String(), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
    )
    connection.exec_driver_sql(
        "INSERT INTO match_references (match_id, name, score, place) "
        "SELECT id, 'imaginary', COALESCE(imaginary_cash, 0), imaginary_place FROM matches "
        "WHERE imaginary_place IS NOT NULL"
    )
    for table, column in (("matches", "imaginary_cash"), ("matches", "imaginary_place"),
                          ("seats", "behind_imaginary")):
        connection.exec_driver_sql(f"ALTER TABLE {table} DROP COLUMN {column}")
    connection.exec_driver_sql("ALTER TABLE seats RENAME COLUMN cash TO score")

    for table, columns in (("rating_snapshots", ["participant"]), ("rating_history", ["match_id", "participant"])):
        op.add_column(table, sa.Column("game", sa.String(), nullable=False, server_default=""))
        connection.exec_driver_sql(
            f"UPDATE {table} SET game = COALESCE((SELECT t.game FROM tournaments t "
            f"WHERE t.id = {table}.tournament_id), '{_OLD_GAME}')"
        )
        connection.execute(sa.text(f"UPDATE {table} SET participant = :new WHERE participant = :old"),
                           {"new": _REFERENCE, "old": _OLD_REFERENCE})
        if not sqlite:
            op.alter_column(table, "game", server_default=None, existing_type=sa.String(), existing_nullable=False)
        op.drop_index(f"uq_{table}_overall", table)
        overall = sa.text("tournament_id IS NULL")
        op.create_index(f"uq_{table}_overall", table, ["game", *columns], unique=True,
                        sqlite_where=overall, postgresql_where=overall)


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

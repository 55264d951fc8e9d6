"""Scale: replays compressed, and the indexes that bounded pages and the ratings' cache key need.

- ``matches.replay_z`` (binary) holds the replay's JSON text compressed with zlib
  (level 9, as :mod:`leaderboard.replays` does); every stored replay is converted, text as it was
  (unparsed: a corrupt one stays corrupt, and says so when read), then
  ``matches.replay_json`` is dropped.  About 35 KB a match become about 4.5 KB.
- Indexes: a tournament's matches newest first; a bot version's seats by match (whether it played a match: one probe, in
  place of the index on the version alone); a bot version's faulty or forfeited
  seats (a partial index: few rows).
- ``match_counts``: the stored matches per tournament and table size, kept by triggers
  on ``matches`` (one more on insert, one less on delete) and filled from the stored
  matches here: counting and the ratings' cache key read a few rows, not a million.

Revision ID: 0004_scale
Revises: 0002_bot_versions
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
from alembic import op

revision = "0004_scale"
down_revision = "0003_match_queue"
branch_labels = None
depends_on = None

_BATCH = 500  # replays converted per round trip
_INCIDENT = "fault_count > 0 OR forfeited = true"  # as models.SEAT_INCIDENT


def upgrade() -> None:
    op.add_column("matches", sa.Column("replay_z", sa.LargeBinary(), nullable=True))
    connection = op.get_bind()
    matches = sa.table("matches", sa.column("id", sa.String()), sa.column("replay_json", sa.Text()),
                       sa.column("replay_z", sa.LargeBinary()))
    after = ""
    while True:  # by id, so each round reads one index range
        rows = connection.execute(
            sa.select(matches.c.id, matches.c.replay_json).where(matches.c.id > after)
            .order_by(matches.c.id).limit(_BATCH)
        ).all()
        if not rows:
            break
        connection.execute(
            sa.update(matches).where(matches.c.id == sa.bindparam("match_id"))
            .values(replay_z=sa.bindparam("packed")),
            [{"match_id": match_id, "packed": zlib.compress(text.encode("utf-8"), 9)} for match_id, text in rows],
        )
        after = rows[-1][0]
    with op.batch_alter_table("matches") as table:
        table.alter_column("replay_z", existing_type=sa.LargeBinary(), nullable=False)
        table.drop_column("replay_json")
    op.create_index("ix_matches_tournament_started", "matches", ["tournament_id", "started_at"])
    create_match_counts(connection)  # after the batch copy of matches: its triggers stay
    op.drop_index("ix_seats_bot_version_id", "seats")  # a prefix of the next one
    op.create_index("ix_seats_version_match", "seats", ["bot_version_id", "match_id"])
    op.create_index("ix_seats_incidents", "seats", ["bot_version_id"], sqlite_where=sa.text(_INCIDENT),
                    postgresql_where=sa.text(_INCIDENT))


_UPSERT = ("INSERT INTO match_counts (tournament_id, table_size, matches) VALUES (NEW.tournament_id, NEW.table_size, 1) "
           "ON CONFLICT (tournament_id, table_size) DO UPDATE SET matches = match_counts.matches + 1")
_TAKE = ("UPDATE match_counts SET matches = matches - 1 "
         "WHERE tournament_id = OLD.tournament_id AND table_size = OLD.table_size")


def create_count_triggers(connection: sa.Connection) -> None:
    """The triggers that keep ``match_counts`` (again after ``matches`` is rebuilt)."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(f"CREATE TRIGGER tr_matches_count_insert AFTER INSERT ON matches "
                                   f"BEGIN {_UPSERT}; END")
        connection.exec_driver_sql(f"CREATE TRIGGER tr_matches_count_delete AFTER DELETE ON matches "
                                   f"BEGIN {_TAKE}; END")
        return
    connection.exec_driver_sql(f"CREATE OR REPLACE FUNCTION arena_match_count_insert() RETURNS trigger AS $$ "
                               f"BEGIN {_UPSERT}; RETURN NEW; END $$ LANGUAGE plpgsql")
    connection.exec_driver_sql(f"CREATE OR REPLACE FUNCTION arena_match_count_delete() RETURNS trigger AS $$ "
                               f"BEGIN {_TAKE}; RETURN OLD; END $$ LANGUAGE plpgsql")
    connection.exec_driver_sql("CREATE TRIGGER tr_matches_count_insert AFTER INSERT ON matches "
                               "FOR EACH ROW EXECUTE FUNCTION arena_match_count_insert()")
    connection.exec_driver_sql("CREATE TRIGGER tr_matches_count_delete AFTER DELETE ON matches "
                               "FOR EACH ROW EXECUTE FUNCTION arena_match_count_delete()")


def create_match_counts(connection: sa.Connection) -> None:
    """The table, filled from the stored matches, and its triggers."""
    op.create_table(
        "match_counts",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("table_size", sa.Integer(), primary_key=True),
        sa.Column("matches", sa.Integer(), nullable=False),
    )
    connection.exec_driver_sql("INSERT INTO match_counts (tournament_id, table_size, matches) "
                               "SELECT tournament_id, table_size, count(*) FROM matches "
                               "GROUP BY tournament_id, table_size")
    create_count_triggers(connection)


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

"""Scale: replays compressed, and the indexes that bounded pages and the ratings' cache key need.

- ``matches.replay_z`` (binary) holds the replay's JSON text compressed with zlib
  (level 9, as :mod:`leaderboard.replays` does); every stored replay is converted, text as it was
  (unparsed: a corrupt one stays corrupt, and says so when read), then
  ``matches.replay_json`` is dropped.  About 35 KB a match become about 4.5 KB.
- Indexes: a tournament's matches newest first, and each scope of the ratings (a
  tournament, a table size, both) counted with its newest start time from an index
  alone; a bot version's seats by match (whether it played a match: one probe, in
  place of the index on the version alone); a bot version's faulty or forfeited
  seats (a partial index: few rows).

Revision ID: 0004_scale
Revises: 0002_bot_versions
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
from alembic import op

revision = "0004_scale"
down_revision = "0002_bot_versions"
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
    op.create_index("ix_matches_size_started", "matches", ["table_size", "started_at"])
    op.create_index("ix_matches_tournament_size_started", "matches", ["tournament_id", "table_size", "started_at"])
    op.drop_index("ix_seats_bot_version_id", "seats")  # a prefix of the next one
    op.create_index("ix_seats_version_match", "seats", ["bot_version_id", "match_id"])
    op.create_index("ix_seats_incidents", "seats", ["bot_version_id"], sqlite_where=sa.text(_INCIDENT),
                    postgresql_where=sa.text(_INCIDENT))


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

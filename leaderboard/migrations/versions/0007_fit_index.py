"""Fit indexes: the rating fit reads indexes only, never the rows that hold the replays.

The rating fit reads, for every counted match, its tournament, schedule index, table
size, deck seed, variant and id, and each seat's bot version, place, score, forfeit and fault count
(:mod:`leaderboard.result_reader`).  Read from the tables, that is a read of every
match row (a match row holds its compressed replay: about 10 KB); from these two
covering indexes it is a read of about 100 bytes per match.  Building them reads the
tables once.

Revision ID: 0007_fit_index
Revises: 0006_deals
"""

from __future__ import annotations

from alembic import op

revision = "0007_fit_index"
down_revision = "0006_deals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_matches_fit", "matches",
                    ["tournament_id", "schedule_index", "id", "table_size", "seed", "variant"])
    op.create_index("ix_seats_fit", "seats", ["match_id", "bot_version_id", "place", "score", "forfeited", "fault_count"])


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

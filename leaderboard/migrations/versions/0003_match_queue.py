"""The match queue: a tournament's schedule as rows that workers claim with a lease.

- New table ``match_queue``: one row per scheduled match (planned, claimed with a
  lease, done with its match id, or failed), who claimed it and with which isolation.
- New table ``excluded_workers``: workers whose matches of a tournament are left out
  of its ratings (``arena tournament exclude-worker``).
- New table ``worker_events``: late results refused, leases taken over, claims released.
- Nothing existing changes: a tournament stored before this revision gets its rows the
  first time a worker (``arena tournament resume``, ``arena worker``) opens it, its
  stored matches counted as done.

Revision ID: 0003_match_queue
Revises: 0002_bot_versions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_match_queue"
down_revision = "0002_bot_versions"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "match_queue",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("schedule_index", sa.Integer(), primary_key=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("worker", sa.String(), nullable=True),
        sa.Column("worker_pid", sa.Integer(), nullable=True),
        sa.Column("lease_token", sa.String(), nullable=True),
        sa.Column("lease_until", _TIME, nullable=True),
        sa.Column("claimed_at", _TIME, nullable=True),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("isolation", sa.String(), nullable=True),
        sa.Column("match_id", sa.String(), sa.ForeignKey("matches.id"), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('planned', 'claimed', 'done', 'failed')", name="ck_match_queue_status"),
    )
    op.create_index("ix_match_queue_claim", "match_queue", ["status", "tournament_id", "schedule_index"])
    op.create_index("ix_match_queue_match", "match_queue", ["match_id"])
    op.create_table(
        "excluded_workers",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("worker", sa.String(), primary_key=True),
        sa.Column("excluded_at", _TIME, nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
    )
    op.create_table(
        "worker_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=True),
        sa.Column("worker", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", _TIME, nullable=False),
    )
    op.create_index("ix_worker_events_tournament", "worker_events", ["tournament_id", "at"])


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

"""Baseline: the schema Arena made before it had migrations (tables created on open).

A database made before then has these tables and no ``alembic_version``: this
revision creates whichever of them is missing (all of them in a new database),
as the old code's ``create_all`` did, and checks that the tables already there
have the columns it knows, so that no later revision runs on a schema it does
not expect.  The definitions are frozen here: later changes go in later revisions.

Revision ID: 0001_baseline
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_TERMINATIONS = "termination IN ('normal', 'stalemate', 'forfeit')"
_STATUSES = "status IN ('created', 'running', 'interrupted', 'finished')"


def _bots() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False, unique=True),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.Column("manifest_path", sa.String(), nullable=True),
        sa.Column("address", sa.String(), nullable=True),
        sa.Column("files_sha256", sa.String(), nullable=False),
        sa.Column("added_at", _TIME, nullable=False),
        sa.Column("removed_at", _TIME, nullable=True),
        sa.CheckConstraint(
            "(manifest_path IS NULL) <> (address IS NULL)", name="ck_bots_manifest_xor_address"
        ),
    )


def _tournaments() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("config_json", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.CheckConstraint(_STATUSES, name="ck_tournaments_status"),
    )


def _matches() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("schedule_index", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("variant", sa.String(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("termination", sa.String(), nullable=False),
        sa.Column("started_at", _TIME, nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("replay_json", sa.Text(), nullable=False),
        sa.Column("extra_json", sa.Text(), nullable=False),
        sa.Column("imaginary_cash", sa.Integer(), nullable=True),
        sa.Column("imaginary_place", sa.Integer(), nullable=True),
        sa.UniqueConstraint("tournament_id", "schedule_index", name="uq_matches_schedule"),
        sa.CheckConstraint("status IN ('finished')", name="ck_matches_status"),
        sa.CheckConstraint(_TERMINATIONS, name="ck_matches_termination"),
    )
    op.create_index("ix_matches_started_at", "matches", ["started_at"])


def _seats() -> None:
    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("cash", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("faults_json", sa.Text(), nullable=False),
        sa.Column("fault_count", sa.Integer(), nullable=False),
        sa.Column("behind_imaginary", sa.Boolean(), nullable=True),
        sa.UniqueConstraint("match_id", "bot_id", name="uq_seats_match_bot"),
    )
    op.create_index("ix_seats_bot_id", "seats", ["bot_id"])


def _scope_indexes(table: str, columns: list[str]) -> None:
    overall, per_tournament = sa.text("tournament_id IS NULL"), sa.text("tournament_id IS NOT NULL")
    op.create_index(f"uq_{table}_overall", table, columns, unique=True,
                    sqlite_where=overall, postgresql_where=overall)
    op.create_index(f"uq_{table}_tournament", table, ["tournament_id", *columns], unique=True,
                    sqlite_where=per_tournament, postgresql_where=per_tournament)


def _rating_snapshots() -> None:
    op.create_table(
        "rating_snapshots",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=True),
        sa.Column("participant", sa.String(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
        sa.Column("ci_low", sa.Float(), nullable=True),
        sa.Column("ci_high", sa.Float(), nullable=True),
        sa.Column("live_elo", sa.Float(), nullable=False),
        sa.Column("computed_at", _TIME, nullable=False),
    )
    _scope_indexes("rating_snapshots", ["participant"])


def _rating_history() -> None:
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=True),
        sa.Column("match_id", sa.String(), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("participant", sa.String(), nullable=False),
        sa.Column("elo", sa.Float(), nullable=False),
    )
    _scope_indexes("rating_history", ["match_id", "participant"])
    op.create_index("ix_rating_history_match", "rating_history", ["match_id"])


#: Each table (in an order that respects the foreign keys), how to make it, its columns.
TABLES = {
    "bots": (_bots, {"id", "name", "version", "author", "language", "manifest_path", "address",
                     "files_sha256", "added_at", "removed_at"}),
    "tournaments": (_tournaments, {"id", "game", "config_json", "seed", "status", "created_at", "updated_at"}),
    "matches": (_matches, {"id", "tournament_id", "schedule_index", "round", "seed", "variant", "table_size",
                           "status", "termination", "started_at", "duration_s", "replay_json", "extra_json",
                           "imaginary_cash", "imaginary_place"}),
    "seats": (_seats, {"match_id", "seat", "bot_id", "cash", "place", "forfeited", "faults_json", "fault_count",
                       "behind_imaginary"}),
    "rating_snapshots": (_rating_snapshots, {"id", "tournament_id", "participant", "elo", "ci_low", "ci_high",
                                             "live_elo", "computed_at"}),
    "rating_history": (_rating_history, {"id", "tournament_id", "match_id", "participant", "elo"}),
}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    existing = set(inspector.get_table_names())
    for table, (create, columns) in TABLES.items():
        if table not in existing:
            create()
            continue
        found = {c["name"] for c in inspector.get_columns(table)}
        if found != columns:
            missing, unknown = sorted(columns - found), sorted(found - columns)
            raise RuntimeError(
                f"table {table!r} is not the one this database's first schema revision knows "
                f"(missing columns: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}): "
                "it was not made by Arena, or by a version older than its first tagged schema"
            )


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

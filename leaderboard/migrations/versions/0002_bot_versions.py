"""Bot versions: a bot is a name with a history of versions; seats say which version played.

- New table ``bot_versions`` (number 1, 2, ... per bot; the manifest path or address,
  the files' hash, the frozen copy of the checked files).
- Each existing bot becomes version 1 of itself (its files were never copied:
  ``files_dir`` stays NULL, and it is played from its manifest after a hash check).
- ``seats.bot_version_id``: every stored seat is version 1 of its bot; a foreign key
  on (bot_id, bot_version_id) keeps the version one of the seat's bot.
- Stored ratings are per version: participant ``NAME`` becomes ``NAME@1``.
- ``bots`` keeps its id, name, first added time and removal time.

Revision ID: 0002_bot_versions
Revises: 0001_baseline
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_bot_versions"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.Column("manifest_path", sa.String(), nullable=True),
        sa.Column("address", sa.String(), nullable=True),
        sa.Column("files_sha256", sa.String(), nullable=False),
        sa.Column("files_dir", sa.String(), nullable=True),
        sa.Column("source_path", sa.String(), nullable=True),
        sa.Column("added_at", _TIME, nullable=False),
        sa.UniqueConstraint("bot_id", "number", name="uq_bot_versions_number"),
        sa.UniqueConstraint("bot_id", "id", name="uq_bot_versions_bot_id"),
        sa.CheckConstraint(
            "(manifest_path IS NULL) <> (address IS NULL)", name="ck_bot_versions_manifest_xor_address"
        ),
        sa.CheckConstraint("number >= 1", name="ck_bot_versions_number"),
    )
    op.execute(
        "INSERT INTO bot_versions (bot_id, number, version, author, language, manifest_path, address, "
        "files_sha256, files_dir, source_path, added_at) "
        "SELECT id, 1, version, author, language, manifest_path, address, files_sha256, NULL, manifest_path, "
        "added_at FROM bots ORDER BY id"
    )

    op.add_column("seats", sa.Column("bot_version_id", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE seats SET bot_version_id = "
        "(SELECT v.id FROM bot_versions v WHERE v.bot_id = seats.bot_id AND v.number = 1)"
    )
    with op.batch_alter_table("seats") as seats:
        seats.alter_column("bot_version_id", existing_type=sa.Integer(), nullable=False)
        seats.create_foreign_key(
            "fk_seats_bot_version", "bot_versions", ["bot_id", "bot_version_id"], ["bot_id", "id"]
        )
    op.create_index("ix_seats_bot_version_id", "seats", ["bot_version_id"])

    for table in ("rating_snapshots", "rating_history"):
        op.execute(
            f"UPDATE {table} SET participant = participant || '@1' "
            "WHERE participant IN (SELECT name FROM bots)"
        )

    with op.batch_alter_table("bots") as bots:
        bots.drop_constraint("ck_bots_manifest_xor_address", type_="check")
        for column in ("version", "author", "language", "manifest_path", "address", "files_sha256"):
            bots.drop_column(column)


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

"""Deals: an index on a match's deal (tournament, deck seed, round).

A tournament that publishes each deal once all its seat rotations are stored
(``publish_deals``) decides whether a match is public from the other matches of its
deal: with this index that is one probe per match shown, not a read of every match
of the tournament on every view.

Revision ID: 0006_deals
Revises: 0005_generic_results
"""

from __future__ import annotations

from alembic import op

revision = "0006_deals"
down_revision = "0005_generic_results"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_matches_deal", "matches", ["tournament_id", "seed", "round"])


def downgrade() -> None:
    raise NotImplementedError("Arena's schema is upgraded only: restore a backup to go back")

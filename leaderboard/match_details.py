"""Reads of one match, or of a few named by id: a match's row without its replay, the
seatings of the matches dealt from its deck, the stored replays of a few.

What a match's page and the publication rules (:mod:`leaderboard.web.publication`) need
beside the pages of matches (:mod:`leaderboard.match_lists`).  Each read is by primary
key or one probe of an index (``ix_matches_deal``): a few rows whatever the store's size.
A replay that does not read is not an error here: its match is shown without it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import and_
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased, defer
from sqlmodel import col, select

from leaderboard import replays
from leaderboard.errors import CorruptDataError, UnknownMatchError
from leaderboard.models import Match, Seat, Tournament
from leaderboard.paging import MAX_LIMIT
from leaderboard.rows import MatchRow
from leaderboard.store import Store
from leaderboard.store_core import NO_PARTICIPANTS, _load_json, _load_seats, _match_row


def match_without_replay(store: Store, match_id: str) -> MatchRow:
    """The match with its seats, its replay not read (for a match whose replay is corrupt)."""
    with store.read_session() as session:
        found = session.exec(
            select(Match, col(Tournament.game))
            .join(Tournament, col(Match.tournament_id) == col(Tournament.id))
            .options(defer(col(Match.replay_z)))
            .where(col(Match.id) == match_id)
        ).first()
        if found is None:
            raise UnknownMatchError(f"no match with id {match_id!r}")
        seats = _load_seats(session, [match_id])
    return _match_row(found[0], found[1], seats.get(match_id, NO_PARTICIPANTS), None)


def deal_seatings(store: Store, match_id: str) -> dict[str, tuple[int, ...]]:
    """The matches dealt from the deck seed of ``match_id`` in its tournament and round (itself
    included), each with its seating: its seats' bot version ids in seat order.  One probe of
    ``ix_matches_deal``: a tournament has a few matches per deal whatever its size."""
    asked = aliased(Match)
    with store.read_session() as session:
        rows = session.exec(
            select(col(Match.id), col(Seat.seat), col(Seat.bot_version_id))
            .select_from(asked)
            .join(Match, and_(col(Match.tournament_id) == asked.tournament_id, col(Match.seed) == asked.seed,
                              col(Match.round) == asked.round))
            .join(Seat, col(Seat.match_id) == col(Match.id))
            .where(asked.id == match_id)
            .order_by(col(Match.id), col(Seat.seat))
        ).all()
    seatings: dict[str, list[int]] = defaultdict(list)
    for found, _, version in rows:
        seatings[found].append(int(version))
    return {found: tuple(versions) for found, versions in seatings.items()}


def stored_replays(store: Store, match_ids: list[str]) -> dict[str, dict[str, Any] | None]:
    """The replays of a few matches (by id, in one query): each parsed, or None when it does not
    read (:meth:`Store.get_match` says why); ids that are not stored are left out."""
    found: dict[str, dict[str, Any] | None] = {}
    if not match_ids:
        return found
    with store.read_session() as session:
        rows = session.exec(  # type: ignore[call-overload]
            sa_select(col(Match.id), col(Match.replay_z)).where(col(Match.id).in_(match_ids[:MAX_LIMIT]))).all()
    for match_id, packed in rows:
        what = f"match {match_id!r}: the stored replay"
        try:
            found[match_id] = _load_json(replays.unpack(packed, what), what, dict)
        except CorruptDataError:
            found[match_id] = None
    return found

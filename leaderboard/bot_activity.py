"""What a bot (or one version) did, for its page: the games it played, and its newest
seats that faulted or forfeited.

Both read the bot's own seats by index, never a walk of the other bots' matches:
:func:`games_played` probes its seats once per stored game; :func:`incidents` reads its
faulted seats through a partial index of such seats (``ix_seats_incidents``), in SQL text
because each backend needs its plan spelled out (the comments in it say why: SQLite is
told the index, PostgreSQL is kept from walking every match when a version has fewer
than :data:`~leaderboard.match_lists.FEW_SEATS` such seats).  The bot's matches are
paged by :func:`leaderboard.match_lists.match_page` (``bot=``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import col, select

from arena.records import Fault
from leaderboard.errors import CorruptDataError
from leaderboard.match_lists import FEW_SEATS, _seats_of_participant
from leaderboard.models import SEAT_INCIDENT, Match, Seat, Tournament
from leaderboard.paging import DEFAULT_LIMIT, check_limit
from leaderboard.store import Store
from leaderboard.store_core import _find_version, _load_json


def games_played(store: Store, participant: str) -> list[str]:
    """The games a bot (any version) or one version (``NAME@NUMBER``) played, by name.

    From its seats (by index), one probe per stored game: a store of one game needs only
    to know whether it has a seat at all; with several, a game it played is found at its
    first seat of that game, one it did not play takes a walk of its own seats (never of
    the other bots' matches)."""
    with store.read_session() as session:
        mine = _seats_of_participant(session, participant)
        games = sorted(session.exec(select(col(Tournament.game)).distinct()).all())
        if len(games) <= 1:  # every match is of a tournament, so of that game
            seat = session.exec(select(col(Seat.match_id)).where(mine).limit(1)).first()
            return games if seat is not None else []
        found = []
        for game in games:
            seat = session.exec(
                select(col(Seat.match_id))
                .join(Match, col(Match.id) == col(Seat.match_id))
                .join(Tournament, col(Tournament.id) == col(Match.tournament_id))
                .where(mine, col(Tournament.game) == game).limit(1)
            ).first()
            if seat is not None:
                found.append(game)
        return found


@dataclass(frozen=True)
class Incident:
    """A seat of one bot version that faulted or forfeited (``id``: the match's)."""

    id: str
    tournament_id: int
    seat: int
    place: int
    forfeited: bool
    faults: tuple[Fault, ...]


def incidents(store: Store, participant: str, tournament_id: int | None,
              limit: int = DEFAULT_LIMIT) -> list[Incident]:
    """The bot version's (a plain name: its current one) seats that faulted or forfeited in
    its newest ``limit`` such matches, newest first (through a partial index of such seats;
    only those seats are read)."""
    check_limit(limit)
    with store.read_session() as session:
        _, version = _find_version(session, participant)
        # In SQL text for SQLite's sake: without statistics it would walk all the version's
        # seats by the other index on bot_version_id, so it is told which one to use.
        params: dict[str, Any] = {"version": version.id, "limit": limit}
        seats = "seats AS s"
        if session.get_bind().dialect.name == "sqlite":
            seats = "seats AS s INDEXED BY ix_seats_incidents"
        elif session.exec(text(  # type: ignore[call-overload]
                f"SELECT count(*) FROM (SELECT 1 FROM seats WHERE bot_version_id = :version AND ({SEAT_INCIDENT}) "
                f"LIMIT {FEW_SEATS}) AS few"), params=params).one()[0] < FEW_SEATS:
            # PostgreSQL would walk every match newest first, looking for the version's seats
            # among them (0.5-1 s at a million matches); with few such seats, read them first
            # ("OFFSET 0" keeps the subquery as it is written), then sort.  With many, the walk
            # finds the newest ones soon.
            seats = f"(SELECT * FROM seats WHERE bot_version_id = :version AND ({SEAT_INCIDENT}) OFFSET 0) AS s"
        scoped = "" if tournament_id is None else "AND m.tournament_id = :tournament"
        query = text(
            f"SELECT s.match_id, m.tournament_id, s.seat, s.place, s.forfeited, s.faults_json "
            f"FROM {seats} JOIN matches AS m ON s.match_id = m.id "
            f"WHERE s.bot_version_id = :version AND ({SEAT_INCIDENT}) {scoped} "
            f"ORDER BY m.started_at DESC, m.id LIMIT :limit"
        )
        if tournament_id is not None:
            params["tournament"] = tournament_id
        rows = session.exec(query, params=params).all()  # type: ignore[call-overload]
    found = []
    for match_id, tid, seat, place, forfeited, faults_json in rows:
        what = f"match {match_id!r} seat {seat}: the stored faults"
        try:
            faults = tuple(Fault.from_json(f) for f in _load_json(faults_json, what, list))
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptDataError(f"{what} cannot be read ({exc!r}); the row is kept unchanged") from exc
        found.append(Incident(match_id, int(tid), int(seat), int(place), bool(forfeited), faults))
    return found

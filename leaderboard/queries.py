"""Bounded reads for the web pages and the API: pages of matches, bots and tournaments,
counts, a bot version's newest faults, and the cheap key of the ratings' cache.

The write side and the whole-history reads the ratings need stay in
:mod:`leaderboard.store`; everything here reads a bounded number of rows through
an index, however many matches are stored:

- a page of matches is found by *keyset*: newest first by start time (then id), and
  the next page starts after the last row of this one (:func:`match_page`), so page
  1,000 costs what page 1 does;
- a tournament's or a bot's matches are filtered in SQL: a bot's that played many
  matches with ``EXISTS`` on its seats, walking the start-time index until the page
  is full; one with fewer than :data:`FEW_SEATS` from its seats (a new version's
  page does not walk a million matches to find its three);
- :func:`results_key` says whether a scope's results changed, from a few rows: the
  count of its matches (``match_counts``, kept by triggers as matches are stored)
  and the bot versions'.

Cursors are opaque text (URL-safe base64 of what the next page starts after); a
cursor that does not decode raises :class:`BadCursor` (a ``ValueError``).
"""

from __future__ import annotations

import base64
import binascii
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from sqlalchemy import and_, exists, func, or_, text, true
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased, defer
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from arena.records import Fault
from leaderboard import replays
from leaderboard.errors import CorruptDataError, UnknownMatchError
from leaderboard.models import SEAT_INCIDENT, Bot, BotVersion, ExcludedWorker, Match, MatchCount, Seat, Tournament
from leaderboard.rows import BotRow, MatchRow, TournamentRow
from leaderboard.store import Store
from leaderboard.store_core import (
    _find_tournament,
    _find_version,
    _load_json,
    NO_PARTICIPANTS,
    _load_seats,
    _match_row,
    _tournament_row,
)

#: Rows of a list when the request names no ``limit``, and the most it may ask for.
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
#: A bot (version) with fewer seats than this has its matches found from its seats (then
#: sorted); with more, by walking the matches newest first until the page is full.
FEW_SEATS = 2000
#: Within a tournament, a bot with many seats is looked for in at most this many of its newest
#: matches per row of the page before its matches are found from its seats instead.
WALK_PER_ROW = 40

T = TypeVar("T")


class BadCursor(ValueError):
    """A page cursor that this store did not hand out (or for another list)."""


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; ``next_cursor`` continues it (None on the last page)."""

    items: list[T]
    next_cursor: str | None


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}")
    return limit


# -- cursors ---------------------------------------------------------------------------


def _encode(kind: str, *parts: str) -> str:
    raw = "\n".join((kind, *parts)).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode(cursor: str, kind: str, count: int) -> list[str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
    except (binascii.Error, ValueError) as exc:
        raise BadCursor(f"cursor {cursor[:40]!r} is not one this server handed out") from exc
    parts = raw.split("\n")
    if len(parts) != count + 1 or parts[0] != kind:
        raise BadCursor(f"cursor {cursor[:40]!r} is not a cursor of this list")
    return parts[1:]


# -- matches ---------------------------------------------------------------------------


def _in_tournament(tournament_id: int) -> ColumnElement[bool]:
    """``tournament_id = T`` written as a range, with ``ORDER BY tournament_id DESC, started_at
    DESC`` after it: PostgreSQL then walks the (tournament, start) index.  Written as an equality
    it drops the tournament from the order and, assuming a tournament's matches are spread
    evenly in time, walks the start-time index of *every* match, skipping the other
    tournaments' newer ones (a finished tournament under a million matches: 60-200 ms)."""
    return and_(col(Match.tournament_id) >= tournament_id, col(Match.tournament_id) <= tournament_id)


def _seats_of_participant(session: Session, text_: str) -> ColumnElement[bool]:
    """The seats of the bot (any version) or of one version (``NAME@NUMBER``)."""
    bot = session.exec(select(Bot).where(col(Bot.name) == text_)).first()
    if bot is not None:
        return col(Seat.bot_id) == bot.id
    _, version = _find_version(session, text_)  # UnknownBotError if there is no such bot
    return col(Seat.bot_version_id) == version.id


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


def match_page(store: Store, *, tournament_id: int | None = None, bot: str | None = None,
               limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> Page[MatchRow]:
    """Matches newest first (start time, then id), with seats but without replays: at most
    ``limit`` of them after ``cursor``.  Filters as :meth:`Store.list_matches`; an unknown
    tournament or bot raises."""
    check_limit(limit)
    query = (
        select(Match, col(Tournament.game))
        .join(Tournament, col(Match.tournament_id) == col(Tournament.id))
        .options(defer(col(Match.replay_z)))
        .limit(limit + 1)
    )
    after: ColumnElement[bool] = true()
    if cursor:
        when, last = _decode(cursor, "match", 2)
        try:
            started = datetime.fromisoformat(when)
        except ValueError as exc:
            raise BadCursor(f"cursor {cursor[:40]!r} is not one this server handed out") from exc
        after = or_(col(Match.started_at) < started, and_(col(Match.started_at) == started, col(Match.id) > last))
    query = query.where(after)
    newest = (col(Match.started_at).desc(), col(Match.id))
    with store.read_session() as session:
        mine = None if bot is None else _seats_of_participant(session, bot)
        if tournament_id is not None:
            _find_tournament(session, tournament_id)
        if mine is not None:
            found = _bot_matches(session, query, after, mine, tournament_id, limit)
        elif tournament_id is not None:  # the (tournament, start) index, newest first
            found = list(session.exec(query.where(_in_tournament(tournament_id))
                                      .order_by(col(Match.tournament_id).desc(), *newest)))
        else:
            found = list(session.exec(query.order_by(*newest)))
        more = len(found) > limit
        found = found[:limit]
        seats = _load_seats(session, [m.id for m, _ in found])
    rows = [_match_row(m, game, seats.get(m.id, NO_PARTICIPANTS), None) for m, game in found]
    following = _encode("match", rows[-1].started_at.isoformat(), rows[-1].id) if more and rows else None
    return Page(rows, following)


def _bot_matches(session: Session, query: Any, after: ColumnElement[bool], mine: ColumnElement[bool],
                 tournament_id: int | None, limit: int) -> list[Any]:
    """The rows of ``query`` (a page of matches: the cursor's ``after`` and the limit applied)
    that seat ``mine``, newest first.

    A bot (version) with fewer than :data:`FEW_SEATS` seats is found from its seats, then
    sorted: a new version's page must not walk every match to find none.  One with more is
    in many matches: they are walked newest first until the page is full (within a
    tournament through the (tournament, start) index).  Within a tournament a bot with many
    seats may still have few there: the walk looks at the tournament's newest
    ``WALK_PER_ROW * (limit + 1)`` matches (after the cursor) at most; if the page is not full
    by then, its rows are found from its seats after all.  The answer is the same either way."""
    newest = (col(Match.started_at).desc(), col(Match.id))
    seated = sa_select(col(Seat.match_id)).where(mine)
    few = session.exec(  # type: ignore[call-overload]
        sa_select(func.count()).select_from(seated.limit(FEW_SEATS).subquery())).one()[0] < FEW_SEATS
    from_seats = query.where(col(Match.id).in_(seated)).order_by(*newest)
    if tournament_id is not None:
        # "+ 0" when the bot's seats lead: SQLite would otherwise walk the tournament's matches
        from_seats = from_seats.where(col(Match.tournament_id) + 0 == tournament_id)
    if few:
        return list(session.exec(from_seats))
    in_bot = exists().where(col(Seat.match_id) == col(Match.id), mine)
    if tournament_id is None:
        return list(session.exec(query.where(in_bot).order_by(*newest)))
    window = (sa_select(col(Match.id)).where(_in_tournament(tournament_id), after)
              .order_by(col(Match.tournament_id).desc(), *newest).limit(WALK_PER_ROW * (limit + 1)).subquery())
    walked = list(session.exec(query.where(col(Match.id).in_(sa_select(window.c.id)), in_bot).order_by(*newest)))
    return walked if len(walked) > limit else list(session.exec(from_seats))


def newest_ends(store: Store, tournament_id: int, limit: int) -> list[datetime]:
    """When the tournament's newest ``limit`` matches (by start) ended: their start and
    duration only, through the (tournament, start time) index."""
    with store.read_session() as session:
        rows = session.exec(  # type: ignore[call-overload]
            sa_select(col(Match.started_at), col(Match.duration_s))
            .where(_in_tournament(tournament_id))
            .order_by(col(Match.tournament_id).desc(), col(Match.started_at).desc()).limit(limit)).all()
    return [started + timedelta(seconds=duration) for started, duration in rows]


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


# -- counts and the ratings' cache key -------------------------------------------------------


def _counted(tournament_id: int | None, table_size: int | None, game: str | None = None) -> ColumnElement[bool]:
    where: ColumnElement[bool] = true()
    if tournament_id is not None:
        where = and_(where, col(MatchCount.tournament_id) == tournament_id)
    elif game is not None:
        where = and_(where, col(MatchCount.tournament_id).in_(
            sa_select(col(Tournament.id)).where(col(Tournament.game) == game)))
    if table_size is not None:
        where = and_(where, col(MatchCount.table_size) == table_size)
    return where


def results_key(store: Store, tournament_id: int | None = None, table_size: int | None = None,
                game: str | None = None, *, session: Session | None = None) -> tuple[Any, ...]:
    """What a fit of the scope's results depends on, in a few rows whatever the number of
    matches: the scope's matches counted (``match_counts``, which the database keeps as
    matches are stored) and the bot versions (a new version changes which row is a bot's
    current one), and the workers excluded from the scope (``tournament exclude-worker``
    takes their matches out of the fits; a few rows).  Stored matches are never changed: a
    new match, version or exclusion changes the key and nothing else does.  The overall scope
    of one ``game`` counts that game's matches only (ratings are per game: another game's
    match changes nothing in it).  ``session``: read in that session's transaction (the rating
    fit reads its key and its results in one snapshot)."""
    excluded = sa_select(col(ExcludedWorker.tournament_id), col(ExcludedWorker.worker),
                         col(ExcludedWorker.excluded_at)).order_by(col(ExcludedWorker.tournament_id),
                                                                   col(ExcludedWorker.worker))
    if tournament_id is not None:
        excluded = excluded.where(col(ExcludedWorker.tournament_id) == tournament_id)
    if session is None:
        with store.read_session() as own:
            return results_key(store, tournament_id, table_size, game, session=own)
    count = session.exec(  # type: ignore[call-overload]
        sa_select(func.coalesce(func.sum(col(MatchCount.matches)), 0)).where(
            _counted(tournament_id, table_size, game))
    ).one()[0]
    versions, top = session.exec(  # type: ignore[call-overload]
        sa_select(func.count(), func.max(col(BotVersion.id)))
    ).one()
    exclusions = tuple(tuple(row) for row in session.exec(excluded).all())  # type: ignore[call-overload]
    return (int(count), int(versions), top, exclusions)


def data_version(store: Store) -> tuple[Any, ...]:
    """What every page's content depends on, in one query over a few small rows (the web
    pages' answer cache is keyed by it, :mod:`leaderboard.web.cache`): the matches stored
    (``match_counts``), the bot versions (count, newest), the bots (count, removed), the
    tournaments (count, latest change: a status change stamps ``updated_at``) and the worker
    exclusions (count, latest).  Storing a match, adding or removing a bot or version,
    creating a tournament or changing its status, excluding or including a worker: each
    changes it."""
    def one(column: Any) -> Any:
        return sa_select(column).scalar_subquery()

    query = sa_select(
        one(func.coalesce(func.sum(col(MatchCount.matches)), 0)),
        one(func.count(col(BotVersion.id))), one(func.max(col(BotVersion.id))),
        one(func.count(col(Bot.id))), one(func.count(col(Bot.removed_at))),
        one(func.count(col(Tournament.id))), one(func.max(col(Tournament.updated_at))),
        one(func.count(col(ExcludedWorker.worker))), one(func.max(col(ExcludedWorker.excluded_at))),
    )
    with store.read_session() as session:
        return tuple(session.exec(query).one())  # type: ignore[call-overload]


def match_counts(store: Store) -> dict[int, int]:
    """Stored matches per tournament (from ``match_counts``: a few rows)."""
    with store.read_session() as session:
        rows = session.exec(  # type: ignore[call-overload]
            sa_select(col(MatchCount.tournament_id), func.sum(col(MatchCount.matches)))
            .group_by(col(MatchCount.tournament_id))
        ).all()
    return {int(t): int(n) for t, n in rows if n}


def match_count(store: Store, tournament_id: int) -> int:
    """Stored matches of one tournament."""
    with store.read_session() as session:
        return int(session.exec(  # type: ignore[call-overload]
            sa_select(func.coalesce(func.sum(col(MatchCount.matches)), 0))
            .where(col(MatchCount.tournament_id) == tournament_id)
        ).one()[0])


# -- tournaments and bots ---------------------------------------------------------------------


def tournament_page(store: Store, *, limit: int = DEFAULT_LIMIT, cursor: str | None = None,
                    newest_first: bool = False) -> Page[TournamentRow]:
    """Tournaments by id (oldest first, or newest first), at most ``limit`` after ``cursor``."""
    check_limit(limit)
    order = col(Tournament.id).desc() if newest_first else col(Tournament.id)
    query = select(Tournament).order_by(order).limit(limit + 1)
    if cursor:
        (after,) = _decode(cursor, "tournament", 1)
        if not after.isdigit():
            raise BadCursor(f"cursor {cursor[:40]!r} is not one this server handed out")
        query = query.where(col(Tournament.id) < int(after) if newest_first else col(Tournament.id) > int(after))
    with store.read_session() as session:
        found = list(session.exec(query))
    rows = [_tournament_row(t) for t in found[:limit]]
    following = _encode("tournament", str(rows[-1].id)) if len(found) > limit else None
    return Page(rows, following)


def slice_page(rows: list[T], kind: str, *, limit: int = DEFAULT_LIMIT, cursor: str | None = None,
               key: Callable[[T], str] = str) -> Page[T]:
    """A page of a short list already in memory (the bots), by position; the cursor names the
    last row's ``key`` too, so a list that changed under it is refused rather than skipped."""
    check_limit(limit)
    start = 0
    if cursor:
        position, last = _decode(cursor, kind, 2)
        if not position.isdigit() or not 0 < int(position) <= len(rows) or key(rows[int(position) - 1]) != last:
            raise BadCursor(f"cursor {cursor[:40]!r} is out of date: the list changed; start again")
        start = int(position)
    items = rows[start:start + limit]
    end = start + len(items)
    following = _encode(kind, str(end), key(items[-1])) if end < len(rows) and items else None
    return Page(items, following)


def bot_page(store: Store, *, all_versions: bool = False, limit: int = DEFAULT_LIMIT,
             cursor: str | None = None) -> Page[BotRow]:
    """Bots (removed ones too) by name, each bot's current version or every version."""
    rows = store.list_bots(include_removed=True, all_versions=all_versions)
    return slice_page(rows, "bot", limit=limit, cursor=cursor, key=lambda b: b.participant)


def storage_bytes(store: Store) -> int:
    """What the database takes: the SQLite file's pages (the write-ahead log checkpointed
    first), or PostgreSQL's ``pg_database_size``."""
    with store.read_session() as session:
        if session.get_bind().dialect.name == "sqlite":
            session.exec(text("PRAGMA wal_checkpoint(TRUNCATE)"))  # type: ignore[call-overload]
            pages = session.exec(text("PRAGMA page_count")).one()[0]  # type: ignore[call-overload]
            size = session.exec(text("PRAGMA page_size")).one()[0]  # type: ignore[call-overload]
            free = session.exec(text("PRAGMA freelist_count")).one()[0]  # type: ignore[call-overload]
            return int((pages - free) * size)
        return int(session.exec(text("SELECT pg_database_size(current_database())")).one()[0])  # type: ignore[call-overload]

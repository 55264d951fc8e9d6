"""Pages of matches: all of them, a tournament's, a bot's (or one version's); and when a
tournament's newest matches ended.

Bounded reads, however many matches are stored (the write side and the whole-history
reads the ratings need stay in :mod:`leaderboard.store`), each through an index:

- a page of matches is found by *keyset*: newest first by start time (then id), and the
  next page starts after the last row of this one (:func:`match_page`; the cursors are
  :mod:`leaderboard.paging`'s), so page 1,000 costs what page 1 does;
- a tournament's matches are read through the (tournament, start) index, the tournament
  written as a range so that PostgreSQL keeps it in the order (:func:`_in_tournament`);
- a bot's are filtered in SQL: a bot that played many matches with ``EXISTS`` on its
  seats, walking the start-time index until the page is full; one with fewer than
  :data:`FEW_SEATS` from its seats (a new version's page does not walk a million matches
  to find its three).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, exists, func, or_, true
from sqlalchemy import select as sa_select
from sqlalchemy.orm import defer
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from leaderboard.models import Bot, Match, Seat, Tournament
from leaderboard.paging import DEFAULT_LIMIT, BadCursor, Page, _decode, _encode, check_limit
from leaderboard.rows import MatchRow
from leaderboard.store import Store
from leaderboard.store_core import NO_PARTICIPANTS, _find_tournament, _find_version, _load_seats, _match_row


#: A bot (version) with fewer seats than this has its matches found from its seats (then
#: sorted); with more, by walking the matches newest first until the page is full.
FEW_SEATS = 2000
#: Within a tournament, a bot with many seats is looked for in at most this many of its newest
#: matches per row of the page before its matches are found from its seats instead.
WALK_PER_ROW = 40


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

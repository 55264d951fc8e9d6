"""What the store holds, counted in a few rows: matches per tournament, the keys that say
whether the caches' answers changed, and the database's size.

The matches are counted from ``match_counts``, a table the database's triggers keep as
matches are stored, never by counting the matches: a tournament's progress, a list's
match counts and the caches' keys cost the same at a million matches as at ten.

- :func:`results_key` says whether a scope's results changed (the rating fits,
  :mod:`leaderboard.web.fits`): its matches counted, the bot versions', the workers
  excluded;
- :func:`data_version` says whether anything a page shows changed (the answer cache,
  :mod:`leaderboard.web.cache`);
- :func:`storage_bytes` is what the database takes (``arena bench store``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, text, true
from sqlalchemy import select as sa_select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col

from leaderboard.models import Bot, BotVersion, ExcludedWorker, MatchCount, Tournament
from leaderboard.store import Store


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

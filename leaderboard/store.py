"""The store: every read and write of bots, tournaments, results and ratings.

``Store.open(url)`` takes an explicit URL (``--db``), else the ``ARENA_DB``
environment variable, else the SQLite file :data:`DEFAULT_DB_PATH`
(``arena-data/arena.sqlite``, relative to the working directory); see
:func:`resolve_db_url`.  SQLite and PostgreSQL (psycopg 3) are supported.
On open, the schema is created or upgraded by the Alembic revisions of
:mod:`leaderboard.migrate`.

Every method is plain and synchronous and runs in its own transaction, so the
store may be shared by threads (the trio executor calls it through
``trio.to_thread``).  Results come back as the frozen objects of
:mod:`leaderboard.rows`; failures as the errors of :mod:`leaderboard.errors`.

:class:`Store` is made of parts by what they do: the bots and their versions
(:mod:`leaderboard.bot_registry`), the saved ratings (:mod:`leaderboard.saved_ratings`),
and here the tournaments, the matches and what the ratings read; the sessions and the
helpers they share are in :mod:`leaderboard.store_core`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from sqlalchemy import Engine, and_, case, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import DatabaseError, IntegrityError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from arena.records import MatchRecord
from leaderboard import replays
from leaderboard.database import DEFAULT_DB_PATH, create_db_engine, resolve_db_url
from leaderboard.errors import StoreError, UnknownMatchError
from leaderboard.migrate import upgrade
from arena.records import reference_participant
from arena.sinks import DEFAULT_LEASE_S, WorkerId
from leaderboard.models import Bot, BotVersion, Match, MatchReference, Seat, Tournament
from leaderboard.rows import (
    BotStats,
    MatchRow,
    TournamentRow,
    TournamentStatus,
    participant_name,
)
from leaderboard.bot_registry import BotRegistry
from leaderboard.match_rows import check_slot, match_values, played_versions, reference_values, seat_values
from leaderboard.saved_ratings import RatingStore
from leaderboard.store_core import (
    _check_int64,
    _check_record,
    _dump_json,
    _find_tournament,
    _load_json,
    NO_PARTICIPANTS,
    _load_seats,
    _match_row,
    _match_scope,
    _now,
    _refuse_recorded,
    _seats_of,
    _tournament_row,
)

if TYPE_CHECKING:
    from leaderboard.finishing_orders import RatedMatch
    from leaderboard.queue import MatchQueue


__all__ = ["DEFAULT_DB_PATH", "Store", "resolve_db_url"]


class Store(BotRegistry, RatingStore):
    """Open with :meth:`open`; close with :meth:`close` or use as a context manager."""

    @classmethod
    def open(cls, url: str | None = None) -> Self:
        """Connect to ``resolve_db_url(url)`` and bring its schema to the newest revision
        (a new database gets every table; see :mod:`leaderboard.migrate`)."""
        engine = create_db_engine(resolve_db_url(url))
        try:
            upgrade(engine)
        except DatabaseError as exc:  # OperationalError included: unreachable, or not a database
            engine.dispose()
            raise StoreError(
                f"cannot open the database {engine.url.render_as_string(hide_password=True)}: "
                f"{exc.orig}"
            ) from exc
        except BaseException:
            engine.dispose()
            raise
        return cls(engine)

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self._engine.url.render_as_string(hide_password=True)

    @property
    def engine(self) -> Engine:
        """The engine, for the leaderboard modules that keep tables of their own
        (:mod:`leaderboard.queue`); everyone else calls the store's methods."""
        return self._engine

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite database file; None for PostgreSQL or an in-memory database."""
        url = self._engine.url
        if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
            return None
        return None if url.query.get("mode") == "memory" else Path(url.database)

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


    def queue(self, worker: WorkerId | None = None, *, lease_s: float = DEFAULT_LEASE_S) -> MatchQueue:
        """The match queue of this store (:class:`leaderboard.queue.MatchQueue`), as ``worker``."""
        from leaderboard.queue import MatchQueue

        return MatchQueue(self, worker, lease_s=lease_s)

    # -- tournaments ------------------------------------------------------------

    def create_tournament(self, game: str, config: Mapping[str, Any], seed: int) -> int:
        """Store a new tournament (status ``created``); returns its id."""
        if not isinstance(game, str) or not game:
            raise ValueError("a tournament needs a game name")
        config_json = _dump_json(dict(config), "the tournament config")
        _check_int64(seed, "tournament seed")
        now = _now()
        with self._write() as session:
            tournament = Tournament(
                game=game,
                config_json=config_json,
                seed=seed,
                status=TournamentStatus.CREATED.value,
                created_at=now,
                updated_at=now,
            )
            session.add(tournament)
            session.flush()
            assert tournament.id is not None
            return tournament.id

    def set_tournament_status(self, tournament_id: int, status: TournamentStatus | str) -> None:
        try:
            new = TournamentStatus(status)
        except ValueError:
            valid = ", ".join(s.value for s in TournamentStatus)
            raise ValueError(f"unknown tournament status {status!r} (valid: {valid})") from None
        with self._write() as session:
            tournament = _find_tournament(session, tournament_id)
            tournament.status = new.value
            tournament.updated_at = _now()
            session.add(tournament)

    def get_tournament(self, tournament_id: int) -> TournamentRow:
        with self._read() as session:
            return _tournament_row(_find_tournament(session, tournament_id))

    def list_tournaments(self) -> list[TournamentRow]:
        """All tournaments, oldest first."""
        with self._read() as session:
            return [
                _tournament_row(t)
                for t in session.exec(select(Tournament).order_by(col(Tournament.id)))
            ]

    # -- matches ----------------------------------------------------------------

    def stored_schedule_indexes(self, tournament_id: int) -> set[int]:
        """The schedule indexes of the tournament's stored matches (to resume it)."""
        with self._read() as session:
            _find_tournament(session, tournament_id)
            query = select(col(Match.schedule_index)).where(
                col(Match.tournament_id) == tournament_id
            )
            return set(session.exec(query))

    def record_match(
        self, tournament_id: int, schedule_index: int, round: int, record: MatchRecord
    ) -> None:
        """Store one finished match (match row, seats, replay) in one transaction.

        All or nothing: on any error nothing of the match is left behind.
        Storing a second result for the same (tournament, schedule index), or a
        match id already stored, raises :class:`AlreadyRecorded` and leaves the
        stored match as it was.  Raises :class:`UnknownTournamentError`,
        :class:`UnknownBotError` (a seat's bot is not registered; removed bots
        are accepted), or ``ValueError`` for a record that cannot be a result
        (an ERROR termination, seats that do not match ``players``, ...).
        """
        try:
            with self._write() as session:
                insert_match(session, tournament_id, schedule_index, round, record)
        except IntegrityError:
            with self._read() as session:  # a concurrent writer stored it first
                _refuse_recorded(session, tournament_id, schedule_index, record.match_id)
            raise

    def record_matches(self, items: Iterable[tuple[int, int, int, MatchRecord]]) -> int:
        """Store many finished matches, each ``(tournament_id, schedule_index, round, record)`` as
        :meth:`record_match` takes them, in one transaction; returns how many.

        The same checks and errors as :meth:`record_match` (see :mod:`leaderboard.bulk`), all or
        nothing for the whole batch; an item repeating another's match id or schedule slot raises
        :class:`AlreadyRecorded`.  For loading many results (``arena bench store``): a few
        hundred to a few thousand per call.
        """
        from leaderboard.bulk import insert_matches

        batch = list(items)
        try:
            with self._write() as session:
                insert_matches(session, batch)
        except IntegrityError:
            with self._read() as session:  # a concurrent writer stored one first
                for tournament_id, schedule_index, _, record in batch:
                    _refuse_recorded(session, tournament_id, schedule_index, record.match_id)
            raise
        return len(batch)

    def get_match(self, match_id: str) -> MatchRow:
        """The match with its seats and parsed replay.

        :class:`UnknownMatchError` if there is none; :class:`CorruptDataError`
        (naming the match) if its stored replay no longer parses.
        """
        with self._read() as session:
            found = session.exec(
                select(Match, col(Tournament.game))
                .join(Tournament, col(Match.tournament_id) == col(Tournament.id))
                .where(col(Match.id) == match_id)
            ).first()
            if found is None:
                raise UnknownMatchError(f"no match with id {match_id!r}")
            match, game = found
            seats = _load_seats(session, [match_id])
        what = f"match {match_id!r}: the stored replay"
        replay = _load_json(replays.unpack(match.replay_z, what), what, dict)
        return _match_row(match, game, seats.get(match_id, NO_PARTICIPANTS), replay)

    def list_matches(
        self,
        tournament_id: int | None = None,
        bot: str | None = None,
        limit: int | None = None,
    ) -> list[MatchRow]:
        """Matches newest first (by start time), with seats but without replays.

        Filters: one tournament, matches where the named bot (any version; or one
        version, ``NAME@NUMBER``) held a seat, and at most ``limit`` rows.  An unknown tournament or bot raises.
        """
        query = (
            select(Match, col(Tournament.game))
            .join(Tournament, col(Match.tournament_id) == col(Tournament.id))
            .options(defer(col(Match.replay_z)))  # listings never read replays
            .order_by(col(Match.started_at).desc(), col(Match.id))
        )
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
                query = query.where(col(Match.tournament_id) == tournament_id)
            if bot is not None:
                query = query.where(col(Match.id).in_(_seats_of(session, bot)))
            if limit is not None:
                query = query.limit(limit)
            found = list(session.exec(query))
            seats = _load_seats(session, [m.id for m, _ in found])
        return [_match_row(m, game, seats.get(m.id, NO_PARTICIPANTS), None) for m, game in found]

    # -- what the ratings and the leaderboard read ------------------------------

    def rated_matches(self, tournament_id: int | None = None, *, table_size: int | None = None,
                      game: str | None = None) -> list[RatedMatch]:
        """Every stored result (of one tournament, or all; of one table size, or all; of one
        game, or all) in (tournament, schedule index) order.  Ratings are per game: a caller
        that rates over several tournaments passes ``game``.

        ``places`` maps bot versions (``NAME@NUMBER``) to places, plus the game's reference
        participants at that table (``(NAME)``, e.g. Union Pacific's ``(imaginary)`` at a
        table of two).  ``deal`` names the deal:
        matches dealt from the same deck seed (at the same table size and variant) are
        one deal, which the ratings' bootstrap resamples as a whole (the seed itself
        stays inside: it is a secret until the tournament is finished).  The objects
        are :class:`leaderboard.finishing_orders.RatedMatch`, ready for ``fit_ratings``
        and ``live_elo_history``.
        """
        from leaderboard.finishing_orders import RatedMatch  # here: numpy loads only when needed

        scope = _results_scope(tournament_id, table_size, game)
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            matches = session.exec(  # type: ignore[call-overload]
                sa_select(  # six columns: more than sqlmodel.select types
                    col(Match.id),
                    col(Match.tournament_id),
                    col(Match.schedule_index),
                    col(Match.variant),
                    col(Match.table_size),
                    col(Match.seed),
                )
                .where(scope)
                .order_by(col(Match.tournament_id), col(Match.schedule_index))
            ).all()
            seat_rows = session.exec(
                select(col(Seat.match_id), col(Bot.name), col(BotVersion.number), col(Seat.place))
                .select_from(Seat)
                .join(Bot, col(Seat.bot_id) == col(Bot.id))
                .join(BotVersion, col(Seat.bot_version_id) == col(BotVersion.id))
                .join(Match, col(Seat.match_id) == col(Match.id))
                .where(scope)
            ).all()
            reference_rows = session.exec(
                select(col(MatchReference.match_id), col(MatchReference.name), col(MatchReference.place))
                .join(Match, col(MatchReference.match_id) == col(Match.id))
                .where(scope)
            ).all()
        places: dict[str, dict[str, int]] = defaultdict(dict)
        for match_id, name, number, place in seat_rows:
            places[match_id][participant_name(name, number)] = place
        references: dict[str, dict[str, int]] = defaultdict(dict)
        for match_id, name, place in reference_rows:
            references[match_id][reference_participant(name)] = place
        result = []
        for match_id, t_id, index, variant, size, seed in matches:
            match_places = dict(sorted(places[match_id].items()))
            match_places.update(sorted(references[match_id].items()))
            result.append(RatedMatch(key=match_id, order=(t_id, index), places=match_places,
                                     deal=f"{variant}/{size}/{seed}"))
        return result

    def table_sizes(self, tournament_id: int | None = None, *, game: str | None = None) -> list[int]:
        """The table sizes of the stored matches (of one tournament, or all; of one game, or all), ascending."""
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            sizes = session.exec(
                select(col(Match.table_size)).where(_results_scope(tournament_id, None, game)).distinct()
            ).all()
        return sorted(int(s) for s in sizes)

    def games(self) -> list[str]:
        """The games of the stored tournaments, by name (the leaderboard shows one at a time)."""
        with self._read() as session:
            return sorted(session.exec(select(col(Tournament.game)).distinct()).all())

    def bot_stats(self, tournament_id: int | None = None, *, table_size: int | None = None,
                  game: str | None = None) -> list[BotStats]:
        """Per bot version that played (in one tournament, or anywhere; at one table size, or any;
        in one game, or any), by name and number.  ``mean_score`` is in the game's score unit."""
        scope = _results_scope(tournament_id, table_size, game)
        query = (
            sa_select(  # eight columns: more than sqlmodel.select types
                col(Bot.name),
                col(BotVersion.number),
                func.count(),
                func.sum(case((col(Seat.place) == 1, 1), else_=0)),
                func.avg(col(Seat.place)),
                func.avg(col(Seat.score)),
                func.sum(case((col(Seat.forfeited), 1), else_=0)),
                func.sum(col(Seat.fault_count)),
            )
            .select_from(Seat)
            .join(Bot, col(Seat.bot_id) == col(Bot.id))
            .join(BotVersion, col(Seat.bot_version_id) == col(BotVersion.id))
            .join(Match, col(Seat.match_id) == col(Match.id))
            .where(scope)
            .group_by(col(BotVersion.id), col(Bot.name), col(BotVersion.number))
            .order_by(col(Bot.name), col(BotVersion.number))
        )
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            rows = session.exec(query).all()  # type: ignore[call-overload]
        return [
            BotStats(
                bot=participant_name(name, number),
                matches=int(matches),
                wins=int(wins),
                mean_place=float(mean_place),
                mean_score=float(mean_score),
                forfeits=int(forfeits),
                faults=int(faults),
                name=name,
                version=int(number),
            )
            for name, number, matches, wins, mean_place, mean_score, forfeits, faults in rows
        ]


def insert_match(
    session: Session, tournament_id: int, schedule_index: int, round: int, record: MatchRecord
) -> None:
    """Add one finished match (match row, seats, replay) to ``session``'s transaction:
    what :meth:`Store.record_match` does, for a caller that checks more in the same
    transaction (:mod:`leaderboard.queue` checks the worker's lease).  Raises as
    ``record_match`` does; a duplicate written concurrently fails at the commit
    (``IntegrityError``).
    """
    _check_record(record)
    check_slot(record, schedule_index, round)
    values = match_values(tournament_id, schedule_index, round, record)  # bad JSON: before any lookup
    tournament = _find_tournament(session, tournament_id)
    if tournament.game != record.game:
        raise ValueError(
            f"match {record.match_id!r} is a {record.game!r} match, "
            f"but tournament {tournament_id} plays {tournament.game!r}"
        )
    _refuse_recorded(session, tournament_id, schedule_index, record.match_id)
    session.add(Match(**values))
    session.flush()  # a duplicate that slipped past the check fails here
    played = played_versions(session, record, {})
    for seat, version in zip(record.seats, played):
        session.add(Seat(**seat_values(record, seat, version)))
    for reference in record.references:
        session.add(MatchReference(**reference_values(record, reference)))


def _results_scope(tournament_id: int | None, table_size: int | None, game: str | None) -> Any:
    """The stored matches of one tournament (or all), one table size (or all), one game (or all)."""
    scope = _match_scope(tournament_id)
    if table_size is not None:
        scope = and_(scope, col(Match.table_size) == table_size)
    if game is not None:
        scope = and_(scope, col(Match.tournament_id).in_(select(col(Tournament.id)).where(col(Tournament.game) == game)))
    return scope


# -- checks ---------------------------------------------------------------------

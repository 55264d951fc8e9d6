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
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from sqlalchemy import Engine, and_, case, delete, exists, func, insert, or_
from sqlalchemy import select as sa_select
from sqlalchemy.exc import DatabaseError, IntegrityError
from sqlalchemy.orm import defer
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from arena.names import name_problem
from arena.records import Fault, MatchRecord, MatchTermination
from leaderboard import replays
from leaderboard.database import (
    DEFAULT_DB_PATH,
    create_db_engine,
    resolve_db_url,
    writer,
)
from leaderboard.errors import (
    AlreadyRecorded,
    BotNameError,
    CorruptDataError,
    StoreError,
    UnknownBotError,
    UnknownMatchError,
    UnknownTournamentError,
    VersionExists,
)
from leaderboard.migrate import upgrade
from leaderboard.models import (
    Bot,
    BotVersion,
    ExcludedWorker,
    Match,
    QueuedMatch,
    RatingHistory,
    RatingSnapshot,
    Seat,
    Tournament,
)
from leaderboard.rows import (
    IMAGINARY_PARTICIPANT,
    BotRow,
    BotStats,
    MatchRow,
    MatchStatus,
    RatingEntry,
    RatingPoint,
    SavedRatings,
    SeatRow,
    TournamentRow,
    TournamentStatus,
    participant_name,
    split_participant,
)

if TYPE_CHECKING:
    from leaderboard.finishing_orders import RatedMatch

__all__ = ["DEFAULT_DB_PATH", "Store", "resolve_db_url"]

_SHA256 = re.compile(r"[0-9a-f]{64}")
_INT64 = range(-(2**63), 2**63)
_CHUNK = 500  # ids per IN (...) list, well under both backends' parameter limits


class Store:
    """Open with :meth:`open`; close with :meth:`close` or use as a context manager."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = writer(engine)

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

    # -- sessions ---------------------------------------------------------------

    def _read(self) -> Session:
        return Session(self._engine, expire_on_commit=False)

    def read_session(self) -> Session:
        """A session for reads only (:mod:`leaderboard.queries` runs its queries in one)."""
        return self._read()

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """One write transaction: committed at the end, rolled back on any error."""
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session

    # -- bots -------------------------------------------------------------------

    def add_bot(
        self,
        name: str,
        version: str,
        author: str,
        language: str,
        *,
        manifest_path: str | Path | None = None,
        address: str | None = None,
        files_sha256: str,
        files_dir: str | Path | None = None,
        source_path: str | Path | None = None,
    ) -> BotRow:
        """Register a new version of the bot ``name`` (its first one when the name is new).

        The bot is reached through a manifest file or at an address (exactly one);
        ``files_dir`` is the host's frozen copy of the checked files, if it keeps one.
        A removed bot becomes active again with the new version.  Raises
        :class:`VersionExists` when the bot is active and its current version has
        these very files (``files_sha256``), and :class:`BotNameError` for a name
        that cannot be registered.
        """
        _check_bot_name(name)
        for field, value in (("version", version), ("language", language)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"bot {name!r}: {field} must be a non-empty string")
        if not isinstance(author, str):
            raise ValueError(f"bot {name!r}: author must be a string")
        if (manifest_path is None) == (address is None):
            raise ValueError(f"bot {name!r}: give exactly one of manifest_path and address")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(f"bot {name!r}: address must be a non-empty string")
        if files_dir is not None and manifest_path is None:
            raise ValueError(f"bot {name!r}: only a manifest bot has files to keep")
        sha = files_sha256.lower() if isinstance(files_sha256, str) else ""
        if not _SHA256.fullmatch(sha):
            raise ValueError(
                f"bot {name!r}: files_sha256 must be 64 hex digits, got {files_sha256!r}"
            )
        try:
            with self._write() as session:
                now = _now()
                bot = session.exec(select(Bot).where(col(Bot.name) == name)).first()
                if bot is None:
                    bot = Bot(name=name, added_at=now)
                    session.add(bot)
                    session.flush()
                    number = 1
                else:
                    newest = _newest_version(session, bot)
                    if newest is not None and bot.removed_at is None and newest.files_sha256 == sha:
                        raise VersionExists(
                            f"bot {name!r} is already registered with these files as version "
                            f"{newest.number} ({participant_name(name, newest.number)})",
                            _bot_row(bot, newest, current=True),
                        )
                    number = 1 if newest is None else newest.number + 1
                    bot.removed_at = None
                    session.add(bot)
                assert bot.id is not None
                row = BotVersion(
                    bot_id=bot.id,
                    number=number,
                    version=version,
                    author=author,
                    language=language,
                    manifest_path=None if manifest_path is None else str(manifest_path),
                    address=address,
                    files_sha256=sha,
                    files_dir=None if files_dir is None else str(files_dir),
                    source_path=None if source_path is None else str(source_path),
                    added_at=now,
                )
                session.add(row)
                session.flush()
                return _bot_row(bot, row, current=True)
        except IntegrityError:
            # Lost a race with another process adding a version of the same bot: say so plainly.
            raise StoreError(
                f"another process registered a version of bot {name!r} at the same time; "
                "see 'arena bot list' and try again"
            ) from None

    def get_bot(self, name: str) -> BotRow:
        """The bot's current version, removed or not; ``NAME@NUMBER`` names one version.

        A bot literally named ``NAME@NUMBER`` (made before versions) is found first.
        :class:`UnknownBotError` if there is none.
        """
        with self._read() as session:
            bot, version = _find_version(session, name)
            return _bot_row(bot, version, current=version.id == _newest_version(session, bot).id)

    def bot_versions(self, name: str) -> list[BotRow]:
        """Every version of the bot ``name`` (a plain name), oldest first."""
        with self._read() as session:
            bot = _find_bot(session, name)
            versions = session.exec(
                select(BotVersion)
                .where(col(BotVersion.bot_id) == bot.id)
                .order_by(col(BotVersion.number))
            ).all()
            return [_bot_row(bot, v, current=i == len(versions) - 1) for i, v in enumerate(versions)]

    def list_bots(self, include_removed: bool = False, *, all_versions: bool = False) -> list[BotRow]:
        """Each bot's current version, by name (every version with ``all_versions``);
        removed bots only with ``include_removed``."""
        newest = (
            sa_select(col(BotVersion.bot_id), func.max(col(BotVersion.number)).label("number"))
            .group_by(col(BotVersion.bot_id))
            .subquery()
        )
        query = (
            select(Bot, BotVersion, newest.c.number)
            .join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
            .join(newest, newest.c.bot_id == col(Bot.id))
            .order_by(col(Bot.name), col(BotVersion.number))
        )
        if not all_versions:
            query = query.where(col(BotVersion.number) == newest.c.number)
        if not include_removed:
            query = query.where(col(Bot.removed_at).is_(None))
        with self._read() as session:
            return [_bot_row(bot, v, current=v.number == top) for bot, v, top in session.exec(query)]

    def remove_bot(self, name: str) -> BotRow:
        """Mark an active bot removed (its versions, matches and ratings stay); returns its
        current version.  Adding it again makes it active with a new version."""
        with self._write() as session:
            bot = _find_bot(session, name)
            if bot.removed_at is not None:
                raise UnknownBotError(
                    f"bot {name!r} is already removed (at {bot.removed_at.isoformat()})"
                )
            bot.removed_at = _now()
            session.add(bot)
            session.flush()
            return _bot_row(bot, _newest_version(session, bot), current=True)

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
        return _match_row(match, game, seats.get(match_id, ()), replay)

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
        return [_match_row(m, game, seats.get(m.id, ()), None) for m, game in found]

    # -- what the ratings and the leaderboard read ------------------------------

    def rated_matches(self, tournament_id: int | None = None, *, table_size: int | None = None) -> list[RatedMatch]:
        """Every stored result (of one tournament, or all; of one table size, or all) in
        (tournament, schedule index) order.

        ``places`` maps bot versions (``NAME@NUMBER``) to places, plus ``IMAGINARY_PARTICIPANT`` to the
        imaginary shareholder's place in the two-player game.  ``deal`` names the deal:
        matches dealt from the same deck seed (at the same table size and variant) are
        one deal, which the ratings' bootstrap resamples as a whole (the seed itself
        stays inside: it is a secret until the tournament is finished).  The objects
        are :class:`leaderboard.finishing_orders.RatedMatch`, ready for ``fit_ratings``
        and ``live_elo_history``.
        """
        from leaderboard.finishing_orders import RatedMatch  # here: numpy loads only when needed

        scope = _match_scope(tournament_id)
        if table_size is not None:
            scope = and_(scope, col(Match.table_size) == table_size)
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            matches = session.exec(  # type: ignore[call-overload]
                sa_select(  # seven columns: more than sqlmodel.select types
                    col(Match.id),
                    col(Match.tournament_id),
                    col(Match.schedule_index),
                    col(Match.imaginary_place),
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
        places: dict[str, dict[str, int]] = defaultdict(dict)
        for match_id, name, number, place in seat_rows:
            places[match_id][participant_name(name, number)] = place
        result = []
        for match_id, t_id, index, imaginary_place, variant, size, seed in matches:
            match_places = dict(sorted(places[match_id].items()))
            if imaginary_place is not None:
                match_places[IMAGINARY_PARTICIPANT] = imaginary_place
            result.append(RatedMatch(key=match_id, order=(t_id, index), places=match_places,
                                     deal=f"{variant}/{size}/{seed}"))
        return result

    def table_sizes(self, tournament_id: int | None = None) -> list[int]:
        """The table sizes of the stored matches (of one tournament, or all), ascending."""
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            sizes = session.exec(
                select(col(Match.table_size)).where(_match_scope(tournament_id)).distinct()
            ).all()
        return sorted(int(s) for s in sizes)

    def bot_stats(self, tournament_id: int | None = None, *, table_size: int | None = None) -> list[BotStats]:
        """Per bot version that played (in one tournament, or anywhere; at one table size, or any),
        by name and number."""
        scope = _match_scope(tournament_id)
        if table_size is not None:
            scope = and_(scope, col(Match.table_size) == table_size)
        query = (
            sa_select(  # eight columns: more than sqlmodel.select types
                col(Bot.name),
                col(BotVersion.number),
                func.count(),
                func.sum(case((col(Seat.place) == 1, 1), else_=0)),
                func.avg(col(Seat.place)),
                func.avg(col(Seat.cash)),
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
                mean_cash=float(mean_cash),
                forfeits=int(forfeits),
                faults=int(faults),
                name=name,
                version=int(number),
            )
            for name, number, matches, wins, mean_place, mean_cash, forfeits, faults in rows
        ]

    # -- ratings ----------------------------------------------------------------

    def save_ratings(
        self,
        tournament_id: int | None,
        entries: Iterable[RatingEntry],
        history: Iterable[RatingPoint],
        *,
        computed_at: datetime | None = None,
    ) -> None:
        """Replace the ratings of one scope (a tournament, or overall for None), in one transaction.

        History points must refer to stored matches of that scope.
        """
        entries = list(entries)
        history = list(history)
        _check_ratings(entries, history)
        computed_at = computed_at or _now()
        with self._write() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            in_scope = set(session.exec(select(col(Match.id)).where(_match_scope(tournament_id))))
            unknown = sorted({p.match_id for p in history} - in_scope)
            if unknown:
                where = "overall" if tournament_id is None else f"in tournament {tournament_id}"
                raise UnknownMatchError(
                    f"rating history refers to matches not stored {where}: {', '.join(unknown[:5])}"
                    + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                )
            session.exec(delete(RatingHistory).where(_rating_scope(RatingHistory, tournament_id)))
            session.exec(delete(RatingSnapshot).where(_rating_scope(RatingSnapshot, tournament_id)))
            if entries:
                session.exec(
                    insert(RatingSnapshot),
                    params=[
                        {
                            "tournament_id": tournament_id,
                            "participant": e.participant,
                            "elo": e.elo,
                            "ci_low": e.ci_low,
                            "ci_high": e.ci_high,
                            "live_elo": e.live_elo,
                            "computed_at": computed_at,
                        }
                        for e in entries
                    ],
                )
            if history:
                session.exec(
                    insert(RatingHistory),
                    params=[
                        {
                            "tournament_id": tournament_id,
                            "match_id": p.match_id,
                            "participant": p.participant,
                            "elo": p.elo,
                        }
                        for p in history
                    ],
                )

    def load_ratings(self, tournament_id: int | None = None) -> SavedRatings | None:
        """The ratings last saved for the scope, or None if none were."""
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            snapshots = session.exec(
                select(RatingSnapshot)
                .where(_rating_scope(RatingSnapshot, tournament_id))
                .order_by(col(RatingSnapshot.elo).desc(), col(RatingSnapshot.participant))
            ).all()
            points = session.exec(
                select(
                    col(RatingHistory.match_id),
                    col(RatingHistory.participant),
                    col(RatingHistory.elo),
                )
                .join(Match, col(RatingHistory.match_id) == col(Match.id))
                .where(_rating_scope(RatingHistory, tournament_id))
                .order_by(
                    col(Match.tournament_id),
                    col(Match.schedule_index),
                    col(RatingHistory.participant),
                )
            ).all()
        if not snapshots and not points:
            return None
        return SavedRatings(
            computed_at=max((s.computed_at for s in snapshots), default=None),
            entries=tuple(
                RatingEntry(
                    participant=s.participant,
                    elo=s.elo,
                    ci_low=s.ci_low,
                    ci_high=s.ci_high,
                    live_elo=s.live_elo,
                )
                for s in snapshots
            ),
            history=tuple(RatingPoint(match_id=m, participant=p, elo=elo) for m, p, elo in points),
        )


# -- writing a match ------------------------------------------------------------


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
    for value, what in ((schedule_index, "schedule index"), (round, "round")):
        if not isinstance(value, int) or value < 0:
            raise ValueError(
                f"match {record.match_id!r}: {what} must be an int >= 0, got {value!r}"
            )
    replay_json = _dump_json(record.replay, f"match {record.match_id!r}: the replay")
    extra_json = _dump_json(record.extra, f"match {record.match_id!r}: extra")
    imaginary = record.imaginary
    tournament = _find_tournament(session, tournament_id)
    if tournament.game != record.game:
        raise ValueError(
            f"match {record.match_id!r} is a {record.game!r} match, "
            f"but tournament {tournament_id} plays {tournament.game!r}"
        )
    _refuse_recorded(session, tournament_id, schedule_index, record.match_id)
    session.add(
        Match(
            id=record.match_id,
            tournament_id=tournament_id,
            schedule_index=schedule_index,
            round=round,
            seed=record.seed,
            variant=record.variant,
            table_size=record.players,
            status=MatchStatus.FINISHED.value,
            termination=record.termination.value,
            started_at=datetime.fromtimestamp(record.started_at, UTC),
            duration_s=float(record.duration_s),
            replay_z=replays.pack(replay_json),
            extra_json=extra_json,
            imaginary_cash=None if imaginary is None else imaginary["cash"],
            imaginary_place=None if imaginary is None else imaginary["place"],
        )
    )
    session.flush()  # a duplicate that slipped past the check fails here
    versions: dict[str, BotVersion] = {}
    for seat in record.seats:
        try:
            versions[seat.bot] = _find_version(session, seat.bot)[1]
        except UnknownBotError as exc:
            raise UnknownBotError(
                f"match {record.match_id!r} seat {seat.seat}: {exc}"
            ) from None
    bot_ids = [v.bot_id for v in versions.values()]
    if len(set(bot_ids)) != len(bot_ids):
        raise ValueError(
            f"match {record.match_id!r}: two seats are versions of one bot "
            f"({', '.join(s.bot for s in record.seats)}); a bot holds one seat per match"
        )
    for seat in record.seats:
        played = versions[seat.bot]
        session.add(
            Seat(
                match_id=record.match_id,
                seat=seat.seat,
                bot_id=played.bot_id,
                bot_version_id=played.id,
                cash=seat.cash,
                place=seat.place,
                forfeited=seat.forfeited,
                faults_json=_dump_json(
                    [f.to_json() for f in seat.faults],
                    f"match {record.match_id!r} seat {seat.seat}: faults",
                ),
                fault_count=len(seat.faults),
                behind_imaginary=(
                    None if imaginary is None else imaginary["place"] < seat.place
                ),
            )
        )


# -- checks ---------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _check_bot_name(name: str) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise BotNameError(problem)
    if "@" in name:
        raise BotNameError(
            f"bot name {name!r} contains '@', which separates a bot's name from its version "
            "number (greedy@2): choose a name without it"
        )
    if name.casefold() == IMAGINARY_PARTICIPANT.casefold():
        raise BotNameError(
            f"{name!r} is reserved for the two-player game's imaginary shareholder; "
            "choose another bot name"
        )


def _check_int64(value: int, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value not in _INT64:
        raise ValueError(f"{what} must be an int in the signed 64-bit range, got {value!r}")


def _check_record(record: MatchRecord) -> None:
    if not isinstance(record, MatchRecord):
        raise TypeError(f"record_match needs a MatchRecord, got {type(record).__name__}")
    mid = record.match_id
    if not isinstance(mid, str) or not mid:
        raise ValueError(f"a match id must be a non-empty string, got {mid!r}")
    if record.termination is MatchTermination.ERROR:
        raise ValueError(
            f"match {mid!r} ended in ERROR: the host could not finish it, it is no result"
        )
    _check_int64(record.seed, f"match {mid!r}: seed")
    for what, value in (("started_at", record.started_at), ("duration_s", record.duration_s)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"match {mid!r}: {what} must be a finite number >= 0, got {value!r}")
    seat_numbers = sorted(s.seat for s in record.seats)
    if seat_numbers != list(range(record.players)):
        raise ValueError(
            f"match {mid!r}: seats {seat_numbers} do not fill a table of {record.players} players"
        )
    names = [s.bot for s in record.seats]
    if len(set(names)) != len(names):
        raise ValueError(
            f"match {mid!r}: a bot holds several seats ({names}); a bot holds one seat per match"
        )
    for s in record.seats:
        if not isinstance(s.place, int) or s.place < 1:
            raise ValueError(
                f"match {mid!r} seat {s.seat}: place must be an int >= 1, got {s.place!r}"
            )
    if record.imaginary is not None:
        cash, place = record.imaginary.get("cash"), record.imaginary.get("place")
        if not isinstance(cash, int) or not isinstance(place, int) or place < 1:
            raise ValueError(
                f"match {mid!r}: imaginary must hold int 'cash' and 'place' (>= 1), "
                f"got {record.imaginary!r}"
            )


def _check_ratings(entries: Sequence[RatingEntry], history: Sequence[RatingPoint]) -> None:
    seen: set[str] = set()
    for e in entries:
        if e.participant in seen:
            raise ValueError(f"ratings list participant {e.participant!r} twice")
        seen.add(e.participant)
        for what, value in (("elo", e.elo), ("live_elo", e.live_elo)):
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(
                    f"rating of {e.participant!r}: {what} must be finite, got {value!r}"
                )
        for what, bound in (("ci_low", e.ci_low), ("ci_high", e.ci_high)):
            if bound is not None and (
                not isinstance(bound, (int, float)) or not math.isfinite(bound)
            ):
                raise ValueError(
                    f"rating of {e.participant!r}: {what} must be finite or None, got {bound!r}"
                )
    points: set[tuple[str, str]] = set()
    for p in history:
        key = (p.match_id, p.participant)
        if key in points:
            raise ValueError(
                f"rating history has {p.participant!r} after match {p.match_id!r} twice"
            )
        points.add(key)
        if not isinstance(p.elo, (int, float)) or not math.isfinite(p.elo):
            raise ValueError(
                f"rating history of {p.participant!r} after match {p.match_id!r}: "
                f"elo must be finite, got {p.elo!r}"
            )


# -- queries --------------------------------------------------------------------


def _refuse_recorded(
    session: Session, tournament_id: int, schedule_index: int, match_id: str
) -> None:
    stored = session.exec(
        select(Match).where(
            or_(
                col(Match.id) == match_id,
                and_(
                    col(Match.tournament_id) == tournament_id,
                    col(Match.schedule_index) == schedule_index,
                ),
            )
        )
    ).first()
    if stored is None:
        return
    if stored.tournament_id == tournament_id and stored.schedule_index == schedule_index:
        raise AlreadyRecorded(
            f"tournament {tournament_id} schedule index {schedule_index} is already recorded "
            f"(match {stored.id!r}); not storing match {match_id!r}"
        )
    raise AlreadyRecorded(
        f"match id {match_id!r} is already stored (tournament {stored.tournament_id}, "
        f"schedule index {stored.schedule_index})"
    )


def _find_bot(session: Session, name: str) -> Bot:
    bot = session.exec(select(Bot).where(col(Bot.name) == name)).first()
    if bot is None:
        raise UnknownBotError(f"no bot named {name!r}")
    return bot


def _newest_version(session: Session, bot: Bot) -> BotVersion | None:
    return session.exec(
        select(BotVersion)
        .where(col(BotVersion.bot_id) == bot.id)
        .order_by(col(BotVersion.number).desc())
    ).first()


def _find_version(session: Session, text: str) -> tuple[Bot, BotVersion]:
    """A bot's current version for a plain name, one version for ``NAME@NUMBER``."""
    bot = session.exec(select(Bot).where(col(Bot.name) == text)).first()
    if bot is not None:
        newest = _newest_version(session, bot)
        if newest is None:  # pragma: no cover - every bot has a version (add_bot, migration)
            raise UnknownBotError(f"bot {text!r} has no version")
        return bot, newest
    parts = split_participant(text)
    if parts is None:
        raise UnknownBotError(f"no bot named {text!r}")
    name, number = parts
    bot = _find_bot(session, name)
    version = session.exec(
        select(BotVersion).where(
            col(BotVersion.bot_id) == bot.id, col(BotVersion.number) == number
        )
    ).first()
    if version is None:
        newest = _newest_version(session, bot)
        raise UnknownBotError(
            f"bot {name!r} has no version {number} (its versions: 1 to "
            f"{0 if newest is None else newest.number})"
        )
    return bot, version


def _seats_of(session: Session, text: str) -> Any:
    """The ids of the matches where the bot (any version) or one version held a seat."""
    bot = session.exec(select(Bot).where(col(Bot.name) == text)).first()
    if bot is not None:
        return select(col(Seat.match_id)).where(col(Seat.bot_id) == bot.id)
    _, version = _find_version(session, text)
    return select(col(Seat.match_id)).where(col(Seat.bot_version_id) == version.id)


def _find_tournament(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise UnknownTournamentError(f"no tournament with id {tournament_id!r}")
    return tournament


def _match_scope(tournament_id: int | None) -> ColumnElement[bool]:
    """The matches that count (in ratings, standings, stats): of one tournament, or all;
    never those played by a worker excluded from its tournament (``exclude-worker``)."""
    counted = ~exists().where(
        col(QueuedMatch.match_id) == col(Match.id),
        col(ExcludedWorker.tournament_id) == col(QueuedMatch.tournament_id),
        col(ExcludedWorker.worker) == col(QueuedMatch.worker),
    )
    if tournament_id is None:
        return counted
    return and_(col(Match.tournament_id) == tournament_id, counted)


def _rating_scope(
    model: type[RatingSnapshot | RatingHistory], tournament_id: int | None
) -> ColumnElement[bool]:
    if tournament_id is None:
        return col(model.tournament_id).is_(None)
    return col(model.tournament_id) == tournament_id


def _load_seats(session: Session, match_ids: list[str]) -> dict[str, tuple[SeatRow, ...]]:
    seats: dict[str, list[SeatRow]] = defaultdict(list)
    for start in range(0, len(match_ids), _CHUNK):
        chunk = match_ids[start : start + _CHUNK]
        rows = session.exec(
            select(Seat, col(Bot.name), col(BotVersion.number))
            .join(Bot, col(Seat.bot_id) == col(Bot.id))
            .join(BotVersion, col(Seat.bot_version_id) == col(BotVersion.id))
            .where(col(Seat.match_id).in_(chunk))
            .order_by(col(Seat.match_id), col(Seat.seat))
        )
        for seat, name, number in rows:
            seats[seat.match_id].append(_seat_row(seat, name, number))
    return {match_id: tuple(rows) for match_id, rows in seats.items()}


# -- JSON text and rows ----------------------------------------------------------


def _dump_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} cannot be stored as JSON: {exc}") from exc


def _load_json(text: str, what: str, kind: type) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise CorruptDataError(
            f"{what} is not valid JSON ({exc}); the row is kept unchanged"
        ) from exc
    if not isinstance(value, kind):
        raise CorruptDataError(
            f"{what} holds a JSON {type(value).__name__}, not a {kind.__name__}; "
            "the row is kept unchanged"
        )
    return value


def _bot_row(bot: Bot, version: BotVersion | None, *, current: bool) -> BotRow:
    assert bot.id is not None and version is not None and version.id is not None
    return BotRow(
        id=bot.id,
        name=bot.name,
        number=version.number,
        version=version.version,
        author=version.author,
        language=version.language,
        manifest_path=None if version.manifest_path is None else Path(version.manifest_path),
        address=version.address,
        files_sha256=version.files_sha256,
        added_at=version.added_at,
        removed_at=bot.removed_at,
        version_id=version.id,
        current=current,
        files_dir=None if version.files_dir is None else Path(version.files_dir),
        source_path=None if version.source_path is None else Path(version.source_path),
    )


def _tournament_row(t: Tournament) -> TournamentRow:
    assert t.id is not None
    return TournamentRow(
        id=t.id,
        game=t.game,
        config=_load_json(t.config_json, f"tournament {t.id}: the stored config", dict),
        seed=t.seed,
        status=TournamentStatus(t.status),
        created_at=t.created_at,
        updated_at=t.updated_at,
    )


def _seat_row(seat: Seat, bot_name: str, number: int) -> SeatRow:
    faults = _load_json(
        seat.faults_json, f"match {seat.match_id!r} seat {seat.seat}: the stored faults", list
    )
    try:
        parsed = tuple(Fault.from_json(f) for f in faults)
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptDataError(
            f"match {seat.match_id!r} seat {seat.seat}: a stored fault cannot be read ({exc!r}); "
            "the row is kept unchanged"
        ) from exc
    return SeatRow(
        seat=seat.seat,
        bot=participant_name(bot_name, number),
        name=bot_name,
        version=number,
        cash=seat.cash,
        place=seat.place,
        forfeited=seat.forfeited,
        faults=parsed,
        fault_count=seat.fault_count,
        behind_imaginary=seat.behind_imaginary,
    )


def _match_row(
    match: Match, game: str, seats: tuple[SeatRow, ...], replay: dict[str, Any] | None
) -> MatchRow:
    return MatchRow(
        id=match.id,
        tournament_id=match.tournament_id,
        schedule_index=match.schedule_index,
        round=match.round,
        seed=match.seed,
        game=game,
        variant=match.variant,
        table_size=match.table_size,
        status=MatchStatus(match.status),
        termination=MatchTermination(match.termination),
        started_at=match.started_at,
        duration_s=match.duration_s,
        imaginary_cash=match.imaginary_cash,
        imaginary_place=match.imaginary_place,
        seats=seats,
        extra=_load_json(match.extra_json, f"match {match.id!r}: the stored extra", dict),
        replay=replay,
    )

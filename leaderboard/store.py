"""The store: every read and write of bots, tournaments, results and ratings.

``Store.open(url)`` takes an explicit URL (``--db``), else the ``ARENA_DB``
environment variable, else the SQLite file :data:`DEFAULT_DB_PATH`
(``arena-data/arena.sqlite``, relative to the working directory); see
:func:`resolve_db_url`.  SQLite and PostgreSQL (psycopg 3) are supported.
Tables are created on open (``SQLModel.metadata.create_all``); there is no
migrations framework yet.

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

from sqlalchemy import Engine, and_, case, delete, func, insert, or_, true
from sqlalchemy import select as sa_select
from sqlalchemy.exc import DatabaseError, IntegrityError
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, SQLModel, col, select

from arena.names import name_problem
from arena.records import Fault, MatchRecord, MatchTermination
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
)
from leaderboard.models import Bot, Match, RatingHistory, RatingSnapshot, Seat, Tournament
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
)

if TYPE_CHECKING:
    from leaderboard.finishing_orders import RatedMatch

__all__ = ["DEFAULT_DB_PATH", "Store", "resolve_db_url"]

_TABLES = [
    SQLModel.metadata.tables[model.__tablename__]
    for model in (Bot, Tournament, Match, Seat, RatingSnapshot, RatingHistory)
]
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
        """Connect to ``resolve_db_url(url)`` and create any missing table."""
        engine = create_db_engine(resolve_db_url(url))
        try:
            SQLModel.metadata.create_all(engine, tables=_TABLES)
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
    ) -> BotRow:
        """Register a bot reached through a manifest file or at an address (exactly one).

        Raises :class:`BotNameError` for the reserved name or a name already used
        (by an active or a removed bot: names stay with their history).
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
        sha = files_sha256.lower() if isinstance(files_sha256, str) else ""
        if not _SHA256.fullmatch(sha):
            raise ValueError(
                f"bot {name!r}: files_sha256 must be 64 hex digits, got {files_sha256!r}"
            )
        try:
            with self._write() as session:
                _refuse_taken_name(session, name)
                bot = Bot(
                    name=name,
                    version=version,
                    author=author,
                    language=language,
                    manifest_path=None if manifest_path is None else str(manifest_path),
                    address=address,
                    files_sha256=sha,
                    added_at=_now(),
                )
                session.add(bot)
                session.flush()
                return _bot_row(bot)
        except IntegrityError:
            with self._read() as session:  # lost a race for the name: say so plainly
                _refuse_taken_name(session, name)
            raise

    def get_bot(self, name: str) -> BotRow:
        """The bot with that name, removed or not; :class:`UnknownBotError` if none."""
        with self._read() as session:
            return _bot_row(_find_bot(session, name))

    def list_bots(self, include_removed: bool = False) -> list[BotRow]:
        """Bots by name; removed ones only with ``include_removed``."""
        query = select(Bot).order_by(col(Bot.name))
        if not include_removed:
            query = query.where(col(Bot.removed_at).is_(None))
        with self._read() as session:
            return [_bot_row(bot) for bot in session.exec(query)]

    def remove_bot(self, name: str) -> BotRow:
        """Mark an active bot removed (its matches and ratings stay); returns the updated row."""
        with self._write() as session:
            bot = _find_bot(session, name)
            if bot.removed_at is not None:
                raise UnknownBotError(
                    f"bot {name!r} is already removed (at {bot.removed_at.isoformat()})"
                )
            bot.removed_at = _now()
            session.add(bot)
            session.flush()
            return _bot_row(bot)

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
        _check_record(record)
        for value, what in ((schedule_index, "schedule index"), (round, "round")):
            if not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"match {record.match_id!r}: {what} must be an int >= 0, got {value!r}"
                )
        replay_json = _dump_json(record.replay, f"match {record.match_id!r}: the replay")
        extra_json = _dump_json(record.extra, f"match {record.match_id!r}: extra")
        imaginary = record.imaginary
        try:
            with self._write() as session:
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
                        replay_json=replay_json,
                        extra_json=extra_json,
                        imaginary_cash=None if imaginary is None else imaginary["cash"],
                        imaginary_place=None if imaginary is None else imaginary["place"],
                    )
                )
                session.flush()  # a duplicate that slipped past the check fails here
                names = [s.bot for s in record.seats]
                found = session.exec(
                    select(col(Bot.name), col(Bot.id)).where(col(Bot.name).in_(names))
                )
                bot_ids = {name: bot_id for name, bot_id in found if bot_id is not None}
                for seat in record.seats:
                    if seat.bot not in bot_ids:
                        raise UnknownBotError(
                            f"match {record.match_id!r} seat {seat.seat}: "
                            f"no bot named {seat.bot!r} is registered"
                        )
                    session.add(
                        Seat(
                            match_id=record.match_id,
                            seat=seat.seat,
                            bot_id=bot_ids[seat.bot],
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
        replay = _load_json(match.replay_json, f"match {match_id!r}: the stored replay", dict)
        return _match_row(match, game, seats.get(match_id, ()), replay)

    def list_matches(
        self,
        tournament_id: int | None = None,
        bot: str | None = None,
        limit: int | None = None,
    ) -> list[MatchRow]:
        """Matches newest first (by start time), with seats but without replays.

        Filters: one tournament, matches where the named bot held a seat, and at
        most ``limit`` rows.  An unknown tournament or bot raises.
        """
        query = (
            select(Match, col(Tournament.game))
            .join(Tournament, col(Match.tournament_id) == col(Tournament.id))
            .order_by(col(Match.started_at).desc(), col(Match.id))
        )
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
                query = query.where(col(Match.tournament_id) == tournament_id)
            if bot is not None:
                bot_id = _find_bot(session, bot).id
                query = query.where(
                    col(Match.id).in_(select(col(Seat.match_id)).where(col(Seat.bot_id) == bot_id))
                )
            if limit is not None:
                query = query.limit(limit)
            found = list(session.exec(query))
            seats = _load_seats(session, [m.id for m, _ in found])
        return [_match_row(m, game, seats.get(m.id, ()), None) for m, game in found]

    # -- what the ratings and the leaderboard read ------------------------------

    def rated_matches(self, tournament_id: int | None = None, *, table_size: int | None = None) -> list[RatedMatch]:
        """Every stored result (of one tournament, or all; of one table size, or all) in
        (tournament, schedule index) order.

        ``places`` maps bot names to places, plus ``IMAGINARY_PARTICIPANT`` to the
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
                select(col(Seat.match_id), col(Bot.name), col(Seat.place))
                .select_from(Seat)
                .join(Bot, col(Seat.bot_id) == col(Bot.id))
                .join(Match, col(Seat.match_id) == col(Match.id))
                .where(scope)
            ).all()
        places: dict[str, dict[str, int]] = defaultdict(dict)
        for match_id, name, place in seat_rows:
            places[match_id][name] = place
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
        """Per bot that played (in one tournament, or anywhere; at one table size, or any), by name."""
        scope = _match_scope(tournament_id)
        if table_size is not None:
            scope = and_(scope, col(Match.table_size) == table_size)
        query = (
            sa_select(  # seven columns: more than sqlmodel.select types
                col(Bot.name),
                func.count(),
                func.sum(case((col(Seat.place) == 1, 1), else_=0)),
                func.avg(col(Seat.place)),
                func.avg(col(Seat.cash)),
                func.sum(case((col(Seat.forfeited), 1), else_=0)),
                func.sum(col(Seat.fault_count)),
            )
            .select_from(Seat)
            .join(Bot, col(Seat.bot_id) == col(Bot.id))
            .join(Match, col(Seat.match_id) == col(Match.id))
            .where(scope)
            .group_by(col(Bot.id), col(Bot.name))
            .order_by(col(Bot.name))
        )
        with self._read() as session:
            if tournament_id is not None:
                _find_tournament(session, tournament_id)
            rows = session.exec(query).all()  # type: ignore[call-overload]
        return [
            BotStats(
                bot=name,
                matches=int(matches),
                wins=int(wins),
                mean_place=float(mean_place),
                mean_cash=float(mean_cash),
                forfeits=int(forfeits),
                faults=int(faults),
            )
            for name, matches, wins, mean_place, mean_cash, forfeits, faults in rows
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


# -- checks ---------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _check_bot_name(name: str) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise BotNameError(problem)
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
            f"match {mid!r}: a bot holds several seats ({names}); places are keyed by bot name"
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


def _refuse_taken_name(session: Session, name: str) -> None:
    existing = session.exec(select(Bot).where(col(Bot.name) == name)).first()
    if existing is None:
        return
    if existing.removed_at is None:
        raise BotNameError(f"a bot named {name!r} is already registered")
    raise BotNameError(
        f"the name {name!r} belongs to a bot removed at {existing.removed_at.isoformat()}; "
        "names stay with their match history: choose another name"
    )


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


def _find_tournament(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise UnknownTournamentError(f"no tournament with id {tournament_id!r}")
    return tournament


def _match_scope(tournament_id: int | None) -> ColumnElement[bool]:
    if tournament_id is None:
        return true()
    return col(Match.tournament_id) == tournament_id


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
            select(Seat, col(Bot.name))
            .join(Bot, col(Seat.bot_id) == col(Bot.id))
            .where(col(Seat.match_id).in_(chunk))
            .order_by(col(Seat.match_id), col(Seat.seat))
        )
        for seat, name in rows:
            seats[seat.match_id].append(_seat_row(seat, name))
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


def _bot_row(bot: Bot) -> BotRow:
    assert bot.id is not None
    return BotRow(
        id=bot.id,
        name=bot.name,
        version=bot.version,
        author=bot.author,
        language=bot.language,
        manifest_path=None if bot.manifest_path is None else Path(bot.manifest_path),
        address=bot.address,
        files_sha256=bot.files_sha256,
        added_at=bot.added_at,
        removed_at=bot.removed_at,
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


def _seat_row(seat: Seat, bot_name: str) -> SeatRow:
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
        bot=bot_name,
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

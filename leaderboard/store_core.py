"""The store's core: its sessions, and the helpers its parts share (finding rows, checking
input, turning rows into the frozen objects of :mod:`leaderboard.rows`).

:class:`leaderboard.store.Store` is made of parts by what they do: the bots and their
versions (:mod:`leaderboard.bot_registry`), the saved ratings
(:mod:`leaderboard.saved_ratings`), and the tournaments, matches and what the ratings
read (:mod:`leaderboard.store`).  Each part is a :class:`StoreCore`.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, and_, exists, or_
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from arena.names import name_problem
from arena.games import game_spec
from arena.records import Fault, MatchRecord, MatchTermination, ReferenceResult, is_reference_participant
from leaderboard.database import writer
from leaderboard.errors import AlreadyRecorded, BotNameError, CorruptDataError, UnknownBotError, UnknownTournamentError
from leaderboard.models import (
    Bot,
    BotVersion,
    ExcludedWorker,
    Match,
    MatchReference,
    QueuedMatch,
    RatingHistory,
    RatingSnapshot,
    Seat,
    Tournament,
)
from leaderboard.rows import (
    BotRow,
    MatchRow,
    MatchStatus,
    RatingEntry,
    RatingPoint,
    SeatRow,
    TournamentRow,
    TournamentStatus,
    participant_name,
    split_participant,
)



_SHA256 = re.compile(r"[0-9a-f]{64}")
_INT64 = range(-(2**63), 2**63)
_CHUNK = 500  # ids per IN (...) list, well under both backends' parameter limits



class StoreCore:
    """The engine and the two kinds of session every part of the store uses."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = writer(engine)


    def _read(self) -> Session:
        return Session(self._engine, expire_on_commit=False)

    def read_session(self) -> Session:
        """A session for reads only (the bounded reads of the pages, :mod:`leaderboard.match_lists`
        and its siblings, run their queries in one)."""
        return self._read()

    def snapshot_session(self) -> Session:
        """A session for reads only whose statements all see one snapshot of the store, however
        many matches are stored meanwhile (a fit reads matches, seats and references in separate
        queries): PostgreSQL's REPEATABLE READ; SQLite's read transaction is one already."""
        if self._engine.dialect.name != "postgresql":
            return self._read()
        return Session(self._engine.execution_options(isolation_level="REPEATABLE READ"), expire_on_commit=False)

    @contextmanager
    def _write(self) -> Iterator[Session]:
        """One write transaction: committed at the end, rolled back on any error."""
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session


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
    if is_reference_participant(name):
        raise BotNameError(
            f"{name!r}: names in parentheses are how games' reference participants are shown "
            "(the two-player Union Pacific game's (imaginary) shareholder); choose another bot name"
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
    for s in record.seats:
        if not isinstance(s.score, int) or isinstance(s.score, bool):
            raise ValueError(f"match {mid!r} seat {s.seat}: score must be an int, got {s.score!r}")
    _check_references(record)


def _check_references(record: MatchRecord) -> None:
    """The record's reference participants are the game's for its table size (a record may
    leave them out, as tests and benchmarks that rate bots only do; never one the game has not)."""
    mid = record.match_id
    try:
        expected = game_spec(record.game).reference(record.players)
    except ValueError:
        expected = None  # a game this Arena does not know: stored as given
    names = tuple(r.name for r in record.references)
    if expected is not None and not set(names) <= set(expected):
        raise ValueError(
            f"match {mid!r}: a {record.game!r} table of {record.players} ranks the reference "
            f"participants {list(expected)}, the record has {list(names)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"match {mid!r}: reference participants {list(names)} are not distinct")
    for r in record.references:
        if not isinstance(r.score, int) or not isinstance(r.place, int) or r.place < 1:
            raise ValueError(
                f"match {mid!r}: reference participant {r.name!r} needs an int score and an int "
                f"place >= 1, got {r.score!r} and {r.place!r}"
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
    model: type[RatingSnapshot | RatingHistory], tournament_id: int | None, game: str
) -> ColumnElement[bool]:
    if tournament_id is None:
        return and_(col(model.tournament_id).is_(None), col(model.game) == game)
    return col(model.tournament_id) == tournament_id


#: A match's participants: its seats and its reference participants.
Participants = tuple[tuple[SeatRow, ...], tuple[ReferenceResult, ...]]
NO_PARTICIPANTS: Participants = ((), ())


def _load_seats(session: Session, match_ids: list[str]) -> dict[str, Participants]:
    """Each match's seats (in seat order) and reference participants (by name)."""
    seats: dict[str, list[SeatRow]] = defaultdict(list)
    references: dict[str, list[ReferenceResult]] = defaultdict(list)
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
        for ref in session.exec(
            select(MatchReference).where(col(MatchReference.match_id).in_(chunk))
            .order_by(col(MatchReference.match_id), col(MatchReference.name))
        ):
            references[ref.match_id].append(ReferenceResult(ref.name, ref.score, ref.place))
    return {match_id: (tuple(seats.get(match_id, ())), tuple(references.get(match_id, ())))
            for match_id in set(seats) | set(references)}


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
        score=seat.score,
        place=seat.place,
        forfeited=seat.forfeited,
        faults=parsed,
        fault_count=seat.fault_count,
    )


def _match_row(
    match: Match, game: str, participants: Participants, replay: dict[str, Any] | None
) -> MatchRow:
    seats, references = participants
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
        seats=seats,
        references=references,
        extra=_load_json(match.extra_json, f"match {match.id!r}: the stored extra", dict),
        replay=replay,
    )

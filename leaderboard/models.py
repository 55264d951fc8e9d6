"""The database tables (SQLModel, ``table=True``).

Only :mod:`leaderboard.store` reads and writes them; everyone else gets the plain
rows of :mod:`leaderboard.rows`.  Tables are created on open with
``SQLModel.metadata.create_all``: there is no migrations framework yet, so a
change to a table needs a fresh database (or a hand-written ALTER) for now.

JSON columns are TEXT holding ``json.dumps`` output (the ``*_json`` fields), so
both backends store them alike.  Timestamps are UTC (see :class:`UTCDateTime`).
"""

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    Index,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from arena.records import MatchTermination
from leaderboard.rows import MatchStatus, TournamentStatus


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on SQLite as on PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the store keeps aware UTC datetimes only")
        value = value.astimezone(UTC)
        # SQLite has no time zones: keep the UTC wall time.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _one_of(column: str, values: list[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Bot(SQLModel, table=True):
    """A registered bot.  Names are unique for good: a removed bot keeps its name and history."""

    __tablename__ = "bots"
    __table_args__ = (
        CheckConstraint(
            "(manifest_path IS NULL) <> (address IS NULL)", name="ck_bots_manifest_xor_address"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    version: str
    author: str
    language: str
    manifest_path: str | None = None
    address: str | None = None
    files_sha256: str
    added_at: datetime = Field(sa_type=UTCDateTime)
    removed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Tournament(SQLModel, table=True):
    __tablename__ = "tournaments"
    __table_args__ = (
        CheckConstraint(
            _one_of("status", [s.value for s in TournamentStatus]), name="ck_tournaments_status"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    game: str
    # bots, table sizes, rounds, variant, concurrency, clocks: whatever the caller gave
    config_json: str = Field(sa_type=Text)
    seed: int = Field(sa_type=BigInteger)
    status: str
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class Match(SQLModel, table=True):
    """One stored result; ``id`` is the record's match_id."""

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "schedule_index", name="uq_matches_schedule"),
        CheckConstraint(
            _one_of("status", [s.value for s in MatchStatus]), name="ck_matches_status"
        ),
        CheckConstraint(
            _one_of(
                "termination",
                [t.value for t in MatchTermination if t is not MatchTermination.ERROR],
            ),
            name="ck_matches_termination",
        ),
        Index("ix_matches_started_at", "started_at"),
    )

    id: str = Field(primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    schedule_index: int
    round: int
    seed: int = Field(sa_type=BigInteger)
    variant: str
    table_size: int
    status: str
    termination: str
    started_at: datetime = Field(sa_type=UTCDateTime)
    duration_s: float
    replay_json: str = Field(sa_type=Text)
    extra_json: str = Field(sa_type=Text)
    # two-player game only
    imaginary_cash: int | None = None
    imaginary_place: int | None = None


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (
        # places are keyed by bot name, so a bot holds at most one seat per match
        UniqueConstraint("match_id", "bot_id", name="uq_seats_match_bot"),
    )

    match_id: str = Field(foreign_key="matches.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bots.id", index=True)
    cash: int
    place: int
    forfeited: bool
    faults_json: str = Field(sa_type=Text)  # list of Fault.to_json()
    fault_count: int
    behind_imaginary: bool | None = None  # two-player game only


def _scope_indexes(table: str, columns: tuple[str, ...]) -> tuple[Index, Index]:
    """Unique per scope: overall rows have tournament_id NULL, which a plain UNIQUE ignores."""
    overall = text("tournament_id IS NULL")
    per_tournament = text("tournament_id IS NOT NULL")
    return (
        Index(
            f"uq_{table}_overall",
            *columns,
            unique=True,
            sqlite_where=overall,
            postgresql_where=overall,
        ),
        Index(
            f"uq_{table}_tournament",
            "tournament_id",
            *columns,
            unique=True,
            sqlite_where=per_tournament,
            postgresql_where=per_tournament,
        ),
    )


class RatingSnapshot(SQLModel, table=True):
    """A participant's rating in one scope: a tournament, or overall (tournament_id NULL)."""

    __tablename__ = "rating_snapshots"
    __table_args__ = _scope_indexes("rating_snapshots", ("participant",))

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id")
    participant: str  # a bot name or rows.IMAGINARY_PARTICIPANT
    elo: float
    ci_low: float | None = None
    ci_high: float | None = None
    live_elo: float
    computed_at: datetime = Field(sa_type=UTCDateTime)


class RatingHistory(SQLModel, table=True):
    """A participant's live Elo after one match, in one scope (for the rating chart)."""

    __tablename__ = "rating_history"
    __table_args__ = (
        *_scope_indexes("rating_history", ("match_id", "participant")),
        Index("ix_rating_history_match", "match_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id")
    match_id: str = Field(foreign_key="matches.id")
    participant: str
    elo: float

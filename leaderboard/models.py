"""The database tables (SQLModel, ``table=True``).

Only :mod:`leaderboard.store` reads and writes them; everyone else gets the plain
rows of :mod:`leaderboard.rows`.  The database is made and kept at the
schema of these models by the Alembic revisions in ``leaderboard/migrations``
(run by :mod:`leaderboard.migrate` whenever a store is opened): a change to a
table here needs a new revision there (docs/tournaments.md, "Changing the schema").

JSON columns are TEXT holding ``json.dumps`` output (the ``*_json`` fields), so
both backends store them alike; the replay, the one large value, is that text
compressed with zlib (``matches.replay_z``, see :mod:`leaderboard.replays`).
Timestamps are UTC (see :class:`UTCDateTime`).
"""

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKeyConstraint,
    Index,
    LargeBinary,
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


#: The seats a bot page lists under "faults and forfeits" (a partial index covers them).
SEAT_INCIDENT = "fault_count > 0 OR forfeited = true"


def _one_of(column: str, values: list[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Bot(SQLModel, table=True):
    """A bot: a name and a history of versions (:class:`BotVersion`).

    Names are unique for good.  A removed bot keeps its versions, matches and
    ratings; adding it again registers a new version and makes it active again.
    """

    __tablename__ = "bots"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    added_at: datetime = Field(sa_type=UTCDateTime)  # when its first version was added
    removed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class BotVersion(SQLModel, table=True):
    """One registered version of a bot: the files (or the address) that passed the check.

    ``number`` counts 1, 2, 3... per bot; the highest is the bot's current version.
    A version is a rated participant, named ``NAME@NUMBER`` (``greedy@2``).
    ``files_dir`` is the host's frozen copy of the checked files (the manifest is
    ``manifest_path``, inside it); NULL for a bot at an address, and for a version
    registered before Arena kept copies (it is played from ``manifest_path`` after
    its files are checked against ``files_sha256``).  ``source_path`` is the
    manifest the files were copied from.
    """

    __tablename__ = "bot_versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "number", name="uq_bot_versions_number"),
        # the target of the seats' (bot_id, bot_version_id) foreign key
        UniqueConstraint("bot_id", "id", name="uq_bot_versions_bot_id"),
        CheckConstraint(
            "(manifest_path IS NULL) <> (address IS NULL)",
            name="ck_bot_versions_manifest_xor_address",
        ),
        CheckConstraint("number >= 1", name="ck_bot_versions_number"),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bots.id")
    number: int
    version: str  # what the manifest (or Describe) calls it, e.g. "1.0.0"
    author: str
    language: str
    manifest_path: str | None = None
    address: str | None = None
    files_sha256: str
    files_dir: str | None = None
    source_path: str | None = None
    added_at: datetime = Field(sa_type=UTCDateTime)


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
        # pages of a tournament's matches, newest first
        Index("ix_matches_tournament_started", "tournament_id", "started_at"),
        # the matches of a deal (publish_deals: is every rotation of it stored?)
        Index("ix_matches_deal", "tournament_id", "seed", "round"),
        # the rating fit's read of every match, from the index only (revision 0007_fit_index)
        Index("ix_matches_fit", "tournament_id", "schedule_index", "id", "table_size", "seed", "variant"),
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
    replay_z: bytes = Field(sa_type=LargeBinary)  # the replay's JSON text, zlib-compressed
    extra_json: str = Field(sa_type=Text)


class MatchCount(SQLModel, table=True):
    """How many matches are stored per tournament and table size, kept by the database itself:
    triggers on ``matches`` (revision 0004_scale) add one on every insert, take one off on
    every delete.  The pages read counts and the ratings' cache key here, in a few rows,
    instead of counting a million.  A revision that rebuilds ``matches`` (SQLite's batch
    mode copies the table, and its triggers are lost with the old one) must make the
    triggers again: see :func:`leaderboard.migrations.versions.0004_scale.create_count_triggers`.
    """

    __tablename__ = "match_counts"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    table_size: int = Field(primary_key=True)
    matches: int


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (
        # a bot (one of its versions) holds at most one seat per match
        UniqueConstraint("match_id", "bot_id", name="uq_seats_match_bot"),
        # the version that played the seat is a version of the seat's bot
        ForeignKeyConstraint(
            ["bot_id", "bot_version_id"],
            ["bot_versions.bot_id", "bot_versions.id"],
            name="fk_seats_bot_version",
        ),
        # a version's seats; "did this version play this match" in one probe
        Index("ix_seats_version_match", "bot_version_id", "match_id"),
        # a bot version's faults and forfeits (few) without reading its other seats
        Index("ix_seats_incidents", "bot_version_id", sqlite_where=text(SEAT_INCIDENT),
              postgresql_where=text(SEAT_INCIDENT)),
        # the rating fit's read of every seat, from the index only (revision 0007_fit_index)
        Index("ix_seats_fit", "match_id", "bot_version_id", "place", "score", "forfeited", "fault_count"),
    )

    match_id: str = Field(foreign_key="matches.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bots.id", index=True)
    bot_version_id: int
    score: int  # the game's score (its spec's score_name: Union Pacific's cash, Ticket to Ride's points)
    place: int
    forfeited: bool
    faults_json: str = Field(sa_type=Text)  # list of Fault.to_json()
    fault_count: int


class MatchReference(SQLModel, table=True):
    """A reference participant's result in one match: one of the game's
    ``GameSpec.reference(players)`` (Union Pacific's imaginary shareholder at a table of
    two), with a score and a place like a seat, but no bot (revision 0005_generic_results)."""

    __tablename__ = "match_references"

    match_id: str = Field(foreign_key="matches.id", primary_key=True)
    name: str = Field(primary_key=True)  # as the game's spec names it, e.g. "imaginary"
    score: int
    place: int


def _scope_indexes(table: str, columns: tuple[str, ...]) -> tuple[Index, Index]:
    """Unique per scope: overall rows (one set per game) have tournament_id NULL, which a
    plain UNIQUE ignores."""
    overall = text("tournament_id IS NULL")
    per_tournament = text("tournament_id IS NOT NULL")
    return (
        Index(
            f"uq_{table}_overall",
            "game",
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
    """A participant's rating in one scope: a tournament, or overall in one game (tournament_id NULL)."""

    __tablename__ = "rating_snapshots"
    __table_args__ = _scope_indexes("rating_snapshots", ("participant",))

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id")
    game: str  # ratings are per game (a tournament's rows: its game)
    participant: str  # a bot version, NAME@NUMBER, or a reference participant, (NAME)
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
    game: str
    match_id: str = Field(foreign_key="matches.id")
    participant: str
    elo: float


class QueuedMatch(SQLModel, table=True):
    """One scheduled match of a tournament, as the workers see it (:mod:`leaderboard.queue`).

    ``planned`` until a worker claims it: ``claimed`` with a lease (``lease_token``,
    ``lease_until``) that the worker renews while it plays; ``done`` once its result is
    stored (``match_id``, in the same transaction); ``failed`` when the host could not
    finish it (``error``; re-queued by ``arena tournament resume``).  A lease that
    expires makes the match claimable again.  ``worker`` is who holds or held it
    (``HOST/WORKER-ID``), ``isolation`` how its bots were isolated.
    """

    __tablename__ = "match_queue"
    __table_args__ = (
        CheckConstraint(_one_of("status", ["planned", "claimed", "done", "failed"]), name="ck_match_queue_status"),
        Index("ix_match_queue_claim", "status", "tournament_id", "schedule_index"),
        Index("ix_match_queue_match", "match_id"),
    )

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    schedule_index: int = Field(primary_key=True)
    round: int
    table_size: int
    status: str
    worker: str | None = None
    worker_pid: int | None = None
    lease_token: str | None = None
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    claimed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    attempts: int = 0
    isolation: str | None = None
    match_id: str | None = Field(default=None, foreign_key="matches.id")
    error: str | None = Field(default=None, sa_type=Text)


class ExcludedWorker(SQLModel, table=True):
    """A worker whose matches of one tournament are left out of its ratings and standings
    (``arena tournament exclude-worker``); it claims no more of that tournament's matches."""

    __tablename__ = "excluded_workers"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    worker: str = Field(primary_key=True)
    excluded_at: datetime = Field(sa_type=UTCDateTime)
    reason: str = Field(default="", sa_type=Text)


class WorkerEvent(SQLModel, table=True):
    """What the queue logs besides results: a late result refused (its lease was taken
    over), a claim taken over after its lease expired, claims released at shutdown."""

    __tablename__ = "worker_events"
    __table_args__ = (Index("ix_worker_events_tournament", "tournament_id", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    schedule_index: int | None = None
    worker: str
    kind: str
    detail: str = Field(default="", sa_type=Text)
    at: datetime = Field(sa_type=UTCDateTime)

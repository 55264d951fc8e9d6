"""The store on SQLite and PostgreSQL (the ``db_url`` fixture runs each test on both)."""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from arena.records import (
    Fault,
    FaultReason,
    MatchRecord,
    MatchTermination,
    ReferenceResult,
    SeatResult,
    is_reference_participant,
)
from leaderboard import ratings
from leaderboard.database import DEFAULT_DB_PATH, create_db_engine, resolve_db_url
from leaderboard.errors import (
    AlreadyRecorded,
    BotNameError,
    CorruptDataError,
    DatabaseURLError,
    StoreError,
    UnknownBotError,
    UnknownMatchError,
    UnknownTournamentError,
    VersionExists,
)
from leaderboard.models import Seat
from leaderboard.rows import (
    BotStats,
    MatchStatus,
    RatingEntry,
    RatingPoint,
    TournamentStatus,
)
from leaderboard.store import Store

IMAGINARY_PARTICIPANT = "(imaginary)"  # Union Pacific's reference participant in ratings
SHA = "ab" * 32
T0 = 1_760_000_000.25  # a Unix time with a fraction


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url) as opened:
        yield opened


def add_bots(store: Store, *names: str) -> None:
    for name in names:
        store.add_bot(
            name,
            "1.0.0",
            "tests",
            "python",
            manifest_path=f"bots/{name}/bot.toml",
            files_sha256=SHA,
        )


def seat(
    number: int,
    bot: str,
    cash: int,
    place: int,
    *,
    forfeited: bool = False,
    faults: tuple[Fault, ...] = (),
) -> SeatResult:
    """A seat of version 1 of ``bot`` (a seat names the version that played it)."""
    return SeatResult(
        seat=number, bot=bot if "@" in bot else f"{bot}@1", score=cash, place=place,
        forfeited=forfeited, faults=faults
    )


def record(
    match_id: str,
    seats: list[SeatResult],
    *,
    imaginary: dict[str, Any] | None = None,  # {"cash": ..., "place": ...}: the reference participant
    termination: MatchTermination = MatchTermination.NORMAL,
    seed: int = 7,
    replay: dict[str, Any] | None = None,
    started_at: float = T0,
    game: str = "union_pacific",
) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        game=game,
        seed=seed,
        variant="standard",
        players=len(seats),
        seats=tuple(seats),
        termination=termination,
        replay=replay if replay is not None else {"actions": [1, 2, 3], "match": match_id},
        started_at=started_at,
        duration_s=12.5,
        references=() if imaginary is None else (ReferenceResult("imaginary", imaginary["cash"], imaginary["place"]),),
    )


def three_player(match_id: str, a: str = "alpha", b: str = "beta", c: str = "gamma") -> MatchRecord:
    return record(match_id, [seat(0, a, 50, 1), seat(1, b, 30, 2), seat(2, c, 10, 3)])


def count_rows(db_url: str, table: str) -> int:
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection:
            return connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
    finally:
        engine.dispose()


# -- URLs and engines (no server needed) -----------------------------------------


def test_resolve_db_url_order_and_forms(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert DEFAULT_DB_PATH == Path("arena-data/arena.sqlite")
    assert resolve_db_url(None) == "sqlite:///arena-data/arena.sqlite"
    monkeypatch.setenv("ARENA_DB", "")
    assert resolve_db_url(None) == "sqlite:///arena-data/arena.sqlite"
    monkeypatch.setenv("ARENA_DB", "postgresql://u:pw@db.example:5433/arena")
    assert resolve_db_url(None) == "postgresql+psycopg://u:pw@db.example:5433/arena"
    assert resolve_db_url(f"{tmp_path}/x.sqlite") == f"sqlite:///{tmp_path}/x.sqlite"  # --db wins
    assert resolve_db_url("data/arena.db") == "sqlite:///data/arena.db"
    assert resolve_db_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_db_url("postgresql+psycopg://u@h:1/db") == "postgresql+psycopg://u@h:1/db"
    assert resolve_db_url("sqlite://") == "sqlite://"
    with pytest.raises(
        DatabaseURLError, match="unsupported database URL 'mysql://u:\\*\\*\\*@h/db'"
    ):
        resolve_db_url("mysql://u:secret@h/db")
    with pytest.raises(DatabaseURLError, match="unsupported"):
        resolve_db_url("postgresql+psycopg2://u@h/db")


def test_sqlite_connections_get_foreign_keys_wal_and_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "arena.sqlite"
    engine = create_db_engine(resolve_db_url(str(path)))
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    finally:
        engine.dispose()
    assert path.parent.is_dir()


def test_open_creates_the_sqlite_folder_from_a_bare_path(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "arena.sqlite"
    with Store.open(str(path)) as store:
        add_bots(store, "alpha")
    assert path.is_file()
    with Store.open(str(path)) as store:  # tables already there: opening again keeps the rows
        assert [b.name for b in store.list_bots()] == ["alpha"]


def test_open_uses_arena_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "from-env.sqlite"))
    with Store.open() as store:
        assert store.url == f"sqlite:///{tmp_path}/from-env.sqlite"
    assert (tmp_path / "from-env.sqlite").is_file()


def test_open_unreachable_postgres_says_which_database() -> None:
    with pytest.raises(
        StoreError,
        match=r"cannot open the database postgresql\+psycopg://arena:\*\*\*@127\.0\.0\.1:1/nowhere",
    ):
        Store.open("postgresql://arena:secret@127.0.0.1:1/nowhere?connect_timeout=5")


# -- bots ---------------------------------------------------------------------


def test_bots_round_trip(store: Store) -> None:
    before = datetime.now(UTC)
    manifest = store.add_bot(
        "random-bot",
        "1.2.0",
        "Arena",
        "python",
        manifest_path=Path("bots/random/bot.toml"),
        files_sha256="AB" * 32,
    )
    remote = store.add_bot(
        "remote", "0.1", "Someone", "rust", address="127.0.0.1:50051", files_sha256="cd" * 32
    )
    assert manifest.manifest_path == Path("bots/random/bot.toml") and manifest.address is None
    assert manifest.files_sha256 == "ab" * 32  # stored lower case
    assert remote.address == "127.0.0.1:50051" and remote.manifest_path is None
    assert (
        before - timedelta(seconds=1)
        <= manifest.added_at
        <= datetime.now(UTC) + timedelta(seconds=1)
    )
    assert manifest.added_at.tzinfo is not None and not manifest.removed
    assert store.get_bot("random-bot") == manifest
    assert store.get_bot("remote") == remote
    assert store.list_bots() == [manifest, remote]
    assert manifest.id != remote.id


def test_adding_a_known_name_with_other_files_registers_a_new_version(store: Store) -> None:
    add_bots(store, "alpha")
    second = store.add_bot("alpha", "2.0", "x", "go", address="127.0.0.1:1", files_sha256="cd" * 32)
    assert (second.name, second.number, second.participant, second.current) == ("alpha", 2, "alpha@2", True)
    assert second.id == store.get_bot("alpha@1").id and second.version_id != store.get_bot("alpha@1").version_id
    assert store.get_bot("alpha") == second
    assert store.get_bot("alpha@1").version == "1.0.0" and not store.get_bot("alpha@1").current
    assert [b.participant for b in store.bot_versions("alpha")] == ["alpha@1", "alpha@2"]
    assert [b.participant for b in store.list_bots()] == ["alpha@2"]
    assert [b.participant for b in store.list_bots(all_versions=True)] == ["alpha@1", "alpha@2"]
    with pytest.raises(VersionExists, match=r"already registered with these files as version 2 \(alpha@2\)") as info:
        store.add_bot("alpha", "3.0", "x", "go", address="127.0.0.1:1", files_sha256="cd" * 32)
    assert info.value.row == second
    # the files of an older version again: a new version (a rollback is a new submission)
    third = store.add_bot("alpha", "1.0.0", "tests", "python", manifest_path="bots/alpha/bot.toml",
                          files_sha256=SHA)
    assert third.participant == "alpha@3"
    with pytest.raises(UnknownBotError, match="bot 'alpha' has no version 4 \\(its versions: 1 to 3\\)"):
        store.get_bot("alpha@4")
    with pytest.raises(UnknownBotError, match="no bot named 'beta'"):
        store.get_bot("beta@1")


def test_a_bot_name_with_an_at_sign_is_refused(store: Store) -> None:
    with pytest.raises(BotNameError, match="contains '@', which separates a bot's name from its version"):
        store.add_bot("alpha@2", "1", "x", "python", manifest_path="b.toml", files_sha256=SHA)


@pytest.mark.parametrize("name", [IMAGINARY_PARTICIPANT, "(imaginary shareholder)", "(neutral)"])
def test_add_bot_refuses_the_reserved_name(store: Store, name: str) -> None:
    with pytest.raises(
        BotNameError, match="names in parentheses are how games' reference participants are shown"
    ):
        store.add_bot(name, "1", "x", "python", manifest_path="b.toml", files_sha256=SHA)
    assert store.list_bots(include_removed=True) == []


def test_add_bot_checks_its_arguments(store: Store) -> None:
    with pytest.raises(ValueError, match="exactly one of manifest_path and address"):
        store.add_bot(
            "b", "1", "x", "python", manifest_path="b.toml", address="h:1", files_sha256=SHA
        )
    with pytest.raises(ValueError, match="exactly one of manifest_path and address"):
        store.add_bot("b", "1", "x", "python", files_sha256=SHA)
    with pytest.raises(ValueError, match="files_sha256 must be 64 hex digits"):
        store.add_bot("b", "1", "x", "python", address="h:1", files_sha256="xyz")
    with pytest.raises(BotNameError, match="white space"):
        store.add_bot(" b", "1", "x", "python", address="h:1", files_sha256=SHA)
    assert store.list_bots(include_removed=True) == []


@pytest.mark.parametrize(("name", "problem"), [
    (".", "is a path step"),
    ("..", "is a path step"),
    ("abc\u202edef", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("a\u2066b", "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    ("zero\u200bwidth", "U+200B (ZERO WIDTH SPACE)"),
    ("bell\x07", "U+0007"),
    ("new\nline", "U+000A"),
    ("x" * 65, "at most 64"),
])
def test_names_that_could_hide_or_reorder_text_are_refused(store: Store, name: str, problem: str) -> None:
    with pytest.raises(BotNameError, match=re.escape(problem)):
        store.add_bot(name, "1", "x", "python", address="h:1", files_sha256=SHA)
    store.add_bot("ünïcødé 名前 ✓", "1", "x", "python", address="h:1", files_sha256=SHA)  # letters of any script
    assert [b.name for b in store.list_bots()] == ["ünïcødé 名前 ✓"]


def test_remove_bot_keeps_its_history(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {"bots": ["alpha", "beta", "gamma"]}, 1)
    store.record_match(tid, 0, 0, three_player("m0"))
    removed = store.remove_bot("beta")
    assert (
        removed.removed and removed.removed_at is not None and removed.removed_at.tzinfo is not None
    )
    assert [b.name for b in store.list_bots()] == ["alpha", "gamma"]
    assert [b.name for b in store.list_bots(include_removed=True)] == ["alpha", "beta", "gamma"]
    assert store.get_bot("beta") == removed
    assert [m.id for m in store.list_matches(bot="beta")] == ["m0"]
    assert "beta@1" in {s.bot for s in store.bot_stats()}
    assert store.rated_matches()[0].places == {"alpha@1": 1, "beta@1": 2, "gamma@1": 3}
    with pytest.raises(UnknownBotError, match="'beta' is already removed"):
        store.remove_bot("beta")
    # added again, even with the same files: a new version, and the bot is active again
    back = store.add_bot("beta", "1.0.0", "tests", "python", manifest_path="bots/beta/bot.toml",
                         files_sha256=SHA)
    assert back.participant == "beta@2" and not back.removed and not store.get_bot("beta@1").removed
    assert [b.name for b in store.list_bots()] == ["alpha", "beta", "gamma"]
    assert [m.id for m in store.list_matches(bot="beta")] == ["m0"]
    assert store.list_matches(bot="beta@2") == []
    with pytest.raises(UnknownBotError, match="no bot named 'nobody'"):
        store.remove_bot("nobody")
    with pytest.raises(UnknownBotError, match="no bot named 'nobody'"):
        store.get_bot("nobody")


# -- tournaments --------------------------------------------------------------


def test_tournaments_round_trip(store: Store) -> None:
    config = {
        "bots": ["alpha", "beta"],
        "table_sizes": [2, 3],
        "rounds": 4,
        "variant": "pro",
        "concurrency": 2,
        "clocks": {"decision_s": 1.5, "bank_s": 30},
    }
    first = store.create_tournament("union_pacific", config, 2**63 - 1)
    second = store.create_tournament("union_pacific", {}, -5)
    assert isinstance(first, int) and second != first
    t = store.get_tournament(first)
    assert (t.id, t.game, t.config, t.seed, t.status) == (
        first,
        "union_pacific",
        config,
        2**63 - 1,
        TournamentStatus.CREATED,
    )
    assert t.created_at == t.updated_at and t.created_at.tzinfo is not None
    store.set_tournament_status(first, TournamentStatus.RUNNING)
    store.set_tournament_status(first, "interrupted")
    after = store.get_tournament(first)
    assert after.status is TournamentStatus.INTERRUPTED
    assert after.updated_at >= after.created_at and after.created_at == t.created_at
    assert [x.id for x in store.list_tournaments()] == [first, second]
    assert store.get_tournament(second).seed == -5
    with pytest.raises(ValueError, match="unknown tournament status 'paused'"):
        store.set_tournament_status(first, "paused")
    with pytest.raises(UnknownTournamentError, match="no tournament with id 999"):
        store.get_tournament(999)
    with pytest.raises(UnknownTournamentError):
        store.set_tournament_status(999, "running")
    with pytest.raises(ValueError, match="signed 64-bit"):
        store.create_tournament("union_pacific", {}, 2**64)
    with pytest.raises(ValueError, match="cannot be stored as JSON"):
        store.create_tournament("union_pacific", {"bad": object()}, 1)
    assert len(store.list_tournaments()) == 2


# -- recording matches ---------------------------------------------------------


def test_record_match_round_trip(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {"rounds": 1}, 3)
    faults = (
        Fault(seat=2, decision=14, reason=FaultReason.TIMEOUT, detail="no reply in 1.5 s"),
        Fault(seat=2, decision=15, reason=FaultReason.DISCONNECT),
    )
    replay = {
        "seed": 42,
        "actions": list(range(300)),
        "events": [{"kind": "payout", "cash": {"0": 12}}],
    }
    rec = MatchRecord(
        match_id="t1-0007",
        game="union_pacific",
        seed=2**63 - 1,
        variant="pro",
        players=3,
        seats=(
            seat(2, "gamma", 0, 3, forfeited=True, faults=faults),
            seat(0, "alpha", 61, 1),
            seat(1, "beta", 48, 2),
        ),
        termination=MatchTermination.FORFEIT,
        replay=replay,
        started_at=T0,
        duration_s=93.75,
        extra={"host": "ci", "decisions": 311},
    )
    store.record_match(tid, 7, 2, rec)
    m = store.get_match("t1-0007")
    assert (
        m.id,
        m.tournament_id,
        m.schedule_index,
        m.round,
        m.seed,
        m.game,
        m.variant,
        m.table_size,
    ) == ("t1-0007", tid, 7, 2, 2**63 - 1, "union_pacific", "pro", 3)
    assert m.status is MatchStatus.FINISHED and m.termination is MatchTermination.FORFEIT
    assert m.started_at == datetime.fromtimestamp(T0, UTC) and m.started_at.tzinfo is not None
    assert m.duration_s == 93.75
    assert m.replay == replay and m.extra == {"host": "ci", "decisions": 311}
    assert m.references == ()
    assert [(s.seat, s.bot, s.score, s.place, s.forfeited) for s in m.seats] == [
        (0, "alpha@1", 61, 1, False),
        (1, "beta@1", 48, 2, False),
        (2, "gamma@1", 0, 3, True),
    ]
    assert m.seats[2].faults == faults and m.seats[2].fault_count == 2
    assert m.seats[0].faults == () and m.seats[0].fault_count == 0
    assert m.places == rec.places
    assert store.stored_schedule_indexes(tid) == {7}
    listed = store.list_matches(tid)
    assert len(listed) == 1 and listed[0].replay is None and listed[0].seats == m.seats


def test_two_player_match_stores_the_imaginary(store: Store) -> None:
    add_bots(store, "alpha", "beta")
    tid = store.create_tournament("union_pacific", {}, 3)
    rec = record(
        "duel",
        [seat(0, "alpha", 40, 1), seat(1, "beta", 20, 3)],
        imaginary={"cash": 30, "place": 2},
    )
    store.record_match(tid, 0, 0, rec)
    m = store.get_match("duel")
    assert m.references == (ReferenceResult("imaginary", 30, 2),)
    assert m.rated_places == {"alpha@1": 1, "beta@1": 3, IMAGINARY_PARTICIPANT: 2}
    [rated] = store.rated_matches(tid)
    assert rated.places == {"alpha@1": 1, "beta@1": 3, IMAGINARY_PARTICIPANT: 2}
    assert store.list_matches(tid)[0].references == m.references


def test_an_unknown_bot_rolls_the_whole_match_back(db_url: str, store: Store) -> None:
    add_bots(store, "alpha", "beta")
    tid = store.create_tournament("union_pacific", {}, 3)
    bad = three_player("m0", c="ghost")  # the last seat's bot is not registered
    with pytest.raises(
        UnknownBotError, match="match 'm0' seat 2: no bot named 'ghost'"
    ):
        store.record_match(tid, 0, 0, bad)
    assert count_rows(db_url, "matches") == 0 and count_rows(db_url, "seats") == 0
    assert store.stored_schedule_indexes(tid) == set()
    with pytest.raises(UnknownMatchError, match="no match with id 'm0'"):
        store.get_match("m0")
    add_bots(store, "ghost")
    store.record_match(tid, 0, 0, bad)  # nothing half-stored is in the way
    assert store.stored_schedule_indexes(tid) == {0}


def test_a_failure_after_rows_were_written_rolls_back(db_url: str, store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    inserted: list[int] = []

    def fail_on_last_seat(_mapper: Any, _connection: Any, target: Seat) -> None:
        if target.seat == 2:
            raise RuntimeError("disk on fire")
        inserted.append(target.seat)

    event.listen(Seat, "before_insert", fail_on_last_seat)
    try:
        with pytest.raises(RuntimeError, match="disk on fire"):
            store.record_match(tid, 0, 0, three_player("m0"))
    finally:
        event.remove(Seat, "before_insert", fail_on_last_seat)
    assert inserted == [0, 1]  # the match row and two seats were on their way when it failed
    assert count_rows(db_url, "matches") == 0 and count_rows(db_url, "seats") == 0
    store.record_match(tid, 0, 0, three_player("m0"))
    assert count_rows(db_url, "seats") == 3


def test_recording_twice_counts_once(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    store.record_match(tid, 0, 0, three_player("m0"))
    with pytest.raises(
        AlreadyRecorded, match=f"tournament {tid} schedule index 0 is already recorded"
    ):
        store.record_match(tid, 0, 0, three_player("m0"))
    # another result for the same schedule slot under a new id
    other = record(
        "m0-again", [seat(0, "alpha", 0, 3), seat(1, "beta", 1, 2), seat(2, "gamma", 99, 1)]
    )
    with pytest.raises(AlreadyRecorded, match=r"\(match 'm0'\); not storing match 'm0-again'"):
        store.record_match(tid, 0, 0, other)
    # the same match id under another schedule index
    with pytest.raises(AlreadyRecorded, match="match id 'm0' is already stored"):
        store.record_match(tid, 1, 0, three_player("m0"))
    assert store.stored_schedule_indexes(tid) == {0}
    assert len(store.rated_matches()) == 1
    assert [(s.bot, s.matches, s.wins) for s in store.bot_stats()] == [
        ("alpha@1", 1, 1),
        ("beta@1", 1, 0),
        ("gamma@1", 1, 0),
    ]
    assert store.get_match("m0").places == {"alpha@1": 1, "beta@1": 2, "gamma@1": 3}


def test_concurrent_writers(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    n = 6
    barrier = threading.Barrier(n)
    outcomes: list[str] = []
    lock = threading.Lock()

    def run(target: Any) -> None:
        barrier.wait()
        try:
            target()
            result = "stored"
        except AlreadyRecorded:
            result = "already"
        except Exception as exc:  # reported below, with its type
            result = f"{type(exc).__name__}: {exc}"
        with lock:
            outcomes.append(result)

    def race(targets: list[Any]) -> list[str]:
        outcomes.clear()
        threads = [threading.Thread(target=run, args=(t,)) for t in targets]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        return sorted(outcomes)

    # the same schedule slot from n threads, under n match ids: exactly one is stored
    same_slot = race(
        [lambda i=i: store.record_match(tid, 0, 0, three_player(f"dup-{i}")) for i in range(n)]
    )
    assert same_slot == ["already"] * (n - 1) + ["stored"]
    # n different slots at once: all stored, no "database is locked"
    different = race(
        [lambda i=i: store.record_match(tid, i + 1, 0, three_player(f"m{i}")) for i in range(n)]
    )
    assert different == ["stored"] * n
    assert store.stored_schedule_indexes(tid) == set(range(n + 1))


def test_record_match_refuses_records_that_are_no_result(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    error = record(
        "e", [seat(0, "alpha", 0, 1), seat(1, "beta", 0, 1)], termination=MatchTermination.ERROR
    )
    with pytest.raises(ValueError, match="match 'e' ended in ERROR"):
        store.record_match(tid, 0, 0, error)
    gap = MatchRecord(
        match_id="gap",
        game="union_pacific",
        seed=1,
        variant="standard",
        players=3,
        seats=(seat(0, "alpha", 1, 1), seat(2, "beta", 0, 2)),
        termination=MatchTermination.NORMAL,
        replay={},
        started_at=T0,
        duration_s=1.0,
    )
    with pytest.raises(ValueError, match=r"seats \[0, 2\] do not fill a table of 3 players"):
        store.record_match(tid, 0, 0, gap)
    twice = record("twice", [seat(0, "alpha", 1, 1), seat(1, "alpha", 0, 2)])
    with pytest.raises(ValueError, match="a bot holds several seats"):
        store.record_match(tid, 0, 0, twice)
    with pytest.raises(
        ValueError, match=f"is a 'chess' match, but tournament {tid} plays 'union_pacific'"
    ):
        store.record_match(
            tid, 0, 0, record("c", [seat(0, "alpha", 1, 1), seat(1, "beta", 0, 2)], game="chess")
        )
    with pytest.raises(ValueError, match="replay cannot be stored as JSON"):
        store.record_match(
            tid, 0, 0, record("nan", [seat(0, "alpha", 1, 1)], replay={"x": float("nan")})
        )
    with pytest.raises(ValueError, match="reference participant 'imaginary' needs an int score and an int place"):
        store.record_match(
            tid,
            0,
            0,
            record("i", [seat(0, "alpha", 1, 1), seat(1, "beta", 0, 2)], imaginary={"cash": 3, "place": 0}),
        )
    with pytest.raises(ValueError, match=r"ranks the reference participants \[\], the record has \['imaginary'\]"):
        store.record_match(  # no imaginary shareholder at a table of three
            tid, 0, 0, record("i3", [seat(0, "alpha", 1, 1), seat(1, "beta", 0, 2), seat(2, "gamma", 0, 3)],
                              imaginary={"cash": 3, "place": 1}))
    with pytest.raises(UnknownTournamentError):
        store.record_match(999, 0, 0, three_player("x"))
    assert store.list_matches() == []


def test_list_matches_filters_and_orders(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma", "delta")
    t1 = store.create_tournament("union_pacific", {}, 1)
    t2 = store.create_tournament("union_pacific", {}, 2)
    store.record_match(
        t1, 0, 0, record("a", [seat(0, "alpha", 1, 1), seat(1, "beta", 0, 2)], started_at=T0)
    )
    store.record_match(
        t1, 1, 0, record("b", [seat(0, "gamma", 1, 1), seat(1, "delta", 0, 2)], started_at=T0 + 20)
    )
    store.record_match(
        t2, 0, 0, record("c", [seat(0, "alpha", 1, 1), seat(1, "delta", 0, 2)], started_at=T0 + 10)
    )
    assert [m.id for m in store.list_matches()] == ["b", "c", "a"]  # newest first
    assert [m.id for m in store.list_matches(limit=2)] == ["b", "c"]
    assert [m.id for m in store.list_matches(tournament_id=t1)] == ["b", "a"]
    assert [m.id for m in store.list_matches(bot="alpha")] == ["c", "a"]
    assert [m.id for m in store.list_matches(tournament_id=t2, bot="alpha")] == ["c"]
    assert store.list_matches(tournament_id=t2, bot="beta") == []
    assert [[s.bot for s in m.seats] for m in store.list_matches(bot="delta")] == [
        ["gamma@1", "delta@1"],
        ["alpha@1", "delta@1"],
    ]
    with pytest.raises(UnknownBotError):
        store.list_matches(bot="nobody")
    with pytest.raises(UnknownTournamentError):
        store.list_matches(tournament_id=999)


# -- what ratings and the leaderboard read ---------------------------------------


@pytest.fixture
def league(store: Store) -> tuple[Store, int, int]:
    """Two tournaments with hand-made results (see test_bot_stats for the sums)."""
    add_bots(store, "A", "B", "C", "D")
    t1 = store.create_tournament("union_pacific", {}, 1)
    t2 = store.create_tournament("union_pacific", {}, 2)
    timeout = Fault(seat=2, decision=3, reason=FaultReason.TIMEOUT)
    bad = Fault(seat=2, decision=9, reason=FaultReason.ILLEGAL_ACTION, detail="index 99")
    gone = Fault(seat=2, decision=5, reason=FaultReason.DISCONNECT)
    # stored out of schedule order on purpose
    store.record_match(
        t2,
        0,
        0,
        record(
            "t2-0", [seat(0, "A", 5, 2), seat(1, "B", 15, 1)], imaginary={"cash": 10, "place": 1}
        ),
    )
    store.record_match(
        t1,
        2,
        1,
        record(
            "t1-2", [seat(0, "C", 20, 2), seat(1, "D", 10, 3)], imaginary={"cash": 25, "place": 1}
        ),
    )
    store.record_match(
        t1,
        0,
        0,
        record(
            "t1-0",
            [seat(0, "A", 50, 1), seat(1, "B", 30, 2), seat(2, "C", 10, 3, faults=(timeout, bad))],
        ),
    )
    store.record_match(
        t1,
        1,
        0,
        record(
            "t1-1",
            [
                seat(0, "D", 40, 1),
                seat(1, "A", 40, 1),
                seat(2, "B", 0, 3, forfeited=True, faults=(gone,)),
            ],
            termination=MatchTermination.FORFEIT,
        ),
    )
    return store, t1, t2


def test_rated_matches(league: tuple[Store, int, int]) -> None:
    store, t1, t2 = league
    rated = store.rated_matches()
    assert [(r.key, r.order) for r in rated] == [
        ("t1-0", (t1, 0)),
        ("t1-1", (t1, 1)),
        ("t1-2", (t1, 2)),
        ("t2-0", (t2, 0)),
    ]
    assert [r.places for r in rated] == [
        {"A@1": 1, "B@1": 2, "C@1": 3},
        {"A@1": 1, "B@1": 3, "D@1": 1},
        {"C@1": 2, "D@1": 3, IMAGINARY_PARTICIPANT: 1},
        {"A@1": 2, "B@1": 1, IMAGINARY_PARTICIPANT: 1},
    ]
    # the ratings take them as they are: the imaginary is a reference participant
    assert all(isinstance(r, ratings.RatedMatch) for r in rated)
    assert is_reference_participant(IMAGINARY_PARTICIPANT) and not is_reference_participant("A@1")
    assert [key for key, _ in ratings.live_elo_history(rated)] == [r.key for r in rated]
    assert [r.key for r in store.rated_matches(t2)] == ["t2-0"]
    assert [r.key for r in store.rated_matches(t1)] == ["t1-0", "t1-1", "t1-2"]
    with pytest.raises(UnknownTournamentError):
        store.rated_matches(999)
    # One deal per deck seed, table size and variant (every record here has seed 7): the
    # ratings' bootstrap resamples a deal's matches together, even across tournaments
    # (the same seed deals the same cards).
    assert [r.deal for r in rated] == ["standard/3/7", "standard/3/7", "standard/2/7", "standard/2/7"]
    assert [r.key for r in store.rated_matches(table_size=2)] == ["t1-2", "t2-0"]
    assert [r.key for r in store.rated_matches(t1, table_size=3)] == ["t1-0", "t1-1"]
    assert store.rated_matches(t2, table_size=3) == []
    assert [r.table_size for r in rated] == [3, 3, 2, 2]
    assert store.table_sizes() == [2, 3] and store.table_sizes(t2) == [2]
    with pytest.raises(UnknownTournamentError):
        store.table_sizes(999)


def test_bot_stats(league: tuple[Store, int, int]) -> None:
    store, t1, t2 = league
    # by hand: A placed 1, 1, 2 with cash 50, 40, 5; B 2, 3, 1 / 30, 0, 15, one forfeit
    # with one fault; C 3, 2 / 10, 20 with two faults; D 1, 3 / 40, 10.
    assert store.bot_stats() == [
        BotStats(
            "A@1",
            matches=3,
            wins=2,
            mean_place=pytest.approx(4 / 3),
            mean_score=pytest.approx(95 / 3),
            forfeits=0,
            faults=0, name="A", version=1,
        ),
        BotStats(
            "B@1", matches=3, wins=1, mean_place=2.0, mean_score=15.0, forfeits=1, faults=1, name="B", version=1),
        BotStats(
            "C@1", matches=2, wins=0, mean_place=2.5, mean_score=15.0, forfeits=0, faults=2, name="C", version=1),
        BotStats(
            "D@1", matches=2, wins=1, mean_place=2.0, mean_score=25.0, forfeits=0, faults=0, name="D", version=1),
    ]
    assert store.bot_stats(t1) == [
        BotStats(
            "A@1", matches=2, wins=2, mean_place=1.0, mean_score=45.0, forfeits=0, faults=0, name="A", version=1),
        BotStats(
            "B@1", matches=2, wins=0, mean_place=2.5, mean_score=15.0, forfeits=1, faults=1, name="B", version=1),
        BotStats(
            "C@1", matches=2, wins=0, mean_place=2.5, mean_score=15.0, forfeits=0, faults=2, name="C", version=1),
        BotStats(
            "D@1", matches=2, wins=1, mean_place=2.0, mean_score=25.0, forfeits=0, faults=0, name="D", version=1),
    ]
    assert store.bot_stats(t2) == [
        BotStats(
            "A@1", matches=1, wins=0, mean_place=2.0, mean_score=5.0, forfeits=0, faults=0, name="A", version=1),
        BotStats(
            "B@1", matches=1, wins=1, mean_place=1.0, mean_score=15.0, forfeits=0, faults=0, name="B", version=1),
    ]
    assert all(
        isinstance(s.mean_place, float) and isinstance(s.mean_score, float)
        for s in store.bot_stats()
    )
    assert store.bot_stats(table_size=2) == [
        BotStats("A@1", matches=1, wins=0, mean_place=2.0, mean_score=5.0, forfeits=0, faults=0, name="A", version=1),
        BotStats("B@1", matches=1, wins=1, mean_place=1.0, mean_score=15.0, forfeits=0, faults=0, name="B", version=1),
        BotStats("C@1", matches=1, wins=0, mean_place=2.0, mean_score=20.0, forfeits=0, faults=0, name="C", version=1),
        BotStats("D@1", matches=1, wins=0, mean_place=3.0, mean_score=10.0, forfeits=0, faults=0, name="D", version=1),
    ]
    assert [s.bot for s in store.bot_stats(t1, table_size=3)] == ["A@1", "B@1", "C@1", "D@1"]


# -- ratings --------------------------------------------------------------------


def test_ratings_save_and_load(league: tuple[Store, int, int]) -> None:
    store, t1, t2 = league
    assert store.load_ratings(t1) is None and store.load_ratings() is None
    entries = [
        RatingEntry("A", elo=1612.5, ci_low=1550.0, ci_high=1675.0, live_elo=1620.0),
        RatingEntry("B", elo=1400.0, ci_low=None, ci_high=None, live_elo=1390.25),
        RatingEntry(
            IMAGINARY_PARTICIPANT, elo=1500.0, ci_low=1400.0, ci_high=1600.0, live_elo=1500.0
        ),
    ]
    history = [  # given out of order: loaded back in match order
        RatingPoint("t1-1", "B", 1395.0),
        RatingPoint("t1-0", "B", 1490.0),
        RatingPoint("t1-0", "A", 1510.0),
        RatingPoint("t1-1", "A", 1520.0),
    ]
    when = datetime(2026, 11, 22, 12, 0, 0, 123456, tzinfo=UTC)
    store.save_ratings(t1, entries, history, computed_at=when)
    store.save_ratings(
        None, [RatingEntry("A", 1700.0, 1600.0, 1800.0, 1705.0)], [RatingPoint("t2-0", "A", 1490.0)]
    )
    saved = store.load_ratings(t1)
    assert saved is not None
    assert saved.computed_at == when
    best_first = ["A", IMAGINARY_PARTICIPANT, "B"]
    assert [e.participant for e in saved.entries] == best_first
    assert set(saved.entries) == set(entries)
    assert saved.history == (
        RatingPoint("t1-0", "A", 1510.0),
        RatingPoint("t1-0", "B", 1490.0),
        RatingPoint("t1-1", "A", 1520.0),
        RatingPoint("t1-1", "B", 1395.0),
    )
    overall = store.load_ratings()
    assert overall is not None and overall.entries == (
        RatingEntry("A", 1700.0, 1600.0, 1800.0, 1705.0),
    )
    assert overall.history == (RatingPoint("t2-0", "A", 1490.0),)
    assert overall.computed_at is not None and overall.computed_at.tzinfo is not None
    assert store.load_ratings(t2) is None
    # saving a scope again replaces it, and only it
    store.save_ratings(t1, [RatingEntry("C", 1450.0, None, None, 1450.0)], [])
    again = store.load_ratings(t1)
    assert (
        again is not None
        and [e.participant for e in again.entries] == ["C"]
        and again.history == ()
    )
    assert store.load_ratings() == overall


def test_save_ratings_refuses_bad_input_and_changes_nothing(league: tuple[Store, int, int]) -> None:
    store, t1, _ = league
    good = [RatingEntry("A", 1500.0, None, None, 1500.0)]
    store.save_ratings(t1, good, [RatingPoint("t1-0", "A", 1500.0)])
    before = store.load_ratings(t1)
    with pytest.raises(UnknownMatchError, match=f"not stored in tournament {t1}: t2-0"):
        # a match of another tournament
        store.save_ratings(t1, good, [RatingPoint("t2-0", "A", 1.0)])
    with pytest.raises(UnknownMatchError, match="nope"):
        store.save_ratings(None, good, [RatingPoint("nope", "A", 1.0)])
    with pytest.raises(ValueError, match="participant 'A' twice"):
        store.save_ratings(t1, good * 2, [])
    with pytest.raises(ValueError, match="elo must be finite"):
        store.save_ratings(t1, [RatingEntry("A", float("nan"), None, None, 1.0)], [])
    with pytest.raises(ValueError, match="ci_high must be finite or None, got inf"):
        store.save_ratings(t1, [RatingEntry("A", 1.0, 0.0, float("inf"), 1.0)], [])
    with pytest.raises(ValueError, match="'A' after match 't1-0' twice"):
        store.save_ratings(t1, good, [RatingPoint("t1-0", "A", 1.0)] * 2)
    with pytest.raises(UnknownTournamentError):
        store.save_ratings(999, good, [])
    assert store.load_ratings(t1) == before


# -- corrupt stored data ----------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "problem"),
    [(zlib.compress(b"{not json"), "is not valid JSON"), (zlib.compress(b"[1, 2]"), "holds a JSON list, not a dict"),
     (b"plain bytes, not zlib", "cannot be decompressed")],
)
def test_corrupt_replay_is_a_clear_error_and_the_row_stays(
    db_url: str, store: Store, stored: bytes, problem: str
) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    store.record_match(tid, 0, 0, three_player("m-corrupt"))
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE matches SET replay_z = :r WHERE id = 'm-corrupt'"), {"r": stored}
            )
        with pytest.raises(
            CorruptDataError, match=f"match 'm-corrupt': the stored replay {problem}"
        ):
            store.get_match("m-corrupt")
        with pytest.raises(CorruptDataError):  # and again: reading did not change anything
            store.get_match("m-corrupt")
        with engine.connect() as connection:
            kept = connection.execute(
                text("SELECT replay_z FROM matches WHERE id = 'm-corrupt'")
            ).scalar_one()
        assert bytes(kept) == stored
    finally:
        engine.dispose()
    # everything that does not need the replay still works
    assert [m.id for m in store.list_matches()] == ["m-corrupt"]
    assert store.rated_matches()[0].places == {"alpha@1": 1, "beta@1": 2, "gamma@1": 3}


def test_a_replay_is_stored_compressed_and_reads_back_whole(db_url: str, store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    record = three_player("m-z")
    store.record_match(tid, 0, 0, record)
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection:
            packed = bytes(connection.execute(text("SELECT replay_z FROM matches WHERE id = 'm-z'")).scalar_one())
    finally:
        engine.dispose()
    text_ = json.dumps(record.replay, separators=(",", ":"))
    assert zlib.decompress(packed).decode() == text_  # (sizes: test_migrations, with real replays)
    assert store.get_match("m-z").replay == record.replay


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_bytes(b"my precious notes, not a database\n" * 10)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="file is not a database"):
        Store.open(str(path))
    assert path.read_bytes() == before


def test_results_stay_with_the_version_that_played(store: Store) -> None:
    add_bots(store, "alpha", "beta", "gamma")
    tid = store.create_tournament("union_pacific", {}, 3)
    store.record_match(tid, 0, 0, three_player("m1"))
    store.add_bot("alpha", "2.0", "tests", "python", manifest_path="bots/alpha2/bot.toml", files_sha256="ef" * 32)
    # a plain name is the bot's current version (now alpha@2); NAME@NUMBER is one version
    store.record_match(tid, 1, 0, record("m2", [SeatResult(0, "beta", 30, 2, False, ()),
                                                 SeatResult(1, "alpha", 50, 1, False, ()),
                                                 SeatResult(2, "gamma@1", 10, 3, False, ())]))
    assert store.get_match("m1").places == {"alpha@1": 1, "beta@1": 2, "gamma@1": 3}
    assert store.get_match("m2").places == {"beta@1": 2, "alpha@2": 1, "gamma@1": 3}
    assert [(s.name, s.version) for s in store.get_match("m2").seats] == [("beta", 1), ("alpha", 2), ("gamma", 1)]
    assert [(s.bot, s.matches) for s in store.bot_stats()] == [
        ("alpha@1", 1), ("alpha@2", 1), ("beta@1", 2), ("gamma@1", 2)]
    assert [m.id for m in store.list_matches(bot="alpha@1")] == ["m1"]
    assert sorted(m.id for m in store.list_matches(bot="alpha")) == ["m1", "m2"]
    with pytest.raises(ValueError, match="two seats are versions of one bot"):
        store.record_match(tid, 2, 0, record("m3", [SeatResult(0, "alpha@1", 1, 1, False, ()),
                                                     SeatResult(1, "alpha@2", 0, 2, False, ())]))
    with pytest.raises(UnknownBotError, match="seat 0: bot 'alpha' has no version 3"):
        store.record_match(tid, 2, 0, record("m3", [SeatResult(0, "alpha@3", 1, 1, False, ()),
                                                     SeatResult(1, "beta", 0, 2, False, ())]))
    assert store.stored_schedule_indexes(tid) == {0, 1}

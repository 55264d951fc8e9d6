"""Schema migrations (Alembic) on SQLite and PostgreSQL: a new database is made at the newest
revision, a database written by the code before migrations is upgraded with nothing lost."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, Table, text
from sqlmodel import SQLModel

import leaderboard.models  # noqa: F401  (the tables)
from arena.records import MatchRecord, MatchTermination, SeatResult
from leaderboard import migrate
from leaderboard.database import create_db_engine, resolve_db_url
from leaderboard.errors import StoreError, VersionExists
from leaderboard.store import Store

FIXTURE = Path(__file__).parent / "data" / "pre_migrations_db.json"
SHA = "cd" * 32


def load_fixture() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def write_pre_migrations_db(url: str, data: dict[str, Any]) -> None:
    """The database exactly as the code of df824f7 made it: its DDL, then its rows."""
    engine = create_db_engine(resolve_db_url(url))
    dialect = engine.dialect.name
    try:
        with engine.begin() as connection:
            for statement in data["ddl"][dialect]:
                connection.exec_driver_sql(statement)
            meta = MetaData()
            for name, content in data["tables"].items():
                table = Table(name, meta, autoload_with=connection)
                rows = [dict(zip(content["columns"], (_value(v, dialect) for v in row))) for row in content["rows"]]
                if rows:
                    connection.execute(table.insert(), rows)
            if dialect == "postgresql":  # the old code's SERIAL counters had moved on too
                for name in ("bots", "tournaments", "rating_snapshots", "rating_history"):
                    connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                            f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {name}), false)"))
    finally:
        engine.dispose()


def _value(value: Any, dialect: str) -> Any:
    if isinstance(value, dict) and set(value) == {"datetime"}:
        moment = datetime.fromisoformat(value["datetime"]).astimezone(UTC)
        return moment.replace(tzinfo=None) if dialect == "sqlite" else moment
    return value


def revision_of(url: str) -> str | None:
    engine = create_db_engine(resolve_db_url(url))
    try:
        with engine.connect() as connection:
            return migrate.current_revision(connection)
    finally:
        engine.dispose()


def test_the_revisions_form_one_line_from_the_baseline() -> None:
    found = migrate.revisions()
    assert found[0] == migrate.BASELINE and found[-1] == migrate.head()
    assert found == sorted(found), "revision ids start with their number, in order"
    assert len(set(found)) == len(found)


def test_a_new_database_is_made_at_the_newest_revision_and_matches_the_models(db_url: str) -> None:
    Store.open(db_url).close()
    assert revision_of(db_url) == migrate.head()
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}),
                                    SQLModel.metadata)
        assert diff == [], f"the revisions and leaderboard/models.py disagree: {diff}"
    finally:
        engine.dispose()
    Store.open(db_url).close()  # opening again changes nothing
    assert revision_of(db_url) == migrate.head()


def test_a_database_written_before_migrations_is_upgraded_with_nothing_lost(db_url: str) -> None:
    data = load_fixture()
    write_pre_migrations_db(db_url, data)
    assert revision_of(db_url) is None
    old = {name: [dict(zip(t["columns"], row)) for row in t["rows"]] for name, t in data["tables"].items()}
    names = {b["id"]: b["name"] for b in old["bots"]}

    with Store.open(db_url) as store:
        assert revision_of(db_url) == migrate.head()
        # bots: each one is version 1 of itself, with what was stored
        bots = {b.name: b for b in store.list_bots(include_removed=True, all_versions=True)}
        assert sorted(bots) == sorted(names.values())
        for b in old["bots"]:
            row = bots[b["name"]]
            assert (row.id, row.number, row.participant, row.current) == (b["id"], 1, f"{b['name']}@1", True)
            assert (row.version, row.author, row.language, row.files_sha256) == (
                b["version"], b["author"], b["language"], b["files_sha256"])
            assert str(row.manifest_path) == b["manifest_path"] and row.address is None
            assert row.files_dir is None, "files of the old code were never copied"
            assert row.removed == (b["removed_at"] is not None)
        assert [b.name for b in store.list_bots()] == sorted(b["name"] for b in old["bots"] if not b["removed_at"])

        # the tournament and every match, seat and replay
        (t,) = old["tournaments"]
        tournament = store.get_tournament(t["id"])
        assert tournament.config == json.loads(t["config_json"]) and tournament.seed == t["seed"]
        assert str(tournament.status) == t["status"]
        matches = {m.id: m for m in store.list_matches()}
        assert sorted(matches) == sorted(m["id"] for m in old["matches"])
        for m in old["matches"]:
            stored = store.get_match(m["id"])
            assert stored.replay == json.loads(m["replay_json"])
            assert (stored.schedule_index, stored.seed, stored.termination.value, stored.imaginary_place) == (
                m["schedule_index"], m["seed"], m["termination"], m["imaginary_place"])
            seats = sorted((s["seat"], f"{names[s['bot_id']]}@1", s["cash"], s["place"], s["forfeited"],
                            json.loads(s["faults_json"])) for s in old["seats"] if s["match_id"] == m["id"])
            assert [(s.seat, s.bot, s.cash, s.place, s.forfeited, [f.to_json() for f in s.faults])
                    for s in stored.seats] == seats
        assert sum(len(m.seats) for m in matches.values()) == len(old["seats"])

        # the saved ratings: now per version
        for scope in (None, t["id"]):
            saved = store.load_ratings(scope)
            expected = {(f"{r['participant']}@1" if r["participant"] in names.values() else r["participant"]):
                        (r["elo"], r["ci_low"], r["ci_high"], r["live_elo"])
                        for r in old["rating_snapshots"] if r["tournament_id"] == scope}
            assert saved is not None
            assert {e.participant: (e.elo, e.ci_low, e.ci_high, e.live_elo) for e in saved.entries} == expected
            history = sorted((h["match_id"], f"{h['participant']}@1" if h["participant"] in names.values()
                              else h["participant"], h["elo"])
                             for h in old["rating_history"] if h["tournament_id"] == scope)
            assert sorted((p.match_id, p.participant, p.elo) for p in saved.history) == history
        assert store.rated_matches(t["id"])[0].places.keys() <= {f"{n}@1" for n in names.values()} | {
            "(imaginary shareholder)"}

        # and it goes on working: new versions, a removed bot back, a match of the new version
        greedy = store.add_bot("greedy-bot", "2.0", "Arena", "python", manifest_path="/bots/g/bot.toml",
                               files_sha256=SHA)
        assert greedy.participant == "greedy-bot@2"
        investor = store.add_bot("investor-bot", "1.0.0", "Arena", "python", manifest_path="/bots/i/bot.toml",
                                 files_sha256=bots["investor-bot"].files_sha256)
        assert investor.participant == "investor-bot@2" and not investor.removed
        tid = store.create_tournament("union_pacific", {"bots": ["greedy-bot", "random-bot"]}, 1)
        store.record_match(tid, 0, 0, MatchRecord(
            match_id="m-new", game="union_pacific", seed=1, variant="standard", players=2,
            seats=(SeatResult(0, "greedy-bot@2", 50, 1, False, ()), SeatResult(1, "random-bot@1", 20, 2, False, ())),
            termination=MatchTermination.NORMAL, replay={}, started_at=0.0, duration_s=1.0))
        assert {m.id for m in store.list_matches(bot="greedy-bot@1")} == {
            m["id"] for m in old["matches"] if any(names[s["bot_id"]] == "greedy-bot" and s["match_id"] == m["id"]
                                                   for s in old["seats"])}
        assert [m.id for m in store.list_matches(bot="greedy-bot@2")] == ["m-new"]
        with pytest.raises(VersionExists, match="version 2"):
            store.add_bot("greedy-bot", "2.0", "Arena", "python", manifest_path="/x/bot.toml", files_sha256=SHA)


def test_a_database_from_a_newer_arena_is_refused_untouched(db_url: str) -> None:
    Store.open(db_url).close()
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0099_from_the_future'"))
    finally:
        engine.dispose()
    with pytest.raises(StoreError, match="0099_from_the_future.*newer Arena"):
        Store.open(db_url)
    assert revision_of(db_url) == "0099_from_the_future"


def test_tables_that_are_not_arenas_are_refused_and_left_as_they_were(db_url: str) -> None:
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE bots (id INTEGER PRIMARY KEY, colour VARCHAR)"))
            connection.execute(text("INSERT INTO bots (id, colour) VALUES (1, 'red')"))
    finally:
        engine.dispose()
    with pytest.raises(StoreError, match=r"table 'bots'.*missing columns: .*name.*unknown: colour.*nothing was "
                                         r"changed|nothing was changed.*table 'bots'"):
        Store.open(db_url)
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        assert migrate.tables(engine) == ["bots"]
        with engine.connect() as connection:
            assert connection.execute(text("SELECT colour FROM bots")).scalars().all() == ["red"]
    finally:
        engine.dispose()


def test_two_processes_opening_a_new_database_at_once_migrate_it_once(db_url: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(3)

    def open_it() -> None:
        try:
            start.wait()
            Store.open(db_url).close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert revision_of(db_url) == migrate.head()
    with Store.open(db_url) as store:
        assert store.add_bot("solo", "1", "x", "python", manifest_path="/b.toml", files_sha256=SHA).number == 1

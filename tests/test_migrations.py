"""Schema migrations (Alembic) on SQLite and PostgreSQL: a new database is made at the newest
revision, a database written by the code before migrations is upgraded with nothing lost."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, Table, text
from sqlmodel import SQLModel

import leaderboard.models  # noqa: F401  (the tables)
from arena.records import MatchRecord, MatchTermination, SeatResult
from leaderboard import migrate
from leaderboard.database import create_db_engine, resolve_db_url
from leaderboard.errors import StoreError, VersionExists
from leaderboard.finishing_orders import FinishingOrders, RatedMatch
from leaderboard.ratings import fit
from leaderboard.standings import compute_leaderboard
from leaderboard.store import Store

FIXTURE = Path(__file__).parent / "data" / "pre_migrations_db.json"
SHA = "cd" * 32
#: Union Pacific's reference participant: its name in ratings before revision 0005 and after.
OLD_TO_NEW = {"(imaginary shareholder)": "(imaginary)"}


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


def test_the_newest_revision_read_from_the_files_is_alembics() -> None:
    """An up-to-date database is recognised without Alembic, from the revision files' own lines."""
    assert migrate._head_from_files() == migrate.head()


def test_the_quick_revision_check_says_only_the_newest(db_url: str) -> None:
    """``_at_head`` answers only "at the newest revision"; a new database (no version table: on
    PostgreSQL a failed query) or another revision leaves the decision to Alembic, on a connection
    still usable."""
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection:
            assert migrate._at_head(connection) is None
            assert migrate.current_revision(connection) is None
        Store.open(db_url).close()
        with engine.connect() as connection:
            assert migrate._at_head(connection) == migrate.head()
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = :old"),
                               {"old": migrate.revisions()[-2]})
        with engine.connect() as connection:
            assert migrate._at_head(connection) is None
    finally:
        engine.dispose()


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
            assert (stored.schedule_index, stored.seed, stored.termination.value,
                    {r.name: (r.score, r.place) for r in stored.references}) == (
                m["schedule_index"], m["seed"], m["termination"],
                {} if m["imaginary_place"] is None else {"imaginary": (m["imaginary_cash"], m["imaginary_place"])})
            seats = sorted((s["seat"], f"{names[s['bot_id']]}@1", s["cash"], s["place"], s["forfeited"],
                            json.loads(s["faults_json"])) for s in old["seats"] if s["match_id"] == m["id"])
            assert [(s.seat, s.bot, s.score, s.place, s.forfeited, [f.to_json() for f in s.faults])
                    for s in stored.seats] == seats
        assert sum(len(m.seats) for m in matches.values()) == len(old["seats"])

        # the saved ratings: now per version
        for scope in (None, t["id"]):
            saved = store.load_ratings(scope)
            expected = {(f"{r['participant']}@1" if r["participant"] in names.values() else OLD_TO_NEW[r["participant"]]):
                        (r["elo"], r["ci_low"], r["ci_high"], r["live_elo"])
                        for r in old["rating_snapshots"] if r["tournament_id"] == scope}
            assert saved is not None
            assert {e.participant: (e.elo, e.ci_low, e.ci_high, e.live_elo) for e in saved.entries} == expected
            history = sorted((h["match_id"], f"{h['participant']}@1" if h["participant"] in names.values()
                              else OLD_TO_NEW[h["participant"]], h["elo"])
                             for h in old["rating_history"] if h["tournament_id"] == scope)
            assert sorted((p.match_id, p.participant, p.elo) for p in saved.history) == history
        assert store.rated_matches(t["id"])[0].places.keys() <= {f"{n}@1" for n in names.values()} | {
            "(imaginary)"}

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


def upgrade_to(url: str, revision: str) -> None:
    """Bring a database to ``revision`` exactly (not the newest), as the Arena of that revision did."""
    engine = create_db_engine(resolve_db_url(url))
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":  # as leaderboard.migrate does: outside a transaction
                connection.connection.dbapi_connection.execute("PRAGMA foreign_keys = OFF")
            with connection.begin():
                config = migrate.alembic_config()
                config.attributes["connection"] = connection
                command.upgrade(config, revision)
    finally:
        engine.dispose()


def results_at_0004(url: str) -> tuple[list[RatedMatch], dict[str, tuple[int, int, float, float]]]:
    """The rated matches and each version's (matches, wins, mean place, mean cash), read with the
    SQL of revision 0004 (``matches.imaginary_place``, ``seats.cash``)."""
    engine = create_db_engine(resolve_db_url(url))
    try:
        with engine.connect() as connection:
            matches = connection.execute(text(
                "SELECT id, tournament_id, schedule_index, imaginary_place, variant, table_size, seed FROM matches "
                "ORDER BY tournament_id, schedule_index")).all()
            seats = connection.execute(text(
                "SELECT s.match_id, b.name, v.number, s.place, s.cash FROM seats s JOIN bots b ON b.id = s.bot_id "
                "JOIN bot_versions v ON v.id = s.bot_version_id")).all()
    finally:
        engine.dispose()
    places: dict[str, dict[str, int]] = defaultdict(dict)
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for match_id, name, number, place, cash in seats:
        places[match_id][f"{name}@{number}"] = place
        per[f"{name}@{number}"].append((place, cash))
    rated = []
    for match_id, tid, index, imaginary, variant, size, seed in matches:
        found = dict(sorted(places[match_id].items()))
        if imaginary is not None:
            found["(imaginary)"] = imaginary
        rated.append(RatedMatch(key=match_id, order=(tid, index), places=found, deal=f"{variant}/{size}/{seed}"))
    stats = {who: (len(rows), sum(p == 1 for p, _ in rows), sum(p for p, _ in rows) / len(rows),
                   sum(c for _, c in rows) / len(rows)) for who, rows in per.items()}
    return rated, stats


def test_a_union_pacific_database_at_0004_keeps_its_ratings_and_standings(db_url: str) -> None:
    """Revision 0005 moves the imaginary shareholder into the generic results: the finishing
    orders, ratings and standings of real matches (two- and three-player) are the same after."""
    write_pre_migrations_db(db_url, load_fixture())
    upgrade_to(db_url, "0004_scale")
    assert revision_of(db_url) == "0004_scale"
    before, stats = results_at_0004(db_url)
    assert {len(m.places) for m in before} == {3}, "two-player matches (with the imaginary) and three-player ones"
    assert sum("(imaginary)" in m.places for m in before) > 0
    fitted = fit(FinishingOrders.build(before), bootstrap=0).ratings

    with Store.open(db_url) as store:  # the tool migrates it itself
        assert revision_of(db_url) == migrate.head()
        (tournament,) = store.list_tournaments()
        after = store.rated_matches(tournament.id)
        assert [(m.key, m.order, m.places, m.deal) for m in after] == [
            (m.key, m.order, m.places, m.deal) for m in before]
        assert store.rated_matches(game="union_pacific") == after and store.rated_matches(game="other") == []
        for scope in (tournament.id, None):
            board = compute_leaderboard(store, scope, bootstrap=0, save=False, all_versions=True)
            assert board.game == "union_pacific"
            assert {s.name: s.elo for s in board.standings} == pytest.approx(
                {name: r.elo for name, r in fitted.items()})
            assert [s.name for s in board.standings if s.reference] == ["(imaginary)"]
            for s in board.standings:
                if not s.reference:
                    assert (s.matches, s.wins, s.mean_place, s.mean_score) == pytest.approx(stats[s.name])
        reference = next(s for s in board.standings if s.reference)
        assert reference.matches == sum("(imaginary)" in m.places for m in before)


def test_an_upgrade_of_a_store_in_use_is_announced_and_a_new_store_is_not(
        db_url: str, capfd: pytest.CaptureFixture[str]) -> None:
    """An upgrade of a big store takes a while (revision 0007 builds indexes over every seat):
    the person waiting is told on standard error, from which revision, and when it is done."""
    Store.open(db_url).close()
    assert capfd.readouterr().err == "", "a new database is made silently"
    with Store.open(db_url):
        pass
    assert capfd.readouterr().err == "", "a database at the newest revision is opened silently"

    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection, connection.begin():
            connection.execute(text("DROP INDEX ix_seats_fit"))
            connection.execute(text("DROP INDEX ix_matches_fit"))
            connection.execute(text("UPDATE alembic_version SET version_num = '0006_deals'"))
    finally:
        engine.dispose()
    assert migrate.main(["current", "--db", db_url]) == 0
    assert capfd.readouterr().out == f"0006_deals (newest: {migrate.head()})\n"
    assert migrate.main(["upgrade", "--db", db_url]) == 0
    out, err = capfd.readouterr()
    assert out == f"at {migrate.head()} (was 0006_deals)\n"
    assert f"from schema revision 0006_deals to {migrate.head()}" in err
    assert "upgraded the database" in err and err.count("\n") == 2
    assert revision_of(db_url) == migrate.head()
    assert migrate.main(["upgrade", "--db", db_url]) == 0
    assert capfd.readouterr() == (f"at {migrate.head()} already\n", "")


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

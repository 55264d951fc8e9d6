"""Commands that only read never create a database: a missing file, folder or schema is
one line that names the full path, the working directory (for a relative path) and the
commands that create a database; nothing is left behind.  The commands that store
results still create one."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from arena.cli.main import main
from tests.conftest import _fresh_postgres_database
from leaderboard.database import resolve_db_url
from leaderboard.store import Store

#: Every command that reads the store without storing anything new (the export folder and
#: the serve port are never reached).
READ_ONLY = [
    ["leaderboard"],
    ["leaderboard", "--json"],
    ["leaderboard", "--tournament", "1"],
    ["tournament", "list"],
    ["tournament", "list", "--json"],
    ["tournament", "show", "1"],
    ["tournament", "resume", "1"],
    ["bot", "list"],
    ["bot", "list", "--json"],
    ["bot", "remove", "random-bot"],
    ["replay", "export", "--tournament", "1", "out"],
    ["serve", "--port", "0"],
]
CREATORS = "'arena bot add', 'arena tournament run' (or create) and 'arena demo' create one"


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, with no ARENA_DB."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("ARENA_DB", raising=False)
    return folder


@pytest.mark.parametrize("argv", READ_ONLY, ids=" ".join)
def test_a_read_only_command_without_a_database_says_where_it_looked(
        argv: list[str], here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert err.startswith(f"arena: error: no folder {here}/arena-data for the database "
                          f"{here}/arena-data/arena.sqlite (the default, as neither --db nor ARENA_DB is given)")
    assert f"arena-data/arena.sqlite is relative to the working directory {here}" in err
    assert CREATORS in err
    assert listing(here) == []  # no folder, no file, no export folder


def test_a_relative_sqlite_url_is_explained(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "srv").mkdir()
    assert main(["leaderboard", "--db", "sqlite:///srv/arena.sqlite"]) == 2
    err = capsys.readouterr().err
    assert (f"no database file {here}/srv/arena.sqlite (from --db sqlite:///srv/arena.sqlite); srv/arena.sqlite "
            f"is relative to the working directory {here} (sqlite:///srv/arena.sqlite, three slashes, is a relative "
            "path; an absolute path takes four: sqlite:////srv/arena.sqlite)") in err
    assert listing(here) == ["srv"]


def test_arena_db_and_absolute_paths_are_named_as_given(here: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ARENA_DB", "results.sqlite")
    assert main(["bot", "list"]) == 2
    err = capsys.readouterr().err
    assert f"no database file {here}/results.sqlite (from ARENA_DB=results.sqlite); results.sqlite is relative " \
           f"to the working directory {here};" in err
    absolute = tmp_path / "elsewhere" / "a.sqlite"
    assert main(["tournament", "list", "--db", str(absolute)]) == 2
    err = capsys.readouterr().err
    assert f"no folder {absolute.parent} for the database {absolute} (from --db {absolute}); {CREATORS}" in err
    assert "relative" not in err
    assert main(["tournament", "list", "--db", str(here)]) == 2
    assert f"no database at {here} (from --db {here}): that is a folder, not a database file" in capsys.readouterr().err
    assert listing(here) == [] and not absolute.parent.exists()


def test_a_file_that_is_not_an_arena_database_is_left_untouched(here: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    other = here / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    before = other.read_bytes()
    empty = here / "empty.sqlite"
    empty.touch()
    for path in (other, empty):
        assert main(["leaderboard", "--db", path.name]) == 2
        err = capsys.readouterr().err
        assert f"{path} (from --db {path.name}) is not an Arena database (it holds none of its tables)" in err
    assert other.read_bytes() == before and empty.read_bytes() == b""
    with sqlite3.connect(other) as connection:
        assert [r[0] for r in connection.execute("SELECT name FROM sqlite_master")] == ["notes"]


def test_read_only_commands_read_an_existing_database(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Store.open(None).close()  # what 'arena bot add' and 'tournament run' do first: the default file
    assert (here / "arena-data" / "arena.sqlite").is_file()
    assert main(["leaderboard"]) == 0
    assert "no matches stored yet" in capsys.readouterr().err
    assert main(["bot", "list", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["tournament", "show", "1"]) == 2
    assert "no tournament with id 1" in capsys.readouterr().err


def test_an_in_memory_database_needs_no_file(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "list", "--json", "--db", "sqlite://"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert listing(here) == []


def test_the_commands_that_store_results_still_create_the_database(here: Path) -> None:
    # 'tournament run' creates the file before it checks the bots (which fail here, fast).
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "tournament", "run", "--bot", "nobody",
                           "--bot", "somebody"], cwd=here, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no bot named 'nobody'" in proc.stderr
    assert (here / "arena-data" / "arena.sqlite").is_file()
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "leaderboard"], cwd=here, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "no matches stored yet" in proc.stderr


@pytest.fixture
def postgres_url() -> Iterator[str]:
    yield from _fresh_postgres_database()


@pytest.mark.postgres
def test_an_empty_postgresql_database_gets_no_tables(postgres_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    db_url = postgres_url
    for argv in (["leaderboard"], ["tournament", "list"], ["bot", "list"]):
        assert main([*argv, "--db", db_url]) == 2
        err = capsys.readouterr().err
        assert "holds no Arena tables" in err and CREATORS in err and "Traceback" not in err
    engine = create_engine(resolve_db_url(db_url))
    try:
        assert inspect(engine).get_table_names() == []
    finally:
        engine.dispose()
    Store.open(db_url).close()
    assert main(["tournament", "list", "--json", "--db", db_url]) == 0
    assert capsys.readouterr().out.strip() == "[]"

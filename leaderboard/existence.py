"""Whether the database a command means to read exists, found out without creating it.

``Store.open`` creates what is missing (the SQLite file, its folder, the tables), which
is right for the commands that write (``arena bot add``, ``tournament run``, ``demo``)
and wrong for the ones that only read: ``arena leaderboard`` run from the wrong folder,
or with ``sqlite:///data.sqlite`` meant as an absolute path, would show an empty,
freshly made database instead of saying that there is none.  The commands that only
read call :func:`require_existing_database` first; it never creates or changes
anything and raises :class:`MissingDatabaseError`, naming the path, when there is no
Arena database there.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError

from leaderboard.database import DB_ENV_VAR, resolve_db_url
from leaderboard.errors import StoreError

#: The commands that create a database (said in the error).
CREATED_BY = "'arena bot add', 'arena tournament run' (or create) and 'arena demo' create one"

#: Tables every Arena database has had since the first schema: one of them is enough to
#: tell an Arena database from an empty or unrelated one.
ARENA_TABLES = ("bots", "tournaments", "matches")


class MissingDatabaseError(StoreError, LookupError):
    """No Arena database where the URL points (a missing file or folder, or no Arena tables)."""


def require_existing_database(url: str | None = None, *, cwd: Path | None = None) -> str:
    """The resolved URL (as :func:`~leaderboard.database.resolve_db_url`), once it is sure
    that an Arena database is there.

    SQLite: the file must exist, be a file, and hold Arena's tables (read through a
    read-only connection); an in-memory database passes.  PostgreSQL: the database must
    hold Arena's tables.  A database that cannot be read at all (not a database, a
    server that refuses) passes, so that opening it reports the real error.
    """
    resolved = resolve_db_url(url)
    parsed = make_url(resolved)
    given, where = _named_by(url)
    if parsed.get_backend_name() == "sqlite":
        _require_sqlite_file(parsed, given, where, Path.cwd() if cwd is None else cwd)
    else:
        _require_server_tables(parsed, where)
    return resolved


def _named_by(url: str | None) -> tuple[str | None, str]:
    """What the user gave (None for the default), and where it came from, for messages."""
    if url is not None and url.strip():
        return url.strip(), f"from --db {url.strip()}"
    env = os.environ.get(DB_ENV_VAR, "").strip()
    if env:
        return env, f"from {DB_ENV_VAR}={env}"
    return None, f"the default, as neither --db nor {DB_ENV_VAR} is given"


def _require_sqlite_file(url: URL, given: str | None, where: str, cwd: Path) -> None:
    database = url.database or ""
    if database in ("", ":memory:") or url.query.get("mode") == "memory" or "uri" in url.query:
        return  # in memory (nothing to find), or a SQLite URI filename: left to SQLite
    path = Path(database)
    full = path if path.is_absolute() else cwd / path
    how = "" if path.is_absolute() else _relative_note(path, given, cwd)
    create = f"; {CREATED_BY}, or give --db (or {DB_ENV_VAR}) an existing database"
    if full.is_dir():
        raise MissingDatabaseError(f"no database at {full} ({where}): that is a folder, not a database file{how}")
    if not full.exists():
        folder = full.parent
        missing = f"no database file {full}" if folder.is_dir() else f"no folder {folder} for the database {full}"
        raise MissingDatabaseError(f"{missing} ({where}){how}{create}")
    try:
        connection = sqlite3.connect(f"{full.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return  # unreadable: opening the store says why
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return  # not a database, or locked: opening the store says why
    finally:
        connection.close()
    if not tables.intersection(ARENA_TABLES):
        raise MissingDatabaseError(f"{full} ({where}) is not an Arena database (it holds none of its tables)"
                                   f"{how}{create}")


def _relative_note(path: Path, given: str | None, cwd: Path) -> str:
    """Says that a relative path was read from the working directory, and, for a
    ``sqlite:///`` URL, how to write an absolute one."""
    note = f"; {path.as_posix()} is relative to the working directory {cwd}"
    if given is not None and given.lower().startswith("sqlite"):
        note += (f" (sqlite:///{path.as_posix()}, three slashes, is a relative path; an absolute path takes "
                 f"four: sqlite:////{path.as_posix()})")
    return note


def _require_server_tables(url: URL, where: str) -> None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
    except DBAPIError:
        return  # unreachable or refused: opening the store says why
    finally:
        engine.dispose()
    if not tables.intersection(ARENA_TABLES):
        shown = url.render_as_string(hide_password=True)
        raise MissingDatabaseError(f"the database {shown} ({where}) holds no Arena tables; {CREATED_BY} "
                                   f"(their tables), or give --db (or {DB_ENV_VAR}) an existing Arena database")

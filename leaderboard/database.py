"""Which database to use, and an engine set up for it.

Two backends are supported and tested: SQLite (the embedded default, through
Python's sqlite3) and PostgreSQL through psycopg 3 (``postgresql+psycopg://``).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from leaderboard.errors import DatabaseURLError

#: Where the database lives when neither --db nor ARENA_DB says otherwise:
#: relative to the current working directory (so ``arena`` run from the
#: repository root uses ./arena-data/arena.sqlite).
DEFAULT_DB_PATH = Path("arena-data/arena.sqlite")

#: The environment variable naming the database (a URL or a SQLite file path).
DB_ENV_VAR = "ARENA_DB"

#: PostgreSQL ends a transaction of Arena's that sits idle this long (seconds): no Arena
#: transaction waits between its statements, only a frozen process's does.
IDLE_IN_TRANSACTION_TIMEOUT_S = 30

#: How long an SQLite connection waits for another writer's lock, in milliseconds.
SQLITE_BUSY_TIMEOUT_MS = 30_000

# Execution option that makes SQLite open the transaction with BEGIN IMMEDIATE,
# taking the write lock up front (see _sqlite_begin).
_WRITE_OPTION = "arena_write"

_POSTGRES_NAMES = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_NAMES = {"sqlite", "sqlite+pysqlite"}


def resolve_db_url(url: str | None = None) -> str:
    """The database URL to use.

    In order: ``url`` (an explicit ``--db``), else the ``ARENA_DB`` environment
    variable, else ``sqlite:///arena-data/arena.sqlite`` (:data:`DEFAULT_DB_PATH`,
    relative to the working directory).  A value without ``://`` is a SQLite
    file path.  ``postgresql://`` and ``postgres://`` are mapped to the psycopg 3
    driver (``postgresql+psycopg://``).  Any other backend or driver raises
    :class:`DatabaseURLError`.  No file or folder is created here (the store
    creates the SQLite file's folder when it opens it).
    """
    if url is None or not url.strip():
        url = os.environ.get(DB_ENV_VAR, "").strip() or None
    if url is None:
        return f"sqlite:///{DEFAULT_DB_PATH.as_posix()}"
    url = url.strip()
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().as_posix()}"
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseURLError(f"cannot parse database URL {url!r}: {exc}") from None
    if parsed.drivername in _POSTGRES_NAMES:
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif parsed.drivername not in _SQLITE_NAMES:
        raise DatabaseURLError(
            f"unsupported database URL {parsed.render_as_string(hide_password=True)!r}: "
            "use sqlite:///PATH (or a bare file path) or postgresql+psycopg://USER@HOST:PORT/DB"
        )
    return parsed.render_as_string(hide_password=False)


def create_db_engine(url: str) -> Engine:
    """An engine for an already resolved URL (see :func:`resolve_db_url`).

    SQLite: the file's folder is created; every connection gets foreign keys on,
    WAL journal mode and a busy timeout; transactions are opened by SQLAlchemy
    (``BEGIN``, or ``BEGIN IMMEDIATE`` for :func:`writer` engines) instead of by
    the sqlite3 module, so reads are repeatable and concurrent writers queue on
    the busy timeout instead of failing with "database is locked".
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    # A process frozen in the middle of a transaction (SIGSTOP, a paused VM) would keep its row
    # locks for as long as it stays frozen: the server ends such a transaction instead, so a
    # match a frozen worker holds can be taken over once its lease expires (leaderboard/queue.py).
    options = f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_TIMEOUT_S * 1000}"
    return create_engine(parsed, pool_pre_ping=True, connect_args={"options": options})


#: ``OFF`` or ``NORMAL`` here skips (or defers to checkpoints) the flush to disk at every
#: commit: a power cut may then lose the newest matches.  Only for filling a throwaway
#: store (``arena bench store`` sets it in its own process); never for real results.
SQLITE_SYNCHRONOUS_ENV = "ARENA_SQLITE_SYNCHRONOUS"


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) for write transactions: BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{_WRITE_OPTION: True})


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or url.query.get("mode") == "memory"
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if in_memory:
        kwargs["poolclass"] = StaticPool  # one shared connection, else each one is a new database
    else:
        try:
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseURLError(
                f"cannot create the folder for the SQLite database {database!r}: {exc}"
            ) from exc
    engine = create_engine(url, **kwargs)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.isolation_level = None  # the sqlite3 module no longer emits BEGIN itself
    cursor = dbapi_connection.cursor()
    try:
        # The timeout first: switching a new database to WAL takes a lock that another
        # connection opening it at the same moment must wait for, not fail on.
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        synchronous = os.environ.get(SQLITE_SYNCHRONOUS_ENV, "").strip().upper()
        if synchronous in ("OFF", "NORMAL"):  # bulk loading only (arena bench store): see the constant
            cursor.execute(f"PRAGMA synchronous = {synchronous}")
    finally:
        cursor.close()


def _sqlite_begin(connection: Any) -> None:
    write = connection.get_execution_options().get(_WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

"""The store's schema migrations (Alembic), run whenever a store is opened.

:func:`upgrade` brings a database to the newest revision in
``leaderboard/migrations/versions``:

- a new, empty database gets every table, revision by revision;
- a database made before Arena had migrations (its tables, no ``alembic_version``)
  is recognised by the first revision (``0001_baseline``), which creates only what is
  missing, and is then upgraded like any other;
- a database at the newest revision is left alone (one small read).

All the revisions of one upgrade run in one transaction: on any error nothing is
changed.  Two processes opening the same database at once do not both migrate it:
PostgreSQL takes an advisory lock, SQLite the write lock (``BEGIN IMMEDIATE``).
On SQLite, foreign keys are off while tables are copied (Alembic's batch mode) and
``PRAGMA foreign_key_check`` must find nothing wrong before the commit.

For developers: ``python -m leaderboard.migrate new "what changes"`` writes a new
revision file from the difference between the models and a database at the newest
revision; ``python -m leaderboard.migrate current --db URL`` says where a database is.
See docs/tournaments.md, "Changing the schema".
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DBAPIError, OperationalError

from leaderboard.database import create_db_engine, resolve_db_url, writer
from leaderboard.errors import StoreError

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

# Alembic itself (and its revision scripts) loads only when a database is not at the newest
# revision, or for the developers' commands: at the newest revision, which is every open but
# the first, :func:`_at_head` reads the revision without it (a third of a command's start-up).

#: Where the revisions live, as a package resource (works from an installed package too).
SCRIPT_LOCATION = "leaderboard:migrations"

#: The first revision: the schema of every database made before migrations.
BASELINE = "0001_baseline"

#: The revision files, read by :func:`_head_from_files` without Alembic.
VERSIONS_DIR = Path(__file__).resolve().parent / "migrations" / "versions"

# Any constant will do: it only has to be the same for every Arena process.
_PG_LOCK_KEY = 0x0A7E4A_5C4E3A


def alembic_config() -> Config:
    """An Alembic configuration for Arena's revisions (no alembic.ini needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.set_main_option("file_template", "%%(rev)s")  # the revision id already holds the slug
    return config


@functools.cache
def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def head() -> str:
    """The newest revision."""
    newest = _scripts().get_current_head()
    assert newest is not None, "leaderboard/migrations/versions has no revision"
    return newest


def revisions() -> list[str]:
    """Every revision, oldest first."""
    return [script.revision for script in reversed(list(_scripts().walk_revisions()))]


def current_revision(connection: Connection) -> str | None:
    """The database's revision; None when it has none (new, or made before migrations)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> str | None:
    """Bring the database to :func:`head`; returns the revision it was at, or None if it had none.

    Raises :class:`StoreError` for a database at a revision this Arena does not know
    (made by a newer one), or one whose tables are not Arena's; the database is then
    left as it was.
    """
    if engine.dialect.name == "sqlite":
        return _retry_locked(lambda: _upgrade_sqlite_if_needed(engine))
    with engine.connect() as connection:
        newest = _at_head(connection)
        if newest is not None:
            return newest
        found = current_revision(connection)
    if found == head():
        return found
    _refuse_unknown(engine, found)
    with engine.connect() as connection, connection.begin():
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
        return _run(connection)


_ASSIGNED = re.compile(r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"""["']([^"']+)["']""")


@functools.cache
def _head_from_files() -> str | None:
    """The newest revision, read from the revision files' ``revision = ...`` and
    ``down_revision = ...`` lines without Alembic: the one revision no other one follows.
    None when the files do not say it plainly (then Alembic decides)."""
    revised: set[str] = set()
    followed: set[str] = set()
    for path in sorted(VERSIONS_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        found = {key: value.strip() for key, value in _ASSIGNED.findall(path.read_text(encoding="utf-8"))}
        names = _QUOTED.findall(found.get("revision", ""))
        if len(names) != 1 or "down_revision" not in found:
            return None
        revised.add(names[0])
        followed.update(_QUOTED.findall(found["down_revision"]))
    heads = revised - followed
    return heads.pop() if len(heads) == 1 else None


def _at_head(connection: Connection) -> str | None:
    """The database's revision when it is the newest one, read with one plain query (no Alembic);
    None when it is not, or when that is not known so simply (no ``alembic_version`` table yet,
    several rows): the caller then asks Alembic."""
    newest = _head_from_files()
    if newest is None:
        return None
    try:
        rows = connection.exec_driver_sql("SELECT version_num FROM alembic_version").fetchall()
    except DBAPIError:  # no such table (a new database, or one made before migrations)
        connection.rollback()
        return None
    return newest if [tuple(row) for row in rows] == [(newest,)] else None


def _refuse_unknown(engine: Engine, found: str | None) -> None:
    if found is not None and found not in revisions():
        raise StoreError(
            f"the database {engine.url.render_as_string(hide_password=True)} is at schema revision "
            f"{found!r}, which this Arena does not know (it knows {', '.join(revisions())}): it was "
            "upgraded by a newer Arena; use that one (or a newer one)"
        )


def _run(connection: Connection) -> str | None:
    """Upgrade on ``connection``, inside its (locked) transaction."""
    before = current_revision(connection)  # again: another process may have migrated meanwhile
    _refuse_unknown(connection.engine, before)
    if before != head():
        from alembic import command

        config = alembic_config()
        config.attributes["connection"] = connection
        where = connection.engine.url.render_as_string(hide_password=True)
        started = time.monotonic()
        if before is not None:  # a store in use, not a new one: it may take a while, say so
            _tell(f"upgrading the database {where} from schema revision {before} to {head()} "
                  "(one transaction; other writers wait; about half a minute per million matches)...")
        try:
            command.upgrade(config, "head")
        except (RuntimeError, NotImplementedError) as exc:  # a revision's own refusal
            raise StoreError(f"cannot upgrade the database {where} (nothing was changed): {exc}") from exc
        if before is not None:
            _tell(f"upgraded the database {where} to {head()} in {time.monotonic() - started:.1f} s")
    return before


def _tell(message: str) -> None:
    """A line on standard error for the person waiting (standard output may be a command's data)."""
    print(f"arena: {message}", file=sys.stderr, flush=True)


def _retry_locked(attempt: Callable[[], str | None], tries: int = 5) -> str | None:
    """SQLite answers "database is locked" at once, whatever the busy timeout, in a few
    cases (a file being switched to WAL or recovered by another process as it opens):
    an upgrade is one transaction, so it is simply tried again."""
    for number in range(1, tries + 1):
        try:
            return attempt()
        except OperationalError as exc:
            if "locked" not in str(exc.orig) or number == tries:
                raise
            time.sleep(0.05 * number)
    raise AssertionError("unreachable")  # pragma: no cover


def _upgrade_sqlite_if_needed(engine: Engine) -> str | None:
    with engine.connect() as connection:
        newest = _at_head(connection)
        if newest is not None:
            return newest
        found = current_revision(connection)
    if found == head():
        return found
    _refuse_unknown(engine, found)
    return _upgrade_sqlite(engine)


def _upgrade_sqlite(engine: Engine) -> str | None:
    with writer(engine).connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        raw.execute("PRAGMA foreign_keys = OFF")  # only outside a transaction does this count
        try:
            with connection.begin():  # BEGIN IMMEDIATE: one migrating process at a time
                before = _run(connection)
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StoreError(
                        f"upgrading the database {engine.url} would break {len(broken)} foreign key(s) "
                        f"(first: {tuple(broken[0])}); nothing was changed"
                    )
        finally:
            raw.execute("PRAGMA foreign_keys = ON")
    return before


def tables(engine: Engine) -> list[str]:
    """The database's tables (for tests and ``current``)."""
    return sorted(inspect(engine).get_table_names())


# -- for developers ------------------------------------------------------------------


def new_revision(message: str) -> Path:
    """Write a new revision file: the models' difference from a database at :func:`head`."""
    with tempfile.TemporaryDirectory(prefix="arena-revision-") as folder:
        engine = create_db_engine(f"sqlite:///{folder}/head.sqlite")
        try:
            upgrade(engine)
            slug = "_".join("".join(c if c.isalnum() else " " for c in message.lower()).split())[:40]
            number = len(revisions()) + 1
            from alembic import command

            config = alembic_config()
            with engine.connect() as connection:
                config.attributes["connection"] = connection
                script = command.revision(config, message=message, autogenerate=True,
                                          rev_id=f"{number:04d}_{slug or 'change'}")
        finally:
            engine.dispose()
    _scripts.cache_clear()
    _head_from_files.cache_clear()
    assert script is not None and not isinstance(script, list)
    return Path(script.path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m leaderboard.migrate",
                                     description="Arena's schema revisions (Alembic).")
    sub = parser.add_subparsers(dest="action", required=True)
    new = sub.add_parser("new", help="write a new revision from the models' changes (review it!)")
    new.add_argument("message", help="what the revision changes, e.g. 'worker leases'")
    current = sub.add_parser("current", help="the revision a database is at")
    current.add_argument("--db", metavar="URL", default=None, help="as for arena (default: $ARENA_DB, ...)")
    up = sub.add_parser("upgrade", help="bring a database to the newest revision now (any arena "
                        "command that opens it would), e.g. before starting workers on a big store")
    up.add_argument("--db", metavar="URL", default=None, help="as for arena (default: $ARENA_DB, ...)")
    sub.add_parser("list", help="every revision, oldest first")
    args = parser.parse_args(argv)
    if args.action == "new":
        print(f"wrote {new_revision(args.message)}: check it, add the data steps, and test it")
    elif args.action == "list":
        print("\n".join(revisions()))
    elif args.action == "upgrade":
        engine = create_db_engine(resolve_db_url(args.db))
        try:
            before = upgrade(engine)
        finally:
            engine.dispose()
        print(f"at {head()}" + (" already" if before == head() else f" (was {before or 'new'})"))
    else:
        engine = create_db_engine(resolve_db_url(args.db))
        try:
            with engine.connect() as connection:
                found = current_revision(connection)
        finally:
            engine.dispose()
        print(f"{found or 'none (new, or made before migrations)'} (newest: {head()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

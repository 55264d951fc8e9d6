"""Shared pytest fixtures.

Databases: a test that takes ``db_url`` runs twice, on a fresh SQLite file and
on a fresh PostgreSQL database (marked ``postgres``).  The PostgreSQL run needs
``ARENA_TEST_POSTGRES_URL`` (``eval "$(bash .ci/postgres.sh)"`` starts a server
and sets it); without it the run is skipped, except under ``CI=true``, where a
missing server fails the test instead.

Parallel runs (scripts/test runs pytest-xdist, ``-n``): every test keeps to its own
``tmp_path``, free ports and database, so any two can run at once; a test marked
``serial`` (it measures time or a CPU share, or races a lease or a deadline) runs
alone: no other test runs meanwhile (a lock file that the workers share). The tests
marked ``serial`` run first, back to back on one worker, then those marked ``slow``
(tests/serial_first.py).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from leaderboard.database import resolve_db_url
from tests.serial_first import (  # noqa: F401 (the hooks and fixture of the run order)
    _serial_tests_run_alone,
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_xdist_make_scheduler,
)

POSTGRES_URL_ENV = "ARENA_TEST_POSTGRES_URL"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty database that only this test uses."""
    if request.param == "sqlite":
        yield f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    else:
        yield from _fresh_postgres_database()


def _fresh_postgres_database() -> Iterator[str]:
    base = os.environ.get(POSTGRES_URL_ENV, "").strip()
    if not base:
        reason = (
            f"{POSTGRES_URL_ENV} is not set; start a throwaway server with "
            '`eval "$(bash .ci/postgres.sh)"`'
        )
        if _in_ci():
            pytest.fail(f"CI=true but {reason}: the PostgreSQL tests must run in CI", pytrace=False)
        pytest.skip(reason)
    server = make_url(resolve_db_url(base))
    name = f"arena_test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield server.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()

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
marked ``serial`` are handed out first, then those marked ``slow``.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from leaderboard.database import resolve_db_url

POSTGRES_URL_ENV = "ARENA_TEST_POSTGRES_URL"


@pytest.fixture(autouse=True)
def _serial_tests_run_alone(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under xdist, a test marked ``serial`` runs alone: it holds a lock file of the run
    exclusively, every other test holds it shared (from before the test's fixtures are set
    up to after they are torn down)."""
    if not hasattr(request.config, "workerinput"):
        yield
        return
    lock = tmp_path_factory.getbasetemp().parent / "serial-tests.lock"  # the run's folder, above each worker's
    alone = request.node.get_closest_marker("serial") is not None
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the serial tests first, then the slow ones, then the rest.

    Serial first: a serial test waits for the test the other worker is running to end (its
    worker idle meanwhile), then runs alone. At the start no other test is under way, so the
    serial tests run back to back without that wait; later one could wait for a slow test
    (a minute). Slow next: no long test starts last while the other workers have nothing left
    to do."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: (item.get_closest_marker("serial") is None,
                                     item.get_closest_marker("slow") is None))


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

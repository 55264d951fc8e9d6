"""Options shared by the commands that touch the store."""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from typing import Iterator

from arena.cli.errors import UserError

DB_HELP = ("database: any SQLAlchemy URL (sqlite:///path, postgresql://user@host/db) or a file path; "
           "default: $ARENA_DB, else arena-data/arena.sqlite in the current folder")


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)


@contextmanager
def open_store(args: argparse.Namespace) -> Iterator["Store"]:  # noqa: F821
    """The store named by ``--db`` / ``ARENA_DB``; store errors become one-line user errors."""
    from leaderboard.errors import StoreError
    from leaderboard.store import Store

    try:
        store = Store.open(getattr(args, "db", None))
    except StoreError as exc:
        raise UserError(str(exc)) from None
    try:
        with store:
            yield store
    except StoreError as exc:
        raise UserError(str(exc)) from None

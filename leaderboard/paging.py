"""Pages of a list and their cursors, and the two short lists paged here: tournaments and bots.

Every list the web pages and the API show is read a page at a time: at most ``limit`` rows
(:data:`DEFAULT_LIMIT` when the request names none, :data:`MAX_LIMIT` at the most) and a
cursor that continues it.  A page is found by *keyset*, not by offset: the next page starts
after the last row of this one, so page 1,000 costs what page 1 does (tournaments by id
here; matches by start time in :mod:`leaderboard.match_lists`).  The bots are a short list
already in memory: :func:`slice_page` pages it by position, and its cursor names the last
row too, so a list that changed under it is refused rather than skipped.

Cursors are opaque text (URL-safe base64 of the list's kind and what the next page starts
after); a cursor that does not decode, or is another list's, raises :class:`BadCursor` (a
``ValueError``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlmodel import col, select

from leaderboard.models import Tournament
from leaderboard.rows import BotRow, TournamentRow
from leaderboard.store import Store
from leaderboard.store_core import _tournament_row


#: Rows of a list when the request names no ``limit``, and the most it may ask for.
DEFAULT_LIMIT = 50
MAX_LIMIT = 500

T = TypeVar("T")


class BadCursor(ValueError):
    """A page cursor that this store did not hand out (or for another list)."""


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list; ``next_cursor`` continues it (None on the last page)."""

    items: list[T]
    next_cursor: str | None


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}, got {limit!r}")
    return limit


# -- cursors ---------------------------------------------------------------------------


def _encode(kind: str, *parts: str) -> str:
    raw = "\n".join((kind, *parts)).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode(cursor: str, kind: str, count: int) -> list[str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
    except (binascii.Error, ValueError) as exc:
        raise BadCursor(f"cursor {cursor[:40]!r} is not one this server handed out") from exc
    parts = raw.split("\n")
    if len(parts) != count + 1 or parts[0] != kind:
        raise BadCursor(f"cursor {cursor[:40]!r} is not a cursor of this list")
    return parts[1:]


# -- tournaments and bots ---------------------------------------------------------------------


def tournament_page(store: Store, *, limit: int = DEFAULT_LIMIT, cursor: str | None = None,
                    newest_first: bool = False) -> Page[TournamentRow]:
    """Tournaments by id (oldest first, or newest first), at most ``limit`` after ``cursor``."""
    check_limit(limit)
    order = col(Tournament.id).desc() if newest_first else col(Tournament.id)
    query = select(Tournament).order_by(order).limit(limit + 1)
    if cursor:
        (after,) = _decode(cursor, "tournament", 1)
        if not after.isdigit():
            raise BadCursor(f"cursor {cursor[:40]!r} is not one this server handed out")
        query = query.where(col(Tournament.id) < int(after) if newest_first else col(Tournament.id) > int(after))
    with store.read_session() as session:
        found = list(session.exec(query))
    rows = [_tournament_row(t) for t in found[:limit]]
    following = _encode("tournament", str(rows[-1].id)) if len(found) > limit else None
    return Page(rows, following)


def slice_page(rows: list[T], kind: str, *, limit: int = DEFAULT_LIMIT, cursor: str | None = None,
               key: Callable[[T], str] = str) -> Page[T]:
    """A page of a short list already in memory (the bots), by position; the cursor names the
    last row's ``key`` too, so a list that changed under it is refused rather than skipped."""
    check_limit(limit)
    start = 0
    if cursor:
        position, last = _decode(cursor, kind, 2)
        if not position.isdigit() or not 0 < int(position) <= len(rows) or key(rows[int(position) - 1]) != last:
            raise BadCursor(f"cursor {cursor[:40]!r} is out of date: the list changed; start again")
        start = int(position)
    items = rows[start:start + limit]
    end = start + len(items)
    following = _encode(kind, str(end), key(items[-1])) if end < len(rows) and items else None
    return Page(items, following)


def bot_page(store: Store, *, all_versions: bool = False, limit: int = DEFAULT_LIMIT,
             cursor: str | None = None) -> Page[BotRow]:
    """Bots (removed ones too) by name, each bot's current version or every version."""
    rows = store.list_bots(include_removed=True, all_versions=all_versions)
    return slice_page(rows, "bot", limit=limit, cursor=cursor, key=lambda b: b.participant)

"""What a request may ask: whole numbers in range, the scope parameters, and pages.

Every bad value is an HTTP 400 that names the parameter.  A list is asked for in
pages: ``limit`` rows (default :data:`~leaderboard.paging.DEFAULT_LIMIT`, at most
:data:`~leaderboard.paging.MAX_LIMIT`) after ``cursor``, the opaque text that the
previous page handed out (:func:`next_link`).
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request

from leaderboard.paging import DEFAULT_LIMIT, MAX_LIMIT

#: The largest whole number a query or path may carry (the store's ids are signed 64-bit).
MAX_WHOLE_NUMBER = 2**63 - 1


def whole_number(raw: str | int, what: str, minimum: int = 0, maximum: int = MAX_WHOLE_NUMBER) -> int:
    """``raw`` as an int in ``[minimum, maximum]``; HTTP 400 naming ``what`` otherwise."""
    if isinstance(raw, str):
        text = raw.strip()
        if not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 24:
            raise HTTPException(400, f"{what} must be a whole number, got {raw[:40]!r}")
        raw = int(text)
    if not minimum <= raw <= maximum:
        shown = str(raw) if len(str(raw)) <= 24 else f"{str(raw)[:20]}..."
        raise HTTPException(400, f"{what} must be between {minimum} and {maximum}, got {shown}")
    return raw


def tournament_param(request: Request) -> int | None:
    raw = request.query_params.get("tournament")
    if raw is None or raw == "":
        return None
    return whole_number(raw, "tournament (a tournament id)", minimum=1)


def players_param(request: Request) -> int | None:
    raw = request.query_params.get("players")
    if raw is None or raw == "":
        return None
    return whole_number(raw, "players (a table size)", minimum=1, maximum=99)


def game_param(request: Request, games: list[str], *, default_first: bool = True) -> str | None:
    """``?game=NAME``: the game whose overall ratings a page shows (ratings are per game);
    by default the first of ``games`` (the store's games; None when it holds none, or with
    ``default_first`` False, for the page to choose)."""
    raw = request.query_params.get("game")
    if raw is None or raw == "":
        return games[0] if games and default_first else None
    if raw not in games:
        raise HTTPException(400, f"game must be one of the stored games ({', '.join(games) or 'none yet'}), "
                                 f"got {raw[:40]!r}")
    return raw


def tournament_path(request: Request) -> int:
    return whole_number(request.path_params["tournament_id"], "the tournament id", minimum=1)


def versions_param(request: Request) -> bool:
    """``?versions=all``: every bot version; ``?versions=current`` (the default): each bot's newest."""
    raw = request.query_params.get("versions", "current")
    if raw not in ("all", "current", ""):
        raise HTTPException(400, f"versions must be 'all' or 'current', got {raw!r}")
    return raw == "all"


def limit_param(request: Request, default: int = DEFAULT_LIMIT) -> int:
    raw = request.query_params.get("limit")
    if raw is None or raw == "":
        return default
    return whole_number(raw, "limit (rows per page)", minimum=1, maximum=MAX_LIMIT)


def cursor_param(request: Request) -> str | None:
    raw = request.query_params.get("cursor")
    if raw is None or raw == "":
        return None
    if len(raw) > 400 or not raw.isascii():
        raise HTTPException(400, "cursor is not one this server handed out")
    return raw


def next_link(request: Request, cursor: str | None) -> str | None:
    """The address of the next page: this one's path and parameters with ``cursor`` replaced."""
    if cursor is None:
        return None
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
    params.append(("cursor", cursor))
    return f"{request.url.path}?{urlencode(params)}"

"""The JSON endpoints under ``/api/`` (docs/web.md lists them with their parameters).

A list endpoint answers one page: a JSON array of at most ``limit`` items (default
50, at most 500) and, when more follow, a ``Link: <...>; rel="next"`` header whose
address carries the ``cursor`` of the next page (the ``X-Next-Cursor`` header holds
the cursor alone).  Objects that hold a list (a tournament's matches) say the same in
fields (``matches_next``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.games.base import ReplayError
from leaderboard import match_lists, paging
from leaderboard.errors import UnknownMatchError
from leaderboard.web.context import Web
from leaderboard.web.games import board_json
from leaderboard.web.data import (
    bot_info_json,
    bot_json,
    leaderboard_json,
    match_json,
    match_summary_json,
    replay_view_body,
    tournament_json,
    tournaments_json,
)
from leaderboard.web.params import (
    cursor_param,
    limit_param,
    next_link,
    game_param,
    players_param,
    tournament_param,
    tournament_path,
    versions_param,
)
from leaderboard.web.progress import progress_json
from leaderboard.web.publication import Visibility


def _list(request: Request, items: list[Any], cursor: str | None) -> Response:
    response = Web.of(request).api(items)
    link = next_link(request, cursor)
    if link is not None and cursor is not None:
        response.headers["Link"] = f'<{link}>; rel="next"'
        response.headers["X-Next-Cursor"] = cursor
    return response


def api_leaderboard(request: Request) -> Response:
    web = Web.of(request)
    games = web.store.games()
    return web.api(leaderboard_json(web.store, web.ratings, tournament_param(request), players_param(request),
                                    versions_param(request), game_param(request, games), games))


def api_tournaments(request: Request) -> Response:
    web = Web.of(request)
    found = paging.tournament_page(web.store, limit=limit_param(request), cursor=cursor_param(request))
    return _list(request, tournaments_json(web.store, found.items), found.next_cursor)


def api_tournament(request: Request) -> Response:
    """The tournament and a page of its matches (newest first; ``limit``, ``cursor``)."""
    web = Web.of(request)
    s = web.store
    tid = tournament_path(request)
    visibility = Visibility(s)
    data = tournament_json(s, visibility.tournament(tid))
    found = match_lists.match_page(s, tournament_id=tid, limit=limit_param(request), cursor=cursor_param(request))
    data["matches"] = [match_summary_json(m, visibility.published(m)) for m in found.items]
    data["matches_cursor"] = found.next_cursor
    data["matches_next"] = next_link(request, found.next_cursor)
    return web.api(data)


def api_tournament_progress(request: Request) -> Response:
    web = Web.of(request)
    return web.api(progress_json(web.store, web.store.get_tournament(tournament_path(request))))


def api_bots(request: Request) -> Response:
    web = Web.of(request)
    found = paging.bot_page(web.store, all_versions=versions_param(request), limit=limit_param(request),
                             cursor=cursor_param(request))
    return _list(request, [bot_info_json(b) for b in found.items], found.next_cursor)


def api_bot(request: Request) -> Response:
    web = Web.of(request)
    tid = tournament_param(request)
    data = bot_json(web.store, web.ratings, request.path_params["name"], tid, isolation=web.isolation,
                    game=game_param(request, web.store.games(), default_first=False))
    data["recent_next"] = None
    if data["recent_cursor"] is not None:
        root = request.scope.get("root_path", "").rstrip("/")
        params = [("bot", data["bot"]["participant"])] + ([("tournament", str(tid))] if tid else [])
        data["recent_next"] = f"{root}/api/matches?{urlencode([*params, ('cursor', data['recent_cursor'])])}"
    return web.api(data)


def api_matches(request: Request) -> Response:
    web = Web.of(request)
    s = web.store
    visibility = Visibility(s)
    found = match_lists.match_page(s, tournament_id=tournament_param(request),
                               bot=request.query_params.get("bot") or None,
                               limit=limit_param(request), cursor=cursor_param(request))
    return _list(request, [match_summary_json(m, visibility.published(m)) for m in found.items], found.next_cursor)


def api_match(request: Request) -> Response:
    web = Web.of(request)
    return web.api(match_json(web.store, request.path_params["match_id"]))


def api_replay_view(request: Request) -> Response:
    """``/api/replay-view/MATCH``: the game after each event of the match's replay (docs/web.md)."""
    web = Web.of(request)
    try:
        body = replay_view_body(web.store, request.path_params["match_id"], web.views)
    except UnknownMatchError:
        raise  # a 404, as for /api/matches/MATCH
    except (ReplayError, LookupError) as exc:  # the match has no step-by-step view (as decision_events is null)
        return web.api({"game": None, "frames": None, "error": str(exc)})
    return Response(body, media_type="application/json")


def api_board(request: Request) -> Response:
    """``/api/board?game=NAME``: the board of a game as its viewer draws it."""
    game = request.query_params.get("game")
    if not game:
        raise HTTPException(400, "name the game: /api/board?game=NAME")
    try:
        return JSONResponse(board_json(game))
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None

"""The HTML pages: each draws the data of :mod:`leaderboard.web.data` with a template.

Lists are bounded: the leaderboard lists the newest tournaments, a tournament page
its newest matches, a bot page its recent matches, each with a link to the whole
list, which is paged (``/matches``, ``/tournaments``, ``/bots``: ``limit`` rows and a
*next page* link carrying the cursor).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from leaderboard import match_lists, paging
from leaderboard.rows import SECRET_UNTIL_FINISHED
from leaderboard.web.charts import rating_chart
from leaderboard.web.context import Web
from leaderboard.web.games import viewer_context
from leaderboard.web.data import (
    _forfeit_reasons,
    _replay_match_field,
    board_context,
    bot_info_json,
    bot_json,
    leaderboard_json,
    match_page_json,
    match_summary_json,
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

TOURNAMENT_MATCHES = 50  # the newest matches a tournament page lists
INDEX_TOURNAMENTS = 20  # the newest tournaments the leaderboard page lists


def index(request: Request) -> Response:
    web = Web.of(request)
    s = web.store
    newest = paging.tournament_page(s, limit=INDEX_TOURNAMENTS, newest_first=True)
    games = s.games()
    game = game_param(request, games)
    return web.page(request, "leaderboard.html", {
        "title": "Leaderboard",
        **board_context(leaderboard_json(s, web.ratings, None, players_param(request), versions_param(request),
                                         game, games)),
        "tournaments": tournaments_json(s, newest.items),
        "more_tournaments": newest.next_cursor is not None,
    })


def tournaments_page(request: Request) -> Response:
    web = Web.of(request)
    found = paging.tournament_page(web.store, limit=limit_param(request), cursor=cursor_param(request),
                                    newest_first=True)
    return web.page(request, "tournaments.html", {
        "title": "Tournaments",
        "tournaments": tournaments_json(web.store, found.items),
        "next_page": next_link(request, found.next_cursor),
    })


def tournament_page(request: Request) -> Response:
    web = Web.of(request)
    s = web.store
    tid = tournament_path(request)
    board = leaderboard_json(s, web.ratings, tid, players_param(request), True)  # one version of each bot plays it
    visibility = Visibility(s)
    found = match_lists.match_page(s, tournament_id=tid, limit=TOURNAMENT_MATCHES)
    return web.page(request, "tournament.html", {
        "title": f"Tournament {tid}",
        **board_context(board),
        "tournament": board["tournament"],
        "progress": progress_json(s, s.get_tournament(tid)),
        "matches": [match_summary_json(m, visibility.published(m)) for m in found.items],
        "more_matches": None if found.next_cursor is None else f"?tournament={tid}&cursor={found.next_cursor}",
        "secret": SECRET_UNTIL_FINISHED,
    })


def bots_page(request: Request) -> Response:
    web = Web.of(request)
    found = paging.bot_page(web.store, limit=limit_param(request), cursor=cursor_param(request))
    played: dict[Any, int] = {}
    for game in web.store.games():  # a bot's matches in every game
        for participant, n in web.ratings.get(web.store, None, all_versions=True, game=game).played.items():
            played[participant] = played.get(participant, 0) + n
    matches: dict[str, int] = {}
    for participant, n in played.items():
        name = str(participant).rpartition("@")[0]
        matches[name] = matches.get(name, 0) + n
    bots = [{**bot_info_json(b), "matches": matches.get(b.name, 0)} for b in found.items]
    return web.page(request, "bots.html", {"title": "Bots", "bots": bots,
                                           "next_page": next_link(request, found.next_cursor)})


def bot_page(request: Request) -> Response:
    web = Web.of(request)
    tid = tournament_param(request)
    data = bot_json(web.store, web.ratings, request.path_params["name"], tid, isolation=web.isolation,
                    game=game_param(request, web.store.games(), default_first=False))
    return web.page(request, "bot.html", {
        "title": data["bot"]["participant"],
        "data": data,
        "chart": rating_chart(data["history"]),
    })


def matches_page(request: Request) -> Response:
    """``/matches``: every match (of a tournament, of a bot), newest first, a page at a time."""
    web = Web.of(request)
    s = web.store
    tid = tournament_param(request)
    bot = request.query_params.get("bot") or None
    found = match_lists.match_page(s, tournament_id=tid, bot=bot, limit=limit_param(request),
                               cursor=cursor_param(request))
    visibility = Visibility(s)
    what = " · ".join(part for part in (f"tournament {tid}" if tid else "", f"bot {bot}" if bot else "") if part)
    context: dict[str, Any] = {
        "title": "Matches",
        "scope": what,
        "bot": bot,
        "tournament_id": tid,
        "matches": [match_summary_json(m, visibility.published(m)) for m in found.items],
        "next_page": next_link(request, found.next_cursor),
        "first_page": bool(cursor_param(request)),
    }
    return web.page(request, "matches.html", context)


def match_page(request: Request) -> Response:
    web = Web.of(request)
    s = web.store
    data = match_page_json(s, request.path_params["match_id"], Visibility(s))
    return web.page(request, "match.html", {
        "title": f"Match {data['id']}",
        "match": data,
        "forfeit_reasons": _forfeit_reasons(data),
        "debug": _replay_match_field(data, "debug"),
        "notes": _replay_match_field(data, "notes"),
        "restarts": _replay_match_field(data, "restarts"),
        "versions": data["versions"],
        "secret": SECRET_UNTIL_FINISHED,
        **viewer_context(data["game"]),
    })

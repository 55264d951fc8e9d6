"""The read-only web pages and the JSON endpoints behind them (Starlette + Jinja2).

:func:`create_app` builds the application ``arena serve`` runs: the routes, the error
pages and the templates.  What each route does lives by what it is:
:mod:`leaderboard.web.pages` (HTML), :mod:`leaderboard.web.api` (JSON),
:mod:`leaderboard.web.data` (the JSON-ready data both draw on),
:mod:`leaderboard.web.fits` (the cached rating fits), :mod:`leaderboard.web.charts`
(the rating chart) and :mod:`leaderboard.web.params` (what a request may ask, pages).
Every page is rendered from the same JSON-ready data that its endpoint under
``/api/`` returns (documented in docs/web.md), so what a page shows can be checked
against the API and, through the API, against the store.  The replay viewer of a
match is its game's, served from the game's kit (:mod:`leaderboard.web.games`): it draws
the states the game's engine had after each event (``/api/replay-view/MATCH``), with the
controls of static/replay-core.js.

Everything that users submitted (bot names, versions, authors, debug text) reaches
HTML only through Jinja2 with autoescape on, and the scripts only write text with
``textContent``.  Bot names are free text, so links carry them percent-encoded.

Secrets stay secret while a competitor could use them: until a tournament is
finished its seed (the key every deal derives from), its matches' deck seeds,
replays, fault details and bot debug text are left out of every page and endpoint
(:class:`Visibility`); results, ratings and isolation are shown as they come in.
The addresses of bots registered by address are never shown (:class:`Redactor`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from leaderboard.errors import (
    CorruptDataError,
    UnknownBotError,
    UnknownMatchError,
    UnknownTournamentError,
)
from leaderboard.paging import BadCursor
from leaderboard.store import Store
from leaderboard.web import api, pages
from leaderboard.web.cache import DEFAULT_MAX_BYTES, ResponseCache, cached
from leaderboard.web.charts import rating_chart  # noqa: F401 (re-exported)
from leaderboard.web.context import Web
from leaderboard.web.games import fragment_loader, static_mounts
from leaderboard.web.params import MAX_WHOLE_NUMBER, whole_number  # noqa: F401 (re-exported)
from leaderboard.web.progress import duration_text
from leaderboard.web.publication import ReplayNotPublished
from leaderboard.web.security import SecurityHeaders

__all__ = ["create_app", "duration_text"]

HERE = Path(__file__).resolve().parent

_NOT_FOUND = (UnknownBotError, UnknownMatchError, UnknownTournamentError)


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(HERE / "templates"), fragment_loader()]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = lambda value, spec: "" if value is None else format(value, spec)
    env.filters["duration"] = duration_text
    return Jinja2Templates(env=env)


def _wants_json(request: Request) -> bool:
    root = request.scope.get("root_path", "").rstrip("/")
    return request.url.path.startswith(f"{root}/api/")


def _error(request: Request, status: int, title: str, message: str) -> Response:
    web = Web.of(request)
    if _wants_json(request):
        return web.api({"error": message, "status": status}, status_code=status)
    return web.page(request, "error.html", {"title": title, "status": status, "message": message},
                    status_code=status)


def _not_found(request: Request, exc: Exception) -> Response:
    return _error(request, 404, "Not found", str(exc))


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return _error(request, 404, "Not found", f"There is no page at {request.url.path}.")
    return _error(request, exc.status_code, "Bad request" if exc.status_code == 400 else "Error", exc.detail)


def _bad_request(request: Request, exc: Exception) -> Response:
    return _error(request, 400, "Bad request", str(exc))


def _corrupt(request: Request, exc: Exception) -> Response:
    return _error(request, 500, "Unreadable data", f"The stored data cannot be read: {exc}")


def _not_published(request: Request, exc: Exception) -> Response:
    return _error(request, 403, "Not published yet", str(exc))


def _version(request: Request) -> Any:
    return Web.of(request).version()


def _tracker(request: Request) -> Any:
    return Web.of(request).tracker()


#: Answers kept by data version (:mod:`leaderboard.web.cache`): every page and endpoint
#: but the replay views (kept by match, :class:`~leaderboard.web.games.ViewCache`) and the
#: boards (the same for ever).  Each answer is kept with the rating fits it was made from
#: (:mod:`leaderboard.web.tracked`).
_kept = cached(_version, _tracker)

#: How old a tournament's progress may be (seconds): it is made of the clock and of the
#: workers' claims, which the data version does not count; every viewer of a running
#: tournament asks for it every 5 seconds, and a million matches' server makes it in
#: 10-30 ms (9 small queries), so viewers within a second share one.
PROGRESS_TTL_S = 1.0
_polled = cached(_version, ttl_s=lambda: PROGRESS_TTL_S)

ROUTES = [
    Route("/", _kept(pages.index), name="index"),
    Route("/tournaments", _kept(pages.tournaments_page), name="tournaments"),
    Route("/tournaments/{tournament_id:int}", _kept(pages.tournament_page), name="tournament"),
    Route("/bots", _kept(pages.bots_page), name="bots"),
    Route("/bots/{name:path}", _kept(pages.bot_page), name="bot"),
    Route("/matches", _kept(pages.matches_page), name="matches"),
    Route("/matches/{match_id:path}", _kept(pages.match_page), name="match"),
    Route("/api/leaderboard", _kept(api.api_leaderboard)),
    Route("/api/tournaments", _kept(api.api_tournaments)),
    Route("/api/tournaments/{tournament_id:int}", _kept(api.api_tournament)),
    Route("/api/tournaments/{tournament_id:int}/progress", _polled(api.api_tournament_progress)),
    Route("/api/bots", _kept(api.api_bots)),
    Route("/api/bots/{name:path}", _kept(api.api_bot)),
    Route("/api/matches", _kept(api.api_matches)),
    Route("/api/matches/{match_id:path}", _kept(api.api_match)),
    Route("/api/replay-view/{match_id:path}", api.api_replay_view),
    Route("/api/board", api.api_board),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]


def create_app(db_url: str | None = None, *, cache_bytes: int = DEFAULT_MAX_BYTES) -> Starlette:
    """The web application over the store at ``db_url`` (default: as ``Store.open`` resolves it).

    The store is opened when the application starts (its lifespan) and closed when it stops.
    ``cache_bytes``: the most the answers kept by data version may hold (0: none kept).
    """
    web = Web(templates=_templates(), responses=ResponseCache(cache_bytes))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        web.holder["store"] = Store.open(db_url)
        try:
            yield
        finally:
            web.holder.pop("store").close()

    handlers: dict[Any, Callable[[Request, Exception], Response]] = {
        HTTPException: _http_error,
        BadCursor: _bad_request,
        CorruptDataError: _corrupt,
        ReplayNotPublished: _not_published,
        **{cls: _not_found for cls in _NOT_FOUND},
    }
    app = Starlette(routes=[*static_mounts(), *ROUTES], exception_handlers=handlers, lifespan=lifespan,
                    middleware=[Middleware(SecurityHeaders)])
    app.state.web = web
    app.state.responses = web.responses
    return app

"""What every request handler reaches: the store, the caches and the templates (:class:`Web`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates

from leaderboard import tallies
from leaderboard.store import Store
from leaderboard.web.cache import ResponseCache
from leaderboard.web.fits import RatingsCache
from leaderboard.web.games import ViewCache
from leaderboard.web.publication import Redactor, _IsolationCache
from leaderboard.web.tracked import TrackedRatings


def links(request: Request) -> dict[str, Callable[..., str]]:
    """Link builders for templates; free-text parts are percent-encoded (``/`` too)."""
    root = request.scope.get("root_path", "").rstrip("/")

    def bot(name: str, tournament: int | None = None) -> str:
        url = f"{root}/bots/{quote(name, safe='')}"
        return url if tournament is None else f"{url}?tournament={tournament}"

    def matches(bot: str | None = None, tournament: int | None = None, cursor: str | None = None) -> str:
        params = [(k, str(v)) for k, v in (("bot", bot), ("tournament", tournament), ("cursor", cursor))
                  if v is not None]
        return f"{root}/matches" + (f"?{urlencode(params)}" if params else "")

    return {
        "root": lambda: f"{root}/",
        "static": lambda path: f"{root}/static/{path}",
        "api": lambda path: f"{root}/api/{path}",
        "bot_href": bot,
        "bot_api_href": lambda name: f"{root}/api/bots/{quote(name, safe='')}",
        "match_href": lambda match_id: f"{root}/matches/{quote(match_id, safe='')}",
        "match_api_href": lambda match_id: f"{root}/api/matches/{quote(match_id, safe='')}",
        "view_api_href": lambda match_id: f"{root}/api/replay-view/{quote(match_id, safe='')}",
        "matches_href": matches,
        "tournament_href": lambda tid: f"{root}/tournaments/{int(tid)}",
    }


@dataclass
class Web:
    """The application's state: the store (open while the application runs), the rating
    fits, the isolation of each match, the replay views, the answers made (keyed by the
    data version, :mod:`leaderboard.web.cache`), and the templates."""

    templates: Jinja2Templates
    ratings: RatingsCache = field(default_factory=TrackedRatings)
    isolation: _IsolationCache = field(default_factory=_IsolationCache)
    views: ViewCache = field(default_factory=ViewCache)
    responses: ResponseCache = field(default_factory=ResponseCache)
    holder: dict[str, Store] = field(default_factory=dict)

    @classmethod
    def of(cls, request: Request) -> "Web":
        web = request.app.state.web
        assert isinstance(web, Web)
        return web

    @property
    def store(self) -> Store:
        return self.holder["store"]

    def version(self) -> tuple[Any, ...]:
        """What every answer depends on: the store's data version; and, unless the rating fits
        are tracked per scope (:meth:`tracker`), the number of fits made."""
        data = tallies.data_version(self.store)
        return (data,) if isinstance(self.ratings, TrackedRatings) else (data, self.ratings.fits_made)

    def tracker(self) -> TrackedRatings | None:
        """What notes the rating fits each answer used (a fit of one scope remakes only the
        answers made from that scope's fit), if the fits are tracked per scope."""
        return self.ratings if isinstance(self.ratings, TrackedRatings) else None

    def page(self, request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
        context = Redactor.of(self.store).clean(context) if "store" in self.holder else context
        return self.templates.TemplateResponse(
            request, name, {**links(request), **context}, status_code=status_code
        )

    def api(self, data: Any, status_code: int = 200) -> JSONResponse:
        data = Redactor.of(self.store).clean(data) if "store" in self.holder else data
        return JSONResponse(data, status_code=status_code)

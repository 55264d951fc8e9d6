"""The read-only web pages and the JSON endpoints behind them (Starlette + Jinja2).

:func:`create_app` builds the application ``arena serve`` runs.  Every page is
rendered from the same JSON-ready data that its endpoint under ``/api/`` returns
(documented in docs/web.md), so what a page shows can be checked against the API
and, through the API, against the store.  The replay viewer (static/replay.js)
folds a stored replay's events in the browser.

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
import hashlib
import math
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from arena.games.base import ReplayError
from arena.replay import action_event_spans
from leaderboard.errors import (
    CorruptDataError,
    UnknownBotError,
    UnknownMatchError,
    UnknownTournamentError,
)
from leaderboard.ratings import live_elo_history
from leaderboard.rows import (
    IMAGINARY_PARTICIPANT,
    SECRET_UNTIL_FINISHED,
    BotRow,
    MatchRow,
    SeatRow,
    TournamentRow,
)
from leaderboard.standings import Leaderboard, Standing, compute_leaderboard
from leaderboard.store import Store
from leaderboard.web.board import COMPANY_COLOURS, COMPANY_SHAPES, TRACK_STYLES, board_json  # noqa: F401 (re-exported)
from leaderboard.web.progress import duration_text, progress_json, schedule_total
from leaderboard.web.standings_view import (
    cross_matrix,
    cross_table_json,
    interval_bars,
    superiority_json,
    superiority_matrix,
)
from leaderboard.web.security import SecurityHeaders
from leaderboard.web.publication import (
    DETAIL_HIDDEN,
    Redactor,
    ReplayNotPublished,
    Visibility,
    _IsolationCache,
    isolation_json,
    public_replay,
)

__all__ = ["COMPANY_COLOURS", "COMPANY_SHAPES", "TRACK_STYLES", "create_app", "duration_text"]

HERE = Path(__file__).resolve().parent
RECENT_MATCHES = 20  # on a bot page
TOURNAMENT_MATCHES = 500  # listed on a tournament page

_NOT_FOUND = (UnknownBotError, UnknownMatchError, UnknownTournamentError)


# -- links ------------------------------------------------------------------------


def _links(request: Request) -> dict[str, Callable[..., str]]:
    """Link builders for templates; free-text parts are percent-encoded (``/`` too)."""
    root = request.scope.get("root_path", "").rstrip("/")

    def bot(name: str, tournament: int | None = None) -> str:
        url = f"{root}/bots/{quote(name, safe='')}"
        return url if tournament is None else f"{url}?tournament={tournament}"

    return {
        "root": lambda: f"{root}/",
        "static": lambda path: f"{root}/static/{path}",
        "api": lambda path: f"{root}/api/{path}",
        "bot_href": bot,
        "bot_api_href": lambda name: f"{root}/api/bots/{quote(name, safe='')}",
        "match_href": lambda match_id: f"{root}/matches/{quote(match_id, safe='')}",
        "match_api_href": lambda match_id: f"{root}/api/matches/{quote(match_id, safe='')}",
        "tournament_href": lambda tid: f"{root}/tournaments/{int(tid)}",
    }


# -- JSON-ready data (the API, and the pages' input) ---------------------------------


def tournament_json(store: Store, row: TournamentRow) -> dict[str, Any]:
    """A tournament; ``seed`` only once it is finished (``published`` says which)."""
    data: dict[str, Any] = {
        "id": row.id,
        "game": row.game,
        "status": str(row.status),
        "published": row.finished,
    }
    if row.finished:
        data["seed"] = row.seed
    return {
        **data,
        "config": row.config,
        "created_at": row.created_at.isoformat(),
        "updated_at": row.updated_at.isoformat(),
        "matches_stored": len(store.stored_schedule_indexes(row.id)),
        "matches_total": schedule_total(row.config),
    }


def _seat_json(seat: SeatRow, published: bool = True) -> dict[str, Any]:
    faults = [f.to_json() for f in seat.faults]
    if not published:
        faults = [{**f, "detail": DETAIL_HIDDEN} for f in faults]
    return {
        "seat": seat.seat,
        "bot": seat.bot,
        "cash": seat.cash,
        "place": seat.place,
        "forfeited": seat.forfeited,
        "fault_count": seat.fault_count,
        "faults": faults,
        "behind_imaginary": seat.behind_imaginary,
    }


def match_summary_json(row: MatchRow, published: bool = True) -> dict[str, Any]:
    """A match's result; its deck seed (``seed``) and fault details only when ``published``."""
    data: dict[str, Any] = {
        "id": row.id,
        "tournament_id": row.tournament_id,
        "schedule_index": row.schedule_index,
        "round": row.round,
        "game": row.game,
        "published": published,
    }
    if published:
        data["seed"] = row.seed
    return {
        **data,
        "variant": row.variant,
        "table_size": row.table_size,
        "status": str(row.status),
        "termination": row.termination.value,
        "started_at": row.started_at.isoformat(),
        "duration_s": row.duration_s,
        "imaginary": (
            None
            if row.imaginary_place is None
            else {"cash": row.imaginary_cash, "place": row.imaginary_place}
        ),
        "seats": [_seat_json(s, published) for s in row.seats],
    }


def bot_info_json(row: BotRow) -> dict[str, Any]:
    """What the pages show of a bot version (not where its files or process live)."""
    return {
        "name": row.name,
        "participant": row.participant,
        "number": row.number,
        "current": row.current,
        "version": row.version,
        "author": row.author,
        "language": row.language,
        "files_sha256": row.files_sha256,
        "added_at": row.added_at.isoformat(),
        "removed_at": None if row.removed_at is None else row.removed_at.isoformat(),
    }


def standing_json(row: Standing) -> dict[str, Any]:
    return {**row.to_json(), "ci_half_width": row.ci_half_width}


@dataclass(frozen=True)
class _Fit:
    board: Leaderboard
    history: list[tuple[str, dict[str, float]]]  # live Elo after each match, in schedule order

    @property
    def standings(self) -> list[Standing]:
        return self.board.standings


class _Ratings:
    """Leaderboards and live-Elo history per scope (tournament, table size), refitted only
    when the stored results of the scope change.

    The pages never write: ratings are computed with ``save=False``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fits: dict[tuple[int | None, int | None, bool], tuple[str, _Fit]] = {}

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False) -> _Fit:
        matches = store.rated_matches(tournament_id, table_size=players)
        digest = hashlib.sha256()
        for m in matches:
            digest.update(f"{m.key}\n".encode())
        for bot in store.list_bots(include_removed=True):  # a new version changes which row is current
            digest.update(f"{bot.participant}\n".encode())
        key = digest.hexdigest()
        with self._lock:
            cached = self._fits.get((tournament_id, players, all_versions))
            if cached is not None and cached[0] == key:
                return cached[1]
        fit = _Fit(
            board=compute_leaderboard(store, tournament_id, players=players, save=False,
                                      all_versions=all_versions),
            history=live_elo_history(matches),
        )
        with self._lock:
            self._fits[(tournament_id, players, all_versions)] = (key, fit)
        return fit


def leaderboard_json(store: Store, ratings: _Ratings, tournament_id: int | None,
                     players: int | None = None, all_versions: bool = False) -> dict[str, Any]:
    """The standings of a scope (each bot's newest version with results, or every version with
    ``all_versions``), the likelihood of superiority between neighbours and the cross-table."""
    tournament = None if tournament_id is None else tournament_json(store, store.get_tournament(tournament_id))
    board = ratings.get(store, tournament_id, players, all_versions).board
    return {
        "tournament": tournament,
        "players": players,
        "table_sizes": board.table_sizes,
        "reference_participant": IMAGINARY_PARTICIPANT,
        "all_versions": all_versions,
        "rows": [standing_json(s) for s in board.standings],
        "bootstrap": {"resamples": board.resamples, "method": board.method},
        "superiority": superiority_json(board),
        "cross_table": cross_table_json(board),
    }


def board_context(board: dict[str, Any]) -> dict[str, Any]:
    """What the leaderboard templates draw from a :func:`leaderboard_json` answer."""
    return {"board": board, "bars": interval_bars(board["rows"]), "los": superiority_matrix(board),
            "cross": cross_matrix(board)}


# -- bots and matches -----------------------------------------------------------------


def bot_json(store: Store, ratings: _Ratings, name: str, tournament_id: int | None, *,
             visibility: Visibility | None = None, isolation: _IsolationCache | None = None) -> dict[str, Any]:
    """A bot version's page: rating, history, head-to-head, faults, forfeits, recent matches,
    and the bot's versions.  ``name`` is a bot (its current version) or ``NAME@NUMBER``."""
    visibility = visibility if visibility is not None else Visibility(store)
    isolation = isolation if isolation is not None else _IsolationCache()
    bot = store.get_bot(name)
    name = bot.participant
    tournament = None if tournament_id is None else tournament_json(store, visibility.tournament(tournament_id))
    fit = ratings.get(store, tournament_id, all_versions=True)
    standing = next((s for s in fit.standings if s.name == name), None)
    rated = {s.name: s for s in fit.standings}
    counts = {b.bot: b.matches for b in store.bot_stats(tournament_id)}
    versions = [
        {**bot_info_json(v), "matches": counts.get(v.participant, 0),
         "elo": rated[v.participant].elo if v.participant in rated else None}
        for v in reversed(store.bot_versions(bot.name))
    ]
    history = [
        {"match_id": key, "match_number": number, "elo": after[name]}
        for number, (key, after) in enumerate(fit.history, start=1)
        if name in after
    ]
    played = store.list_matches(bot=name)
    matches = [m for m in played if tournament_id is None or m.tournament_id == tournament_id]
    opponents: dict[str, dict[str, int]] = defaultdict(
        lambda: {"matches": 0, "ahead": 0, "behind": 0, "tied": 0}
    )
    faults: list[dict[str, Any]] = []
    forfeits: list[dict[str, Any]] = []
    for match in reversed(matches):  # oldest first
        mine = next(s for s in match.seats if s.bot == name)
        others = [(s.bot, s.place) for s in match.seats if s.bot != name]
        if match.imaginary_place is not None:
            others.append((IMAGINARY_PARTICIPANT, match.imaginary_place))
        for other, place in others:
            h2h = opponents[other]
            h2h["matches"] += 1
            outcome = "ahead" if mine.place < place else "behind" if mine.place > place else "tied"
            h2h[outcome] += 1
        published = visibility.published(match)
        faults.extend({"match_id": match.id, **f.to_json(), **({} if published else {"detail": DETAIL_HIDDEN})}
                      for f in mine.faults)
        if mine.forfeited:
            forfeits.append({"match_id": match.id, "seat": mine.seat, "place": mine.place})
    head_to_head = [
        {"opponent": other, "reference": other == IMAGINARY_PARTICIPANT, **counts}
        for other, counts in sorted(opponents.items(), key=lambda kv: (kv[0] == IMAGINARY_PARTICIPANT, kv[0]))
    ]
    recent = []
    for match in matches[:RECENT_MATCHES]:
        mine = next(s for s in match.seats if s.bot == name)
        recent.append({**match_summary_json(match, visibility.published(match)),
                       "isolation": isolation.get(store, match.id),
                       "place": mine.place, "cash": mine.cash, "forfeited": mine.forfeited, "seat": mine.seat})
    return {
        "bot": bot_info_json(bot),
        "tournament": tournament,
        "standing": None if standing is None else standing_json(standing),
        "history": history,
        "head_to_head": head_to_head,
        "faults": faults,
        "forfeits": forfeits,
        "matches": len(matches),
        "recent_matches": recent,
        "tournaments": sorted({m.tournament_id for m in played}),
        "versions": versions,  # newest first
    }


def _load_match(store: Store, match_id: str) -> tuple[MatchRow, dict[str, Any] | None, str | None]:
    """The match row, its replay, and why the replay is unreadable (None when it reads)."""
    try:
        row = store.get_match(match_id)
    except CorruptDataError as exc:
        return _match_without_replay(store, match_id), None, str(exc)
    return row, row.replay, None


def _full_match_json(row: MatchRow, replay: dict[str, Any] | None, error: str | None,
                     with_decisions: bool = True) -> dict[str, Any]:
    return {**match_summary_json(row), "isolation": isolation_json(replay), "extra": row.extra,
            "replay": None if replay is None else public_replay(replay), "replay_error": error,
            "decision_events": None if replay is None or not with_decisions else decision_events(replay)}


def decision_events(replay: dict[str, Any]) -> list[list[int]] | None:
    """For each decision (action) of the replay, the events it produced, ``[first, end)``.

    The game says so by re-playing the actions (a few ms); None when the replay cannot
    be re-played to its stored events.  Decision numbers (faults, debug lines) index it.
    """
    try:
        return [[first, end] for first, end in action_event_spans(replay)]
    except ReplayError:
        return None


def match_json(store: Store, match_id: str, visibility: Visibility | None = None) -> dict[str, Any]:
    """The match with its replay; ``replay`` is None and ``replay_error`` says why when it is unreadable.

    :class:`ReplayNotPublished` while the match is not public (see :class:`Visibility`).
    """
    visibility = visibility if visibility is not None else Visibility(store)
    row, replay, error = _load_match(store, match_id)
    if not visibility.published(row):
        raise ReplayNotPublished(visibility.hidden_message(row))
    return _full_match_json(row, replay, error)


def match_page_json(store: Store, match_id: str, visibility: Visibility) -> dict[str, Any]:
    """What the match page shows: :func:`match_json` (``decision_events`` left None: only the
    viewer reads them, from the API) plus ``replay_hidden`` (None, or why the replay is not
    shown) and the bots' ``versions`` by seat; a match not yet public has its result,
    versions and isolation only."""
    row, replay, error = _load_match(store, match_id)
    versions = {seat.get("seat"): seat.get("version") for seat in _replay_match_field({"replay": replay}, "seats")}
    if visibility.published(row):
        return {**_full_match_json(row, replay, error, with_decisions=False), "replay_hidden": None,
                "versions": versions}
    return {**match_summary_json(row, published=False), "isolation": isolation_json(replay), "extra": {},
            "replay": None, "replay_error": None, "decision_events": None,
            "replay_hidden": visibility.hidden_message(row),
            "versions": versions}


def _match_without_replay(store: Store, match_id: str) -> MatchRow:
    """The match row when its stored replay is corrupt (listings never parse replays)."""
    for row in store.list_matches():
        if row.id == match_id:
            return row
    raise UnknownMatchError(f"no match with id {match_id!r}")  # pragma: no cover - get_match found it


# -- the rating chart (inline SVG, drawn here) ---------------------------------------


def rating_chart(history: list[dict[str, Any]], width: int = 640, height: int = 220) -> dict[str, Any] | None:
    """Coordinates for an SVG line chart of live Elo against the bot's match count."""
    if not history:
        return None
    left, right, top, bottom = 48, 12, 12, 28
    elos = [p["elo"] for p in history]
    low = math.floor((min(min(elos), 1500.0) - 10) / 50) * 50
    high = math.ceil((max(max(elos), 1500.0) + 10) / 50) * 50
    step = max(50, math.ceil((high - low) / 5 / 50) * 50)
    n = len(history)

    def x(i: int) -> float:
        return left + (width - left - right) * (i / (n - 1) if n > 1 else 0.5)

    def y(elo: float) -> float:
        return top + (height - top - bottom) * (high - elo) / (high - low)

    points = [
        {"x": round(x(i), 1), "y": round(y(p["elo"]), 1), "elo": p["elo"], "match_id": p["match_id"], "n": i + 1}
        for i, p in enumerate(history)
    ]
    x_ticks = sorted({0, n - 1} | {round(k * (n - 1) / 4) for k in range(5)}) if n > 1 else [0]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
        "points": points,
        "y_ticks": [{"y": round(y(v), 1), "label": str(v)} for v in range(int(low), int(high) + 1, step)],
        "x_ticks": [{"x": round(x(i), 1), "label": str(i + 1)} for i in x_ticks],
        "baseline": round(y(1500.0), 1),
    }


# -- the application ----------------------------------------------------------------


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = lambda value, spec: "" if value is None else format(value, spec)
    env.filters["duration"] = duration_text
    return Jinja2Templates(env=env)


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


def _tournament_param(request: Request) -> int | None:
    raw = request.query_params.get("tournament")
    if raw is None or raw == "":
        return None
    return whole_number(raw, "tournament (a tournament id)", minimum=1)


def _players_param(request: Request) -> int | None:
    raw = request.query_params.get("players")
    if raw is None or raw == "":
        return None
    return whole_number(raw, "players (a table size)", minimum=1, maximum=99)


def _tournament_path(request: Request) -> int:
    return whole_number(request.path_params["tournament_id"], "the tournament id", minimum=1)


def _versions_param(request: Request) -> bool:
    """``?versions=all``: every bot version; ``?versions=current`` (the default): each bot's newest."""
    raw = request.query_params.get("versions", "current")
    if raw not in ("all", "current", ""):
        raise HTTPException(400, f"versions must be 'all' or 'current', got {raw!r}")
    return raw == "all"


def create_app(db_url: str | None = None) -> Starlette:
    """The web application over the store at ``db_url`` (default: as ``Store.open`` resolves it).

    The store is opened when the application starts (its lifespan) and closed when it stops.
    """
    templates = _templates()
    ratings = _Ratings()
    isolation = _IsolationCache()
    holder: dict[str, Store] = {}

    def store() -> Store:
        return holder["store"]

    def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
        context = Redactor.of(store()).clean(context) if "store" in holder else context
        return templates.TemplateResponse(
            request, name, {**_links(request), "colours": COMPANY_COLOURS, **context}, status_code=status_code
        )

    def api(data: Any, status_code: int = 200) -> JSONResponse:
        data = Redactor.of(store()).clean(data) if "store" in holder else data
        return JSONResponse(data, status_code=status_code)

    # -- pages ------------------------------------------------------------------------

    def index(request: Request) -> Response:
        s = store()
        return page(request, "leaderboard.html", {
            "title": "Leaderboard",
            **board_context(leaderboard_json(s, ratings, None, _players_param(request),
                                                   _versions_param(request))),
            "tournaments": [tournament_json(s, t) for t in reversed(s.list_tournaments())],
        })

    def tournaments_page(request: Request) -> Response:
        s = store()
        return page(request, "tournaments.html", {
            "title": "Tournaments",
            "tournaments": [tournament_json(s, t) for t in reversed(s.list_tournaments())],
        })

    def tournament_page(request: Request) -> Response:
        s = store()
        tid = _tournament_path(request)
        board = leaderboard_json(s, ratings, tid, _players_param(request), True)  # one version of each bot plays it
        visibility = Visibility(s)
        matches = s.list_matches(tournament_id=tid, limit=TOURNAMENT_MATCHES)
        return page(request, "tournament.html", {
            "title": f"Tournament {tid}",
            **board_context(board),
            "tournament": board["tournament"],
            "progress": progress_json(s, s.get_tournament(tid)),
            "matches": [match_summary_json(m, visibility.published(m)) for m in matches],
            "match_limit": TOURNAMENT_MATCHES,
            "secret": SECRET_UNTIL_FINISHED,
        })

    def bots_page(request: Request) -> Response:
        s = store()
        matches: dict[str, int] = defaultdict(int)
        for b in s.bot_stats():
            matches[b.name] += b.matches
        bots = [
            {**bot_info_json(b), "matches": matches[b.name]}
            for b in s.list_bots(include_removed=True)
        ]
        return page(request, "bots.html", {"title": "Bots", "bots": bots})

    def bot_page(request: Request) -> Response:
        tid = _tournament_param(request)
        data = bot_json(store(), ratings, request.path_params["name"], tid, isolation=isolation)
        return page(request, "bot.html", {
            "title": data["bot"]["participant"],
            "data": data,
            "chart": rating_chart(data["history"]),
        })

    def match_page(request: Request) -> Response:
        s = store()
        data = match_page_json(s, request.path_params["match_id"], Visibility(s))
        return page(request, "match.html", {
            "title": f"Match {data['id']}",
            "match": data,
            "forfeit_reasons": _forfeit_reasons(data),
            "debug": _replay_match_field(data, "debug"),
            "notes": _replay_match_field(data, "notes"),
            "restarts": _replay_match_field(data, "restarts"),
            "versions": data["versions"],
            "secret": SECRET_UNTIL_FINISHED,
        })

    # -- JSON -------------------------------------------------------------------------

    def api_leaderboard(request: Request) -> Response:
        return api(leaderboard_json(store(), ratings, _tournament_param(request), _players_param(request),
                                    _versions_param(request)))

    def api_tournaments(request: Request) -> Response:
        s = store()
        return api([tournament_json(s, t) for t in s.list_tournaments()])

    def api_tournament(request: Request) -> Response:
        s = store()
        tid = _tournament_path(request)
        visibility = Visibility(s)
        data = tournament_json(s, visibility.tournament(tid))
        data["matches"] = [match_summary_json(m, visibility.published(m)) for m in s.list_matches(tournament_id=tid)]
        return api(data)

    def api_tournament_progress(request: Request) -> Response:
        s = store()
        return api(progress_json(s, s.get_tournament(_tournament_path(request))))

    def api_bots(request: Request) -> Response:
        rows = store().list_bots(include_removed=True, all_versions=_versions_param(request))
        return api([bot_info_json(b) for b in rows])

    def api_bot(request: Request) -> Response:
        return api(bot_json(store(), ratings, request.path_params["name"], _tournament_param(request),
                            isolation=isolation))

    def api_matches(request: Request) -> Response:
        raw_limit = request.query_params.get("limit")
        limit = None if raw_limit in (None, "") else whole_number(raw_limit, "limit")
        s = store()
        visibility = Visibility(s)
        rows = s.list_matches(tournament_id=_tournament_param(request),
                              bot=request.query_params.get("bot") or None, limit=limit)
        return api([match_summary_json(m, visibility.published(m)) for m in rows])

    def api_match(request: Request) -> Response:
        return api(match_json(store(), request.path_params["match_id"]))

    def api_board(request: Request) -> Response:
        return JSONResponse(board_json())

    # -- errors -----------------------------------------------------------------------

    def wants_json(request: Request) -> bool:
        root = request.scope.get("root_path", "").rstrip("/")
        return request.url.path.startswith(f"{root}/api/")

    def error(request: Request, status: int, title: str, message: str) -> Response:
        if wants_json(request):
            return api({"error": message, "status": status}, status_code=status)
        return page(request, "error.html", {"title": title, "status": status, "message": message},
                    status_code=status)

    def not_found(request: Request, exc: Exception) -> Response:
        return error(request, 404, "Not found", str(exc))

    def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            message = f"There is no page at {request.url.path}."
            return error(request, 404, "Not found", message)
        return error(request, exc.status_code, "Bad request" if exc.status_code == 400 else "Error", exc.detail)

    def corrupt(request: Request, exc: Exception) -> Response:
        return error(request, 500, "Unreadable data", f"The stored data cannot be read: {exc}")

    def not_published(request: Request, exc: Exception) -> Response:
        return error(request, 403, "Not published yet", str(exc))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        holder["store"] = Store.open(db_url)
        try:
            yield
        finally:
            holder.pop("store").close()

    routes = [
        Route("/", index, name="index"),
        Route("/tournaments", tournaments_page, name="tournaments"),
        Route("/tournaments/{tournament_id:int}", tournament_page, name="tournament"),
        Route("/bots", bots_page, name="bots"),
        Route("/bots/{name:path}", bot_page, name="bot"),
        Route("/matches/{match_id:path}", match_page, name="match"),
        Route("/api/leaderboard", api_leaderboard),
        Route("/api/tournaments", api_tournaments),
        Route("/api/tournaments/{tournament_id:int}", api_tournament),
        Route("/api/tournaments/{tournament_id:int}/progress", api_tournament_progress),
        Route("/api/bots", api_bots),
        Route("/api/bots/{name:path}", api_bot),
        Route("/api/matches", api_matches),
        Route("/api/matches/{match_id:path}", api_match),
        Route("/api/board", api_board),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    handlers: dict[Any, Callable[[Request, Exception], Response]] = {
        HTTPException: http_error,
        CorruptDataError: corrupt,
        ReplayNotPublished: not_published,
        **{cls: not_found for cls in _NOT_FOUND},
    }
    return Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan,
                     middleware=[Middleware(SecurityHeaders)])


def _replay_match_field(data: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """A list the host put in the replay's ``match`` section (empty when absent or malformed)."""
    replay = data.get("replay")
    section = replay.get("match") if isinstance(replay, dict) else None
    value = section.get(field) if isinstance(section, dict) else None
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _forfeit_reasons(data: dict[str, Any]) -> dict[int, str]:
    return {
        f["seat"]: str(f.get("reason", ""))
        for f in _replay_match_field(data, "forfeits")
        if isinstance(f.get("seat"), int)
    }

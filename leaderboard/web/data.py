"""The JSON-ready data of the pages and the API: what ``/api/...`` returns is what the page
with the same path draws (documented in docs/web.md).

Everything here is bounded, however many matches are stored: standings and the bot
pages' history and head-to-head come from the cached fit of the scope
(:mod:`leaderboard.web.fits`); lists of matches are pages (:mod:`leaderboard.match_lists`),
a bot's recent matches and its newest faults and forfeits a fixed number of rows.

Secrets stay secret while a competitor could use them (:class:`Visibility`): until a
tournament is finished its seed, its matches' deck seeds, replays, fault details and
bot debug text are left out.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import ReplayError
from arena.replay import action_event_spans
from leaderboard import bot_activity, match_lists, tallies
from leaderboard.errors import CorruptDataError
from leaderboard.match_details import match_without_replay
from arena.games import game_spec
from arena.records import is_reference_participant
from leaderboard.rows import BotRow, MatchRow, SeatRow, TournamentRow
from leaderboard.standings import Standing
from leaderboard.store import Store
from leaderboard.web.fits import RatingsCache
from leaderboard.web.games import ViewCache
from leaderboard.web.progress import schedule_total
from leaderboard.web.publication import (
    DETAIL_HIDDEN,
    ReplayNotPublished,
    Visibility,
    _IsolationCache,
    isolation_json,
    public_replay,
)
from leaderboard.web.standings_view import (
    cross_matrix,
    cross_table_json,
    interval_bars,
    superiority_json,
    superiority_matrix,
)

RECENT_MATCHES = 20  # on a bot page (the rest: a link to the list of its matches)
INCIDENT_MATCHES = 50  # matches whose faults and forfeits a bot page lists, newest first


def tournament_json(store: Store, row: TournamentRow, stored: int | None = None) -> dict[str, Any]:
    """A tournament; ``seed`` only once it is finished (``published`` says which).
    ``stored``: its stored matches, when the caller counted them already."""
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
        "matches_stored": tallies.match_count(store, row.id) if stored is None else stored,
        "matches_total": schedule_total(row.config, row.game),
    }


def tournaments_json(store: Store, rows: list[TournamentRow]) -> list[dict[str, Any]]:
    """Several tournaments, their matches counted in one query."""
    counts = tallies.match_counts(store) if rows else {}
    return [tournament_json(store, t, counts.get(t.id, 0)) for t in rows]


def _seat_json(seat: SeatRow, published: bool = True) -> dict[str, Any]:
    faults = [f.to_json() for f in seat.faults]
    if not published:
        faults = [{**f, "detail": DETAIL_HIDDEN} for f in faults]
    return {
        "seat": seat.seat,
        "bot": seat.bot,
        "score": seat.score,
        "place": seat.place,
        "forfeited": seat.forfeited,
        "fault_count": seat.fault_count,
        "faults": faults,
    }


def score_json(game: str) -> dict[str, str]:
    """What a game's scores are called and counted in (its spec's score_name, score_unit)."""
    try:
        spec = game_spec(game)
    except ValueError:  # a game this Arena does not know
        return {"score_name": "score", "score_unit": ""}
    return {"score_name": spec.score_name, "score_unit": spec.score_unit}


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
        **score_json(row.game),
        "seats": [_seat_json(s, published) for s in row.seats],
        "references": [{"name": r.name, "participant": r.participant, "score": r.score, "place": r.place}
                       for r in row.references],
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



def leaderboard_json(store: Store, ratings: RatingsCache, tournament_id: int | None,
                     players: int | None = None, all_versions: bool = False, game: str | None = None,
                     games: list[str] | None = None) -> dict[str, Any]:
    """The standings of a scope (each bot's newest version with results, or every version with
    ``all_versions``), the likelihood of superiority between neighbours and the cross-table.
    Ratings are per game: the overall scope is ``game``'s (``games``: the store's games)."""
    tournament = None if tournament_id is None else tournament_json(store, store.get_tournament(tournament_id))
    fit = ratings.get(store, tournament_id, players, all_versions, game)
    board = fit.board
    return {
        "tournament": tournament,
        "game": board.game,
        "games": games if games is not None else store.games(),
        **score_json(board.game or ""),
        "players": players,
        "table_sizes": board.table_sizes,
        "reference_participants": [s.name for s in board.standings if s.reference],
        "all_versions": all_versions,
        "rows": [standing_json(s) for s in board.standings],
        "bootstrap": {"resamples": board.resamples, "method": board.method},
        "superiority": superiority_json(board),
        "cross_table": cross_table_json(board),
        "fit": fit.freshness(),
    }


def board_context(board: dict[str, Any]) -> dict[str, Any]:
    """What the leaderboard templates draw from a :func:`leaderboard_json` answer."""
    return {"board": board, "bars": interval_bars(board["rows"]), "los": superiority_matrix(board),
            "cross": cross_matrix(board)}


# -- bots and matches -----------------------------------------------------------------


def bot_json(store: Store, ratings: RatingsCache, name: str, tournament_id: int | None, *,
             visibility: Visibility | None = None, isolation: _IsolationCache | None = None,
             game: str | None = None) -> dict[str, Any]:
    """A bot version's page: rating, history, head-to-head, faults, forfeits, recent matches,
    and the bot's versions.  ``name`` is a bot (its current version) or ``NAME@NUMBER``.

    Bounded: the history is the fit's sample (at most ``CHART_POINTS``), the faults and
    forfeits those of the newest :data:`INCIDENT_MATCHES` matches that had any (with
    their totals), the recent matches :data:`RECENT_MATCHES`, with the cursor of the
    rest (``recent_cursor``).
    """
    visibility = visibility if visibility is not None else Visibility(store)
    isolation = isolation if isolation is not None else _IsolationCache()
    bot = store.get_bot(name)
    name = bot.participant
    tournament = None if tournament_id is None else tournament_json(store, visibility.tournament(tournament_id))
    played_games = bot_activity.games_played(store, name)
    if tournament_id is not None:
        game = store.get_tournament(tournament_id).game
    elif game is None:  # the bot's own game (the first by name if several), else the store's first
        game = (played_games or store.games() or [None])[0]
    fit = ratings.get(store, tournament_id, all_versions=True, game=game)
    overall = fit if tournament_id is None else ratings.get(store, None, all_versions=True, game=game)
    rated = {s.name: s for s in fit.standings}
    standing = rated.get(name)
    versions = [
        {**bot_info_json(v), "matches": fit.played.get(v.participant, 0),
         "elo": rated[v.participant].elo if v.participant in rated else None}
        for v in reversed(store.bot_versions(bot.name))
    ]
    head_to_head = []
    for other in sorted((n for n in fit.board.cross_table.names if n != name),
                        key=lambda n: (is_reference_participant(n), str(n))):
        h2h = fit.board.cross_table.get(name, other)
        if h2h is not None:
            head_to_head.append({"opponent": other, "reference": is_reference_participant(other),
                                 "matches": h2h.meetings, "ahead": h2h.ahead, "behind": h2h.behind,
                                 "tied": h2h.tied})
    faults: list[dict[str, Any]] = []
    forfeits: list[dict[str, Any]] = []
    for mine in bot_activity.incidents(store, name, tournament_id, INCIDENT_MATCHES):  # newest first
        published = visibility.published(mine)
        faults.extend({"match_id": mine.id, **f.to_json(), **({} if published else {"detail": DETAIL_HIDDEN})}
                      for f in mine.faults)
        if mine.forfeited:
            forfeits.append({"match_id": mine.id, "seat": mine.seat, "place": mine.place})
    page = match_lists.match_page(store, tournament_id=tournament_id, bot=name, limit=RECENT_MATCHES)
    recent = []
    isolated = isolation.many(store, [m.id for m in page.items])
    for match in page.items:
        mine = next(s for s in match.seats if s.bot == name)
        recent.append({**match_summary_json(match, visibility.published(match)),
                       "isolation": isolated.get(match.id, isolation_json(None)),
                       "place": mine.place, "score": mine.score, "forfeited": mine.forfeited, "seat": mine.seat})
    return {
        "bot": bot_info_json(bot),
        "tournament": tournament,
        "game": fit.board.game,
        "games": played_games,  # the games this version played (its ratings are per game)
        **score_json(fit.board.game or ""),
        "standing": None if standing is None else standing_json(standing),
        "history": fit.history.get(name, []),
        "head_to_head": head_to_head,
        "faults": faults,
        "forfeits": forfeits,
        "faults_total": standing.faults if standing else 0,
        "forfeits_total": standing.forfeits if standing else 0,
        "matches": fit.played.get(name, 0),
        "recent_matches": recent,
        "recent_cursor": page.next_cursor,  # of the rest of the scope's matches of this version
        "tournaments": list(overall.tournaments.get(name, ())),
        "versions": versions,  # newest first
        "fit": fit.freshness(),
    }


def _load_match(store: Store, match_id: str) -> tuple[MatchRow, dict[str, Any] | None, str | None]:
    """The match row, its replay, and why the replay is unreadable (None when it reads)."""
    try:
        row = store.get_match(match_id)
    except CorruptDataError as exc:
        return match_without_replay(store, match_id), None, str(exc)
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



def replay_view_body(store: Store, match_id: str, views: ViewCache, visibility: Visibility | None = None) -> bytes:
    """The replay viewer's steps of a match, as JSON text: the game after each event, as the
    game's engine had it (its kit's ``view``, :mod:`leaderboard.web.games`).  It holds game
    state only (no names, no addresses: nothing to redact).  :class:`ReplayNotPublished` while
    the match is not public; :class:`ReplayError` (or LookupError: no viewer for the game) when
    the replay cannot be shown."""
    visibility = visibility if visibility is not None else Visibility(store)
    row, replay, error = _load_match(store, match_id)
    if not visibility.published(row):
        raise ReplayNotPublished(visibility.hidden_message(row))
    if replay is None:
        raise ReplayError(error or f"match {match_id} has no replay")
    return views.get(row.id, replay)


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

"""The pages' rating fits, kept per scope and refitted only when the scope's results change.

A fit (:func:`leaderboard.standings.compute_leaderboard`) reads every result of its
scope; the pages must not pay that on every view.  :class:`RatingsCache` keeps one
fit per scope (tournament, table size, which versions) under the scope's
:func:`leaderboard.queries.results_key`, read from indexes on every request: a match
or a bot version stored since makes the next view refit, nothing else does.  While
one request refits a scope, the others asking for it wait for that fit rather than
making their own.

Besides the standings, a fit keeps what the bot pages draw from the whole history,
bounded: each participant's live Elo after its matches (at most
:data:`CHART_POINTS` of them, evenly spread, the last one always), the number of
its matches, and the tournaments it played in.  The pages never write: ratings are
computed with ``save=False``.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from leaderboard.queries import results_key
from leaderboard.ratings import live_elo_history
from leaderboard.standings import Leaderboard, Standing, compute_leaderboard, scope_game
from leaderboard.store import Store

#: The most points of a participant's rating history a fit keeps (the chart draws them).
CHART_POINTS = 240

Scope = tuple[int | None, int | None, bool, str | None]


@dataclass(frozen=True)
class Fit:
    board: Leaderboard
    #: participant -> its live Elo after its matches, at most CHART_POINTS of them:
    #: ``{"match_id", "match_number" (in the scope), "n" (the participant's own count), "elo"}``
    history: dict[Hashable, list[dict[str, Any]]] = field(default_factory=dict)
    played: dict[Hashable, int] = field(default_factory=dict)  # participant -> its matches in the scope
    tournaments: dict[Hashable, tuple[int, ...]] = field(default_factory=dict)  # participant -> where it played

    @property
    def standings(self) -> list[Standing]:
        return self.board.standings


def spread(n: int, points: int = CHART_POINTS) -> list[int]:
    """``points`` indexes evenly spread over ``range(n)``, first and last included (all if fewer)."""
    if n <= points:
        return list(range(n))
    return sorted({round(i * (n - 1) / (points - 1)) for i in range(points)})


def build_fit(store: Store, tournament_id: int | None, players: int | None, all_versions: bool,
              game: str | None = None) -> Fit:
    game = scope_game(store, tournament_id, game)
    matches = store.rated_matches(tournament_id, table_size=players, game=game)
    history = live_elo_history(matches)
    board = compute_leaderboard(store, tournament_id, players=players, game=game, save=False,
                                all_versions=all_versions, matches=matches, history=history)
    played = Counter(name for _, after in history for name in after)
    wanted = {name: set(spread(n)) for name, n in played.items()}
    seen: Counter[Hashable] = Counter()
    points: dict[Hashable, list[dict[str, Any]]] = defaultdict(list)
    for number, (key, after) in enumerate(history, start=1):
        for name, elo in after.items():
            i = seen[name]
            seen[name] = i + 1
            if i in wanted[name]:
                points[name].append({"match_id": key, "match_number": number, "n": i + 1, "elo": elo})
    where: dict[Hashable, set[int]] = defaultdict(set)
    for m in matches:
        for name in m.places:
            where[name].add(m.order[0])
    return Fit(board=board, history=dict(points), played=dict(played),
               tournaments={name: tuple(sorted(ids)) for name, ids in where.items()})


class RatingsCache:
    """One :class:`Fit` per scope, valid while the scope's results key is unchanged."""

    def __init__(self, key: Callable[[Store, int | None, int | None], Any] = results_key) -> None:
        self._key = key
        self._lock = threading.Lock()
        self._fits: dict[Scope, tuple[Any, Fit]] = {}
        self._fitting: dict[Scope, threading.Lock] = {}
        self.fits_made = 0  # how many fits were computed (for tests and the benchmark)

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False, game: str | None = None) -> Fit:
        """The fit of a scope: a tournament, or the overall results of ``game`` (ratings are per game)."""
        scope = (tournament_id, players, all_versions, None if tournament_id is not None else game)
        key = self._key(store, tournament_id, players)  # before the fit: a match stored during it refits next time
        with self._lock:
            cached = self._fits.get(scope)
            if cached is not None and cached[0] == key:
                return cached[1]
            fitting = self._fitting.setdefault(scope, threading.Lock())
        with fitting:  # one fit per scope at a time; who waited finds it made
            with self._lock:
                cached = self._fits.get(scope)
                if cached is not None and cached[0] == key:
                    return cached[1]
            fit = build_fit(store, tournament_id, players, all_versions, scope[3])
            with self._lock:
                self._fits[scope] = (key, fit)
                self.fits_made += 1
        return fit

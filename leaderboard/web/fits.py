"""The pages' rating fits, kept per scope and refitted only when the scope's results change.

A fit (:func:`leaderboard.standings.compute_leaderboard`) reads every result of its
scope; the pages must not pay that on every view.  :class:`RatingsCache` keeps one
fit per scope (tournament or game, table size, which versions) under the scope's
:func:`leaderboard.queries.results_key`, read from indexes on every request: a match
or a bot version stored since makes the next view refit, nothing else does.  While
one request refits a scope, the others asking for it wait for that fit rather than
making their own; and a view does not wait for a refit that is slow (the scope's last fit
took :data:`WAIT_S` or more) or longer than :data:`WAIT_S`: it is given the previous fit,
which says how old it is, while the refit goes on in the background.

Besides the standings, a fit keeps what the bot pages draw from the whole history,
bounded: each participant's live Elo after its matches (at most
:data:`CHART_POINTS` of them, evenly spread, the last one always), the number of
its matches, and the tournaments it played in.  The pages never write: ratings are
computed with ``save=False``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from leaderboard.queries import results_key
from leaderboard.ratings import live_elo_history
from leaderboard.standings import Leaderboard, Standing, compute_leaderboard, scope_game
from leaderboard.store import Store

#: The most points of a participant's rating history a fit keeps (the chart draws them).
CHART_POINTS = 240

#: How long a view waits for the refit of its scope before it is given the previous fit.
WAIT_S = 3.0
#: How long a refit that failed is not tried again for the same results (the views get the previous fit).
RETRY_S = 60.0

log = logging.getLogger("leaderboard.web.fits")

Scope = tuple[int | None, int | None, bool, str | None]


@dataclass(frozen=True)
class Fit:
    board: Leaderboard
    #: participant -> its live Elo after its matches, at most CHART_POINTS of them:
    #: ``{"match_id", "match_number" (in the scope), "n" (the participant's own count), "elo"}``
    history: dict[Hashable, list[dict[str, Any]]] = field(default_factory=dict)
    played: dict[Hashable, int] = field(default_factory=dict)  # participant -> its matches in the scope
    tournaments: dict[Hashable, tuple[int, ...]] = field(default_factory=dict)  # participant -> where it played
    results: int = 0  # the matches it counts (as the results key counted them)
    made_at: float = 0.0  # when its results were read (Unix time)
    seconds: float = 0.0  # how long it took
    behind: int = 0  # matches stored since, which it does not count yet (a view while it is refitted)
    refitting: bool = False  # a newer fit is being made

    def freshness(self, now: float | None = None) -> dict[str, Any]:
        """How old the fit is, for the pages: what it counts, when it was made, what it misses."""
        now = time.time() if now is None else now
        return {"matches": self.results, "made_at": datetime.fromtimestamp(self.made_at, UTC).isoformat(),
                "age_s": round(max(0.0, now - self.made_at), 1), "fit_s": round(self.seconds, 2),
                "behind": self.behind, "refitting": self.refitting}

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


class _Refit:
    """A fit of one scope being made in a background thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None


class RatingsCache:
    """One :class:`Fit` per scope, valid while the scope's results key is unchanged.

    A view whose scope has a fit but a newer key is not made to wait for the refit: the
    refit starts in a background thread (one per scope at a time) and, when the scope's
    last fit took less than ``wait_s`` seconds, the view waits for it at most that long;
    otherwise (or if it is not done by then) the view gets the previous fit at once, marked
    as such (:attr:`Fit.behind`, :attr:`Fit.refitting`: the pages say how old it is and how
    many matches it does not count yet).  A small store refits well within
    ``wait_s``, so its pages are always fresh.  Only the first view of a scope (nothing
    to show yet) waits for the whole fit.  Fits are made one at a time (a fit of a million
    matches holds its inputs in memory while it runs).  A refit that fails is logged; the views keep
    the previous fit (marked as behind) and the same results are not fitted again for
    :data:`RETRY_S` seconds.  Only when a scope has no fit yet does its failure reach the view
    (and the next view tries again).
    """

    def __init__(self, key: Callable[[Store, int | None, int | None, str | None], Any] = results_key, *,
                 wait_s: float = WAIT_S,
                 build: Callable[[Store, int | None, int | None, bool, str | None], Fit] = build_fit
                 ) -> None:
        self._key = key
        self._build = build
        self.wait_s = wait_s
        self._lock = threading.Lock()
        self._fits: dict[Scope, tuple[Any, Fit]] = {}
        self._refits: dict[Scope, _Refit] = {}
        self._failed: dict[Scope, tuple[Any, float]] = {}  # scope -> (the key whose refit failed, when)
        self._one_at_a_time = threading.Lock()
        self.fits_made = 0  # how many fits were computed (for tests and the benchmark)

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False, game: str | None = None) -> Fit:
        """The fit of a scope: a tournament, or the overall results of ``game`` (ratings are per game)."""
        scope = (tournament_id, players, all_versions, None if tournament_id is not None else game)
        # read before the fit: a match stored during it refits next time
        key = self._key(store, tournament_id, players, scope[3])
        with self._lock:
            cached = self._fits.get(scope)
            if cached is not None and cached[0] == key:
                return cached[1]
            failed = self._failed.get(scope)
            if cached is not None and failed is not None and failed[0] == key and time.monotonic() - failed[1] < RETRY_S:
                return self._stale(cached[1], key, refitting=False)  # the last refit of these results failed
            refit = self._refits.get(scope)
            if refit is None:
                refit = self._refits[scope] = _Refit()
                threading.Thread(target=self._refit, args=(store, scope, key, refit), daemon=True,
                                 name=f"arena-refit-{scope}").start()
        # the first fit of a scope is waited for; a refit only if the last fit was quick (a small store's
        # pages stay fresh), else the previous fit is given at once
        refit.done.wait(None if cached is None else self.wait_s if cached[1].seconds < self.wait_s else 0)
        with self._lock:
            now = self._fits.get(scope)
        if now is None:  # the first fit of the scope failed: nothing to show
            assert refit.error is not None
            raise refit.error
        if now[0] == key:
            return now[1]
        return self._stale(now[1], key, refitting=not refit.done.is_set())

    @staticmethod
    def _stale(fit: Fit, key: Any, refitting: bool) -> Fit:
        """``fit``, marked with how many of the results of ``key`` it does not count yet."""
        return dataclasses.replace(fit, behind=max(0, _counted(key) - fit.results), refitting=refitting)

    def _refit(self, store: Store, scope: Scope, key: Any, refit: _Refit) -> None:
        try:
            with self._one_at_a_time:  # one fit's memory and CPU at a time; the views meanwhile get the old fits
                started = time.time()
                fit = self._build(store, *scope)
            fit = dataclasses.replace(fit, results=_counted(key), made_at=started, seconds=time.time() - started)
            with self._lock:
                self._fits[scope] = (key, fit)
                self._failed.pop(scope, None)
                self.fits_made += 1
        except BaseException as exc:  # noqa: BLE001 - handed to the views waiting for it
            log.exception("the rating fit of %s failed; its pages keep the previous fit", scope)
            refit.error = exc
            with self._lock:
                self._failed[scope] = (key, time.monotonic())
        finally:
            with self._lock:
                self._refits.pop(scope, None)
            refit.done.set()


def _counted(key: Any) -> int:
    """The number of matches a :func:`results_key` counts (its first part); 0 for another key."""
    return key[0] if isinstance(key, tuple) and key and isinstance(key[0], int) else 0

"""The pages' rating fits, kept per scope and refitted only when the scope's results change.

A fit (:func:`leaderboard.standings.rate_scope`) reads every result of its
scope; the pages must not pay that on every view.  :class:`RatingsCache` keeps one
fit per scope (tournament or game, table size) under the scope's
:func:`leaderboard.tallies.results_key`, read from indexes on every request: a match
or a bot version stored since makes the next view refit, nothing else does.  While
one request refits a scope, the others asking for it wait for that fit rather than
making their own; and a view does not wait for a refit that is slow (the scope's last fit
took :data:`WAIT_S` or more) or longer than :data:`WAIT_S`: it is given the previous fit,
which says how old it is, while the refit goes on in the background.  The first view of
a scope waits at most :data:`WAIT_S` too, then shows the page without ratings, saying
they are being fitted.  At most :data:`MAX_SCOPES` fits are kept.

A fit reads its scope's results as numpy arrays (:mod:`leaderboard.result_reader`:
no Python object per match), so a million matches fit in well under a minute.

Which versions a page shows (each bot's newest with results, or every version) does not
change the fit: one fit of a scope makes both views (:attr:`Fit.boards`: the rows shown,
their ranks and the likelihoods of superiority between their neighbours are made from the
fit's rows and bootstrap draws; everything else is shared), so a server whose viewers open
``/`` and ``/?versions=all`` fits and keeps each scope once.

Besides the standings, a fit keeps what the bot pages draw from the whole history,
bounded: each participant's live Elo after its matches (at most
:data:`CHART_POINTS` of them, evenly spread, the last one always), the number of
its matches, and the tournaments it played in.  The pages never write: ratings are
computed with ``save=False``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from leaderboard.crosstable import CrossTable
from leaderboard.tallies import results_key
from leaderboard.result_arrays import ResultArrays
from leaderboard.result_reader import match_ids, read_results
from leaderboard.standings import Leaderboard, Standing, rate_scope, scope_game
from leaderboard.store import Store

#: The most points of a participant's rating history a fit keeps (the chart draws them).
CHART_POINTS = 240

#: How long a view waits for the refit of its scope before it is given the previous fit.
WAIT_S = 3.0
#: The most scopes (tournament or game, table size) whose fits are kept (each with both views of
#: the versions); the least recently viewed is dropped first.
MAX_SCOPES = 32
#: The most scopes waiting for a fit at once (a view of one more new scope gets no ratings yet).
MAX_QUEUED = 4
#: How long a refit that failed is not tried again for the same results (the views get the previous fit).
RETRY_S = 60.0

log = logging.getLogger("leaderboard.web.fits")

#: (tournament id, table size, game: None for a tournament's); both views of the versions share it
Scope = tuple[int | None, int | None, str | None]


@dataclass(frozen=True)
class Fit:
    #: the two views of the one fit: each bot's newest version with results, every version
    boards: tuple[Leaderboard, Leaderboard]
    all_versions: bool = False  # which of them this fit's pages show (:attr:`board`)
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
    fitting: bool = False  # a placeholder without ratings: the scope's first fit is being made
    key: Any = None  # the results key of what it counted (read with its results), if the build knows it
    scope: Scope | None = None  # the scope it was fitted for (given by RatingsCache)
    #: its scope's fit number as it was given (:meth:`RatingsCache.number`): an answer made from it
    #: is current while that number has not moved (0: before the scope's first fit ended)
    number: int = 0

    def freshness(self, now: float | None = None) -> dict[str, Any]:
        """How old the fit is, for the pages: what it counts, when it was made, what it misses."""
        now = time.time() if now is None else now
        return {"matches": self.results, "made_at": datetime.fromtimestamp(self.made_at, UTC).isoformat(),
                "age_s": round(max(0.0, now - self.made_at), 1), "fit_s": round(self.seconds, 2),
                "behind": self.behind, "refitting": self.refitting, "fitting": self.fitting}

    @property
    def board(self) -> Leaderboard:
        """The view shown: every version with :attr:`all_versions`, else each bot's newest with results."""
        return self.boards[self.all_versions]

    @property
    def standings(self) -> list[Standing]:
        return self.board.standings

    def view(self, all_versions: bool) -> "Fit":
        """The same fit showing every version (or each bot's newest): nothing is copied or refitted."""
        all_versions = bool(all_versions)  # (an index into boards)
        return self if all_versions == self.all_versions else dataclasses.replace(self, all_versions=all_versions)


def spread(n: int, points: int = CHART_POINTS) -> list[int]:
    """``points`` indexes evenly spread over ``range(n)``, first and last included (all if fewer)."""
    if n <= points:
        return list(range(n))
    return sorted({round(i * (n - 1) / (points - 1)) for i in range(points)})


def build_fit(store: Store, tournament_id: int | None, players: int | None, game: str | None = None) -> Fit:
    """The fit of a scope, from its results read as arrays in one snapshot with the
    :func:`~leaderboard.tallies.results_key` they make (:attr:`Fit.key`: what it counted),
    with both views of the versions (:attr:`Fit.boards`)."""
    game = scope_game(store, tournament_id, game)
    with store.snapshot_session() as session:
        key = results_key(store, tournament_id, players, None if tournament_id is not None else game,
                          session=session)
        results = read_results(session, tournament_id, table_size=players, game=game, ids=False)
        # the charts' cells, then their match ids in the same snapshot, before the slow work:
        # PostgreSQL ends a transaction idle for 30 s (leaderboard/database.py)
        charts, played, tournaments = _chart_cells(results)
        rows = sorted({int(r) for cells, match_rows in charts.values() for r in match_rows})
        ids = dict(zip(rows, match_ids(session, results, rows)))  # only the charts' matches
    _give_back_memory()  # what the read's chunks left in malloc's free lists: the fit's peak comes next
    live = results.live_elo()
    history: dict[Hashable, list[dict[str, Any]]] = {
        name: [{"match_id": ids[int(r)], "match_number": int(r) + 1, "n": int(j) + 1, "elo": float(live[c])}
               for c, r, j in zip(cells.tolist(), match_rows.tolist(), spread(played[name]))]
        for name, (cells, match_rows) in charts.items()}
    live_now = results.last_per_participant(live)
    del live  # (the fit's peak memory is in the fit below: nothing per cell but the results meanwhile)
    _give_back_memory()
    rated = rate_scope(store, tournament_id, players=players, game=game, save=False, results=results,
                       live_now=live_now)
    boards = (rated.board(all_versions=False), rated.board(all_versions=True))
    del rated  # (its bootstrap draws: the boards keep the likelihoods of superiority they show)
    return Fit(boards=boards, history=history, played=played, tournaments=tournaments, key=key)


def _chart_cells(results: ResultArrays) -> tuple[dict[Hashable, tuple[np.ndarray, np.ndarray]],
                                                  dict[Hashable, int], dict[Hashable, tuple[int, ...]]]:
    """Per participant: the cells its chart draws (:func:`spread` over its matches) with their
    match rows, the number of its matches, and the tournaments it played in."""
    match_of = results.match_of_cell
    charts: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}
    played: dict[Hashable, int] = {}
    tournaments: dict[Hashable, tuple[int, ...]] = {}
    for i, cells in enumerate(results.cells_by_participant()):
        name = results.names[i]
        played[name] = len(cells)
        picked = cells[np.asarray(spread(len(cells)), dtype=np.int64)]
        charts[name] = (picked, match_of[picked])
        tournaments[name] = tuple(int(t) for t in np.unique(results.tournament[match_of[cells]]))
    return charts, played, tournaments


def pending_fit(store: Store, tournament_id: int | None, players: int | None, game: str | None,
                scope: Scope | None = None, number: int = 0) -> Fit:
    """What a view of a scope gets while its first fit is being made: no ratings, marked as
    :attr:`Fit.fitting` (the pages say so and ask to reload); ``scope`` and its fit ``number``
    are the cache's (:attr:`Fit.number`)."""
    game = scope_game(store, tournament_id, game)
    board = Leaderboard(standings=[], superiority=[], cross_table=CrossTable(names=(), _pairs={}), players=players,
                        table_sizes=[], resamples=0, method=None, game=game)
    return Fit(boards=(board, board), made_at=time.time(), fitting=True, scope=scope, number=number)


class _Refit:
    """A fit of one scope being made in a background thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None


class RatingsCache:
    """One :class:`Fit` per scope, valid while the scope's results key is unchanged; both views
    of the versions (each bot's newest, every version) are given from it, never fitted apart.

    A view whose scope has a fit but a newer key is not made to wait for the refit: the
    refit starts in a background thread (one per scope at a time) and, when the scope's
    last fit took less than ``wait_s`` seconds, the view waits for it at most that long;
    otherwise (or if it is not done by then) the view gets the previous fit at once, marked
    as such (:attr:`Fit.behind`, :attr:`Fit.refitting`: the pages say how old it is and how
    many matches it does not count yet).  A small store refits well within
    ``wait_s``, so its pages are always fresh.  The first view of a scope (nothing to
    show yet) waits for its fit at most ``first_wait_s``, then gets a placeholder without
    ratings (:attr:`Fit.fitting`: the pages say the ratings are being fitted).

    Bounded: fits are made one at a time (a fit of a million matches holds its inputs in
    memory while it runs), at most ``max_queued`` scopes wait for theirs (a view of
    another new scope gets the placeholder and starts nothing), and at most ``max_scopes``
    fits are kept, the least recently viewed dropped first (the pages made from a dropped
    fit are remade at their next view, which fits the scope again).  A fit is stored under the
    key read in the same snapshot as its results (:attr:`Fit.key`), so it never claims
    matches it did not count.  A refit that fails is logged; the views keep the previous
    fit (marked as behind) and the same results are not fitted again for :data:`RETRY_S`
    seconds.  Only when a scope has no fit yet does its failure reach the view (the views
    of the next :data:`RETRY_S` seconds get the same error; the first view after tries again).

    Each fit given carries its scope and the scope's **fit number** (:attr:`Fit.scope`,
    :attr:`Fit.number`, read with the fit; :meth:`number` tells the scope's number now): it
    moves when a fit of the scope ends (stored, or failed), so what was made from a fit knows
    whether its scope has moved on since (the kept answers, :mod:`leaderboard.web.tracked`).
    """

    def __init__(self, key: Callable[[Store, int | None, int | None, str | None], Any] = results_key, *,
                 wait_s: float = WAIT_S, first_wait_s: float = WAIT_S, max_scopes: int = MAX_SCOPES,
                 max_queued: int = MAX_QUEUED,
                 build: Callable[[Store, int | None, int | None, str | None], Fit] = build_fit
                 ) -> None:
        if max_scopes < 1 or max_queued < 1:
            raise ValueError(f"max_scopes and max_queued must be >= 1, got {max_scopes}, {max_queued}")
        self._key = key
        self._build = build
        self.wait_s = wait_s
        self.first_wait_s = first_wait_s
        self.max_scopes = max_scopes
        self.max_queued = max_queued
        self._lock = threading.Lock()
        # scope -> (key, its fit as each view shows it: newest versions, every version); least recently viewed first
        self._fits: OrderedDict[Scope, tuple[Any, tuple[Fit, Fit]]] = OrderedDict()
        self._refits: dict[Scope, _Refit] = {}
        # scope -> (key whose refit failed, when, the error, the scope's fit number since)
        self._failed: OrderedDict[Scope, tuple[Any, float, BaseException, int]] = OrderedDict()
        self._one_at_a_time = threading.Lock()
        self._ended = 0  # fits ended (stored or failed), every scope: the last fit number given
        self.fits_made = 0  # how many fits were computed (for tests and the benchmark)

    def number(self, scope: Scope) -> int:
        """The fit number of ``scope`` (:attr:`Fit.scope`): the one its views are given now
        (:attr:`Fit.number`).  It moves when a fit of the scope ends: a new fit stored, or a
        refit failed (its views then no longer say it is being made); then only.  0 while no fit
        of the scope has ended (or its fit was dropped).  The numbers are drawn from one count
        over every scope, so a scope dropped and fitted again never gives a number it gave before,
        except 0: a page made without ratings (the first fit being made) before its scope's fit was
        dropped counts as current again for the rest of its ttl (the response cache's, 5 s)."""
        with self._lock:
            return self._number(scope)

    def _number(self, scope: Scope) -> int:  # with self._lock held
        kept = self._fits.get(scope)
        if kept is not None:
            return kept[1][0].number
        failed = self._failed.get(scope)
        return 0 if failed is None else failed[3]

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False, game: str | None = None) -> Fit:
        """The fit of a scope: a tournament, or the overall results of ``game`` (ratings are per game),
        showing every version or each bot's newest (``all_versions``: both views are of one fit)."""
        scope = (tournament_id, players, None if tournament_id is not None else game)
        key = self._key(store, tournament_id, players, scope[2])
        with self._lock:
            kept = self._fits.get(scope)
            cached = None if kept is None else (kept[0], kept[1][bool(all_versions)])
            if cached is not None:
                self._fits.move_to_end(scope)
                if cached[0] == key:
                    return cached[1]
            failed = self._failed.get(scope)
            if failed is not None and failed[0] == key and time.monotonic() - failed[1] < RETRY_S:
                if cached is None:  # the first fit of these results failed a moment ago: not again yet
                    raise failed[2]
                return self._stale(cached[1], key, refitting=False)  # the last refit of these results failed
            refit = self._refits.get(scope)
            queue_full = refit is None and len(self._refits) >= self.max_queued  # enough scopes wait already
            if queue_full:
                number = self._number(scope)
            elif refit is None:
                refit = _Refit()
                threading.Thread(target=self._refit, args=(store, scope, refit), daemon=True,
                                 name=f"arena-refit-{scope}").start()  # if it cannot start, nothing is registered
                self._refits[scope] = refit  # before the thread can end: it takes self._lock to finish
        if queue_full:  # (the placeholder reads the store: not with the lock held)
            return self._stale(cached[1], key, refitting=False) if cached is not None else \
                pending_fit(store, tournament_id, players, scope[2], scope, number).view(all_versions)
        # the first fit of a scope is waited for a while; a refit only if the last fit was quick (a small
        # store's pages stay fresh), else the previous fit is given at once
        if cached is None:
            refit.done.wait(self.first_wait_s)
        else:
            refit.done.wait(self.wait_s if cached[1].seconds < self.wait_s else 0)
        with self._lock:
            kept = self._fits.get(scope)
            number = self._number(scope)  # (each fit given carries its scope's number, read with it)
            refitting = self._refits.get(scope) is refit  # (ended in the same locked step as the number moved)
        now = None if kept is None else (kept[0], kept[1][bool(all_versions)])
        if now is None:
            if refit.error is not None:  # the first fit of the scope failed: nothing to show
                raise refit.error
            # not done yet, or done and already dropped by views of other scopes
            return pending_fit(store, tournament_id, players, scope[2], scope, number).view(all_versions)
        if now[0] == key:
            return now[1]
        return self._stale(now[1], key, refitting=refitting)

    @staticmethod
    def _stale(fit: Fit, key: Any, refitting: bool) -> Fit:
        """``fit``, marked with how many of the results of ``key`` it does not count yet."""
        return dataclasses.replace(fit, behind=max(0, _counted(key) - fit.results), refitting=refitting)

    def _refit(self, store: Store, scope: Scope, refit: _Refit) -> None:
        key = None
        try:
            with self._one_at_a_time:  # one fit's memory and CPU at a time; the views meanwhile get the old fits
                started = time.time()
                # the key as the fit starts (a build that does not read its own); a match stored
                # during the fit then makes the next view refit
                key = self._key(store, scope[0], scope[1], scope[2])
                fit = self._build(store, *scope)
            if fit.key is not None and self._key is results_key:
                key = fit.key  # read in the snapshot the fit counted
            fit = dataclasses.replace(fit, results=_counted(key), made_at=started, seconds=time.time() - started,
                                      scope=scope)
            with self._lock:  # stored with its number: a view given it knows which fit it was
                self._ended += 1
                fit = dataclasses.replace(fit, number=self._ended)
                self._fits[scope] = (key, (fit.view(False), fit.view(True)))
                self._fits.move_to_end(scope)
                while len(self._fits) > self.max_scopes:
                    self._fits.popitem(last=False)
                self._failed.pop(scope, None)
                self._end(scope, refit)
                self.fits_made += 1
        except BaseException as exc:  # noqa: BLE001 - handed to the views waiting for it
            log.exception("the rating fit of %s failed; its pages keep the previous fit", scope)
            refit.error = exc
            with self._lock:
                self._ended += 1  # the scope's number moves: the views made while it ran said it was being made
                self._failed[scope] = (key, time.monotonic(), exc, self._ended)
                self._failed.move_to_end(scope)
                kept = self._fits.get(scope)
                if kept is not None:  # the previous fit, given under the new number
                    newest, every = (dataclasses.replace(f, number=self._ended) for f in kept[1])
                    self._fits[scope] = (kept[0], (newest, every))
                while len(self._failed) > self.max_scopes:
                    self._failed.popitem(last=False)
                self._end(scope, refit)
        finally:
            with self._lock:
                self._end(scope, refit)  # (if it did not end above)
            refit.done.set()
            _give_back_memory()


    def _end(self, scope: Scope, refit: _Refit) -> None:  # with self._lock held
        """The refit of ``scope`` is no longer running (in the locked step that moves its number,
        so no view is told a fit is being made under the number of the fit that ended)."""
        if self._refits.get(scope) is refit:
            del self._refits[scope]


def _give_back_memory() -> None:
    """After a fit: hand the pages its arrays freed back to the system.  glibc's malloc keeps
    them otherwise (a fit of a million matches frees hundreds of MB, and the server would
    stay that large while it serves pages); elsewhere (no ``malloc_trim``) nothing happens."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def _counted(key: Any) -> int:
    """The number of matches a :func:`results_key` counts (its first part); 0 for another key."""
    return key[0] if isinstance(key, tuple) and key and isinstance(key[0], int) else 0

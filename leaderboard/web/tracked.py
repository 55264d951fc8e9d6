"""Which rating fits an answer was made from, so that a new fit remakes only the answers it changes.

The answers the web pages keep (:mod:`leaderboard.web.cache`) are made from the store's
data and from the rating fits of the scopes they show (:mod:`leaderboard.web.fits`).  A
fit of one scope (a tournament or a game's overall results, a table size) does not change a
page that shows another: with one count of fits for all scopes, each fit finishing made every kept
answer again, and after a new match the six or so scopes a server keeps finish their refits
one after the other, each a wave of remade pages (at a million matches each page made afresh
costs tens of milliseconds; ten clients waited for them).

:class:`TrackedRatings` is the server's :class:`~leaderboard.web.fits.RatingsCache` that
also counts the fits stored *per scope* and notes, while an answer is made (in the
thread making it), the scopes it asked for.  The answer is kept with what it used
(:meth:`TrackedRatings.end`): each scope and the count of its fits read *before* its fit
was, so a fit stored while it was being made remakes it at the next view
(:meth:`TrackedRatings.current`).  Both views of the versions (each bot's newest, every
version) are made from one fit of their scope, so they are one scope here: a fit of it
remakes the pages of both.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any

from leaderboard.store import Store
from leaderboard.web.fits import Fit, RatingsCache, Scope

#: What an answer used: each scope and the number of fits of it stored before it was made.
Used = frozenset[tuple[Hashable, int]]


def scope_of(tournament_id: int | None, players: int | None, game: str | None) -> Scope:
    """The scope :meth:`RatingsCache.get` keeps a fit under (a tournament's fit is not per game; both
    views of the versions share it)."""
    return (tournament_id, players, None if tournament_id is not None else game)


class TrackedRatings(RatingsCache):
    """A :class:`RatingsCache` that counts the fits stored per scope (:attr:`made`) and notes
    which scopes the answer being made in this thread asked for (:meth:`begin`, :meth:`end`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made: dict[Scope, int] = {}  # scope -> fits stored (or failed) so far
        self._made_lock = threading.Lock()
        self._asking = threading.local()

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False, game: str | None = None) -> Fit:
        used = getattr(self._asking, "scopes", None)
        if used is not None:  # the scope's count read before its fit is: a fit stored after it remakes the answer
            scope = scope_of(tournament_id, players, game)
            if scope not in used:
                with self._made_lock:
                    used[scope] = self.made.get(scope, 0)
        return super().get(store, tournament_id, players, all_versions, game)

    def _refit(self, store: Store, scope: Scope, refit: Any) -> None:
        try:
            super()._refit(store, scope, refit)
        finally:  # after the fit is stored (or its failure noted): an answer made meanwhile is made again
            with self._made_lock:
                self.made[scope] = self.made.get(scope, 0) + 1

    def begin(self) -> None:
        """Start noting the scopes this thread asks for, each with the count of its fits stored
        before it was read (not a copy of every scope's count: one per scope the answer uses)."""
        self._asking.scopes = {}

    def end(self) -> Used:
        """Stop noting: the scopes asked for since :meth:`begin`, with their fits made before."""
        scopes = getattr(self._asking, "scopes", None) or {}
        self._asking.scopes = None
        return frozenset(scopes.items())

    def current(self, used: Used) -> bool:
        """Whether no fit of a scope in ``used`` was stored since the answer was made."""
        if not isinstance(used, frozenset):  # kept by an untracked cache: not known to be current
            return False
        with self._made_lock:
            return all(self.made.get(scope, 0) == count for scope, count in used)


__all__ = ["TrackedRatings", "Used", "scope_of"]

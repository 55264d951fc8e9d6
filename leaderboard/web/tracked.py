"""Which rating fits an answer was made from, so that a new fit remakes only the answers it changes.

The answers the web pages keep (:mod:`leaderboard.web.cache`) are made from the store's
data and from the rating fits of the scopes they show (:mod:`leaderboard.web.fits`).  A
fit of one scope (a tournament or a game's overall results, a table size) does not change a
page that shows another, and a page made from a scope's newest fit is not changed by that
fit having ended.  Each :class:`~leaderboard.web.fits.Fit` the ratings cache gives carries
its scope and its scope's fit number (:attr:`~leaderboard.web.fits.Fit.number`, read with the
fit); :class:`TrackedRatings` notes, while an answer is made (in the thread making it), the
number of each fit it was given, and the answer is kept with them (:meth:`TrackedRatings.end`).
A later view is given the kept answer while each of those scopes' numbers is unchanged
(:meth:`TrackedRatings.current`): a fit stored (or a refit failed) since remakes it, and a view
that waited for its scope's refit keeps what it made from it.  Both views of the versions (each
bot's newest, every version) are made from one fit of their scope: a fit of it remakes both.
"""

from __future__ import annotations

import threading
from typing import Any

from leaderboard.store import Store
from leaderboard.web.fits import Fit, RatingsCache, Scope

#: What an answer used: each scope and the fit number of the fit of it the answer was made from.
Used = frozenset[tuple[Scope, int]]


class TrackedRatings(RatingsCache):
    """A :class:`RatingsCache` that notes which fits the answer being made in this thread was
    given (:meth:`begin`, :meth:`end`) and tells whether they are still their scopes' (:meth:`current`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._asking = threading.local()

    def get(self, store: Store, tournament_id: int | None, players: int | None = None,
            all_versions: bool = False, game: str | None = None) -> Fit:
        fit = super().get(store, tournament_id, players, all_versions, game)
        used = getattr(self._asking, "fits", None)
        if used is not None and fit.scope is not None:  # two fits of one scope in one answer: the older
            used[fit.scope] = min(fit.number, used.get(fit.scope, fit.number))
        return fit

    def begin(self) -> None:
        """Start noting the fits this thread is given."""
        self._asking.fits = {}

    def end(self) -> Used:
        """Stop noting: the scopes of the fits given since :meth:`begin`, with their fit numbers."""
        fits = getattr(self._asking, "fits", None) or {}
        self._asking.fits = None
        return frozenset(fits.items())

    def current(self, used: Used) -> bool:
        """Whether each scope in ``used`` still has the fit number noted (no fit of it ended since)."""
        if not isinstance(used, frozenset):  # kept by an untracked cache: not known to be current
            return False
        return all(self.number(scope) == number for scope, number in used)


__all__ = ["TrackedRatings", "Used"]

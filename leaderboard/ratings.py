"""Elo ratings as pure functions of finished matches (numpy + scipy; no SQL, no I/O).

Two columns:

* :func:`fit` / :func:`fit_ratings`: the batch rating, a Plackett-Luce fit of every
  finishing order at once (:mod:`leaderboard.plackett_luce`), on the Elo scale:
  ``R = 1500 + 400 / ln(10) * theta``, so that one participant finishes ahead of
  another with probability ``1 / (1 + 10**((Rj - Ri) / 400))`` at any table, Elo's
  own formula.  The mean of the real (non-reference) participants is 1500.  95%
  intervals come from a seeded bootstrap over whole deals (percentile method), and
  the same resamples give the likelihood of superiority of one participant over
  another.
* :func:`live_elo`: classic multiplayer Elo, updated match by match in schedule order.

The fit is canonical: participants and deals are numbered in sorted order and the
aggregated counts are whole multiples of a common unit (exact in float64), so the
same results in any completion order give bit-identical numbers.  Participants
are any hashable keys.  See ``docs/ratings.md``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from leaderboard import plackett_luce
from leaderboard.finishing_orders import (
    REFERENCE,
    FinishingOrders,
    is_reference_participant,
    RatedMatch,
    canonical_order,
    check_unique_keys,
)

__all__ = ["CI_LEVEL", "MEAN_ELO", "REFERENCE", "RatedMatch", "Rating", "RatingFit", "elo_scale", "fit",
           "fit_ratings", "live_elo", "live_elo_history"]

#: The mean rating of the real participants.
MEAN_ELO = 1500.0
#: Central coverage of the bootstrap confidence interval.
CI_LEVEL = 0.95

_ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of the logistic scale


def elo_scale(theta: np.ndarray) -> np.ndarray:
    """Logistic-scale strengths (mean of the real participants 0) as Elo ratings."""
    return MEAN_ELO + _ELO_PER_NAT * theta


@dataclass(frozen=True)
class Rating:
    """A participant's fitted rating and its 95% bootstrap interval (None without bootstrap)."""

    name: Hashable
    elo: float
    ci_low: float | None
    ci_high: float | None
    reference: bool


@dataclass(frozen=True, eq=False)
class RatingFit:
    """The batch fit: a :class:`Rating` per participant, sorted by key, and the bootstrap draws.

    ``method`` says how the resamples were fitted: "refit" (each refitted to convergence)
    or "one-step" (one Newton step from the point fit, on large data); None without them.
    """

    ratings: dict[Hashable, Rating]
    resamples: int
    method: str | None
    _index: dict[Hashable, int]
    _draws: np.ndarray | None  # (resamples, participants), Elo

    def superiority(self, a: Hashable, b: Hashable) -> float | None:
        """Likelihood of superiority: the share of bootstrap resamples in which ``a`` is
        rated above ``b`` (an equal rating counts half); None without resamples."""
        if self._draws is None:
            return None
        x, y = self._draws[:, self._index[a]], self._draws[:, self._index[b]]
        return float(np.mean(x > y) + 0.5 * np.mean(x == y))


# --------------------------------------------------------------------------- batch fit


def fit(matches: Iterable[RatedMatch] | FinishingOrders, *, bootstrap: int = 200, seed: int = 0,
        method: str = "auto") -> RatingFit:
    """Fit Plackett-Luce/Elo ratings to all ``matches``.

    ``bootstrap`` resamples of whole deals (drawn with ``numpy.random.default_rng(seed)``)
    give the 95% percentile intervals and the likelihoods of superiority; with
    ``bootstrap=0`` the interval bounds are None.  ``method``: "auto", "refit" or
    "one-step" (see :func:`leaderboard.plackett_luce.fit`).  ``matches`` may also be
    :class:`FinishingOrders` already built from them.
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, numbers.Integral) or bootstrap < 0:
        raise ValueError(f"bootstrap must be an int >= 0, got {bootstrap!r}")
    orders = matches if isinstance(matches, FinishingOrders) else FinishingOrders.build(matches)
    if not orders.names:
        return RatingFit(ratings={}, resamples=int(bootstrap), method=None, _index={}, _draws=None)
    result = plackett_luce.fit(orders, resamples=int(bootstrap), seed=seed, method=method)
    elo = elo_scale(result.theta)
    draws = None if result.draws is None else elo_scale(result.draws)
    if draws is not None:
        tail = 100.0 * (1.0 - CI_LEVEL) / 2.0
        low, high = np.percentile(draws, [tail, 100.0 - tail], axis=0)
        bounds = [(float(a), float(b)) for a, b in zip(low, high)]
    else:
        bounds = [(None, None)] * len(orders.names)
    ratings = {
        name: Rating(name=name, elo=float(elo[i]), ci_low=bounds[i][0], ci_high=bounds[i][1],
                     reference=is_reference_participant(name))
        for i, name in enumerate(orders.names)
    }
    return RatingFit(ratings=ratings, resamples=int(bootstrap), method=result.method,
                     _index={name: i for i, name in enumerate(orders.names)}, _draws=draws)


def fit_ratings(
    matches: Iterable[RatedMatch] | FinishingOrders, *, bootstrap: int = 200, seed: int = 0, method: str = "auto"
) -> dict[Hashable, Rating]:
    """The :class:`Rating` of every participant of :func:`fit`, sorted by key."""
    return fit(matches, bootstrap=bootstrap, seed=seed, method=method).ratings


def _canonical(matches: Iterable[RatedMatch]) -> list[RatedMatch]:
    """The matches sorted by key; a duplicate key is an error (the order would be ambiguous)."""
    ordered = sorted(matches, key=lambda m: m.key)
    check_unique_keys(ordered)
    return ordered


# --------------------------------------------------------------------------- live Elo


def live_elo(
    matches: Iterable[RatedMatch], *, k: float = 32.0, initial: float = 1500.0
) -> dict[Hashable, float]:
    """Classic multiplayer Elo after all ``matches`` in ``order`` order (keys sorted by name)."""
    ratings: dict[Hashable, float] = {}
    for _, after in live_elo_history(matches, k=k, initial=initial):
        ratings.update(after)
    return {name: ratings[name] for name in canonical_order(ratings)}


def live_elo_history(
    matches: Iterable[RatedMatch], *, k: float = 32.0, initial: float = 1500.0
) -> list[tuple[str, dict[Hashable, float]]]:
    """``(match key, {participant: rating after that match})`` for each match, in ``order`` order.

    Each participant of a table of ``n`` moves by ``k/(n-1) * sum over opponents (S - E)``
    (S = 1 win, 1/2 tie, 0 loss; E = 1 / (1 + 10 ** ((Rb - Ra) / 400)) from the ratings
    before the match); all of one match's updates are applied at once.  Each entry lists that match's participants.
    """
    if not (math.isfinite(k) and k > 0):
        raise ValueError(f"k must be a finite number > 0, got {k!r}")
    if not math.isfinite(initial):
        raise ValueError(f"initial must be a finite number, got {initial!r}")
    try:
        ordered = sorted(_canonical(matches), key=lambda m: m.order)
    except TypeError as error:
        raise ValueError(f"match orders cannot be compared with each other: {error}") from None
    ratings: dict[Hashable, float] = {}
    # E = 1 / (1 + 10 ** ((Rb - Ra) / 400)) computed as qa / (qa + qb), q = 10 ** ((R - initial) / 400)
    # kept per participant, in the same order of operations as ResultArrays.live_elo (equal bits)
    q: dict[Hashable, float] = {}
    history: list[tuple[str, dict[Hashable, float]]] = []
    for match in ordered:
        names = canonical_order(match.places)
        before = [ratings.get(name, initial) for name in names]
        after = dict(zip(names, before))
        if len(names) > 1:
            step = k / (len(names) - 1)
            qs = [q.get(name, 1.0) for name in names]
            for a, name in enumerate(names):
                place_a = match.places[name]
                score = 0.0
                for other in names:
                    if other != name:
                        place_b = match.places[other]
                        score += 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0
                expected = -0.5  # the pair of a participant with itself adds exactly 1/2 below
                for qb in qs:
                    expected += qs[a] / (qs[a] + qb)
                after[name] = before[a] + step * (score - expected)
            for name in names:
                q[name] = 10.0 ** ((after[name] - initial) / 400.0)
        ratings.update(after)
        history.append((match.key, after))
    return history

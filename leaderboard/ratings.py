"""Elo ratings as pure functions of finished matches (numpy + scipy; no SQL, no I/O).

Two columns:

* :func:`fit_ratings`: a batch maximum-likelihood fit over all results.  Each
  table's finishing order is decomposed into pairwise results (win 1, tie 1/2,
  loss 0), each pair weighted ``1/(n-1)`` in a table of ``n``, and fitted with
  Bradley-Terry on the Elo scale, ``P(i beats j) = 1 / (1 + 10**((Rj - Ri) / 400))``.
  The mean of the real (non-reference) participants is fixed at 1500.  A weak prior,
  one virtual drawn game for every participant against a virtual opponent rated
  1500, keeps an unbeaten bot finite.  95% confidence intervals come from a seeded
  bootstrap over whole matches (percentile method).
* :func:`live_elo`: classic multiplayer Elo, updated match by match in schedule order.

The fit is canonical: matches are sorted by key and participants by name before any
floating-point arithmetic, and the aggregated pair counts are whole multiples of a
common unit (so exact in float64).  The same results in any completion order give
bit-identical numbers.  See ``docs/ratings.md``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, sparse, special

#: The participant name of the two-player game's imaginary shareholder in ratings input.
REFERENCE = "(imaginary shareholder)"
#: The mean rating of the real participants.
MEAN_ELO = 1500.0
#: Prior weight: virtual drawn games each participant plays against a 1500 opponent.
PRIOR_DRAWS = 1.0
#: Central coverage of the bootstrap confidence interval.
CI_LEVEL = 0.95

_ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of the logistic scale
_BOOTSTRAP_CHUNK = 4_000_000  # resampled match slots drawn at once


@dataclass(frozen=True)
class RatedMatch:
    """One finished match as the ratings see it.

    ``key`` is the unique match id; ``order`` sorts matches in schedule order (e.g.
    ``(tournament_id, schedule_index)``); ``places`` maps participant -> place
    (1 is best, equal places are ties).
    """

    key: str
    order: tuple[Any, ...]
    places: Mapping[str, int]

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"match key must be a non-empty string, got {self.key!r}")
        if not isinstance(self.order, tuple):
            raise ValueError(f"match {self.key}: order must be a tuple, got {self.order!r}")
        if not self.places:
            raise ValueError(f"match {self.key}: places is empty")
        for name, place in self.places.items():
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"match {self.key}: participant names must be non-empty strings, got {name!r}"
                )
            if isinstance(place, bool) or not isinstance(place, numbers.Integral) or place < 1:
                raise ValueError(
                    f"match {self.key}: place of {name!r} must be an int >= 1, got {place!r}"
                )


@dataclass(frozen=True)
class Rating:
    """A participant's fitted rating and its 95% bootstrap interval (None without bootstrap)."""

    name: str
    elo: float
    ci_low: float | None
    ci_high: float | None
    reference: bool


# --------------------------------------------------------------------------- batch fit


def fit_ratings(
    matches: Iterable[RatedMatch], *, bootstrap: int = 200, seed: int = 0
) -> dict[str, Rating]:
    """Fit Bradley-Terry/Elo ratings to all ``matches``; keys of the result are sorted by name.

    ``bootstrap`` resamples of whole matches (drawn with ``numpy.random.default_rng(seed)``)
    give the 95% percentile intervals; with ``bootstrap=0`` the interval bounds are None.
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, numbers.Integral) or bootstrap < 0:
        raise ValueError(f"bootstrap must be an int >= 0, got {bootstrap!r}")
    data = _PairData.build(_canonical(matches))
    if not data.names:
        return {}

    point = data.solve(data.wins_total, data.games_total, np.zeros(len(data.names)))[0]
    elo = MEAN_ELO + _ELO_PER_NAT * point
    if bootstrap:
        low, high = _bootstrap_interval(data, point, int(bootstrap), seed)
        bounds = [(float(a), float(b)) for a, b in zip(low, high)]
    else:
        bounds = [(None, None)] * len(data.names)
    return {
        name: Rating(
            name=name,
            elo=float(elo[i]),
            ci_low=bounds[i][0],
            ci_high=bounds[i][1],
            reference=name == REFERENCE,
        )
        for i, name in enumerate(data.names)
    }


@dataclass(frozen=True)
class _PairData:
    """Matches turned into pairwise counts, in canonical order.

    ``per_match_wins[m, p]`` / ``per_match_games[m, p]`` hold match ``m``'s weighted
    wins of ``pair_i[p]`` over ``pair_j[p]`` and weighted games between them, in
    units of ``1/unit`` game so that every entry (and every sum of them) is a whole
    number, exact in float64.
    """

    names: tuple[str, ...]
    real: np.ndarray  # bool mask: participants whose mean is fixed at 1500
    pair_i: np.ndarray
    pair_j: np.ndarray
    unit: int
    per_match_wins: sparse.csr_array
    per_match_games: sparse.csr_array
    wins_total: np.ndarray
    games_total: np.ndarray

    @classmethod
    def build(cls, matches: Sequence[RatedMatch]) -> "_PairData":
        names = tuple(sorted({name for m in matches for name in m.places}))
        index = {name: i for i, name in enumerate(names)}
        # A pair in a table of n counts 1/(n-1) game and a tie half of that: with
        # unit = 2 * lcm(n-1 over all tables) every weighted count is a whole number.
        unit = 2 * math.lcm(*{len(m.places) - 1 for m in matches if len(m.places) > 1}, 1)
        rows: list[int] = []
        firsts: list[int] = []
        seconds: list[int] = []
        wins: list[int] = []
        games: list[int] = []
        for row, match in enumerate(matches):
            table = sorted((index[name], place) for name, place in match.places.items())
            if len(table) < 2:
                continue
            weight = unit // (len(table) - 1)
            for a, (i, place_i) in enumerate(table):
                for j, place_j in table[a + 1 :]:
                    rows.append(row)
                    firsts.append(i)
                    seconds.append(j)
                    games.append(weight)
                    if place_i == place_j:
                        wins.append(weight // 2)
                    else:
                        wins.append(weight if place_i < place_j else 0)
        n = len(names)
        codes = np.asarray(firsts, dtype=np.int64) * n + np.asarray(seconds, dtype=np.int64)
        pair_codes, column = np.unique(codes, return_inverse=True)
        shape = (len(matches), len(pair_codes))
        where = (np.asarray(rows, dtype=np.int64), column)
        per_match_wins = sparse.csr_array((np.asarray(wins, np.float64), where), shape=shape)
        per_match_games = sparse.csr_array((np.asarray(games, np.float64), where), shape=shape)
        real = np.array([name != REFERENCE for name in names], dtype=bool)
        if not real.any():
            real[:] = True  # only the reference took part: centre it instead
        return cls(
            names=names,
            real=real,
            pair_i=(pair_codes // max(n, 1)).astype(np.intp),
            pair_j=(pair_codes % max(n, 1)).astype(np.intp),
            unit=unit,
            per_match_wins=per_match_wins,
            per_match_games=per_match_games,
            wins_total=np.asarray(per_match_wins.sum(axis=0)).ravel(),
            games_total=np.asarray(per_match_games.sum(axis=0)).ravel(),
        )

    def solve(self, wins: np.ndarray, games: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Maximum a posteriori ratings (logistic scale, real mean 0), a row per row of counts.

        All rows are fitted in one L-BFGS-B run: the objective is a sum of independent
        terms, so its optimum is every row's own optimum, and one run avoids the
        per-call overhead of hundreds of tiny optimisations.
        """
        wins = np.atleast_2d(wins) / self.unit
        losses = np.atleast_2d(games) / self.unit - wins
        rows, n = wins.shape[0], len(self.names)
        real = self.real.astype(np.float64)
        n_real = real.sum()
        # Flat indices of every pair's two participants in the (rows, n) rating array.
        base = (np.arange(rows) * n)[:, None]
        flat_i = (base + self.pair_i).ravel()
        flat_j = (base + self.pair_j).ravel()

        def centred(x: np.ndarray) -> np.ndarray:
            ratings = x.reshape(rows, n)
            return ratings - (np.sum(ratings * real, axis=1) / n_real)[:, None]

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            u = centred(x)
            d = u[:, self.pair_i] - u[:, self.pair_j]
            # Negative log-likelihood of the pairs, plus the virtual draws against 0.
            value = np.sum(wins * np.logaddexp(0.0, -d)) + np.sum(losses * np.logaddexp(0.0, d))
            value += 0.5 * PRIOR_DRAWS * np.sum(np.logaddexp(0.0, -u) + np.logaddexp(0.0, u))
            grad_d = ((wins + losses) * special.expit(d) - wins).ravel()
            grad_u = np.bincount(flat_i, grad_d, rows * n) - np.bincount(flat_j, grad_d, rows * n)
            grad_u = grad_u.reshape(rows, n) + PRIOR_DRAWS * (special.expit(u) - 0.5)
            # Chain rule through the centring: each row's summed gradient leaves its real entries.
            grad_x = grad_u - real * (np.sum(grad_u, axis=1) / n_real)[:, None]
            return float(value), grad_x.ravel()

        result = optimize.minimize(
            objective,
            np.broadcast_to(start, (rows, n)).ravel(),
            jac=True,
            method="L-BFGS-B",
            options={"gtol": 1e-9, "ftol": 1e-15, "maxiter": 5000},
        )
        # L-BFGS-B stops once f no longer decreases in floating point.  Accept the point
        # if the Newton step every participant still has to go, |gradient| / curvature
        # (diagonal), is below 1e-4 on the logistic scale (0.02 Elo).
        u = centred(result.x)
        d = u[:, self.pair_i] - u[:, self.pair_j]
        spread = ((wins + losses) * special.expit(d) * special.expit(-d)).ravel()
        curvature = PRIOR_DRAWS * (special.expit(u) * special.expit(-u)).ravel()
        curvature += np.bincount(flat_i, spread, rows * n) + np.bincount(flat_j, spread, rows * n)
        gradient = objective(result.x)[1]
        if not np.all(np.abs(gradient) <= 1e-4 * curvature):
            raise RuntimeError(f"rating fit did not converge: {result.message}")
        return centred(result.x)


def _bootstrap_interval(
    data: _PairData, point: np.ndarray, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval (Elo) from refits on whole-match resamples, warm-started at ``point``."""
    n_matches, n_pairs = data.per_match_wins.shape
    rng = np.random.default_rng(seed)
    wins = np.empty((resamples, n_pairs))
    games = np.empty((resamples, n_pairs))
    chunk = max(1, _BOOTSTRAP_CHUNK // n_matches)  # bounds memory for large histories
    for first in range(0, resamples, chunk):
        rows = min(chunk, resamples - first)
        draws = rng.integers(0, n_matches, size=(rows, n_matches))
        offsets = np.arange(rows)[:, None] * n_matches
        counts = np.bincount((draws + offsets).ravel(), minlength=rows * n_matches)
        counts = counts.reshape(rows, n_matches).T.astype(np.float64)
        # Sparse products of whole numbers: exact, hence independent of summation order.
        wins[first : first + rows] = (data.per_match_wins.T @ counts).T
        games[first : first + rows] = (data.per_match_games.T @ counts).T
    fits = data.solve(wins, games, point)
    tail = 100.0 * (1.0 - CI_LEVEL) / 2.0
    low, high = np.percentile(MEAN_ELO + _ELO_PER_NAT * fits, [tail, 100.0 - tail], axis=0)
    return low, high


def _canonical(matches: Iterable[RatedMatch]) -> list[RatedMatch]:
    """The matches sorted by key; a duplicate key is an error (the order would be ambiguous)."""
    ordered = sorted(matches, key=lambda m: m.key)
    for before, after in zip(ordered, ordered[1:]):
        if before.key == after.key:
            raise ValueError(f"duplicate match key {before.key!r}")
    return ordered


# --------------------------------------------------------------------------- live Elo


def live_elo(
    matches: Iterable[RatedMatch], *, k: float = 32.0, initial: float = 1500.0
) -> dict[str, float]:
    """Classic multiplayer Elo after all ``matches`` in ``order`` order (keys sorted by name)."""
    ratings: dict[str, float] = {}
    for _, after in live_elo_history(matches, k=k, initial=initial):
        ratings.update(after)
    return dict(sorted(ratings.items()))


def live_elo_history(
    matches: Iterable[RatedMatch], *, k: float = 32.0, initial: float = 1500.0
) -> list[tuple[str, dict[str, float]]]:
    """``(match key, {participant: rating after that match})`` for each match, in ``order`` order.

    Each participant of a table of ``n`` moves by ``k/(n-1) * sum over opponents (S - E)``
    (S = 1 win, 1/2 tie, 0 loss; E from the ratings before the match); all of one
    match's updates are applied at once.  Each entry lists that match's participants.
    """
    if not (math.isfinite(k) and k > 0):
        raise ValueError(f"k must be a finite number > 0, got {k!r}")
    if not math.isfinite(initial):
        raise ValueError(f"initial must be a finite number, got {initial!r}")
    try:
        ordered = sorted(_canonical(matches), key=lambda m: m.order)
    except TypeError as error:
        raise ValueError(f"match orders cannot be compared with each other: {error}") from None
    ratings: dict[str, float] = {}
    history: list[tuple[str, dict[str, float]]] = []
    for match in ordered:
        names = sorted(match.places)
        before = [ratings.get(name, initial) for name in names]
        after = dict(zip(names, before))
        if len(names) > 1:
            step = k / (len(names) - 1)
            for a, name in enumerate(names):
                total = 0.0
                for b, other in enumerate(names):
                    if b == a:
                        continue
                    place_a, place_b = match.places[name], match.places[other]
                    score = 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0
                    expected = 1.0 / (1.0 + 10.0 ** ((before[b] - before[a]) / 400.0))
                    total += score - expected
                after[name] = before[a] + step * total
        ratings.update(after)
        history.append((match.key, after))
    return history

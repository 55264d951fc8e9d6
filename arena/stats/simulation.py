"""Simulated bots of known strength, to measure the SPRT's error rates and length.

A pure simulation of per-deal outcomes (numpy; no processes, no engine), deal for deal
as ``arena sprt`` plays them: the same pool opponents, cycled the same way, every
deal played in every seat rotation by NEW and by OLD.

**The model.**  At every table each participant draws a performance: its strength
(Elo × ln10/400) plus standard Gumbel noise, and the finishing order follows the
performances (the Plackett–Luce model).  The difference of two Gumbel draws is
logistic, so any two participants finish in a given order with exactly the
Bradley–Terry probability of their Elo difference, the leaderboard's model
(docs/ratings.md).  The duplicate format's shared luck: in NEW's and OLD's twin
matches of a deal the pool opponents draw the same noise, and the candidate's seat
draws the same noise with probability ``shared_luck`` (an independent one otherwise),
so the twins' scores are correlated while every marginal stays exact.

**The true Elo** of NEW over OLD is then known exactly in the sense the test uses
(:mod:`arena.stats.sprt`): ``elo(E[score NEW]) − elo(E[score OLD])`` with the exact
expected scores; :func:`strength_for` finds NEW's strength that gives a wanted value.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq

from arena.stats.sprt import (
    REGULARIZATION,
    Decision,
    FloatArray,
    SprtParameters,
    baseline_estimate,
    elo_to_score,
    expected_difference,
    log_likelihood_ratio,
    score_to_elo,
)

_NATURAL = math.log(10) / 400.0  # Elo to the logistic's natural scale


@dataclass(frozen=True)
class SimulatedPool:
    """The frozen pool and the table: OLD has Elo 0; the others are relative to it."""

    table_size: int = 4
    pool_elo: tuple[float, ...] = (-100.0, 0.0, 100.0)
    #: The two-player game's imaginary shareholder, a third participant at every table of 2
    #: (None: a game without one, e.g. Ticket to Ride).
    imaginary_elo: float | None = 0.0
    #: The chance that NEW's and OLD's twin seats draw the same luck.
    shared_luck: float = 0.5

    def __post_init__(self) -> None:
        if not 2 <= self.table_size <= 6:
            raise ValueError(f"table size {self.table_size} is outside 2..6")
        if len(self.pool_elo) < self.table_size - 1:
            raise ValueError(f"a table of {self.table_size} needs {self.table_size - 1} pool bots, "
                             f"the pool has {len(self.pool_elo)}")
        if not 0.0 <= self.shared_luck <= 1.0:
            raise ValueError(f"shared_luck must be in [0, 1], got {self.shared_luck}")

    def opponent_sets(self) -> npt.NDArray[np.float64]:
        """Each deal's opponents' Elo, one row per deal of a cycle (the order ``arena sprt`` uses)."""
        combos = [list(c) for c in itertools.combinations(self.pool_elo, self.table_size - 1)]
        if self.table_size == 2 and self.imaginary_elo is not None:
            combos = [c + [self.imaginary_elo] for c in combos]
        return np.array(combos, dtype=float)

    def expected_score(self, elo: float) -> float:
        """A candidate's exact expected score over a cycle of deals."""
        return float(np.mean(elo_to_score(elo - self.opponent_sets())))

    def true_elo(self, new_elo: float) -> float:
        """NEW's Elo over OLD (at 0) as the test defines it."""
        return float(score_to_elo(self.expected_score(new_elo)) - score_to_elo(self.expected_score(0.0)))


def strength_for(pool: SimulatedPool, target_elo: float) -> float:
    """The strength NEW needs for :meth:`SimulatedPool.true_elo` to be ``target_elo``."""
    if target_elo == 0:
        return 0.0
    span = 4 * abs(target_elo) + 100
    return float(brentq(lambda e: pool.true_elo(e) - target_elo, -span, span, xtol=1e-10))


def simulate_deals(pool: SimulatedPool, new_elo: float, runs: int, first_deal: int, deals: int,
                   rng: np.random.Generator) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """NEW's and OLD's pairwise wins (runs × deals) on deals ``first_deal ..`` of the cycle;
    a score is wins / (table size × opponents)."""
    sets = pool.opponent_sets()
    opponents = sets[(first_deal + np.arange(deals)) % len(sets)] * _NATURAL  # (deals, m)
    k, m = pool.table_size, sets.shape[1]
    opp = opponents[None, :, None, :] + rng.gumbel(size=(runs, deals, k, m))
    new_luck = rng.gumbel(size=(runs, deals, k))
    shared = rng.random(size=(runs, deals, k)) < pool.shared_luck
    old_luck = np.where(shared, new_luck, rng.gumbel(size=(runs, deals, k)))
    new_wins = (new_elo * _NATURAL + new_luck)[..., None] > opp
    old_wins = old_luck[..., None] > opp
    return new_wins.sum(axis=(2, 3)), old_wins.sum(axis=(2, 3))


@dataclass(frozen=True)
class SimulatedRuns:
    """What many simulated tests of one NEW did."""

    true_elo: float
    decisions: npt.NDArray[np.str_]  # per run: "H0", "H1" or "continue" (stopped by max_deals)
    deals: npt.NDArray[np.int64]  # per run: deals played until the decision (or max_deals)
    games_per_deal: int

    @property
    def runs(self) -> int:
        return len(self.decisions)

    def share(self, decision: Decision) -> float:
        return float(np.mean(self.decisions == decision.value))

    @property
    def mean_deals(self) -> float:
        return float(np.mean(self.deals))


class VectorisedTest:
    """Many independent SPRTs side by side (one per row), fed one deal at a time: the
    same LLR as :class:`arena.stats.sprt.SequentialTest`, vectorised over runs.

    Observations are pairwise wins out of ``pairs`` per bot and deal, so NEW − OLD
    lives on the grid ``(-pairs .. pairs) / pairs``.
    """

    def __init__(self, params: SprtParameters, runs: int, pairs: int) -> None:
        self.params = params
        self.pairs = pairs
        self.values = np.arange(-pairs, pairs + 1, dtype=float) / pairs
        self.counts = np.zeros((runs, len(self.values)))
        self.counts[:, 0] = self.counts[:, -1] = REGULARIZATION
        self.old_sum = np.zeros(runs)
        self.deals = np.zeros(runs, dtype=np.int64)
        self.llr = np.zeros(runs)
        self._lam = (np.zeros(runs), np.zeros(runs))
        self.decisions = np.full(runs, Decision.CONTINUE.value, dtype="<U8")
        self.active = np.arange(runs)

    def feed(self, rows: npt.NDArray[np.int64], new_wins: npt.NDArray[np.int64],
             old_wins: npt.NDArray[np.int64]) -> None:
        """One more deal for each of ``rows`` (runs still going); decides those that cross a bound."""
        self.counts[rows, new_wins - old_wins + self.pairs] += 1
        self.old_sum[rows] += old_wins / self.pairs
        self.deals[rows] += 1
        baseline = baseline_estimate(self.old_sum[rows], self.deals[rows])
        llr, lam0, lam1 = log_likelihood_ratio(
            self.values, self.counts[rows], expected_difference(self.params.elo0, baseline),
            expected_difference(self.params.elo1, baseline), (self._lam[0][rows], self._lam[1][rows]))
        self.llr[rows], self._lam[0][rows], self._lam[1][rows] = llr, lam0, lam1
        up, down = llr >= self.params.upper, llr <= self.params.lower
        self.decisions[rows[up]] = Decision.H1.value
        self.decisions[rows[down]] = Decision.H0.value
        if up.any() or down.any():
            self.active = np.setdiff1d(self.active, rows[up | down], assume_unique=True)


def run_simulated_tests(params: SprtParameters, pool: SimulatedPool, true_elo: float, *, runs: int,
                        max_deals: int, seed: int, block: int = 100) -> SimulatedRuns:
    """``runs`` independent SPRTs of a NEW that is ``true_elo`` better than OLD: every run
    evaluates the LLR after every deal, as ``arena sprt`` does, and stops at the first
    bound crossed (or after ``max_deals``)."""
    if runs < 1 or max_deals < 1:
        raise ValueError("runs and max_deals must be at least 1")
    rng = np.random.default_rng(seed)
    new_elo = strength_for(pool, true_elo)
    test = VectorisedTest(params, runs, pool.table_size * pool.opponent_sets().shape[1])
    for first in range(0, max_deals, block):
        if test.active.size == 0:
            break
        size = min(block, max_deals - first)
        playing = test.active  # only the runs still going get deals: row i of the block is run playing[i]
        new_wins, old_wins = simulate_deals(pool, new_elo, len(playing), first, size, rng)
        position = np.full(runs, -1)
        position[playing] = np.arange(len(playing))
        for j in range(size):
            rows = test.active
            if rows.size == 0:
                break
            test.feed(rows, new_wins[position[rows], j], old_wins[position[rows], j])
    return SimulatedRuns(true_elo=true_elo, decisions=test.decisions, deals=test.deals,
                         games_per_deal=2 * pool.table_size)


def characteristic(params: SprtParameters, pool: SimulatedPool, *, runs: int, max_deals: int, seed: int,
                   elos: tuple[float, ...] | None = None) -> list[SimulatedRuns]:
    """The test's operating characteristic at a few true Elo values (default: elo0 − w/2,
    elo0, the midpoint, elo1, elo1 + w/2 with w = elo1 − elo0)."""
    width = params.elo1 - params.elo0
    if elos is None:
        elos = (params.elo0 - width / 2, params.elo0, (params.elo0 + params.elo1) / 2, params.elo1,
                params.elo1 + width / 2)
    return [run_simulated_tests(params, pool, elo, runs=runs, max_deals=max_deals, seed=seed + i)
            for i, elo in enumerate(elos)]


def scores_of(wins: FloatArray, pool: SimulatedPool) -> FloatArray:
    """Scores from pairwise wins (for feeding :class:`arena.stats.sprt.SequentialTest`)."""
    return np.asarray(wins, dtype=float) / (pool.table_size * pool.opponent_sets().shape[1])

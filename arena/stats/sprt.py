"""The generalised sequential probability ratio test (GSPRT) of "is NEW better than OLD?".

Pure maths (numpy): no I/O, no clock, no randomness.  ``arena sprt`` feeds it one
observation per deal; :mod:`arena.stats.simulation` feeds it simulated bots by the
hundred to measure its error rates and its expected length.

**Observations.**  Every deal is played twice against the same pool opponents in the
same seats, once by NEW and once by OLD.  A bot's *score* on a deal is the fraction
of its opponents it finished ahead of over all its seat rotations (a tie counts ½).
One observation is ``x = score(NEW) - score(OLD)``, a value on a finite grid in
[-1, 1] (multiples of 1/120 for any table size from 2 to 6).

**Elo.**  The Elo scale is the leaderboard's (docs/ratings.md): a bot that finishes
ahead of the pool's bots in a share ``s`` of the pairs has Elo ``400·log10(s/(1-s))``
relative to the pool.  NEW is ``e`` Elo better than OLD when
``elo(s_NEW) - elo(s_OLD) = e``, with ``s`` the expected scores; so, writing
``L(e) = 1/(1+10^(-e/400))`` and ``r = elo(s_OLD)`` (OLD's Elo relative to the pool),
the hypothesis "NEW is ``e`` Elo better" says the expected observation is
``L(r + e) - L(r)``.  ``r`` is a nuisance parameter, estimated from OLD's mean
score (with half a deal of prior towards ½, so that it stays finite).

**The test.**  H0: NEW − OLD = ``elo0`` against H1: NEW − OLD = ``elo1``.  As fishtest
does for chess with pentanomial game pairs (M. Van den Bergh's GSPRT), the
distribution of the observations is modelled by a multinomial on the grid values
seen, with no shape assumed; under each hypothesis the maximum-likelihood
multinomial whose mean is that hypothesis's expected observation is
``p_i = p̂_i / (1 + λ(a_i - μ))`` (``p̂`` the empirical frequencies, ``a_i`` the grid
values, ``λ`` the root of ``Σ p̂_i (a_i − μ)/(1 + λ(a_i − μ)) = 0``), and the
log-likelihood ratio of the ``N`` observations is
``LLR = N Σ p̂_i log(p1_i / p0_i)``.  The test stops at the first deal where
``LLR ≥ log((1−β)/α)`` (accept H1) or ``LLR ≤ log(β/(1−α))`` (accept H0), Wald's
bounds, with no overshoot correction.  To keep the constrained maximum defined
whatever was seen, the empirical distribution gets a pseudo-observation of weight
:data:`REGULARIZATION` at each end of the range, −1 and +1 (fishtest similarly puts
1e-3 in empty pentanomial cells).
"""

from __future__ import annotations

import enum
import math
import numbers
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Weight of the pseudo-observation at each end of the grid, -1 and +1.
REGULARIZATION = 1e-3
#: Observations are grouped on this grid (1/120 holds every table size's scores exactly;
#: a multiple of it keeps other inputs, e.g. simulated ones, apart).
GRID_DENOMINATOR = 7200
_Z95 = 1.959963984540054


def elo_to_score(elo: float | FloatArray) -> float | FloatArray:
    """Expected share of pairwise results for an Elo difference: ``1/(1+10^(-elo/400))``."""
    return 1.0 / (1.0 + np.power(10.0, -np.asarray(elo, dtype=float) / 400.0))


def score_to_elo(score: float | FloatArray) -> float | FloatArray:
    """The Elo difference that gives that expected score (the inverse of :func:`elo_to_score`)."""
    s = np.asarray(score, dtype=float)
    return 400.0 * np.log10(s / (1.0 - s))


def baseline_estimate(old_score_sum: float | FloatArray, deals: float | FloatArray) -> float | FloatArray:
    """OLD's mean score with half a deal of prior at ½: strictly inside (0, 1), so its Elo is finite."""
    return (np.asarray(old_score_sum, dtype=float) + 0.5) / (np.asarray(deals, dtype=float) + 1.0)


def expected_difference(elo: float | FloatArray, baseline_score: float | FloatArray) -> float | FloatArray:
    """The expected observation (NEW's score minus OLD's) when NEW is ``elo`` better than an OLD
    that scores ``baseline_score`` against the pool: ``L(r + elo) - L(r)``, ``r = elo(baseline)``."""
    r = score_to_elo(baseline_score)
    return elo_to_score(r + np.asarray(elo, dtype=float)) - np.asarray(baseline_score, dtype=float)


class Decision(enum.StrEnum):
    CONTINUE = "continue"
    H0 = "H0"  # not better by elo1: reject the change
    H1 = "H1"  # better by more than elo0: accept the change


@dataclass(frozen=True)
class SprtParameters:
    """The hypotheses (in Elo) and the error rates; the LLR bounds follow (Wald)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got elo0={self.elo0:g} and elo1={self.elo1:g}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, "
                             f"got alpha={self.alpha:g} and beta={self.beta:g}")
        if max(abs(self.elo0), abs(self.elo1)) > 2000:
            raise ValueError("elo0 and elo1 must lie within ±2000")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(β/(1−α))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1−β)/α)``."""
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, llr: float) -> Decision:
        if llr >= self.upper:
            return Decision.H1
        if llr <= self.lower:
            return Decision.H0
        return Decision.CONTINUE

    def to_json(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


def constrained_multiplier(values: FloatArray, weights: FloatArray, mean: FloatArray,
                           start: FloatArray | None = None) -> FloatArray:
    """``λ`` of the maximum-likelihood distribution on ``values`` with the given ``mean``.

    ``values`` (G,) ascending; ``weights`` (R, G), the counts of R independent samples,
    positive at both ends of ``values``; ``mean`` (R,) strictly between the first and the
    last value.  Returns, per sample, the root of ``Σ w_i b_i / (1 + λ b_i) = 0`` with
    ``b_i = values_i − mean`` inside the interval where every ``1 + λ b_i`` is positive:
    the function is strictly decreasing there, from +∞ to −∞, so the root is unique.
    Safeguarded Newton (a Newton step when it stays inside the bracket, else bisection),
    started from ``start`` when given (the previous deal's λ converges in a few steps).
    """
    weights = np.atleast_2d(weights)
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    b = values[None, :] - mean[:, None]
    low = -1.0 / (values[-1] - mean)  # the bracket: where 1 + λ b > 0 for every value
    high = 1.0 / (mean - values[0])
    lam = np.zeros_like(mean) if start is None else np.asarray(start, dtype=float)
    lam = np.where((lam > low) & (lam < high), lam, 0.0)
    scale = weights.sum(axis=1)
    for _ in range(200):
        q = 1.0 + lam[:, None] * b
        slope = (weights * b / q).sum(axis=1)  # decreasing in λ
        curvature = (weights * (b / q) ** 2).sum(axis=1)
        done = np.abs(slope) <= 1e-13 * scale
        if done.all():
            break
        low = np.where(slope > 0, lam, low)
        high = np.where(slope < 0, lam, high)
        newton = lam + slope / curvature
        inside = (newton > low) & (newton < high)
        step = np.where(inside, newton, 0.5 * (low + high))
        lam = np.where(done, lam, step)
        if np.all(high - low <= 1e-15 * (1.0 + np.abs(lam))):
            break
    return lam


def log_likelihood_ratio(values: FloatArray, weights: FloatArray, mean0: FloatArray, mean1: FloatArray,
                         start: tuple[FloatArray, FloatArray] | None = None,
                         ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The GSPRT LLR of H1 (expected observation ``mean1``) against H0 (``mean0``), per sample.

    ``weights`` (R, G) are the counts of each value (regularisation included).  Returns
    the LLR (R,) and the two multipliers (to warm-start the next call).
    """
    weights = np.atleast_2d(weights)
    lam0 = constrained_multiplier(values, weights, mean0, None if start is None else start[0])
    lam1 = constrained_multiplier(values, weights, mean1, None if start is None else start[1])
    b0 = values[None, :] - np.atleast_1d(mean0)[:, None]
    b1 = values[None, :] - np.atleast_1d(mean1)[:, None]
    # log(p1_i / p0_i) = log(1 + λ0 b0_i) − log(1 + λ1 b1_i); weighted by the counts
    terms = np.log1p(lam0[:, None] * b0) - np.log1p(lam1[:, None] * b1)
    llr = (np.where(weights > 0, weights * terms, 0.0)).sum(axis=1)
    return llr, lam0, lam1


def grid_index(observation: float | FloatArray) -> int | npt.NDArray[np.int64]:
    """The grid point of an observation in [-1, 1]: ``round((x + 1) * GRID_DENOMINATOR)``."""
    return np.rint((np.asarray(observation, dtype=float) + 1.0) * GRID_DENOMINATOR).astype(np.int64)


@dataclass(frozen=True)
class SprtState:
    """Where a test stands after ``deals`` observations."""

    deals: int
    llr: float
    lower: float
    upper: float
    decision: Decision
    new_score: float  # NEW's mean score (NaN before the first deal)
    old_score: float
    elo: float  # the estimate of NEW − OLD (NaN before the first deal)
    elo_ci95: float  # half-width of its approximate 95% interval (NaN with fewer than 2 deals)

    @property
    def difference(self) -> float:
        return self.new_score - self.old_score

    def to_json(self) -> dict[str, object]:
        def number(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 6)

        return {"deals": self.deals, "llr": number(self.llr), "lower": number(self.lower),
                "upper": number(self.upper), "decision": self.decision.value,
                "new_score": number(self.new_score), "old_score": number(self.old_score),
                "elo": number(self.elo), "elo_ci95": number(self.elo_ci95)}


class SequentialTest:
    """A running GSPRT: :meth:`add` one deal's scores at a time, read :meth:`state`.

    The LLR depends on the set of observations only, not on their order; the
    decision is taken at the first deal whose LLR crosses a bound (the caller adds
    deals in a fixed order and stops there).
    """

    def __init__(self, params: SprtParameters) -> None:
        self.params = params
        self._counts: dict[int, int] = {}
        self._deals = 0
        self._new_sum = 0.0
        self._old_sum = 0.0
        self._diff_sq = 0.0
        self._llr = 0.0
        self._start: tuple[FloatArray, FloatArray] | None = None

    def add(self, new_score: float, old_score: float) -> SprtState:
        for name, score in (("NEW", new_score), ("OLD", old_score)):
            if isinstance(score, bool) or not isinstance(score, numbers.Real) or not 0.0 <= score <= 1.0:
                raise ValueError(f"{name}'s score must be in [0, 1], got {score!r}")
        new_score, old_score = float(new_score), float(old_score)
        key = int(grid_index(new_score - old_score))
        self._counts[key] = self._counts.get(key, 0) + 1
        self._deals += 1
        self._new_sum += new_score
        self._old_sum += old_score
        self._diff_sq += (new_score - old_score) ** 2
        self._llr = self._compute_llr()
        return self.state()

    def extend(self, scores: Sequence[tuple[float, float]]) -> SprtState:
        for new, old in scores:
            self.add(new, old)
        return self.state()

    def _compute_llr(self) -> float:
        values, weights = self.distribution()
        baseline = baseline_estimate(self._old_sum, self._deals)
        mean0 = np.atleast_1d(expected_difference(self.params.elo0, baseline))
        mean1 = np.atleast_1d(expected_difference(self.params.elo1, baseline))
        llr, lam0, lam1 = log_likelihood_ratio(values, weights[None, :], mean0, mean1, self._start)
        self._start = (lam0, lam1)
        return float(llr[0])

    def distribution(self) -> tuple[FloatArray, FloatArray]:
        """The grid values seen (with −1 and +1) and their counts, regularisation included."""
        counts = dict(self._counts)
        for end in (0, 2 * GRID_DENOMINATOR):
            counts[end] = counts.get(end, 0) + REGULARIZATION
        keys = sorted(counts)
        values = np.array(keys, dtype=float) / GRID_DENOMINATOR - 1.0
        return values, np.array([counts[k] for k in keys], dtype=float)

    def state(self) -> SprtState:
        n = self._deals
        p = self.params
        if n == 0:
            nan = float("nan")
            return SprtState(0, 0.0, p.lower, p.upper, Decision.CONTINUE, nan, nan, nan, nan)
        new_mean, old_mean = self._new_sum / n, self._old_sum / n
        new_est = baseline_estimate(self._new_sum, n)
        old_est = baseline_estimate(self._old_sum, n)
        elo = float(score_to_elo(new_est) - score_to_elo(old_est))
        ci = float("nan")
        if n >= 2:
            mean_diff = new_mean - old_mean
            variance = max(0.0, (self._diff_sq - n * mean_diff**2) / (n - 1))
            slope = 400.0 / (math.log(10) * new_est * (1.0 - new_est))  # d elo / d score of NEW
            ci = _Z95 * slope * math.sqrt(variance / n)
        return SprtState(n, self._llr, p.lower, p.upper, p.decide(self._llr), new_mean, old_mean, elo, ci)

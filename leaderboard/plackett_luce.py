"""The Plackett-Luce model of finishing orders, fitted by Newton's method (numpy + scipy).

Model.  Participant ``i`` has strength ``exp(theta_i)``.  A table's finishing order
is built stage by stage: the first place goes to ``i`` with probability
``exp(theta_i) / sum of exp(theta_j) over the table``, the second place likewise
among the rest, and so on.  A tie (a shared place) counts as the average over the
orders of the tied participants: the log-likelihood of a tie is the mean of the
log-likelihoods of every order the tied participants could have finished in
(each order counts ``1/t!`` for a tie of ``t``).  So a drawn duel is half a win and
half a loss, as in Elo.

Data.  A stage contributes ``log sum exp(theta over the remaining set)``, and the
tie average is a weighted sum of such terms (the set minus every subset of the
tied group that could have gone first, weighted ``1/C(t, q)``), so the whole
negative log-likelihood is ``-a . theta + sum over distinct sets S of c_S *
logsumexp(theta_S)``.  :class:`StageSets` aggregates the matches into those
distinct sets once; the fit then costs the number of distinct sets, not matches.
Weights are whole multiples of ``1/unit`` and kept as whole numbers until the
end, so every sum is exact in float64 and independent of the order of the data.

Fit.  Maximum a posteriori with a weak prior (each participant plays one virtual
drawn duel against a virtual opponent with theta 0), subject to the mean of the
real participants being 0: damped Newton steps on the KKT system.  The prior keeps
an unbeaten participant finite and participants who never met apart from each
other at a finite distance.

Bootstrap.  Whole deals (clusters) are resampled with replacement.  When the
refits are affordable every resample is refitted by Newton from the point fit
("refit"); on large data one Newton step from the point fit with the full-data
Hessian ("one-step", the k = 1 bootstrap of Andrews 2002, Econometrica 70(1)),
whose error is far below the interval's width at that size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.finishing_orders import FinishingOrders

if TYPE_CHECKING:
    from scipy import sparse

#: Virtual drawn duels each participant plays against a theta-0 opponent (the prior).
PRIOR_DRAWS = 1.0
#: Newton stops when no participant's step is larger than this (logistic scale).
STEP_TOLERANCE = 1e-9
#: Refit every resample when (resamples x Hessian entries to add) is at most this.
REFIT_WORK = 4e7
#: ... and (resamples x (participants + 1)^3), the cost of the Newton solves, at most this.
REFIT_SOLVE_WORK = 2e9
#: Largest tie handled (2^t subsets are enumerated); Union Pacific has at most 7 participants.
MAX_TIE = 16
_CHUNK_ENTRIES = 4_000_000  # array entries per chunk of vectorised work
_BUILD_CHUNK = 65_536  # matches per chunk of StageSets.build
_GRADIENT_ENTRIES = 1_000_000  # deal counts per chunk of one-step bootstrap resamples
_LINEAR_MERGE = 250_000  # linear terms gathered before they are summed into StageSets.linear


# --------------------------------------------------------------------------- stage sets


@dataclass(frozen=True, eq=False)
class StageSets:
    """The data of the fit, aggregated into distinct stage sets.

    ``sets[k]`` holds the distinct sets of ``sizes[k]`` participants (rows of sorted
    participant indexes); ``per_cluster[k]`` (clusters x sets) their weights in each
    deal and ``linear`` (clusters x participants) each deal's linear coefficients,
    all whole numbers in units of ``1/unit``.
    """

    participants: int
    clusters: int
    real: np.ndarray
    unit: int
    sizes: tuple[int, ...]
    sets: tuple[np.ndarray, ...]
    per_cluster: tuple[sparse.csr_array, ...]
    linear: sparse.csr_array

    @classmethod
    def build(cls, orders: FinishingOrders) -> "StageSets":
        from scipy import sparse  # loaded when a fit runs: commands that fit nothing start faster
        n = len(orders.names)
        templates: dict[tuple[int, int], _Template] = {}
        plan = []  # (block, rows, template)
        for block in orders.blocks:
            if block.width < 2:
                continue
            ties = block.place[:, 1:] == block.place[:, :-1]
            codes = (ties.astype(np.int64) << np.arange(block.width - 1, dtype=np.int64)).sum(axis=1)
            for code in np.unique(codes):
                template = templates.setdefault((block.width, int(code)), _Template.of(block.width, int(code)))
                plan.append((block, np.flatnonzero(codes == code), template))
        unit = math.lcm(1, *(t.denominator for t in templates.values()))
        # Gathered one set size at a time, chunk by chunk of matches, compactly (a set as one
        # whole number): the per-match arrays of a million matches would take several times
        # the memory of the result.
        bits = max(1, (n - 1).bit_length())
        linear_keys: list[np.ndarray] = []
        linear_sums: list[np.ndarray] = []
        sizes = sorted({len(columns) for t in templates.values() for columns, _ in t.sets})
        sets, per_cluster = [], []
        for size in sizes:
            gathered = _Gathered(size, bits)
            for block, rows, template in plan:
                wanted = [(columns, weight) for columns, weight in template.sets if len(columns) == size]
                for lo in range(0, len(rows), _BUILD_CHUNK) if wanted else ():
                    part = rows[lo:lo + _BUILD_CHUNK]
                    who = block.who[part].astype(np.int64)
                    cluster = block.cluster[part].astype(np.int64)
                    for columns, weight in wanted:
                        gathered.add(np.sort(who[:, columns], axis=1), cluster, float(weight * unit))
            distinct, owner, inverse, weight = gathered.finish()
            sets.append(distinct)
            per_cluster.append(sparse.csr_array((weight, (_narrow(owner), _narrow(inverse))),
                                                shape=(orders.clusters, len(distinct))))
            del gathered, distinct, owner, inverse, weight
        # the linear terms in a second pass, once the sets' gathered arrays are gone, summed into
        # one sparse matrix every 250,000 or so terms (a lower peak than all of them at once)
        linear = sparse.csr_array((orders.clusters, n))
        pending = 0
        for block, rows, template in plan:
            if not template.linear:
                continue
            for lo in range(0, len(rows), _BUILD_CHUNK):
                part = rows[lo:lo + _BUILD_CHUNK]
                who = block.who[part].astype(np.int64)
                cluster = block.cluster[part].astype(np.int64)
                for column, weight in template.linear:
                    linear_keys.append(cluster * n + who[:, column])
                    linear_sums.append(np.full(len(part), float(weight * unit)))
                    pending += len(part)
                if pending >= _LINEAR_MERGE:
                    linear = _add_terms(linear, linear_keys, linear_sums, n)
                    pending = 0
        linear = _add_terms(linear, linear_keys, linear_sums, n)
        return cls(participants=n, clusters=orders.clusters, real=orders.real.copy(), unit=unit,
                   sizes=tuple(sizes), sets=tuple(sets), per_cluster=tuple(per_cluster), linear=linear)

    def totals(self) -> "_Problem":
        """The whole data as a one-row problem."""
        counts = [np.asarray(d.sum(axis=0)).reshape(1, -1) / self.unit for d in self.per_cluster]
        linear = np.asarray(self.linear.sum(axis=0)).reshape(1, -1) / self.unit
        return _Problem(self, linear, counts)

    def resampled(self, cluster_counts: np.ndarray) -> "_Problem":
        """A problem per row of ``cluster_counts`` (rows x clusters: how often each deal is drawn)."""
        t = np.ascontiguousarray(cluster_counts.T, dtype=np.float64)
        counts = [np.asarray(d.T @ t).T / self.unit for d in self.per_cluster]
        linear = np.asarray(self.linear.T @ t).T / self.unit
        return _Problem(self, linear, counts)

    @property
    def hessian_entries(self) -> int:
        return int(sum(len(s) * k * k for s, k in zip(self.sets, self.sizes)))


def _add_terms(matrix: sparse.csr_array, keys: list[np.ndarray], sums: list[np.ndarray], n: int) -> sparse.csr_array:
    """``matrix`` (deals x participants) plus the terms ``sums`` at ``keys`` (deal * n + participant);
    the lists are emptied.  Whole numbers: the same sums in any order (a sum of 0 is dropped)."""
    from scipy import sparse
    if not keys:
        return matrix
    key = np.concatenate(keys)
    value = np.concatenate(sums)
    keys.clear()
    sums.clear()
    width = max(n, 1)
    added = sparse.csr_array((value, (_narrow(key // width), _narrow(key % width))), shape=matrix.shape)
    del key, value
    result = matrix + added
    result.sum_duplicates()
    return result


def _narrow(index: np.ndarray) -> np.ndarray:
    """An index array as int32 when it fits (scipy then keeps int32 indices: half the memory)."""
    return index.astype(np.int32) if not len(index) or int(index.max()) < 2**31 - 1 else index


class _Gathered:
    """The stage sets of one size as they are found: each set as one whole number when its
    participant indexes fit in 62 bits (else as its row), with its deal and weight."""

    def __init__(self, size: int, bits: int) -> None:
        self.size = size
        self.bits = bits if bits * size <= 62 else 0  # 0: kept as rows
        self.members: list[np.ndarray] = []
        self.owners: list[np.ndarray] = []
        self.weights: list[tuple[float, int]] = []  # (weight, sets found) per call of add

    def add(self, rows: np.ndarray, cluster: np.ndarray, weight: float) -> None:
        if self.bits:
            code = np.zeros(len(rows), dtype=np.int64)
            for c in range(self.size):
                code = (code << self.bits) | rows[:, c]
            rows = code
        self.members.append(rows)
        self.owners.append(cluster.astype(np.int32) if len(cluster) and cluster.max() < 2**31 else cluster)
        self.weights.append((weight, len(rows)))

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The distinct sets (rows of sorted participant indexes, in sorted order), and per set
        found its deal, the index of its set among the distinct ones, and its weight."""
        found = np.concatenate(self.members)
        self.members = []
        if self.bits:
            codes, inverse = np.unique(found, return_inverse=True)
            del found
            shifts = self.bits * np.arange(self.size - 1, -1, -1, dtype=np.int64)
            distinct = (codes[:, None] >> shifts) & ((1 << self.bits) - 1)
        else:
            distinct, inverse = np.unique(found, axis=0, return_inverse=True)
        owner = np.concatenate(self.owners)
        weight = np.repeat([w for w, _ in self.weights], [count for _, count in self.weights]).astype(np.float64)
        self.owners, self.weights = [], []
        return distinct, owner, inverse.reshape(-1), weight


@dataclass(frozen=True)
class _Template:
    """The stage sets (as column tuples) and linear terms of one tie pattern of one width.

    ``code`` has bit ``c`` set when columns ``c`` and ``c+1`` share a place.
    """

    sets: tuple[tuple[tuple[int, ...], Fraction], ...]
    linear: tuple[tuple[int, Fraction], ...]

    @property
    def denominator(self) -> int:
        return math.lcm(1, *(w.denominator for _, w in self.sets), *(w.denominator for _, w in self.linear))

    @classmethod
    def of(cls, width: int, code: int) -> "_Template":
        groups, start = [], 0
        for c in range(width):
            if c == width - 1 or not code >> c & 1:
                groups.append(tuple(range(start, c + 1)))
                start = c + 1
        sets: dict[tuple[int, ...], Fraction] = {}
        linear: dict[int, Fraction] = {}
        for group in groups:
            if len(group) > MAX_TIE:
                raise ValueError(f"a tie of {len(group)} participants: at most {MAX_TIE} are supported")
            remaining = tuple(range(group[0], width))
            for column in group:  # each tied participant takes one place in every order
                linear[column] = linear.get(column, Fraction(0)) + 1
            t = len(group)
            for q in range(t):  # q of the tied have already gone, in 1/C(t, q) of the orders each
                weight = Fraction(1, math.comb(t, q))
                for gone in combinations(group, q):
                    rest = tuple(c for c in remaining if c not in gone)
                    if len(rest) == 1:  # log-sum-exp of one participant is linear
                        linear[rest[0]] = linear.get(rest[0], Fraction(0)) - weight
                    else:
                        sets[rest] = sets.get(rest, Fraction(0)) + weight
        return cls(sets=tuple(sets.items()), linear=tuple((c, w) for c, w in sorted(linear.items()) if w))


# --------------------------------------------------------------------------- the objective


class _Problem:
    """Negative log-posterior for ``rows`` data sets at once (one per bootstrap resample)."""

    def __init__(self, data: StageSets, linear: np.ndarray, counts: list[np.ndarray]) -> None:
        self.data = data
        self.linear = linear  # (rows, participants)
        self.counts = counts  # per set size: (rows, sets)

    @property
    def rows(self) -> int:
        return self.linear.shape[0]

    def take(self, rows: np.ndarray) -> "_Problem":
        return _Problem(self.data, self.linear[rows], [c[rows] for c in self.counts])

    def value(self, theta: np.ndarray) -> np.ndarray:
        f = _prior(theta) - np.sum(self.linear * theta, axis=1)
        for sets, counts in zip(self.data.sets, self.counts):
            for lo, hi in _chunks(len(sets), theta.shape[0] * sets.shape[1]):
                lse, _ = _softmax(theta[:, sets[lo:hi]])
                f += np.sum(counts[:, lo:hi] * lse, axis=1)
        return f

    def derivatives(self, theta: np.ndarray, hessian: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Value, gradient and (optionally) Hessian at ``theta`` (rows x participants)."""
        rows, n = theta.shape
        f = _prior(theta) - np.sum(self.linear * theta, axis=1)
        s = _sigmoid(theta)
        g = PRIOR_DRAWS * (s - 0.5) - self.linear
        h = np.zeros(rows * n * n) if hessian else None
        diagonal = (np.arange(rows) * n * n)[:, None] + np.arange(n) * (n + 1)
        if h is not None:
            h[diagonal.ravel()] += (PRIOR_DRAWS * s * (1.0 - s)).ravel()
        base = (np.arange(rows) * n)[:, None, None]
        for sets, counts in zip(self.data.sets, self.counts):
            size = sets.shape[1]
            for lo, hi in _chunks(len(sets), rows * size * size):
                part = sets[lo:hi]
                lse, p = _softmax(theta[:, part])
                c = counts[:, lo:hi]
                f += np.sum(c * lse, axis=1)
                wp = c[:, :, None] * p
                flat = (base + part).ravel()
                g += np.bincount(flat, wp.ravel(), rows * n).reshape(rows, n)
                if h is not None:
                    # plus the counts times the probabilities on the diagonal ...
                    h += np.bincount((base * n + part * (n + 1)).ravel(), wp.ravel(), rows * n * n)
                    # ... minus the counts times the outer products p p'
                    index = base[..., None] * n + part[:, :, None] * n + part[:, None, :]
                    outer = wp[:, :, :, None] * p[:, :, None, :]
                    h -= np.bincount(index.ravel(), outer.ravel(), rows * n * n)
        return f, g, None if h is None else h.reshape(rows, n, n)


def _softmax(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-sum-exp over the last axis and the softmax probabilities."""
    top = values.max(axis=-1, keepdims=True)
    e = np.exp(values - top)
    total = e.sum(axis=-1, keepdims=True)
    return (top + np.log(total))[..., 0], e / total


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _prior(theta: np.ndarray) -> np.ndarray:
    """One virtual drawn duel per participant against theta 0: -(log of half a win and half a loss)."""
    return 0.5 * PRIOR_DRAWS * np.sum(np.logaddexp(0.0, theta) + np.logaddexp(0.0, -theta), axis=1)


def _chunks(total: int, per_item: int) -> list[tuple[int, int]]:
    step = max(1, _CHUNK_ENTRIES // max(per_item, 1))
    return [(lo, min(lo + step, total)) for lo in range(0, total, step)]


# --------------------------------------------------------------------------- Newton


def _constrained_step(h: np.ndarray, g: np.ndarray, real: np.ndarray) -> np.ndarray:
    """Newton steps keeping the mean of the real participants: solve [[H, r], [r', 0]] [d; l] = [-g; 0]."""
    rows, n = g.shape
    kkt = np.zeros((rows, n + 1, n + 1))
    kkt[:, :n, :n] = h
    kkt[:, :n, n] = real
    kkt[:, n, :n] = real
    rhs = np.zeros((rows, n + 1, 1))
    rhs[:, :n, 0] = -g
    return np.linalg.solve(kkt, rhs)[:, :n, 0]


def newton(problem: _Problem, start: np.ndarray, max_iterations: int = 200) -> np.ndarray:
    """The minimiser of every row of ``problem`` (rows x participants), from ``start`` (feasible)."""
    real = problem.data.real.astype(np.float64)
    theta = np.array(np.broadcast_to(start, (problem.rows, problem.data.participants)), dtype=np.float64)
    active = np.arange(problem.rows)
    for _ in range(max_iterations):
        if not len(active):
            return theta
        part = problem.take(active)
        x = theta[active]
        f, g, h = part.derivatives(x, hessian=True)
        step = _constrained_step(h, g, real)  # type: ignore[arg-type]
        size = np.max(np.abs(step), axis=1) if step.shape[1] else np.zeros(len(active))
        # Near the optimum the full step is taken (the decrease is below rounding there);
        # further out, halve it until the objective falls enough (Armijo).
        t = np.ones(len(active))
        slope = np.sum(g * step, axis=1)
        pending = np.flatnonzero(size > 1e-6)
        for _ in range(60):
            if not len(pending):
                break
            trial = x[pending] + t[pending, None] * step[pending]
            ok = part.take(pending).value(trial) <= f[pending] + 1e-4 * t[pending] * slope[pending]
            pending = pending[~ok]
            t[pending] *= 0.5
        if len(pending):
            raise RuntimeError("rating fit did not converge (no step decreased the objective)")
        theta[active] = x + t[:, None] * step
        active = active[size > STEP_TOLERANCE]
    raise RuntimeError(f"rating fit did not converge in {max_iterations} Newton steps")


# --------------------------------------------------------------------------- fit and bootstrap


@dataclass(frozen=True, eq=False)
class Fit:
    """The point fit and the bootstrap draws, on the logistic scale (real mean 0)."""

    theta: np.ndarray  # (participants,)
    draws: np.ndarray | None  # (resamples, participants), None without bootstrap
    method: str | None  # "refit" or "one-step", None without bootstrap


def fit(orders: FinishingOrders, *, resamples: int, seed: int, method: str = "auto") -> Fit:
    """Fit ``orders``; ``resamples`` bootstrap resamples of whole deals, drawn with ``seed``.

    ``method`` is "auto" (refit when affordable, see :data:`REFIT_WORK`), "refit" or "one-step".
    """
    if method not in ("auto", "refit", "one-step"):
        raise ValueError(f"method must be 'auto', 'refit' or 'one-step', got {method!r}")
    data = StageSets.build(orders)
    n = data.participants
    total = data.totals()
    theta = newton(total, np.zeros(n))[0]
    if not resamples or not n:
        return Fit(theta=theta, draws=None if not resamples else np.zeros((resamples, n)) + theta,
                   method=None if not resamples else "refit")
    if method == "auto":
        affordable = (resamples * data.hessian_entries <= REFIT_WORK
                      and resamples * (n + 1) ** 3 <= REFIT_SOLVE_WORK)
        method = "refit" if affordable else "one-step"
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_ENTRIES // max(data.clusters, data.hessian_entries + n * n, 1))
    if method == "one-step":  # each resample's gradient on its own: fewer at a time, the same numbers
        per_chunk = max(1, _GRADIENT_ENTRIES // max(data.clusters, 1))
    draws = np.empty((resamples, n))
    one_step = _OneStep(data, total, theta) if method == "one-step" else None
    gradients = np.empty((n, resamples))
    for lo in range(0, resamples, per_chunk):
        hi = min(lo + per_chunk, resamples)
        counts = np.stack([np.bincount(rng.integers(0, data.clusters, data.clusters), minlength=data.clusters)
                           for _ in range(hi - lo)])
        if one_step is None:
            draws[lo:hi] = newton(data.resampled(counts), theta)
        else:
            gradients[:, lo:hi] = one_step.gradient(counts)
    if one_step is not None:
        draws = one_step.step(gradients)  # one solve for every resample
    return Fit(theta=theta, draws=draws, method=method)


class _OneStep:
    """One Newton step from the point fit for each resample, with the full-data Hessian.

    A resample's gradient at the point fit is linear in how often each deal is drawn:
    ``sum over deals of count * (that deal's gradient)`` plus the prior's, so each deal's
    gradient is computed once.
    """

    def __init__(self, data: StageSets, total: _Problem, theta: np.ndarray) -> None:
        from scipy import linalg, sparse  # loaded when a fit runs: commands that fit nothing start faster
        self.data = data
        self.theta = theta
        n = data.participants
        _, _, h = total.derivatives(theta[None, :], hessian=True)
        real = data.real.astype(np.float64)
        kkt = np.zeros((n + 1, n + 1))
        kkt[:n, :n] = h[0]  # type: ignore[index]
        kkt[:n, n] = kkt[n, :n] = real
        self.kkt = linalg.lu_factor(kkt)  # one factorisation for every resample
        per_deal = -data.linear.astype(np.float64)
        for sets, weights in zip(data.sets, data.per_cluster):
            _, p = _softmax(theta[sets])
            rows = np.repeat(np.arange(len(sets)), sets.shape[1])
            probabilities = sparse.csr_array((p.ravel(), (rows, sets.ravel())), shape=(len(sets), n))
            per_deal = per_deal + weights @ probabilities
        self.per_deal = sparse.csr_array(per_deal) / data.unit
        self.prior = PRIOR_DRAWS * (_sigmoid(theta) - 0.5)

    def gradient(self, counts: np.ndarray) -> np.ndarray:
        """The gradient at the point fit of each resample (rows of ``counts``), one column each."""
        return np.asarray(self.per_deal.T @ np.ascontiguousarray(counts.T, dtype=np.float64)) + self.prior[:, None]

    def step(self, gradients: np.ndarray) -> np.ndarray:
        """The point fit plus one constrained Newton step for each column of ``gradients``."""
        from scipy import linalg  # loaded when a fit runs: commands that fit nothing start faster
        rhs = np.vstack([-gradients, np.zeros((1, gradients.shape[1]))])
        return self.theta + linalg.lu_solve(self.kkt, rhs)[:-1].T

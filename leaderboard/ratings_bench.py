"""``arena bench ratings``: the batch fit timed on a synthetic history of known strengths."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from leaderboard import plackett_luce
from leaderboard.crosstable import cross_table
from leaderboard.finishing_orders import REFERENCE, FinishingOrders
from leaderboard.ratings import MEAN_ELO, fit
from leaderboard.synthetic import spread_elo, synthetic_matches

REFERENCE_ELO = 1300.0


@dataclass(frozen=True)
class RatingsBench:
    matches: int
    deals: int
    participants: int
    stage_sets: int  # distinct stage sets the fit works on
    resamples: int
    method: str | None
    generate_s: float  # making the synthetic RatedMatch objects (not part of the fit)
    orders_s: float  # RatedMatch objects -> arrays
    point_s: float  # the point fit alone (arrays -> ratings)
    fit_s: float  # the whole fit with its bootstrap, from RatedMatch objects: what a leaderboard pays
    fit_cpu_s: float  # process CPU time of the same
    cross_s: float  # the cross-table from the arrays
    max_error: float  # largest |fitted - true| Elo
    covered: float  # share of participants whose 95% interval holds the true rating
    order_correct: bool  # the fitted order of the bots is their true order
    pairs_in_order: float  # share of pairs of bots whose fitted order is their true order


def bench_ratings(matches: int, bots: int = 20, resamples: int = 200, seed: int = 0,
                  on_stage=lambda text: None) -> RatingsBench:
    """Time the fit of about ``matches`` synthetic matches among ``bots`` bots (table sizes 2-6,
    every deal in all its seat rotations, the imaginary shareholder at two-player tables)."""
    true = spread_elo(bots)
    on_stage(f"making {matches:,} synthetic matches...")
    started = time.perf_counter()
    # No ties: the fit's tie model is an averaging rule, not a way to generate ties, so
    # random ties would bias the truth the intervals are checked against.
    history = synthetic_matches(true, matches, seed=seed, reference_elo=REFERENCE_ELO)
    generate_s = time.perf_counter() - started
    on_stage("fitting (point fit, then with the bootstrap)...")
    started = time.perf_counter()
    orders = FinishingOrders.build(history)
    orders_s = time.perf_counter() - started
    started = time.perf_counter()
    plackett_luce.fit(orders, resamples=0, seed=seed)
    point_s = time.perf_counter() - started
    started, cpu = time.perf_counter(), time.process_time()
    result = fit(history, bootstrap=resamples, seed=seed)
    fit_s, fit_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    on_stage("cross-table...")
    started = time.perf_counter()
    cross_table(orders)
    cross_s = time.perf_counter() - started
    centre = float(np.mean(list(true.values())))
    target = {**{n: e - centre + MEAN_ELO for n, e in true.items()}, REFERENCE: REFERENCE_ELO - centre + MEAN_ELO}
    ratings = result.ratings
    errors = [abs(ratings[n].elo - t) for n, t in target.items()]
    covered = [r.ci_low is not None and r.ci_low <= target[n] <= r.ci_high for n, r in ratings.items()]  # type: ignore[operator]
    fitted_order = sorted(true, key=lambda n: ratings[n].elo)  # the bots (the reference may equal one)
    pairs = [(a, b) for a in true for b in true if true[a] < true[b]]
    in_order = sum(ratings[a].elo < ratings[b].elo for a, b in pairs) / len(pairs)
    data = plackett_luce.StageSets.build(orders)
    return RatingsBench(
        matches=len(history), deals=orders.clusters, participants=len(orders.names),
        stage_sets=sum(len(s) for s in data.sets), resamples=resamples, method=result.method,
        generate_s=generate_s, orders_s=orders_s, point_s=point_s, fit_s=fit_s, fit_cpu_s=fit_cpu_s,
        cross_s=cross_s, max_error=max(errors), covered=float(np.mean(covered)),
        order_correct=fitted_order == sorted(true, key=true.get), pairs_in_order=in_order,
    )

"""Synthetic tournaments of bots of known strength, for the ratings benchmark and tests.

Results are drawn from the Plackett-Luce model itself (Gumbel-max sampling of an
order from log-strengths), in the duplicate format: a deal is one subset of bots at
one table size, played in every seat rotation.  The rotations of a deal are
correlated the way one deck correlates them: with probability ``deal_luck`` a bot
keeps the luck it drew for that deal (its Gumbel noise) in the next rotation, else
it draws fresh luck.  Each single match still follows Plackett-Luce exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from leaderboard.finishing_orders import REFERENCE, RatedMatch


def synthetic_matches(
    true_elo: dict[str, float],
    matches: int,
    *,
    table_sizes: Sequence[int] = (2, 3, 4, 5, 6),
    seed: int = 0,
    deal_luck: float = 0.5,
    reference_elo: float | None = 1300.0,
    ties: float = 0.0,
    prefix: str = "m",
) -> list[RatedMatch]:
    """About ``matches`` matches (whole deals) among ``true_elo``'s bots.

    Two-player tables seat the reference participant (the imaginary shareholder)
    too, with strength ``reference_elo``, unless that is None.  With ``ties`` > 0,
    each pair of neighbours in an order shares a place with that probability.
    """
    rng = np.random.default_rng(seed)
    names = list(true_elo)
    strength = np.array([true_elo[n] for n in names]) * math.log(10) / 400
    sizes = [k for k in table_sizes if k <= len(names)]
    if not sizes:
        raise ValueError(f"no table size in {list(table_sizes)} fits {len(names)} bots")
    # Deals per table size so that every size gets about the same number of matches.
    per_size = max(1, matches // len(sizes))
    result: list[RatedMatch] = []
    for k in sizes:
        deals = max(1, round(per_size / k))
        seated = np.argsort(rng.random((deals, len(names))), axis=1)[:, :k]  # (deals, k) bot indexes
        logs = strength[seated]
        extra = k == 2 and reference_elo is not None
        if extra:
            logs = np.concatenate([logs, np.full((deals, 1), reference_elo * math.log(10) / 400)], axis=1)
        width = logs.shape[1]
        luck = rng.gumbel(size=(deals, width))
        for rotation in range(k):
            keep = rng.random((deals, width)) < deal_luck
            if rotation:
                luck = np.where(keep, luck, rng.gumbel(size=(deals, width)))
            order = np.argsort(-(logs + luck), axis=1)  # columns best first
            shared = rng.random((deals, width - 1)) < ties
            place = np.empty((deals, width), dtype=np.int64)
            place[:, 0] = 1
            for c in range(1, width):
                place[:, c] = np.where(shared[:, c - 1], place[:, c - 1], c + 1)
            ranks = np.empty_like(place)
            np.put_along_axis(ranks, order, place, axis=1)
            for d in range(deals):
                seats = [names[b] for b in seated[d]]
                # rotation r seats the subset shifted by r; who sits where does not matter to the ratings
                places = {seats[c]: int(ranks[d, c]) for c in range(k)}
                if extra:
                    places[REFERENCE] = int(ranks[d, k])
                result.append(RatedMatch(key=f"{prefix}{k}-{d}-{rotation}", order=(k, d, rotation), places=places,
                                         deal=f"{prefix}{k}-{d}"))
    return result


def spread_elo(bots: int, spread: float = 400.0) -> dict[str, float]:
    """``bots`` bots whose true ratings are evenly spaced over ``spread`` Elo around 1500."""
    if bots < 2:
        raise ValueError("at least 2 bots")
    return {f"bot{i:03d}": 1500.0 - spread / 2 + spread * i / (bots - 1) for i in range(bots)}

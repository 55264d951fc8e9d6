"""Head-to-head results of every pair that sat at the same table (pure numpy; no SQL).

For two participants A and B, every match where both took part counts once: A
finished ahead of B, behind it, or shared its place.  A's score against B is the
share of those matches A finished ahead, a shared place counting half, as in a
chess cross-table.  A game's reference participants (Union Pacific's imaginary shareholder) are
participants like the others.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from leaderboard.finishing_orders import FinishingOrders, RatedMatch


@dataclass(frozen=True)
class HeadToHead:
    """``a`` against ``b`` over the ``meetings`` matches where both played."""

    a: Hashable
    b: Hashable
    meetings: int
    ahead: int  # a finished ahead of b
    behind: int
    tied: int

    @property
    def score(self) -> float:
        """a's score: (ahead + tied / 2) / meetings."""
        return (self.ahead + 0.5 * self.tied) / self.meetings

    def flipped(self) -> "HeadToHead":
        return HeadToHead(self.b, self.a, self.meetings, self.behind, self.ahead, self.tied)


@dataclass(frozen=True, eq=False)
class CrossTable:
    """Every pair that met; :meth:`get` answers from either side."""

    names: tuple[Hashable, ...]
    _pairs: dict[tuple[Hashable, Hashable], HeadToHead]

    def get(self, a: Hashable, b: Hashable) -> HeadToHead | None:
        """``a`` against ``b``, or None if they never sat at the same table."""
        found = self._pairs.get((a, b))
        if found is not None:
            return found
        found = self._pairs.get((b, a))
        return None if found is None else found.flipped()

    def pairs(self) -> list[HeadToHead]:
        """Every pair that met once, the first participant in canonical order first."""
        return list(self._pairs.values())


def cross_table(matches: Iterable[RatedMatch] | FinishingOrders) -> CrossTable:
    orders = matches if isinstance(matches, FinishingOrders) else FinishingOrders.build(matches)
    n = max(len(orders.names), 1)
    codes, outcomes = [], []
    for block in orders.blocks:
        for first in range(block.width):
            for second in range(first + 1, block.width):
                a, b = block.who[:, first], block.who[:, second]
                # Rows are sorted by place: the earlier column is ahead unless the places are equal.
                ahead = np.where(block.place[:, first] < block.place[:, second], 1, 0)
                low = np.minimum(a, b)
                codes.append(low * n + np.maximum(a, b))
                # +1: the lower index finished ahead, -1: behind, 0: shared place
                outcomes.append(np.where(a == low, ahead, -ahead))
    if not codes:
        return CrossTable(names=orders.names, _pairs={})
    code = np.concatenate(codes)
    outcome = np.concatenate(outcomes)
    pair, inverse = np.unique(code, return_inverse=True)
    size = len(pair)
    ahead = np.bincount(inverse, outcome == 1, size).astype(np.int64)
    behind = np.bincount(inverse, outcome == -1, size).astype(np.int64)
    meetings = np.bincount(inverse, minlength=size)
    pairs = {}
    for k, value in enumerate(pair.tolist()):
        a, b = orders.names[value // n], orders.names[value % n]
        tied = int(meetings[k] - ahead[k] - behind[k])
        pairs[(a, b)] = HeadToHead(a, b, int(meetings[k]), int(ahead[k]), int(behind[k]), tied)
    return CrossTable(names=orders.names, _pairs=pairs)

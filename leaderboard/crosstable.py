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


#: Above this many counters (n participants: n * n * 3) the pairs that met are counted sparsely.
DENSE_LIMIT = 3_000_000


def cross_table(matches: Iterable[RatedMatch] | FinishingOrders) -> CrossTable:
    orders = matches if isinstance(matches, FinishingOrders) else FinishingOrders.build(matches)
    n = max(len(orders.names), 1)
    # counts[low, high, outcome]: outcome 0 the lower index behind, 1 a shared place, 2 ahead;
    # dense (bincount) while n * n * 3 counters are few, else only the pairs that met (np.unique:
    # thousands of versions must not cost n² memory)
    dense = n * n * 3 <= DENSE_LIMIT
    counts = np.zeros(n * n * 3 if dense else 0, dtype=np.int64)
    codes: list[np.ndarray] = []
    for block in orders.blocks:
        for first in range(block.width):
            for second in range(first + 1, block.width):
                a, b = block.who[:, first].astype(np.int64), block.who[:, second].astype(np.int64)
                # Rows are sorted by place: the earlier column is ahead unless the places are equal.
                ahead = (block.place[:, first] < block.place[:, second]).astype(np.int64)
                low_first = a < b
                outcome = 1 + np.where(low_first, ahead, -ahead)
                code = (np.where(low_first, a, b) * n + np.where(low_first, b, a)) * 3 + outcome
                if dense:
                    counts += np.bincount(code, minlength=n * n * 3)
                else:
                    codes.append(code)
    if dense:
        table = counts.reshape(n * n, 3)
        met = np.flatnonzero(table.sum(axis=1))
    else:
        found, found_counts = np.unique(np.concatenate(codes) if codes else np.zeros(0, np.int64), return_counts=True)
        met = np.unique(found // 3)
        table = np.zeros((len(met), 3), dtype=np.int64)
        table[np.searchsorted(met, found // 3), found % 3] = found_counts
    pairs = {}
    for row, value in enumerate(met.tolist()):
        behind, tied, ahead = (int(x) for x in table[row if not dense else value])
        a, b = orders.names[value // n], orders.names[value % n]
        pairs[(a, b)] = HeadToHead(a, b, behind + tied + ahead, ahead, behind, tied)
    return CrossTable(names=orders.names, _pairs=pairs)

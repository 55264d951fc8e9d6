"""Dividend arithmetic (§7.3, §7.4): pure functions on holdings.

Holdings are sequences of share counts, one per participant (0 = not a
shareholder); the result is the amount paid to each, in the same order.
"""

from __future__ import annotations

from typing import Sequence

#: Union Pacific table (§7.4): UP_TABLE[dividend number - 1][position - 1].
UP_TABLE: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0, 0),
    (10, 8, 6, 4, 2),
    (15, 12, 9, 6, 3),
    (20, 16, 12, 8, 4),
)


def company_payout(value: int, holdings: Sequence[int]) -> list[int]:
    """Pay one company's dividend of value V = trains on the board + 1 (§7.3)."""
    paid = [0] * len(holdings)
    top = max(holdings, default=0)  # the highest share count
    if top <= 0:  # nobody invested
        return paid
    half = value // 2
    leaders = holdings.count(top)
    if leaders > 1:  # tied for most: they share both amounts
        each = (value + half) // leaders
        for i, h in enumerate(holdings):
            if h == top:
                paid[i] = each
        return paid
    second = max([h for h in holdings if h != top], default=0)  # the second-highest count (0: none)
    if second <= 0:  # one shareholder only
        paid[holdings.index(top)] = value + half
        return paid
    # one leader; the second-highest count shares the half
    paid[holdings.index(top)] = value
    each = half // holdings.count(second)
    for i, h in enumerate(holdings):
        if h == second:
            paid[i] = each
    return paid


def union_pacific_payout(number: int, holdings: Sequence[int]) -> list[int]:
    """Pay the Union Pacific shareholders at the ``number``-th dividend (1-4) (§7.4)."""
    if not 1 <= number <= len(UP_TABLE):
        raise ValueError(f"dividend number must be 1 to {len(UP_TABLE)}, got {number}")
    table = UP_TABLE[number - 1]
    paid = [0] * len(holdings)
    position = 0  # 0-based position the next group starts at
    for count in sorted({h for h in holdings if h > 0}, reverse=True):
        group = [i for i, h in enumerate(holdings) if h == count]
        amounts = sum(table[p] for p in range(position, position + len(group)) if p < len(table))
        for i in group:
            paid[i] = amounts // len(group)
        position += len(group)
    return paid

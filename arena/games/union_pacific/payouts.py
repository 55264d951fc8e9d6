"""Dividend arithmetic (§7.3, §7.4): pure functions on holdings; and the outcome from the cash.

Holdings are sequences of share counts, one per participant (0 = not a
shareholder); the result is the amount paid to each, in the same order.
"""

from __future__ import annotations

from typing import Any, Sequence

from arena.games.base import IMAGINARY, Outcome, Termination

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
    ranked = sorted(holdings)
    top = ranked[-1] if ranked else 0  # the highest share count
    if top <= 0:  # nobody invested
        return paid
    half = value // 2
    leaders = holdings.count(top)
    if leaders > 1:  # tied for most: they share both amounts
        _give(paid, holdings, top, (value + half) // leaders)
        return paid
    leader = holdings.index(top)
    second = ranked[-2] if len(ranked) > 1 else 0  # the second-highest count (0: none), below top
    if second <= 0:  # one shareholder only
        paid[leader] = value + half
        return paid
    # one leader; the second-highest count shares the half
    paid[leader] = value
    _give(paid, holdings, second, half // holdings.count(second))
    return paid


def company_shape(holdings: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Who :func:`company_payout` pays, whatever the value: ``(leaders, seconds)``, the indexes of the
    holders of the highest and of the second-highest share count.  With ``seconds`` the one leader
    gets the value and the seconds share half of it; without, the leaders share value + half
    (``((), ())``: nobody invested).  The same amounts as :func:`company_payout` (a test checks
    every holding); the dividends use it, memoised on the holdings, which recur."""
    top = second = 0  # the highest and second-highest share counts
    for h in holdings:
        if h > top:
            top, second = h, top
        elif top > h > second:
            second = h
    if not top:
        return (), ()
    leaders = _holders(holdings, top)
    if len(leaders) > 1 or not second:
        return leaders, ()
    return leaders, _holders(holdings, second)


def union_pacific_payout(number: int, holdings: Sequence[int]) -> list[int]:
    """Pay the Union Pacific shareholders at the ``number``-th dividend (1-4) (§7.4)."""
    if not 1 <= number <= len(UP_TABLE):
        raise ValueError(f"dividend number must be 1 to {len(UP_TABLE)}, got {number}")
    table = UP_TABLE[number - 1]
    paid = [0] * len(holdings)
    if not table[0]:  # the first dividend pays nothing (the table's rows are in decreasing order)
        return paid
    ranked = sorted(holdings, reverse=True)
    i = 0
    for count in holdings:
        if count > 0:
            position = ranked.index(count)  # 0-based: the holders of more shares take the positions before
            group = ranked.count(count)  # tied: they share the amounts of the positions they take
            paid[i] = sum(table[position:position + group]) // group
        i += 1
    return paid


def _holders(holdings: Sequence[int], count: int) -> tuple[int, ...]:
    """The indexes of the holders of exactly ``count`` shares, in order (C calls, no comprehension)."""
    i = holdings.index(count)
    found = [i]
    for _ in range(holdings.count(count) - 1):
        i = holdings.index(count, i + 1)
        found.append(i)
    return tuple(found)


def _give(paid: list[int], holdings: Sequence[int], count: int, amount: int) -> None:
    """``paid[i] = amount`` for every holder of exactly ``count`` shares (C calls, no loop per holder)."""
    i = -1
    for _ in range(holdings.count(count)):
        i = holdings.index(count, i + 1)
        paid[i] = amount


def final_outcome(cash: Sequence[int], imaginary_cash: int | None, termination: Termination) -> Outcome:
    """The outcome of a finished game from each seat's cash (and the imaginary shareholder's, or
    None without one): places by cash, equal cash sharing a place (the state's ``outcome()``, and the
    ``game_end`` event's dict, made from its record when read)."""
    named = {str(s): v for s, v in enumerate(cash)}
    if imaginary_cash is not None:
        named[IMAGINARY] = imaginary_cash
    places = {p: 1 + sum(1 for v in named.values() if v > mine) for p, mine in named.items()}
    extra: dict[str, Any] = {}
    if imaginary_cash is not None:
        extra["imaginary_ahead_of"] = {str(s): places[IMAGINARY] < places[str(s)] for s in range(len(cash))}
    return Outcome(cash=named, places=places, termination=termination, extra=extra)

"""Dividends and the end of a Union Pacific game (rules §7-§9).

A mixin of :class:`~arena.games.union_pacific.state.UnionPacificState` (it uses the
state's shares, cash, trains and events): paying the dividends a revealed card calls
for, the imaginary third shareholder of a two-player game, a stalemate, and the outcome.
"""

from __future__ import annotations

from operator import add
from typing import Any

from arena.games.base import IMAGINARY, GameOverError, Outcome, Termination
from arena.games.union_pacific import events as ev
from arena.games.union_pacific.board import NUM_SHARE_KINDS, UP
from arena.games.union_pacific.payouts import company_shape, final_outcome, union_pacific_payout
from arena.games.union_pacific.phases import DIVIDEND, OVER, PARTICIPANTS


#: _SHAPES[holdings]: company_shape(holdings), memoised (a few thousand holdings at most come up)
_SHAPES: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _shape(holdings: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if len(_SHAPES) >= 1 << 14:
        _SHAPES.clear()
    _SHAPES[holdings] = shape = company_shape(holdings)
    return shape


class Dividends:
    """The dividends and the end of a state (see the module's docstring)."""

    __slots__ = ()  # the state's fields are its slots

    n: int
    phase: int
    _log: Any  # the event records (events.py)
    invested: list[list[int]]
    imaginary: list[int] | None
    imaginary_cash: int
    cash: list[int]
    trains_on_board: list[int]
    display: list[int]
    share_deck: list[int]
    up_stack: int
    pending_dividends: int
    dividends_paid: int
    end_at: int
    termination: Termination | None

    def _pay_pending(self) -> None:
        while self.pending_dividends and self.phase != OVER:
            self.pending_dividends -= 1
            self._pay(self.dividends_paid + 1)

    def _pay(self, number: int) -> None:
        if self.n == 2 and number == 3:
            self._create_imaginary()
        rows = self.invested if self.imaginary is None else self.invested + [self.imaginary]
        names = PARTICIPANTS[len(rows)] if self.imaginary is None else PARTICIPANTS[self.n] + (IMAGINARY,)
        gains = [0] * len(rows)
        columns = list(zip(*rows))  # columns[c]: each participant's shares of company c
        shapes = _SHAPES
        for trains, holdings in zip(self.trains_on_board, columns):  # the companies but UP: company_payout
            shape = shapes.get(holdings)
            if shape is None:
                shape = _shape(holdings)
            leaders, seconds = shape
            value = trains + 1
            half = value // 2
            if seconds:
                gains[leaders[0]] += value
                amount = half // len(seconds)
                for i in seconds:
                    gains[i] += amount
            elif leaders:
                amount = (value + half) // len(leaders)
                for i in leaders:
                    gains[i] += amount
        holdings = columns[UP]
        if any(holdings):
            gains = list(map(add, gains, union_pacific_payout(number, holdings)))
        cash = self.cash
        for i in range(self.n):
            cash[i] += gains[i]
        if self.imaginary is not None:
            self.imaginary_cash += gains[self.n]
        self.dividends_paid = number
        # the event's dict (events.dividend) works the holdings and payouts out again from these
        if self._log is not None:
            self._log.append((ev.dividend, number, names, tuple(map(tuple, rows)), tuple(self.trains_on_board),
                              (*cash, self.imaginary_cash) if self.imaginary is not None else tuple(cash)))
        if number >= self.end_at:
            self._finish(self.termination or Termination.NORMAL)

    def _create_imaginary(self) -> None:
        """§9: the display, the deck's shares and the UP stack become a third shareholder."""
        imaginary = [0] * NUM_SHARE_KINDS
        for c in self.display:
            imaginary[c] += 1
        dividends = 0
        for c in self.share_deck:
            if c == DIVIDEND:
                dividends += 1
            else:
                imaginary[c] += 1
        imaginary[UP] += self.up_stack
        self.display = []
        self.share_deck = [DIVIDEND] * dividends
        self.up_stack = 0
        self.imaginary = imaginary
        if self._log is not None:
            self._log.append((ev.imaginary_shareholder, tuple(imaginary)))

    def _stalemate(self) -> None:
        """§8: nothing can ever be built or invested again: pay what is left, end."""
        self.termination = Termination.STALEMATE
        if self._log is not None:
            self._log.append((ev.stalemate, self.dividends_paid))
        self.pending_dividends = 0
        while self.phase != OVER:
            self._pay(self.dividends_paid + 1)

    def _finish(self, termination: Termination) -> None:
        self.termination = termination
        self.phase = OVER
        if self._log is not None:  # (its dict, the outcome's, is made only if the events are read)
            self._log.append((ev.game_end, tuple(self.cash), None if self.imaginary is None else self.imaginary_cash,
                              termination))

    def outcome(self) -> Outcome:
        if self.phase != OVER or self.termination is None:
            raise GameOverError("the game is not over yet")
        return final_outcome(self.cash, None if self.imaginary is None else self.imaginary_cash, self.termination)


__all__ = ["Dividends"]

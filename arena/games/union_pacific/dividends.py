"""Dividends and the end of a Union Pacific game (rules §7-§9).

A mixin of :class:`~arena.games.union_pacific.state.UnionPacificState` (it uses the
state's shares, cash, trains and events): paying the dividends a revealed card calls
for, the imaginary third shareholder of a two-player game, a stalemate, and the outcome.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import IMAGINARY, GameOverError, Outcome, Termination
from arena.games.union_pacific.board import COMPANIES, NUM_SHARE_KINDS, SHARE_CODES, UP
from arena.games.union_pacific.payouts import company_payout, union_pacific_payout
from arena.games.union_pacific.phases import DIVIDEND, OVER, PARTICIPANTS
from arena.games.union_pacific.phases import counts as _counts


class Dividends:
    """The dividends and the end of a state (see the module's docstring)."""

    n: int
    phase: int
    events: list[dict[str, Any]]
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
        companies = []
        trains = self.trains_on_board
        for c, holdings in enumerate(zip(*rows)):  # holdings: each participant's shares of company c
            held: dict[str, int] = {}
            payouts: dict[str, int] = {}
            value = trains[c] + 1 if c != UP else 0
            if any(holdings):
                paid = union_pacific_payout(number, holdings) if c == UP else company_payout(value, holdings)
                for i, h in enumerate(holdings):
                    if h:
                        name, amount = names[i], paid[i]
                        held[name] = h
                        payouts[name] = amount
                        gains[i] += amount
            if c == UP:
                union_pacific = {"holdings": held, "payouts": payouts}
            else:
                companies.append({"company": COMPANIES[c], "value": value, "holdings": held, "payouts": payouts})
        cash = self.cash
        for i in range(self.n):
            cash[i] += gains[i]
        if self.imaginary is not None:
            self.imaginary_cash += gains[self.n]
        self.dividends_paid = number
        self.events.append({
            "type": "dividend",
            "number": number,
            "companies": companies,
            "union_pacific": union_pacific,
            "cash": {names[i]: (cash[i] if i < self.n else self.imaginary_cash) for i in range(len(rows))},
        })
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
        self.events.append({"type": "imaginary_shareholder", "invested": _counts(imaginary, SHARE_CODES)})

    def _stalemate(self) -> None:
        """§8: nothing can ever be built or invested again: pay what is left, end."""
        self.termination = Termination.STALEMATE
        self.events.append({"type": "stalemate", "dividends_paid": self.dividends_paid})
        self.pending_dividends = 0
        while self.phase != OVER:
            self._pay(self.dividends_paid + 1)

    def _finish(self, termination: Termination) -> None:
        self.termination = termination
        self.phase = OVER
        outcome = self.outcome()
        self.events.append({"type": "game_end", **outcome.to_json()})

    def outcome(self) -> Outcome:
        if self.phase != OVER or self.termination is None:
            raise GameOverError("the game is not over yet")
        cash = {str(s): self.cash[s] for s in range(self.n)}
        if self.imaginary is not None:
            cash[IMAGINARY] = self.imaginary_cash
        places = {p: 1 + sum(1 for v in cash.values() if v > mine) for p, mine in cash.items()}
        extra: dict[str, Any] = {}
        if self.imaginary is not None:
            extra["imaginary_ahead_of"] = {str(s): places[IMAGINARY] < places[str(s)] for s in range(self.n)}
        return Outcome(cash=cash, places=places, termination=self.termination, extra=extra)


__all__ = ["Dividends"]

"""What a Union Pacific state shows: a seat's observation and the actions' names.

A mixin of :class:`~arena.games.union_pacific.state.UnionPacificState`.  The
observation is everything the seat may know (rules §10), as a plain dict; the host
writes the same message straight from the state (``kit/wire_state.py``, checked byte
for byte against this).
"""

from __future__ import annotations

from typing import Any

from arena.games.base import ActionNames
from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import COMPANIES, NUM_CARD_KINDS, NUM_COMPANIES, SHARE_CODES
from arena.games.union_pacific.phases import FIRST_INVEST, OVER, RolloutStateError
from arena.games.union_pacific.phases import counts as _counts


class Views(ActionNames):
    """A state's observation and action names (see the module's docstring)."""

    __slots__ = ()  # the state's fields are its slots

    board: Any
    table: Any
    n: int
    phase: int

    def observation(self, seat: int) -> dict[str, Any]:
        if not isinstance(seat, int) or not 0 <= seat < self.n:
            raise ValueError(f"there is no seat {seat!r} in a {self.n}-player game")
        if self.rollout:  # it holds neither the event log nor each company's sections
            raise RolloutStateError("event log, which an observation holds")
        board = self.board
        kinds = board.card_kinds
        first = self.phase == FIRST_INVEST
        pick = self.picks[seat] if first else None
        return {
            "game": "union_pacific",
            "seat": seat,
            "num_players": self.n,
            "variant": self.variant,
            "decision": self.decision_kind(seat),
            "current_seat": None if first or self.phase == OVER else self.current,
            "turn": self.turn,
            "dividends_paid": self.dividends_paid,
            "dividends_to_end": self.end_at,
            "share_deck": len(self.share_deck),
            "track_deck": len(self.track_deck),
            "up_stack": self.up_stack,
            "display": [COMPANIES[c] for c in self.display],
            "track_discards": {kinds[k]: self.track_discard[k] for k in range(NUM_CARD_KINDS)},
            "boxed_four_of_a_kind": _counts(self.boxed_four, COMPANIES),
            "free_spaces": list(self.free),
            "companies": [
                {
                    "code": COMPANIES[c],
                    "trains_on_board": self.trains_on_board[c],
                    "supply": self.supply[c],
                    "value": self.trains_on_board[c] + 1,
                    "sections": list(self.sections_of[c]),
                }
                for c in range(NUM_COMPANIES)
            ],
            "players": [
                {
                    "seat": s,
                    "cash": self.cash[s],
                    "invested": _counts(self.invested[s], SHARE_CODES),
                    "hand_shares": sum(self.hand_shares[s]),
                    "hand_track": sum(self.hand_track[s]),
                }
                for s in range(self.n)
            ],
            "hand": {
                "shares": _counts(self.hand_shares[seat], SHARE_CODES),
                "track": _counts(self.hand_track[seat], kinds),
            },
            "pending_first_investment": None if pick is None else SHARE_CODES[pick],
            "imaginary": None if self.imaginary is None else {
                "invested": _counts(self.imaginary, SHARE_CODES), "cash": self.imaginary_cash},
            "public_events": knowledge.public_events(self, seat),
            "known_shares": knowledge.known_shares(self, seat),
        }


__all__ = ["Views"]

"""Train cards (rules §5): the deck, the discard pile, the face-up row and the draws.

A mixin of :class:`~arena.games.ticket_to_ride_pennsylvania.state.TicketToRideState`
(it uses the state's fields: ``deck`` with its top at the end, ``discard``, ``row``
of 5 slots with ``EMPTY`` for an empty one, ``hands``, ``known``, ``rng``,
``events``).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import IllegalActionError
from arena.games.common import shuffle
from arena.games.ticket_to_ride_pennsylvania.board import LOCO

EMPTY = -1
ROW_SIZE = 5



class TrainCards:
    """Deck, discard, row and the card draws of §5 (mixed into the state)."""

    deck: list[int]
    discard: list[int]
    row: list[int]
    hands: list[list[int]]
    known: list[list[int]]
    rng: random.Random
    events: list[dict[str, Any]]
    kind_names: tuple[str, ...]

    def _name(self, card: int) -> str | None:
        return None if card == EMPTY else self.kind_names[card]

    def _row_names(self) -> list[str | None]:
        return [self._name(c) for c in self.row]

    def _draw_deck(self) -> int:
        """§5.4: the top card of the deck, reshuffling the discard pile first if the deck
        is empty; EMPTY when both are empty."""
        if not self.deck:
            if not self.discard:
                return EMPTY
            pile = self.discard
            self.discard = []
            shuffle(self.rng, pile)
            self.deck = pile
            self.events.append({"type": "reshuffle", "order": [self.kind_names[c] for c in reversed(pile)]})
        return self.deck.pop()

    def _refill(self, slot: int) -> None:
        """Fill an empty slot from the deck (§5.2, §5.6); it stays empty if no card is left."""
        card = self._draw_deck()
        if card != EMPTY:
            self.row[slot] = card
            self.events.append({"type": "refill", "slot": slot, "card": self.kind_names[card]})

    def _three_locomotives(self) -> None:
        """§5.5 and §15.27: while 3 or more locomotives show, discard the row and deal 5 new
        cards, unless the row, deck and discard pile hold fewer than 3 other cards."""
        row = self.row
        while row.count(LOCO) >= 3:
            others = sum(1 for c in row if c != EMPTY and c != LOCO)
            others += sum(1 for c in self.deck if c != LOCO) + sum(1 for c in self.discard if c != LOCO)
            if others < 3:
                return
            discarded = [c for c in row if c != EMPTY]
            self.discard.extend(discarded)
            for slot in range(len(row)):
                row[slot] = EMPTY
            for slot in range(len(row)):
                row[slot] = self._draw_deck()
            self.events.append({"type": "refresh", "discarded": [self.kind_names[c] for c in discarded],
                                "row": self._row_names()})

    def _fill_row(self) -> None:
        """End of turn (§5.6): fill the empty slots, lowest first, then §5.5."""
        row = self.row
        for slot in range(len(row)):
            if row[slot] == EMPTY:
                self._refill(slot)
        self._three_locomotives()

    def can_draw_blind(self) -> bool:
        return bool(self.deck or self.discard)

    def second_card_possible(self) -> bool:
        """§5.3: a non-locomotive face-up card or a card in the deck or discard pile exists."""
        return bool(self.deck or self.discard) or any(c != EMPTY and c != LOCO for c in self.row)

    def _take_face_up(self, seat: int, kind: int, second: bool) -> None:
        """Take the lowest slot showing ``kind`` (§5.7), refill it at once (§5.2)."""
        if second and kind == LOCO:
            raise IllegalActionError("take locomotive: a face-up locomotive cannot be the second card")
        try:
            slot = self.row.index(kind)
        except ValueError:
            raise IllegalActionError(f"take {self.kind_names[kind]}: no {self.kind_names[kind]} card is face up") from None
        self.row[slot] = EMPTY
        self.hands[seat][kind] += 1
        self.known[seat][kind] += 1
        self.events.append({"type": "take", "seat": seat, "slot": slot, "card": self.kind_names[kind]})
        self._refill(slot)
        self._three_locomotives()

    def _take_blind(self, seat: int) -> None:
        card = self._draw_deck()
        if card == EMPTY:
            raise IllegalActionError("draw blind: the deck and the discard pile are empty")
        self.hands[seat][card] += 1
        self.events.append({"type": "blind", "seat": seat, "card": self.kind_names[card]})

"""What a seat knows (:mod:`arena.games.union_pacific.knowledge`), told from the engine's event records.

The host writes a match's observations from the state's event records
(:func:`arena.games.union_pacific.events.records`) without building the event dicts.
:class:`RecordKnowledge` gives what :func:`~arena.games.union_pacific.knowledge.windows_and_known`
gives (each seat's window start, the share cards known in each hand) from the records:
the same walk and the same fold over each record's type, seat and values
(tests/test_host_event_records.py checks it equals the dict memo at every decision of whole games).
"""

from __future__ import annotations

from typing import Any

from arena.games.union_pacific import events as ev
from arena.games.union_pacific.board import NUM_SHARE_KINDS, UP
from arena.games.union_pacific.knowledge import _items, fold_known, move_window_starts

#: The event type and the place of the seat in the record, by maker (``given``: from its dict).
_RECORD_KIND: dict[Any, tuple[str, int]] = {
    ev.setup: ("setup", 0), ev.first_investment: ("first_investment", 0), ev.display: ("display", 0),
    ev.share_deck: ("share_deck", 0), ev.turn: ("turn", 2), ev.reshuffle: ("reshuffle", 0), ev.build: ("build", 1),
    ev.draw_skipped: ("draw_skipped", 1), ev.dividend_revealed: ("dividend_revealed", 0),
    ev.four_of_a_kind: ("four_of_a_kind", 0), ev.draw_deck: ("draw", 1), ev.draw_up: ("draw", 1),
    ev.draw_display: ("draw", 1), ev.refill: ("refill", 0), ev.exchange: ("exchange", 1), ev.invest: ("invest", 1),
    ev.pass_: ("pass", 1), ev.imaginary_shareholder: ("imaginary_shareholder", 0), ev.stalemate: ("stalemate", 0),
    ev.dividend: ("dividend", 0), ev.game_end: ("game_end", 0),
}


def record_kind(rec: tuple) -> tuple[str, Any]:
    """A record's event ``type`` and its ``seat`` (None for an event without one)."""
    kind = _RECORD_KIND.get(rec[0])
    if kind is None:
        raise ValueError(f"unknown event record {rec[0]!r}")
    return kind[0], rec[kind[1]] if kind[1] else None


def _fold_record(known: list[list[int]], rec: tuple, table: Any) -> None:
    """:func:`fold_known` of the record's event, from the record."""
    maker = rec[0]
    if maker is ev.draw_display:
        known[rec[1]][rec[2]] += 1  # a company's share kind is its index
    elif maker is ev.draw_up:
        known[rec[1]][UP] += 1
    elif maker is ev.invest:
        row = known[rec[1]]
        for c, n in table.combos[rec[2]]:
            row[c] = max(0, row[c] - n)
    elif maker is ev.exchange:
        row = known[rec[1]]
        for c in range(NUM_SHARE_KINDS):
            if row[c]:
                row[c] -= 1
        row[UP] += 1
    elif maker is ev.first_investment:
        for s, c in enumerate(rec[1]):
            row = known[s]
            row[c] = max(0, row[c] - 1)
    elif maker is ev.setup:
        fold_known(known, {"type": "setup", "players": rec[1]})


_FOLDED_MAKERS = frozenset({ev.setup, ev.first_investment, ev.draw_display, ev.draw_up, ev.invest, ev.exchange})


class RecordKnowledge:
    """:func:`windows_and_known` of one state, from its event records (``events.records(state)``),
    brought up to date with what was logged and decided since the last call; no event dict is
    built.  One per state (the host keeps one per match, and a new one for another state)."""

    __slots__ = ("records", "history", "types", "seats", "rows", "known", "items", "starts", "decided")

    def __init__(self, records: list[tuple], history: list) -> None:
        self.records = records
        self.history = history
        self.types: list[str] = []
        self.seats: list[Any] = []
        self.rows: list[list[int]] = []
        self.known: tuple[tuple[int, ...], ...] = ()  # the rows as tuples, as items were made from
        self.items: tuple[tuple[tuple[str, int], ...], ...] = ()
        self.starts: list[int] = []
        self.decided = 0

    def update(self, state: Any) -> tuple[tuple[int, ...], tuple[tuple[tuple[str, int], ...], ...]]:
        """Per seat its window start and its known ``(code, count)`` pairs, as :func:`windows_and_known`."""
        if len(self.types) < len(self.records):
            self._fold_new_records(state.table)
        starts = self.starts
        if len(starts) != len(self.rows):  # the setup record tells the table size
            starts[:] = [0] * len(self.rows)
        if self.decided < len(self.history):
            self._move_window_starts(state.table)
        return tuple(starts), self.items

    def _fold_new_records(self, table: Any) -> None:
        """Note the type and seat of each record logged since the last call, and fold those that
        tell a known share into the rows (``items`` remade only for the rows that changed)."""
        recs, types, seats, rows = self.records, self.types, self.seats, self.rows
        folded = False
        kinds, folds = _RECORD_KIND, _FOLDED_MAKERS
        for i in range(len(types), len(recs)):
            rec = recs[i]
            kind = kinds.get(rec[0])
            if kind is None:
                kind = record_kind(rec)
                types.append(kind[0])
                seats.append(kind[1])
            else:
                types.append(kind[0])
                seats.append(rec[kind[1]] if kind[1] else None)
            if rec[0] in folds:
                _fold_record(rows, rec, table)
                folded = True
        if folded:
            known = tuple(map(tuple, rows))
            old, items = self.known, self.items
            if len(old) == len(known):
                self.items = tuple(was if new == before else _items(new)
                                   for new, before, was in zip(known, old, items))
            else:
                self.items = tuple(map(_items, known))
            self.known = known

    def _move_window_starts(self, table: Any) -> None:
        """Each seat that decided since the last call: its window now starts at the first record
        of its latest action (:func:`~arena.games.union_pacific.knowledge.move_window_starts`)."""
        if not move_window_starts(self.starts, self.history, self.decided, self.types, self.seats, table):
            raise ValueError("the event records and the history disagree")  # never in a game the engine played
        self.decided = len(self.history)


__all__ = ["RecordKnowledge", "record_kind"]

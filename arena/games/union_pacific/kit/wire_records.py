"""Union Pacific public events written straight from the engine's event records.

The engine logs each event as a small tuple (:mod:`arena.games.union_pacific.events`) and
builds its dict only when someone reads ``state.events``.  The host needs each event's
bytes once per view, and :func:`record_entries` writes them from the record: for the
frequent types (a turn, a build, a draw, an investment...) field by field, with the very
field writers of :mod:`arena.games.union_pacific.kit.wire_fast` and the values the event's
dict would hold; for the others (set-up, the dividends, the game's end...) through that
dict and :func:`~arena.games.union_pacific.knowledge.public_event`, as the dict path does.

An event looks alike to every seat except, for a turn, a deck draw or an exchange, to
its own seat, which sees its track card, its drawn card or its boxed card
(:func:`~arena.games.union_pacific.knowledge.public_event`).  :func:`record_entries` gives
the entry every seat sees and, for those three, its own seat and that seat's entry: the
own entry goes to that seat alone (the caller checks the seat is at the table).

Entries are kept by value, (the game's action table, the record), in a bounded table
shared by all matches: a record and its table say the whole event, so the same key is the
same bytes whoever asks.  A value the writers do not expect raises
:class:`~arena.games.union_pacific.kit.wire_fast._Unexpected` (the host then takes the
checked dict path).  Tests check the bytes equal the dict path's for every event of whole
games.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.union_pacific import events as ev
from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import COMPANIES, SHARE_CODES
from arena.games.union_pacific.kit import wire_fast as fast
from arena.protocol.wirebytes import length_prefixed
from arena.v1 import bot_pb2

Entries = tuple[bytes, int, "bytes | None"]  # (every seat's entry, the own seat or -1, its own entry or None)


def _entry(kind: str, values: tuple[Any, ...]) -> bytes:
    """A ``public_events`` entry of type ``kind`` from its field values (in EVENT_KEYS' order;
    None: an optional field left out)."""
    required, writers = fast.FIELD_WRITERS[kind]
    parts = []
    for i, value in enumerate(values):
        if value is None:
            if i < required:
                raise fast._Unexpected
        else:
            parts.append(writers[i](value))
    return length_prefixed(fast._EVENT_TAG, length_prefixed(fast._EVENT_MEMBER_TAG[kind], b"".join(parts)))


def _seat(seat: Any) -> int:
    if type(seat) is not int or seat < 0:
        raise fast._Unexpected
    return seat


def _company(card: Any) -> str | None:
    return None if card is None else COMPANIES[card]


def _turn(rec: tuple, table: Any) -> Entries:
    _, turn, seat, k = rec
    return (_entry("turn", (turn, seat, None)), _seat(seat),
            _entry("turn", (turn, seat, table.board.card_kinds[k])))


_BUILD_MEMBER = fast._EVENT_MEMBER_TAG["build"]
if [(f.name, f.number, f.has_presence) for f in bot_pb2.UnionPacificEvent.Build.DESCRIPTOR.fields] != [
        ("seat", 1, False), ("card", 2, False), ("company", 3, False), ("section", 4, False), ("value", 5, False)]:
    raise RuntimeError("UnionPacificEvent.Build changed: update wire_records._build")  # the layout _build writes


def _build(rec: tuple, table: Any) -> Entries:
    """The most frequent record that is never kept, written without the generic loop."""
    _, seat, k, c, section, value = rec
    body = b"".join((fast._int(fast._V[1], seat), fast._str(fast._L[2], table.board.card_kinds[k]),
                     fast._str(fast._L[3], COMPANIES[c]), fast._int(fast._V[4], section), fast._int(fast._V[5], value)))
    return length_prefixed(fast._EVENT_TAG, length_prefixed(_BUILD_MEMBER, body)), -1, None


def _invest(rec: tuple, table: Any) -> Entries:
    _, seat, combo, k = rec
    return _entry("invest", (seat, table.combo_shares[combo], table.board.card_kinds[k])), -1, None


def _pass(rec: tuple, table: Any) -> Entries:
    return _entry("pass", (rec[1], table.board.card_kinds[rec[2]])), -1, None


def _draw_deck(rec: tuple, table: Any) -> Entries:
    _, seat, card = rec
    return _entry("draw", (seat, "deck", None)), _seat(seat), _entry("draw", (seat, "deck", _company(card)))


def _draw_up(rec: tuple, table: Any) -> Entries:
    return _entry("draw", (rec[1], "up", "UP")), -1, None


def _draw_display(rec: tuple, table: Any) -> Entries:
    return _entry("draw", (rec[1], "display", COMPANIES[rec[2]])), -1, None


def _refill(rec: tuple, table: Any) -> Entries:
    return _entry("refill", (_company(rec[1]),)), -1, None


def _exchange(rec: tuple, table: Any) -> Entries:
    _, seat, c = rec
    return _entry("exchange", (seat, None)), _seat(seat), _entry("exchange", (seat, SHARE_CODES[c]))


def _one(kind: str) -> Callable[[tuple, Any], Entries]:
    """The writer of a type with one int field, the record's only value (its view is everyone's)."""
    def write(rec: tuple, table: Any) -> Entries:
        if len(rec) != 2:
            raise fast._Unexpected
        return _entry(kind, (rec[1],)), -1, None
    return write


_WRITERS: dict[Any, Callable[[tuple, Any], Entries]] = {
    ev.turn: _turn, ev.build: _build, ev.invest: _invest, ev.pass_: _pass, ev.draw_deck: _draw_deck,
    ev.draw_up: _draw_up, ev.draw_display: _draw_display, ev.refill: _refill, ev.exchange: _exchange,
    ev.draw_skipped: _one("draw_skipped"), ev.dividend_revealed: _one("dividend_revealed"),
    ev.reshuffle: _one("reshuffle"),
}
#: The record types not worth keeping: a build's section and value make it almost always new, and
#: a game's end is met once.
_NOT_KEPT = frozenset({ev.build, ev.game_end})


def _from_dict(rec: tuple, table: Any) -> Entries:
    """The entries through the event's dict, as the dict path makes them."""
    event = rec[0](rec, table)  # the very dict state.events gives for it
    if event["type"] not in knowledge.SEAT_VIEWS:
        return fast.event_entry(knowledge.public_event(event, 0)), -1, None
    owner = _seat(event["seat"])
    return (fast.event_entry(knowledge.public_event(event, -1)), owner,
            fast.event_entry(knowledge.public_event(event, owner)))




def write_entries(rec: tuple, table: Any) -> Entries:
    """A record's entries, not kept (see the module's docstring)."""
    write = _WRITERS.get(rec[0])
    if write is None:
        return _from_dict(rec, table)
    try:
        return write(rec, table)
    except (IndexError, TypeError, ValueError):
        raise fast._Unexpected from None


#: record_entries' table: (the action table, the record) -> its entries; bounded.
_KEPT: dict[tuple[Any, tuple], Entries] = {}
_LIMIT = 1 << 14


def record_entries(rec: tuple, table: Any) -> Entries:
    """A record's entries (see the module's docstring), kept by value."""
    key = (table, rec)
    try:
        entries = _KEPT.get(key)
    except TypeError:  # a record holding something unhashable (none of the engine's): not kept
        return write_entries(rec, table)
    if entries is None:
        entries = write_entries(rec, table)
        if rec[0] not in _NOT_KEPT:
            if len(_KEPT) >= _LIMIT:
                _KEPT.clear()
            _KEPT[key] = entries
    return entries


__all__ = ["record_entries", "write_entries"]

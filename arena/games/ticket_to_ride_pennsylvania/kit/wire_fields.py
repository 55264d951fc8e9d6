"""Ticket to Ride: Pennsylvania observation fields written straight from the game state.

:func:`~arena.games.ticket_to_ride_pennsylvania.state.observation_fields` builds every
field's value afresh at each decision, and the kit's encoder then compares each with the
last one it sent; most are unchanged.  :class:`FieldsWriter` (one per match) skips the
dict: each field has a key taken from the state (the numbers its value is made of), and
its value is built and encoded only when that key changes; otherwise the bytes kept under
it are sent again.  The values it builds are ``observation_fields``'s expressions, and the
bytes come from the same encoders (the kit's fast writers, the atom table, the codec), so
they are identical to the dict path's (tests/test_host_state_encoding.py checks it on every
decision of whole games at every table size).

Safety: a field's key holds everything its value is made of; the seat's own fields (its
hand, tickets, offered and chosen tickets) are kept per seat.  Anything unexpected raises
(a CodecError, KeyError, TypeError, ValueError or IndexError): the caller then takes the
dict path, which says what is wrong.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.ticket_to_ride_pennsylvania.kit import wire
from arena.games.ticket_to_ride_pennsylvania.kit import wire_fast as fast
from arena.games.ticket_to_ride_pennsylvania.phases import INITIAL, KEEP, NEUTRAL, OVER, SHARE

_DESCRIPTOR = wire._Obs.DESCRIPTOR
_atom = wire.atom_bytes


def _field(name: str, value: Any) -> bytes:
    return wire._CODEC.field_bytes(_DESCRIPTOR, name, value, "observation")


_TAGS = {name: fast.tag(_DESCRIPTOR.fields_by_name[name].number, 2)
         for name in ("discard", "row", "routes", "share_offer", "tickets", "offered_tickets")}


def _strings(name: str, values: list[Any], empty_for_none: bool = False) -> bytes:
    """A ``repeated string`` field: the fast writer's bytes, the codec's for anything unexpected."""
    data = fast.strings(_TAGS[name], values, empty_for_none)
    return data if data is not None else _field(name, values)


def _discard(state: Any, names: tuple[str, ...]) -> bytes:
    counts = {name: state.discard.count(k) for k, name in enumerate(names)}
    data = fast.count_map(_TAGS["discard"], counts, zeros=True)
    return data if data is not None else _field("discard", counts)


def _routes(owner: tuple[int, ...]) -> bytes:
    data = fast.packed_owners(_TAGS["routes"], owner)
    return data if data is not None else _field("routes", [None if o == -1 else o for o in owner])


def _counts(counts: Any, names: tuple[str, ...]) -> dict[str, int]:
    return {names[i]: n for i, n in enumerate(counts) if n}


class FieldsWriter:
    """One match's observation fields (all but ``public_events``), written from its state."""

    __slots__ = ("_kept", "_rows")

    def __init__(self) -> None:
        #: _kept[name or (name, seat)]: (key, bytes)
        self._kept: dict[Any, tuple[Any, bytes]] = {}
        #: _rows[s]: the players entry of seat s: ((trains, route points, cards, tickets), a copy of its
        #: share numbers, their bytes, a copy of its known counts, their bytes, the entry's bytes);
        #: a map's bytes None: unexpected (the row goes to the codec)
        self._rows: list[tuple[Any, list[list[int]], bytes | None, list[int], bytes | None, bytes]] = []

    def _keyed(self, name: Any, key: Any, make: Callable[[], bytes]) -> bytes:
        seen = self._kept.get(name)
        if seen is not None and seen[0] == key:
            return seen[1]
        data = make()
        self._kept[name] = (key, data)
        return data

    def _listed(self, name: str, values: list[Any], make: Callable[[], bytes]) -> bytes:
        """:meth:`_keyed` for a field made of one engine list alone: compared, list to list, with a
        copy of the list its kept bytes were made of (no key built)."""
        seen = self._kept.get(name)
        if seen is not None and seen[0] == values:
            return seen[1]
        copy = list(values)
        data = make()
        self._kept[name] = (copy, data)
        return data

    def write(self, state: Any, seat: int, events: bytes) -> bytes:
        """The observation's bytes with ``events`` as its ``public_events`` entries."""
        board = state.board
        names = state.kind_names
        phase = state.phase
        keyed, listed = self._keyed, self._listed
        in_offer = phase == INITIAL or phase == KEEP
        offer = tuple(state.offers[seat]) if in_offer else ()
        pick = state.picks[seat] if phase == INITIAL else None
        ids = board.ticket_ids
        n = state.n
        parts = [
            _atom("seat", seat), _atom("num_players", n), _atom("variant", state.variant),
            _atom("decision", state.decision_kind(seat)),
            _atom("current_seat", None if phase == INITIAL or phase == OVER else state.current),
            _atom("turn", state.turn), _atom("train_deck", len(state.deck)),
            _atom("ticket_deck", len(state.ticket_deck)),
            listed("discard", state.discard, lambda: _discard(state, names)),
            listed("row", state.row, lambda: _strings("row", state._row_names(), empty_for_none=True)),
            listed("routes", state.owner, lambda: _routes(tuple(state.owner))),
            listed("share_piles", state.taken, lambda: _share_piles(state)),
        ]
        offered = tuple(state.share_offer()) if phase == SHARE or phase == NEUTRAL else ()
        parts.append(keyed("share_offer", offered, lambda: _strings(
            "share_offer", [board.companies[c] for c in offered])))
        parts.append(self._players(state))
        if n == 2:
            neutral = tuple(map(tuple, state.shares[n]))
            parts.append(keyed("neutral", neutral, lambda: _field("neutral", {"shares": _holdings(board, neutral)})))
        else:
            parts.append(_atom("neutral", None))
        hand = (names, tuple(state.hands[seat]))
        data = _HANDS.get(hand)  # by value: the same counts are the same bytes whoever holds them
        parts.append(data if data is not None else _part(_HANDS, hand, lambda: _hand(names, hand[1])))
        tickets = tuple(state.tickets[seat])
        parts.append(keyed(("tickets", seat), tickets, lambda: _strings("tickets", [ids[t] for t in tickets])))
        parts.append(keyed(("offered_tickets", seat), (offer, pick is None), lambda: _strings(
            "offered_tickets", [ids[t] for t in offer] if pick is None else [])))
        if pick is None:
            parts.append(_atom("chosen_tickets", None))
        else:
            parts.append(keyed(("chosen_tickets", seat), (offer, pick), lambda: _field(
                "chosen_tickets", [ids[t] for i, t in enumerate(offer) if pick >> i & 1])))
        final = None if state.final_left is None else (state.trigger_seat, state.final_left)
        if final is None:
            parts.append(_atom("final_round", None))
        else:
            parts.append(keyed("final_round", final, lambda: _field(
                "final_round", {"trigger_seat": final[0], "turns_left": final[1]})))
        parts.append(_atom("consecutive_passes", state.passes))
        parts.append(events)
        return b"".join(parts)

    def _players(self, state: Any) -> bytes:
        """The ``players`` entries, each written again only when its seat's numbers change.

        A row's maps (its share numbers and known cards) change less often than its counts:
        each seat's are compared, list to list, with copies of what its kept bytes were made
        of (no key is built for them), and written again (by value, :func:`_shares_of`,
        :func:`_known_of`) only when they differ."""
        board, names, rows = state.board, state.kind_names, self._rows
        heads = list(zip(state.trains, state.route_points, map(sum, state.hands), map(len, state.tickets)))
        shares, known = state.shares, state.known
        parts = []
        for s, head in enumerate(heads):
            held, cards = shares[s], known[s]
            kept = rows[s] if s < len(rows) else None
            if kept is None:
                held_copy, shares_bytes = _shares_of(board, held)
                cards_copy, known_bytes = _known_of(names, cards)
            else:
                same_held, same_cards = kept[1] == held, kept[3] == cards
                if same_held and same_cards and kept[0] == head:
                    parts.append(kept[5])
                    continue
                held_copy, shares_bytes = kept[1:3] if same_held else _shares_of(board, held)
                cards_copy, known_bytes = kept[3:5] if same_cards else _known_of(names, cards)
            tail = None if shares_bytes is None or known_bytes is None else shares_bytes + known_bytes
            data = _row(board, names, s, (*head, held_copy, cards_copy), tail)
            row = (head, held_copy, shares_bytes, cards_copy, known_bytes, data)
            if kept is not None:
                rows[s] = row
            else:
                rows.append(row)
            parts.append(data)
        del rows[len(heads):]
        return b"".join(parts)


#: Value-keyed tables (the same key is the same bytes whoever asks; emptied past _LIMIT): a player
#: row's ``shares`` entries by (company codes, share numbers), its ``known_cards`` by (kind names, counts);
#: a seat's ``hand`` by (kind names, counts).
_LIMIT = 1 << 14
_SHARES: dict[Any, bytes | None] = {}
_KNOWN: dict[Any, bytes | None] = {}
_HANDS: dict[Any, bytes] = {}  # the ``hand`` field by (kind names, counts)
_PILES: dict[Any, bytes | None] = {}  # the ``share_piles`` field by (companies, share counts, taken)
_MISSING: Any = object()


def _part(table: dict[Any, bytes | None], key: Any, make: Callable[[], bytes | None]) -> bytes | None:
    found = table.get(key, _MISSING)  # one look-up: another match's thread may empty the table meanwhile
    if found is not _MISSING:
        return found
    if len(table) >= _LIMIT:
        table.clear()
    data = table[key] = make()
    return data


def _shares_of(board: Any, held: list[list[int]]) -> tuple[list[list[int]], bytes | None]:
    """(a copy of a row's share numbers, its ``shares`` entries' bytes, kept by value; None if unexpected)."""
    copy = [list(numbers) for numbers in held]
    key = tuple(map(tuple, copy))
    return copy, _part(_SHARES, (board.companies, key), lambda: fast.shares(_holdings(board, key)))


def _known_of(names: tuple[str, ...], cards: list[int]) -> tuple[list[int], bytes | None]:
    """(a copy of a row's known counts, its ``known_cards`` entries' bytes, kept by value; None if unexpected)."""
    copy = list(cards)
    key = tuple(copy)
    return copy, _part(_KNOWN, (names, key), lambda: fast.count_entries(fast.KNOWN_TAG, names, key))


def _row(board: Any, names: tuple[str, ...], seat: int, key: tuple[Any, ...], tail: bytes | None) -> bytes:
    """Seat ``seat``'s ``players`` entry from (trains, route points, cards, tickets, share numbers, known
    counts) and its maps' bytes (:func:`_shares_of`, :func:`_known_of`): the fast writers' bytes; the codec's for anything
    unexpected (which names what is wrong)."""
    trains, points, cards, tickets, held, known = key
    head = fast.small_ints((seat, trains, points, cards, tickets))
    if tail is None or head is None:
        row = {"seat": seat, "trains": trains, "route_points": points, "cards": cards, "tickets": tickets,
               "shares": _holdings(board, held), "known_cards": _counts(known, names)}
        return wire._CODEC.field_bytes(_DESCRIPTOR, "players", [row], f"observation.players[{seat}]")
    return fast.length_prefixed(fast.PLAYERS_TAG, head + tail)


def _holdings(board: Any, held: tuple[tuple[int, ...], ...]) -> dict[str, list[int]]:
    companies = board.companies
    return {companies[c]: list(numbers) for c, numbers in enumerate(held) if numbers}


def _share_piles(state: Any) -> bytes:
    """The ``share_piles`` field, kept by value: (the companies, their share counts, the shares taken)."""
    board = state.board
    key = (board.companies, tuple(board.company_shares), tuple(state.taken))
    return _part(_PILES, key, lambda: _field("share_piles", _piles(state)))  # type: ignore[return-value]


def _piles(state: Any) -> dict[str, dict[str, Any]]:
    board = state.board
    return {code: {"left": board.company_shares[c] - state.taken[c],
                   "top": state.taken[c] + 1 if state.taken[c] < board.company_shares[c] else None}
            for c, code in enumerate(board.companies)}


def _hand(names: tuple[str, ...], counts: tuple[int, ...]) -> bytes:
    data = fast.count_entries(fast.HAND_TAG, names, counts)
    return data if data is not None else _field("hand", _counts(counts, names))


__all__ = ["FieldsWriter"]

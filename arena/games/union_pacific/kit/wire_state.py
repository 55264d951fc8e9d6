"""Union Pacific observations written straight from the game state, for the host.

The host asks a seat for a decision about fifty times a game, and between two of
its questions a few things change: a train built, a share drawn, a few counters,
a handful of new public events.  :class:`StateEncoder` (one per match) writes the
``UnionPacificObservation`` bytes of ``state.observation(seat)`` without building
that dict: the counters are written every time, and every other field is kept as
bytes with a key taken from the state (a tuple of the numbers the field is made
of), written again only when its key changes.  Each public event is encoded once
per view (:data:`~arena.games.union_pacific.knowledge.SEAT_VIEWS`: the event's own
seat sees a ``turn``, ``draw`` or ``exchange`` differently from the others; every
other event looks the same to every seat), kept by its place in the log.

Safety: a field's key holds everything its value is made of; what a seat alone may
see (its hand, its pending pick, its own events' hidden cards, the known shares of
the others) is kept per seat, keyed by the seat.  The bytes are made by the same
writers as :mod:`arena.games.union_pacific.kit.wire_fast` from the same values
``state.observation`` gives, so they are identical to the dict path's (a test checks
it, and that they parse equal to the codec's message, on every decision of whole
games for every table size).  Anything unexpected (a number out of range, a state
this module does not know) makes :meth:`StateEncoder.encode` return None: the host
then takes the checked dict path.
"""

from __future__ import annotations

from typing import Any

from arena.games.union_pacific import events as ev
from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import COMPANIES, NUM_CARD_KINDS, NUM_COMPANIES, SHARE_CODES
from arena.games.union_pacific.kit import wire_fast as fast
from arena.games.union_pacific.kit.wire_records import record_entries
from arena.games.union_pacific.record_knowledge import RecordKnowledge
from arena.games.union_pacific.state import FIRST_INVEST, OVER, UnionPacificState
from arena.protocol.event_windows import EventWindows
from arena.protocol.wirebytes import length_prefixed

_COMPANY_TAG = fast._LEN_TAG["companies"]
_PLAYER_TAG = fast._LEN_TAG["players"]
_DISPLAY_TAG = fast._LEN_TAG["display"]
_SEAT_VIEWS = knowledge.SEAT_VIEWS


def _counts(counts: Any, names: tuple[str, ...]) -> dict[str, int]:
    return {names[i]: n for i, n in enumerate(counts) if n}


# The fields' writers, from the numbers they are made of (the very values ``state.observation`` gives).

def _display(state: Any) -> bytes:
    return fast._display([COMPANIES[c] for c in state.display])


def _discards(state: Any) -> bytes:
    """The ``track_discards`` field from the kinds' names and counts, kept by that value."""
    kinds = state.board.card_kinds
    discards = tuple(state.track_discard)
    key = (kinds, discards)
    data = _DISCARDS.get(key)
    if data is None:
        data = _keep(_DISCARDS, key, fast.field_bytes(
            "track_discards", {kinds[k]: discards[k] for k in range(NUM_CARD_KINDS)}))
    return data


def _boxed(state: Any) -> bytes:
    return fast.field_bytes("boxed_four_of_a_kind", _counts(state.boxed_four, COMPANIES))


def _free(state: Any) -> bytes:
    return fast.field_bytes("free_spaces", list(state.free))


#: Small tables of bytes keyed by the values they encode (so shared by all matches and seats:
#: the same key is the same bytes whoever asks), emptied when they grow past _LIMIT.
_LIMIT = 1 << 14
_KNOWN: dict[tuple[int, Any], bytes] = {}
_ENTRIES: dict[tuple[bytes, str, int], bytes] = {}
_PLAYERS: dict[tuple[Any, ...], bytes] = {}
_HAND_TAG = fast._LEN_TAG["hand"]
_DISCARDS: dict[tuple[Any, ...], bytes] = {}


def _keep(table: dict[Any, bytes], key: Any, data: bytes) -> bytes:
    if len(table) >= _LIMIT:
        table.clear()
    table[key] = data
    return data


def _known_shares(known: Any, seat: int) -> bytes:
    """As :func:`knowledge.known_shares` gives them: every seat but ``seat`` (in seat order, which
    is the order of their names for up to ten seats), zero counts left out."""
    parts = []
    for s, row in enumerate(known):
        if s != seat:
            data = _KNOWN.get((s, row))
            if data is None:  # one seat's entry is the field of a one-seat dict
                data = _keep(_KNOWN, (s, row), fast.field_bytes("known_shares", {str(s): dict(row)}))
            parts.append(data)
    return b"".join(parts)


def _map_entry(tag: bytes, name: str, count: int) -> bytes:
    """One ``map<string, int32>`` entry (a map's bytes are its entries in key order)."""
    data = _ENTRIES.get((tag, name, count))
    if data is None:
        data = _keep(_ENTRIES, (tag, name, count), fast._count_map(tag, {name: count}))
    return data


_SHARES_TAG, _TRACK_TAG = fast._L[1], fast._L[2]
_SHARE_ORDER = sorted(range(len(SHARE_CODES)), key=SHARE_CODES.__getitem__)
#: Value-keyed tables (as above): a hand's shares map by its counts, its track map by (kinds, counts),
#: a player row's ``invested`` map by its counts.
_HAND_SHARES: dict[tuple[int, ...], bytes] = {}
_HAND_TRACK: dict[tuple[Any, ...], bytes] = {}
_INVESTED: dict[tuple[int, ...], bytes] = {}
_KIND_ORDER: dict[tuple[str, ...], list[int]] = {}


def _hand_shares(shares: tuple[int, ...]) -> bytes:
    return _keep(_HAND_SHARES, shares, b"".join([_map_entry(_SHARES_TAG, SHARE_CODES[i], shares[i])
                                                 for i in _SHARE_ORDER if shares[i]]))


def _hand_track(key: tuple[Any, ...]) -> bytes:
    kinds, track = key
    order = _KIND_ORDER.get(kinds)
    if order is None:
        order = _KIND_ORDER[kinds] = sorted(range(len(kinds)), key=kinds.__getitem__)
    return _keep(_HAND_TRACK, key, b"".join([_map_entry(_TRACK_TAG, kinds[i], track[i]) for i in order if track[i]]))


def _hand(shares: tuple[int, ...], track: tuple[int, ...], kinds: tuple[str, ...]) -> bytes:
    """The ``hand`` field: the shares map then the track map, each in key order, zero counts left out."""
    data = _HAND_SHARES.get(shares)
    if data is None:
        data = _hand_shares(shares)
    key = (kinds, track)
    more = _HAND_TRACK.get(key)
    if more is None:
        more = _hand_track(key)
    return length_prefixed(_HAND_TAG, data + more)


_V1, _V2, _V4, _V5 = fast._V[1], fast._V[2], fast._V[4], fast._V[5]
_INVESTED_TAG = fast._L[3]


def _player(key: tuple[Any, ...]) -> bytes:
    """One ``players`` entry from (seat, cash, invested counts, hand_shares, hand_track)."""
    data = _PLAYERS.get(key)
    if data is None:
        seat, cash, invested, hand_shares, hand_track = key
        varint_of = fast._VARINT_OF
        if seat in varint_of and cash in varint_of and hand_shares in varint_of and hand_track in varint_of:
            inv = _INVESTED.get(invested)
            if inv is None:
                inv = _keep(_INVESTED, invested, fast._count_map(_INVESTED_TAG, _counts(invested, SHARE_CODES)))
            body = b"".join((_V1 + varint_of[seat] if seat else b"", _V2 + varint_of[cash] if cash else b"", inv,
                             _V4 + varint_of[hand_shares] if hand_shares else b"",
                             _V5 + varint_of[hand_track] if hand_track else b""))
        else:  # a number the table does not hold (or not a number): the checked writer says
            body = fast._player({"seat": seat, "cash": cash, "invested": _counts(invested, SHARE_CODES),
                                 "hand_shares": hand_shares, "hand_track": hand_track})
        data = _keep(_PLAYERS, key, length_prefixed(_PLAYER_TAG, body))
    return data


def _imaginary(key: tuple[Any, ...]) -> bytes:
    """The ``imaginary`` field from (its invested counts, its cash)."""
    invested, cash = key
    return fast._imaginary({"invested": _counts(invested, SHARE_CODES), "cash": cash})


class StateEncoder:
    """Encodes one match's observations from its state: ``encode(state, seat)``.

    One per match, used from the match's thread.  Meeting another state object (or
    another log) starts afresh.
    """

    __slots__ = ("_state", "_events", "_know", "_windows", "_kept", "_rows")

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, state: Any) -> None:
        self._state = state
        #: the state's event records (events.records) and what they tell (record_knowledge.RecordKnowledge),
        #: or, for a state without them all, its event dicts (state.events) and None
        records = ev.records(state) if state is not None else None
        self._know = None if records is None else RecordKnowledge(records, state.history)
        self._events = records if records is not None else state.events if state is not None else None
        #: each event's entry as every seat sees it, or (SEAT_VIEWS) as the seats other than its own
        #: see it, with its own seat's apart
        self._windows = EventWindows()
        #: _kept[field or (field, seat)]: (key, bytes)
        self._kept: dict[Any, tuple[Any, bytes]] = {}
        #: _rows["companies"]: per company, (key, entry bytes); _rows["players"]: per seat, (cash,
        #: copies of its invested, hand shares and hand track lists, entry bytes)
        self._rows: dict[str, list[tuple[Any, ...]]] = {"companies": [], "players": []}

    def encode(self, state: Any, seat: int) -> bytes | None:
        """The bytes of ``state.observation(seat)``'s message, or None if this writer cannot say
        (the caller then encodes the observation dict)."""
        if type(state) is not UnionPacificState:
            return None
        if not (type(seat) is int and 0 <= seat < state.n):
            raise ValueError(f"there is no seat {seat!r} in a {state.n}-player game")
        if state is not self._state or (self._know is not None and state.history is not self._know.history):
            self._reset(state)
        elif (ev.records(state) if self._know is not None else state.events) is not self._events:
            self._reset(state)
        try:
            return self._encode(state, seat)
        except (fast._Unexpected, KeyError, IndexError, TypeError, ValueError):
            self._reset(state)
            return None

    def _field(self, key: Any, value_key: Any, make: Any, *args: Any) -> bytes:
        """The bytes kept under ``key`` if made from ``value_key``, else ``make(*args)``."""
        seen = self._kept.get(key)
        if seen is not None and seen[0] == value_key:
            return seen[1]
        data = make(*args)
        self._kept[key] = (value_key, data)
        return data

    def _listed(self, key: Any, values: list[Any], make: Any, *args: Any) -> bytes:
        """:meth:`_field` for a field made of one engine list alone: compared, list to list, with a
        copy of the list its kept bytes were made of (no key built)."""
        seen = self._kept.get(key)
        if seen is not None and seen[0] == values:
            return seen[1]
        copy = list(values)
        data = make(*args)
        self._kept[key] = (copy, data)
        return data

    def _encode(self, state: UnionPacificState, seat: int) -> bytes:
        phase = state.phase
        first = phase == FIRST_INVEST
        current = None if first or phase == OVER else state.current
        pick = state.picks[seat] if first else None
        varint_of = fast._VARINT_OF
        scalars = (seat, state.n, state.turn, state.dividends_paid, state.end_at, len(state.share_deck),
                   len(state.track_deck), state.up_stack)
        parts = [tag + varint_of[v] for tag, v in zip(fast._SCALAR_TAGS, scalars) if v != 0]
        field, listed = self._field, self._listed
        know = self._know
        starts, known = know.update(state) if know is not None else knowledge.windows_and_known(state)
        shares, track = tuple(state.hand_shares[seat]), tuple(state.hand_track[seat])  # changes every turn
        parts += (b"" if current is None else fast._CURRENT_TAG + varint_of[current],
                  fast._str(fast._VARIANT_TAG, state.variant), fast._str(fast._DECISION_TAG, state.decision_kind(seat)),
                  b"" if pick is None else fast._str(fast._PENDING_TAG, SHARE_CODES[pick], present=True),
                  listed("display", state.display, _display, state),
                  listed("track_discards", state.track_discard, _discards, state),
                  listed("boxed_four_of_a_kind", state.boxed_four, _boxed, state),
                  listed("free_spaces", state.free, _free, state),
                  field(("known_shares", seat), known, _known_shares, known, seat),
                  self._companies(state),
                  self._players(state),
                  _hand(shares, track, state.board.card_kinds))
        if state.imaginary is not None:
            imaginary = (tuple(state.imaginary), state.imaginary_cash)
            parts.append(field("imaginary", imaginary, _imaginary, imaginary))
        parts.append(self._public_events(state, seat, starts[seat]))
        return b"".join(parts)

    def _companies(self, state: UnionPacificState) -> bytes:
        trains, supply, sections = state.trains_on_board, state.supply, state.sections_of
        whole = (tuple(trains), tuple(supply), tuple(sections))
        seen = self._kept.get("companies")
        if seen is not None and seen[0] == whole:
            return seen[1]
        rows = self._rows["companies"]
        parts = []
        for c in range(NUM_COMPANIES):
            key = (trains[c], supply[c], tuple(sections[c]))
            if c < len(rows) and rows[c][0] == key:
                parts.append(rows[c][1])
                continue
            data = length_prefixed(_COMPANY_TAG, fast._company({
                "code": COMPANIES[c], "trains_on_board": key[0], "supply": key[1], "value": key[0] + 1,
                "sections": list(key[2])}))
            if c < len(rows):
                rows[c] = (key, data)
            else:
                rows.append((key, data))
            parts.append(data)
        data = b"".join(parts)
        self._kept["companies"] = (whole, data)
        return data

    def _players(self, state: UnionPacificState) -> bytes:
        """The ``players`` entries: a seat's kept while its cash and lists equal the copies its bytes
        were made from (compared list to list, no key built), else looked up by its value."""
        rows = self._rows["players"]
        cash, invested, shares, track = state.cash, state.invested, state.hand_shares, state.hand_track
        parts = []
        for s in range(state.n):
            if s < len(rows):
                row = rows[s]
                if row[0] == cash[s] and row[1] == invested[s] and row[2] == shares[s] and row[3] == track[s]:
                    parts.append(row[4])
                    continue
            held = list(invested[s])
            key = (s, cash[s], tuple(held), sum(shares[s]), sum(track[s]))
            data = _PLAYERS.get(key) or _player(key)  # a row's bytes by its value, shared by all matches
            row = (key[1], held, list(shares[s]), list(track[s]), data)
            if s < len(rows):
                rows[s] = row
            else:
                rows.append(row)
            parts.append(data)
        return b"".join(parts)

    def _public_events(self, state: UnionPacificState, seat: int, start: int) -> bytes:
        """The seat's window of the log (from ``start``): the entries every seat but an event's own
        sees, with the seat's own views put in."""
        if self._know is not None:
            return self._windows.window(state, self._events, seat, start, self._learn_records)
        return self._windows.window(state, state.events, seat, start, self._learn)

    def _learn_records(self, state: UnionPacificState, done: int) -> None:
        """:meth:`_learn`, from the event records (:mod:`~arena.games.union_pacific.kit.wire_records`)."""
        records, n, table = self._events, state.n, state.table
        add = self._windows.add
        for i in range(done, len(records)):
            common, owner, own = record_entries(records[i], table)
            if own is None:
                add(common)
            else:
                if not 0 <= owner < n:
                    raise fast._Unexpected  # not the engine's: the dict path says what is wrong
                add(common, {owner: own})

    def _learn(self, state: UnionPacificState, done: int) -> None:
        """Encode the log's new events: each once as every seat sees it, or, for a type whose view
        depends on the seat, once as its own seat sees it and once as any other does."""
        events = state.events
        n = state.n
        add = self._windows.add
        for i in range(done, len(events)):
            event = events[i]
            if event["type"] in _SEAT_VIEWS:
                owner = event["seat"]
                if type(owner) is not int or not 0 <= owner < n:
                    raise fast._Unexpected  # not the engine's: the dict path says what is wrong
                add(fast.event_entry(knowledge.public_event(event, (owner + 1) % n)),
                    {owner: fast.event_entry(knowledge.public_event(event, owner))})
            else:
                add(fast.event_entry(knowledge.public_event(event, 0)))


__all__ = ["StateEncoder"]

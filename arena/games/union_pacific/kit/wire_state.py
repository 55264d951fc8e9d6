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

from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import COMPANIES, NUM_CARD_KINDS, NUM_COMPANIES, SHARE_CODES
from arena.games.union_pacific.kit import wire_fast as fast
from arena.games.union_pacific.state import FIRST_INVEST, OVER, UnionPacificState
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
    kinds, discards = state.board.card_kinds, state.track_discard
    return fast.field_bytes("track_discards", {kinds[k]: discards[k] for k in range(NUM_CARD_KINDS)})


def _boxed(state: Any) -> bytes:
    return fast.field_bytes("boxed_four_of_a_kind", _counts(state.boxed_four, COMPANIES))


def _free(state: Any) -> bytes:
    return fast.field_bytes("free_spaces", list(state.free))


def _known_shares(known: Any, seat: int) -> bytes:
    """As :func:`knowledge.known_shares` gives them: every seat but ``seat``, zero counts left out."""
    return fast.field_bytes("known_shares", {str(s): dict(row) for s, row in enumerate(known) if s != seat})


#: Encoded hands by their counts, shared by all matches (a hand's bytes are a function of its counts).
_HANDS: dict[tuple[tuple[int, ...], tuple[int, ...]], bytes] = {}


def _hand(shares: tuple[int, ...], track: tuple[int, ...], kinds: tuple[str, ...]) -> bytes:
    key = (shares, track)
    data = _HANDS.get(key)
    if data is None:
        data = fast.field_bytes("hand", {"shares": _counts(shares, SHARE_CODES), "track": _counts(track, kinds)})
        if len(_HANDS) >= 1 << 14:
            _HANDS.clear()
        _HANDS[key] = data
    return data


def _imaginary(imaginary: tuple[tuple[int, ...], int]) -> bytes:
    return fast.field_bytes("imaginary", {"invested": _counts(imaginary[0], SHARE_CODES), "cash": imaginary[1]})


class StateEncoder:
    """Encodes one match's observations from its state: ``encode(state, seat)``.

    One per match, used from the match's thread.  Meeting another state object (or
    another log) starts afresh.
    """

    __slots__ = ("_state", "_events", "_event_bytes", "_kept", "_rows")

    def __init__(self) -> None:
        self._state: Any = None
        self._events: Any = None
        #: _event_bytes[i]: (the event object, {view: its public_events entry}) for state.events[i]
        self._event_bytes: list[tuple[Any, dict[Any, bytes]]] = []
        #: _kept[field or (field, seat)]: (key, bytes)
        self._kept: dict[Any, tuple[Any, bytes]] = {}
        #: _rows[field]: per row, (key, entry bytes)
        self._rows: dict[str, list[tuple[Any, bytes]]] = {"companies": [], "players": []}

    def _reset(self, state: Any) -> None:
        self._state = state
        self._events = state.events
        self._event_bytes = []
        self._kept = {}
        self._rows = {"companies": [], "players": []}

    def encode(self, state: Any, seat: int) -> bytes | None:
        """The bytes of ``state.observation(seat)``'s message, or None if this writer cannot say
        (the caller then encodes the observation dict)."""
        if type(state) is not UnionPacificState:
            return None
        if not (type(seat) is int and 0 <= seat < state.n):
            raise ValueError(f"there is no seat {seat!r} in a {state.n}-player game")
        if state is not self._state or state.events is not self._events:
            self._reset(state)
        try:
            return self._encode(state, seat)
        except (fast._Unexpected, KeyError, IndexError, TypeError):
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

    def _encode(self, state: UnionPacificState, seat: int) -> bytes:
        phase = state.phase
        first = phase == FIRST_INVEST
        current = None if first or phase == OVER else state.current
        pick = state.picks[seat] if first else None
        varint_of = fast._VARINT_OF
        scalars = (seat, state.n, state.turn, state.dividends_paid, state.end_at, len(state.share_deck),
                   len(state.track_deck), state.up_stack)
        parts = [tag + varint_of[v] for tag, v in zip(fast._SCALAR_TAGS, scalars) if v != 0]
        field = self._field
        starts, known = knowledge.windows_and_known(state)
        shares, track = tuple(state.hand_shares[seat]), tuple(state.hand_track[seat])  # changes every turn
        parts += (b"" if current is None else fast._CURRENT_TAG + varint_of[current],
                  fast._str(fast._VARIANT_TAG, state.variant), fast._str(fast._DECISION_TAG, state.decision_kind(seat)),
                  b"" if pick is None else fast._str(fast._PENDING_TAG, SHARE_CODES[pick], present=True),
                  field("display", tuple(state.display), _display, state),
                  field("track_discards", tuple(state.track_discard), _discards, state),
                  field("boxed_four_of_a_kind", tuple(state.boxed_four), _boxed, state),
                  field("free_spaces", tuple(state.free), _free, state),
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
        cash, invested, hand_shares, hand_track = state.cash, state.invested, state.hand_shares, state.hand_track
        whole = (tuple(cash), tuple(map(tuple, invested)), tuple(map(sum, hand_shares)), tuple(map(sum, hand_track)))
        seen = self._kept.get("players")
        if seen is not None and seen[0] == whole:
            return seen[1]
        rows = self._rows["players"]
        parts = []
        for s in range(state.n):
            key = (cash[s], tuple(invested[s]), sum(hand_shares[s]), sum(hand_track[s]))
            if s < len(rows) and rows[s][0] == key:
                parts.append(rows[s][1])
                continue
            data = length_prefixed(_PLAYER_TAG, fast._player({
                "seat": s, "cash": key[0], "invested": _counts(key[1], SHARE_CODES), "hand_shares": key[2],
                "hand_track": key[3]}))
            if s < len(rows):
                rows[s] = (key, data)
            else:
                rows.append((key, data))
            parts.append(data)
        data = b"".join(parts)
        self._kept["players"] = (whole, data)
        return data

    def _public_events(self, state: UnionPacificState, seat: int, start: int) -> bytes:
        """The seat's window of the log (from ``start``), each event's entry kept per view."""
        events = state.events
        kept = self._event_bytes
        parts = []
        for i in range(start, len(events)):
            event = events[i]
            if i < len(kept) and kept[i][0] is event:
                views = kept[i][1]
            else:
                views = {}
                if i < len(kept):  # never for the engine's log, which only grows
                    del kept[i:]
                while len(kept) < i:  # a window that starts past what was kept
                    kept.append((None, {}))
                kept.append((event, views))
            kind = event["type"]
            view = event["seat"] == seat if kind in _SEAT_VIEWS else None
            data = views.get(view)
            if data is None:
                # protobuf's bytes of the view, through the table shared by all matches
                data = views[view] = fast.events_bytes([knowledge.public_event(event, seat)])
            parts.append(data)
        return b"".join(parts)


__all__ = ["StateEncoder"]

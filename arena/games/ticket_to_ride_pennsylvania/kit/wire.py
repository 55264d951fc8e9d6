"""Ticket to Ride: Pennsylvania's wire adapter: engine dicts <-> its ``oneof`` members.

The protocol's ``TicketToRidePennsylvania*`` messages (protos/arena/v1/bot.proto)
mirror the engine's dicts field for field, so the conversion is the generic
:class:`arena.protocol.dictcodec.DictCodec` plus what protobuf cannot say directly:

- an empty face-up slot is ``None`` in the engine and ``""`` on the wire (``row``);
- an unclaimed route is ``None`` in the engine and ``-1`` on the wire (``routes``);
- the fields an event shows only to the seat it is about (a dealt hand, drawn and
  kept tickets) are left out of the other seats' dicts: decoding an observation's
  events drops them unless the event's ``seat`` is the observing seat;
- the neutral's shuffled shares, ``[[company, number], ...]``, are ``ShareRef`` messages;
- the ``game_end`` event's ``cash`` (the engine's :class:`~arena.games.base.Outcome`
  name) is ``scores`` on the wire, and its ``extra.completed_tickets`` a field.

The interface every game's ``kit/wire.py`` offers is described in
:mod:`arena.host.codec`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.games.ticket_to_ride_pennsylvania.kit import wire_fast as _fast
from arena.protocol.dictcodec import DictCodec
from arena.protocol.wire_checks import CodecError, check_keys
from arena.protocol.wirebytes import length_prefixed, tag
from arena.v1 import bot_pb2

#: The game's name, which is also the name of its member in the ``game`` oneofs.
GAME = "ticket_to_ride_pennsylvania"
ONEOF = GAME

_Obs = bot_pb2.TicketToRidePennsylvaniaObservation
_Event = bot_pb2.TicketToRidePennsylvaniaEvent
_Action = bot_pb2.TicketToRidePennsylvaniaAction
_Board = bot_pb2.TicketToRidePennsylvaniaBoard

_OBS = "TicketToRidePennsylvaniaObservation"
_EV = "TicketToRidePennsylvaniaEvent"
_BOARD = "TicketToRidePennsylvaniaBoard"


def _slots_to_wire(row: Any) -> Any:
    return ["" if card is None else card for card in row] if isinstance(row, list) else row


def _slots_from_wire(row: list[str]) -> list[str | None]:
    return [card or None for card in row]


def _owners_to_wire(owners: Any) -> Any:
    return [-1 if seat is None else seat for seat in owners] if isinstance(owners, list) else owners


def _owners_from_wire(owners: list[int]) -> list[int | None]:
    return [None if seat < 0 else seat for seat in owners]


def _pairs_to_wire(order: Any) -> Any:
    if not isinstance(order, list) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in order):
        raise CodecError(f"neutral_reveal.order: expected [[company, number], ...], got {order!r}")
    return [{"company": company, "number": number} for company, number in order]


def _pairs_from_wire(order: list[dict[str, Any]]) -> list[list[Any]]:
    return [[ref["company"], ref["number"]] for ref in order]


#: Per event type, the fields shown only in the view of the seat the event is about.
OWN_VIEW: dict[str, tuple[str, ...]] = {
    "deal": ("cards",),
    "deal_tickets": ("tickets",),
    "draw_tickets": ("tickets",),
    "blind": ("card",),
    "keep_tickets": ("kept", "returned"),
}

_CODEC = DictCodec(
    absent=frozenset({
        f"{_EV}.Deal.cards", f"{_EV}.Tickets.tickets", f"{_EV}.Blind.card", f"{_EV}.KeepTickets.kept",
        f"{_EV}.KeepTickets.returned", f"{_BOARD}.City.note", f"{_BOARD}.Route.note",
    }),
    fields={
        f"{_OBS}.row": (_slots_to_wire, _slots_from_wire),
        f"{_EV}.Row.row": (_slots_to_wire, _slots_from_wire),
        f"{_EV}.Refresh.row": (_slots_to_wire, _slots_from_wire),
        f"{_OBS}.routes": (_owners_to_wire, _owners_from_wire),
        f"{_EV}.NeutralReveal.order": (_pairs_to_wire, _pairs_from_wire),
    },
)

# ------------------------------------------------------------------------ events

#: Flat events (ints and strings only) written without a protobuf message.
_FLAT_EVENT = _fast.FlatEvents(_CODEC.absent, _CODEC.fields)
_EVENT_FIELDS = {field.name: field.message_type for field in _Event.DESCRIPTOR.fields}
_GAME_END_KEYS = ("type", "cash", "places", "termination", "extra")


def event_to_proto(event: Mapping[str, Any], where: str = "event") -> bot_pb2.TicketToRidePennsylvaniaEvent:
    """One public event dict (:func:`~arena.games.ticket_to_ride_pennsylvania.knowledge.public_event`)."""
    kind = event.get("type") if isinstance(event, Mapping) else None
    if kind not in _EVENT_FIELDS:
        raise CodecError(f"{where}: unknown event type {kind!r} (known: {', '.join(_EVENT_FIELDS)})")
    where = f"{where} {kind!r}"
    if kind == "game_end":
        check_keys(event, where, _GAME_END_KEYS)
        check_keys(event["extra"], f"{where}.extra", ("completed_tickets",))
        fields = {"scores": event["cash"], "places": event["places"], "termination": event["termination"],
                  "completed_tickets": event["extra"]["completed_tickets"]}
    else:
        fields = {key: value for key, value in event.items() if key != "type"}
    return _Event(**{kind: _CODEC.encode(_EVENT_FIELDS[kind], fields, where)})


def check_own_view(events: Any, observer: Any) -> None:
    """The wire's own guard on hidden information: an event's own-view fields (:data:`OWN_VIEW`)
    may reach only the seat the event is about.  The engine leaves them out for every other
    seat; should it ever fail to, the host refuses to send the observation (a CodecError)
    rather than show one seat's cards or tickets to another."""
    for i, event in enumerate(events):
        own = OWN_VIEW.get(event.get("type")) if isinstance(event, Mapping) else None
        if own and event.get("seat") != observer:
            shown = [key for key in own if key in event]
            if shown:
                raise CodecError(f"observation.public_events[{i}] {event['type']!r}: {', '.join(shown)} of seat "
                                 f"{event.get('seat')!r} in the observation of seat {observer!r}")


def event_from_proto(message: bot_pb2.TicketToRidePennsylvaniaEvent, seat: int | None = None) -> dict[str, Any] | None:
    """The event dict as ``seat`` saw it (None: a member this code does not know).

    The own-view fields (:data:`OWN_VIEW`) are kept only when the event's ``seat``
    is ``seat``; pass ``seat=None`` to keep whatever the message holds.
    """
    kind = message.WhichOneof("kind")
    if kind is None:
        return None
    body = _CODEC.decode(getattr(message, kind))
    if kind == "game_end":
        return {"type": kind, "cash": body["scores"], "places": body["places"], "termination": body["termination"],
                "extra": {"completed_tickets": body["completed_tickets"]}}
    own = OWN_VIEW.get(kind)
    if own and seat is not None and body.get("seat") != seat:
        for key in own:
            body.pop(key, None)
    return {"type": kind, **body}


# ------------------------------------------------------------------- observation

def observation_to_proto(observation: Mapping[str, Any]) -> bot_pb2.TicketToRidePennsylvaniaObservation:
    """An engine observation dict (``state.observation(seat)``) as the game's observation message."""
    if not isinstance(observation, Mapping) or observation.get("game") != GAME:
        raise CodecError(f"observation: expected a {GAME!r} observation")
    fields = {key: value for key, value in observation.items() if key not in ("game", "public_events")}
    events = observation.get("public_events")
    if not isinstance(events, list):
        raise CodecError("observation: missing key 'public_events' (a list)")
    check_own_view(events, observation.get("seat"))
    message = _CODEC.encode(_Obs.DESCRIPTOR, {**fields, "public_events": []}, "observation")
    message.public_events.extend(event_to_proto(e, f"observation.public_events[{i}]") for i, e in enumerate(events))
    return message


def _events_from_proto(message: bot_pb2.TicketToRidePennsylvaniaObservation) -> list[dict[str, Any]]:
    seat = message.seat
    events = [event_from_proto(e, seat) for e in message.public_events]
    return [e for e in events if e is not None]


#: Per observation key ("game", then the message's fields), how its value is read from the
#: message: :func:`observation_from_proto` reads them all, the SDK's lazy observation each
#: key when the bot first reads it.
OBSERVATION_DECODERS: dict[str, Callable[[Any], Any]] = {
    "game": lambda message: GAME,
    **_CODEC.field_decoders(_Obs.DESCRIPTOR),
    "public_events": _events_from_proto,
}


def observation_decoders() -> dict[str, Callable[[Any], Any]]:
    """Per observation key, how its value is read from the message (see :mod:`arena.host.codec`)."""
    return OBSERVATION_DECODERS


def observation_from_proto(message: bot_pb2.TicketToRidePennsylvaniaObservation) -> dict[str, Any]:
    """The observation dict the engine produced."""
    return {key: decode(message) for key, decode in OBSERVATION_DECODERS.items()}


_FIELDS = tuple(field.name for field in sorted(_Obs.DESCRIPTOR.fields, key=lambda f: f.number))
_KEYS = frozenset(("game", *_FIELDS))
_KEYS_BUT_EVENTS = _KEYS - {"public_events"}
#: The fields that differ from seat to seat (kept per seat; the others are shared by the match's seats).
_PER_SEAT = frozenset(("seat", "decision", "hand", "tickets", "offered_tickets", "chosen_tickets"))
_EVENTS_TAG = tag(_Obs.DESCRIPTOR.fields_by_name["public_events"].number, 2)


class ObservationEncoder:
    """One match's observations as ``TicketToRidePennsylvaniaObservation`` bytes, keeping the
    bytes of each field while its value stays the same (the seat's own fields per seat; the
    board-wide ``routes`` and ``share_piles`` change only on a claim).  Values are compared,
    never trusted by identity.  The result parses as :func:`observation_to_proto`'s message;
    anything unexpected takes that checked path, which names the problem."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[tuple[str, Any], tuple[Any, bytes]] = {}

    def encode(self, observation: Mapping[str, Any]) -> bytes:
        if type(observation) is not dict or observation.keys() != _KEYS or observation["game"] != GAME:
            return observation_to_proto(observation).SerializeToString(deterministic=True)
        return self._encode(observation, None)

    def encode_fields(self, fields: Mapping[str, Any], events: bytes) -> bytes | None:
        """The observation made of ``fields`` (all but ``public_events``) and the ``public_events``
        entries ``events`` (already checked); None for fields this encoder does not expect."""
        if type(fields) is not dict or fields.keys() != _KEYS_BUT_EVENTS or fields["game"] != GAME:
            return None
        return self._encode(fields, events)

    def _encode(self, observation: Mapping[str, Any], events: bytes | None) -> bytes:
        kept = self._kept
        seat = observation["seat"]
        parts = []
        for name in _FIELDS:
            if name == "public_events" and events is not None:
                parts.append(events)
                continue
            value = observation[name]
            if name == "public_events":
                if not isinstance(value, list):
                    return observation_to_proto(observation).SerializeToString(deterministic=True)
                check_own_view(value, seat)
                parts.extend(_event_entry(e, i) for i, e in enumerate(value))
                continue
            kind = type(value)
            if kind in _ATOMS:  # a number, a string or None: its bytes depend on the value alone
                parts.append(atom_bytes(name, value))
                continue
            if name == "players" and kind is list:
                parts.append(self._rows(name, value))
                continue
            key = (name, seat if name in _PER_SEAT else None)
            seen = kept.get(key)
            if seen is not None and seen[0] == value and seen[0] is not value:
                parts.append(seen[1])
                continue
            data = _fast.count_map(_fast.HAND_TAG, value) if name == "hand" else None
            if data is None:
                data = _CODEC.field_bytes(_Obs.DESCRIPTOR, name, value, "observation")
            if type(seat) is int:
                kept[key] = (value, data)
            parts.append(data)
        return b"".join(parts)

    def _rows(self, name: str, rows: list[Any]) -> bytes:
        """A repeated message field, each row's entry kept while the row at its place keeps its value
        (the entries of a repeated field, joined, are the field's bytes)."""
        kept = self._kept
        parts = []
        for i, row in enumerate(rows):
            seen = kept.get((name, "row", i))
            if seen is not None and seen[0] == row and seen[0] is not row:
                parts.append(seen[1])
                continue
            data = _fast.player_entry(row) if name == "players" else None
            if data is None:
                data = _CODEC.field_bytes(_Obs.DESCRIPTOR, name, [row], f"observation.{name}[{i}]")
            kept[(name, "row", i)] = (row, data)
            parts.append(data)
        return b"".join(parts)


#: Values that cannot change in place: one kept is reused even when it is the very same object.
_ATOMS = frozenset((int, str, type(None)))
#: Encoded public events (the ``public_events`` entry: tag, length, body), keyed by :func:`_event_key`.
_EVENT_BYTES: dict[tuple[Any, ...], bytes] = {}
_EVENT_CACHE_LIMIT = 1 << 14


#: The bytes of an observation field holding an atom, keyed by (field, type, value).
_ATOM_BYTES: dict[tuple[str, type, Any], bytes] = {}


def atom_bytes(name: str, value: Any) -> bytes:
    """The observation field ``name`` holding ``value`` (an int, a string or None), from the table
    of atoms shared by all matches: its bytes depend on the value alone."""
    key = (name, type(value), value)
    data = _ATOM_BYTES.get(key)
    if data is None:
        if type(value) not in _ATOMS:
            raise TypeError(f"observation field {name!r}: {value!r}")
        data = _CODEC.field_bytes(_Obs.DESCRIPTOR, name, value, "observation")
        if len(_ATOM_BYTES) >= _EVENT_CACHE_LIMIT:
            _ATOM_BYTES.clear()
        _ATOM_BYTES[key] = data
    return data


def _event_key(event: Any) -> tuple[Any, ...] | None:
    """A key equal only for events that encode alike: a dict of exact ints, strings, None and
    lists of ints, strings and None (a ``refresh`` row's empty slot); anything else, e.g. a
    bool or a nested list: None, not kept."""
    if type(event) is not dict:
        return None
    key = []
    for name, value in event.items():
        kind = type(value)
        if kind in _ATOMS:
            key.append((name, value))
        elif kind is list and all(type(v) is str or type(v) is int or v is None for v in value):
            key.append((name, list, *value))
        else:
            return None
    return tuple(key)


def _event_entry(event: Any, i: int) -> bytes:
    """One ``public_events`` entry, its bytes kept by the event's value (an event reaches every seat)."""
    key = _event_key(event)
    data = _EVENT_BYTES.get(key) if key is not None else None
    if data is None:
        body = _FLAT_EVENT(event) if type(event) is dict else None
        if body is None:
            body = event_to_proto(event, f"observation.public_events[{i}]").SerializeToString(deterministic=True)
        data = length_prefixed(_EVENTS_TAG, body)
        if key is not None:
            if len(_EVENT_BYTES) >= _EVENT_CACHE_LIMIT:
                _EVENT_BYTES.clear()
            _EVENT_BYTES[key] = data
    return data


def observation_encoder() -> ObservationEncoder:
    """A fresh fast encoder for one match (see :class:`ObservationEncoder`)."""
    return ObservationEncoder()


def state_encoder() -> Any:
    """A fresh encoder writing observations from the state (one per match, for the host):
    ``.encode(state, seat)`` gives the bytes :func:`observation_encoder`'s encoder writes for
    ``state.observation(seat)``, the public events encoded once per view, or None when it cannot."""
    from arena.games.ticket_to_ride_pennsylvania.kit.wire_state import StateEncoder

    return StateEncoder()


# ----------------------------------------------------------------------- actions

_ACTION_FIELDS = {field.name: field.message_type for field in _Action.DESCRIPTOR.fields}


def action_to_proto(action: Mapping[str, Any]) -> bot_pb2.TicketToRidePennsylvaniaAction:
    """An action's structured form (``state.describe_action(a)``) as the game's action message."""
    kind = action.get("kind") if isinstance(action, Mapping) else None
    if kind not in _ACTION_FIELDS:
        raise CodecError(f"action: unknown kind {kind!r} (known: {', '.join(_ACTION_FIELDS)})")
    fields = {key: value for key, value in action.items() if key != "kind"}
    return _Action(**{kind: _CODEC.encode(_ACTION_FIELDS[kind], fields, f"action {kind!r}")})


def action_from_proto(message: bot_pb2.TicketToRidePennsylvaniaAction) -> dict[str, Any]:
    kind = message.WhichOneof("kind")
    if kind is None:
        raise CodecError("action: no kind member is set")
    return {"kind": kind, **_CODEC.decode(getattr(message, kind))}


# ------------------------------------------------------------------------- board

def board_to_proto(board: Mapping[str, Any]) -> bot_pb2.TicketToRidePennsylvaniaBoard:
    """The board file's data (``game.board.data``) as the game's board message."""
    return _CODEC.encode(_Board.DESCRIPTOR, board, "board")


def board_from_proto(message: bot_pb2.TicketToRidePennsylvaniaBoard) -> dict[str, Any]:
    """The board file's data, rebuilt."""
    return _CODEC.decode(message)


__all__ = ["GAME", "ONEOF", "OWN_VIEW", "check_own_view", "ObservationEncoder", "observation_decoders", "observation_encoder", "action_from_proto", "action_to_proto", "board_from_proto", "board_to_proto",
           "event_from_proto", "event_to_proto", "observation_from_proto", "observation_to_proto",
           "state_encoder"]

"""Union Pacific observations to wire bytes, fast, re-encoding only what changed.

Every decision sends the seat's whole observation, and consecutive observations of
a match differ in a few places: one train built, one share drawn, a few counters.
An :class:`ObservationEncoder` (one per match, used from the match's thread) writes
the ``UnionPacificObservation`` bytes itself, field by field (protobuf's own message
constructors spend most of their time on the count maps), and keeps the bytes of
the company rows, the player rows, the free spaces and the known hands, encoding
one again only when its value differs from the last one it saw.  Public events are
encoded by protobuf, one by one, and kept in a bounded table shared by all matches
(an event reaches every seat of a match).

The bytes of a field are a function of its value alone (map keys sorted, as
protobuf's deterministic serialization does), so reusing them can neither change
what a bot reads nor carry anything from one seat's observation into another's.
The result parses as the message :func:`arena.games.union_pacific.kit.wire.observation_to_proto`
builds (a test checks it on every decision of random games).  A value this writer
does not expect (a wrong type, a negative count) is handed to the codec, which
encodes it or raises :class:`~arena.protocol.wire_checks.CodecError` naming it.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Mapping

from arena.games.union_pacific.kit import wire_events as event_codec
from arena.games.union_pacific.kit.wire import (
    OBSERVATION_KEYS,
    OBSERVATION_NULLABLE,
    UNION_PACIFIC,
    check_observation,
    observation_field,
)
from arena.protocol.wire_checks import CodecError
from arena.protocol.wirebytes import SMALL_VARINTS, length_prefixed, varint
from arena.v1 import bot_pb2


_INT32_MAX = (1 << 31) - 1


class _Unexpected(Exception):
    """A value the fast writer does not handle; the codec's checked path takes it."""


def _tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


_FIELD = bot_pb2.UnionPacificObservation.DESCRIPTOR.fields_by_name
_VARINT_TAG = {name: _tag(field.number, 0) for name, field in _FIELD.items()}
_LEN_TAG = {name: _tag(field.number, 2) for name, field in _FIELD.items()}
# Inside messages: field 1..5, varint or length-delimited.
_V = [b""] + [_tag(n, 0) for n in range(1, 6)]
_L = [b""] + [_tag(n, 2) for n in range(1, 6)]


def _int(tag: bytes, value: Any, present: bool = False) -> bytes:
    """An int32 field (left out when zero, unless the field has presence)."""
    if type(value) is not int or not 0 <= value <= _INT32_MAX:
        raise _Unexpected
    if not value and not present:
        return b""
    return tag + (SMALL_VARINTS[value] if value < 2048 else varint(value))


_STRINGS: dict[tuple[bytes, str], bytes] = {}


def _str(tag: bytes, value: Any, present: bool = False) -> bytes:
    """A string field (left out when empty, unless the field has presence or is repeated)."""
    key = (tag, value)
    data = _STRINGS.get(key) if type(value) is str else None
    if data is None:
        if type(value) is not str:
            raise _Unexpected
        if not value and not present:
            return b""
        data = length_prefixed(tag, value.encode())
        if len(_STRINGS) < 4096:
            _STRINGS[key] = data
    return data


_ENTRIES: dict[tuple[bytes, str, int], bytes] = {}


_MAPS: dict[tuple[bytes, tuple[tuple[Any, Any], ...]], bytes] = {}


def _count_map(tag: bytes, counts: Any) -> bytes:
    """A ``map<string, int32>`` field, keys sorted."""
    if type(counts) is not dict:
        raise _Unexpected
    if not counts:
        return b""
    key = (tag, tuple(counts.items()))
    data = _MAPS.get(key)
    if data is None:
        data = _write_count_map(tag, counts)
        if len(_MAPS) >= 1 << 15:
            _MAPS.clear()
        _MAPS[key] = data
    return data


def _write_count_map(tag: bytes, counts: dict[Any, Any]) -> bytes:
    parts = []
    entries = _ENTRIES
    for key in sorted(counts):
        value = counts[key]
        entry = entries.get((tag, key, value))
        if entry is None:
            if type(key) is not str or type(value) is not int or not 0 <= value <= _INT32_MAX:
                raise _Unexpected
            body = length_prefixed(b"\x0a", key.encode()) + b"\x10" + varint(value)
            entry = length_prefixed(tag, body)
            if len(entries) < 1 << 14:
                entries[(tag, key, value)] = entry
        parts.append(entry)
    return b"".join(parts)


def _packed(tag: bytes, values: Any) -> bytes:
    """A packed ``repeated int32`` field."""
    if type(values) is not list:
        raise _Unexpected
    if not values:
        return b""
    try:
        data = bytes(values)  # one byte per value when every value is below 128
    except (TypeError, ValueError):
        data = b"\x80"
    if max(data) < 128:
        return length_prefixed(tag, data)
    if not all(type(v) is int and 0 <= v <= _INT32_MAX for v in values):
        raise _Unexpected
    return length_prefixed(tag, b"".join(map(varint, values)))


_COMPANY_KEYS = frozenset(("code", "trains_on_board", "supply", "value", "sections"))
_PLAYER_KEYS = frozenset(("seat", "cash", "invested", "hand_shares", "hand_track"))


def _company(row: Any) -> bytes:
    if type(row) is not dict or row.keys() != _COMPANY_KEYS:
        raise _Unexpected
    return (_str(_L[1], row["code"]) + _int(_V[2], row["trains_on_board"]) + _int(_V[3], row["supply"])
            + _int(_V[4], row["value"]) + _packed(_L[5], row["sections"]))


def _player(row: Any) -> bytes:
    if type(row) is not dict or row.keys() != _PLAYER_KEYS:
        raise _Unexpected
    return (_int(_V[1], row["seat"]) + _int(_V[2], row["cash"]) + _count_map(_L[3], row["invested"])
            + _int(_V[4], row["hand_shares"]) + _int(_V[5], row["hand_track"]))


def _hand(hand: Any) -> bytes:
    if type(hand) is not dict or hand.keys() != {"shares", "track"}:
        raise _Unexpected
    return length_prefixed(_LEN_TAG["hand"], _count_map(_L[1], hand["shares"]) + _count_map(_L[2], hand["track"]))


def _imaginary(imaginary: Any) -> bytes:
    if type(imaginary) is not dict or imaginary.keys() != {"invested", "cash"}:
        raise _Unexpected
    return length_prefixed(_LEN_TAG["imaginary"],
                           _count_map(_L[1], imaginary["invested"]) + _int(_V[2], imaginary["cash"]))


def _known_shares(known: Any) -> bytes:
    if type(known) is not dict:
        raise _Unexpected
    tag = _LEN_TAG["known_shares"]
    parts = []
    for seat in sorted(known):
        if type(seat) is not str:
            raise _Unexpected
        inner = _count_map(_L[1], known[seat])
        parts.append(length_prefixed(tag, length_prefixed(b"\x0a", seat.encode()) + length_prefixed(b"\x12", inner)))
    return b"".join(parts)


def _display(codes: Any) -> bytes:
    if type(codes) is not list:
        raise _Unexpected
    tag = _LEN_TAG["display"]
    return b"".join([_str(tag, code, present=True) for code in codes])


#: The fast writer of each field (the value -> the field's bytes).
_WRITERS: dict[str, Callable[[Any], bytes]] = {
    **{name: (lambda value, tag=_VARINT_TAG[name]: _int(tag, value))
       for name in ("seat", "num_players", "turn", "dividends_paid", "dividends_to_end", "share_deck", "track_deck",
                    "up_stack")},
    "current_seat": lambda value: _int(_VARINT_TAG["current_seat"], value, present=True),
    "variant": lambda value: _str(_LEN_TAG["variant"], value),
    "decision": lambda value: _str(_LEN_TAG["decision"], value),
    "pending_first_investment": lambda value: _str(_LEN_TAG["pending_first_investment"], value, present=True),
    "display": _display,
    "track_discards": lambda value: _count_map(_LEN_TAG["track_discards"], value),
    "boxed_four_of_a_kind": lambda value: _count_map(_LEN_TAG["boxed_four_of_a_kind"], value),
    "free_spaces": lambda value: _packed(_LEN_TAG["free_spaces"], value),
    "hand": _hand,
    "imaginary": _imaginary,
    "known_shares": _known_shares,
}
_ROWS: dict[str, Callable[[Any], bytes]] = {"companies": _company, "players": _player}


def field_bytes(name: str, value: Any) -> bytes:
    """The encoding of one observation field (empty when unset or zero)."""
    if value is None:
        if name not in OBSERVATION_NULLABLE:
            raise CodecError(f"observation: None is not allowed for {name!r}")
        return b""
    try:
        if name in _ROWS:
            if type(value) is not list:
                raise _Unexpected
            tag, row = _LEN_TAG[name], _ROWS[name]
            return b"".join([length_prefixed(tag, row(r)) for r in value])
        if name == "public_events":
            return events_bytes(value)
        return _WRITERS[name](value)
    except _Unexpected:
        return observation_field(name, value).SerializeToString(deterministic=True)


# ---------------------------------------------------------------------- events

_EVENT_TAG = _LEN_TAG["public_events"]
#: Encoded public events (the field's tag and length included), keyed by the event's items.
_EVENT_BYTES: dict[Any, bytes] = {}
_EVENT_CACHE_LIMIT = 1 << 15


def _event_key(event: Mapping[str, Any]) -> Any:
    """A hashable key equal for equal events (one level of nested dicts and lists); None if none."""
    try:
        key = tuple(event.items())
        hash(key)
        return key
    except TypeError:
        pass
    try:
        key = tuple((k, tuple(v.items()) if type(v) is dict else tuple(v) if type(v) is list else v)
                    for k, v in event.items())
        hash(key)
        return key
    except (TypeError, AttributeError):
        return None


_EVENT_MEMBER_TAG = {field.name: _tag(field.number, 2) for field in bot_pb2.UnionPacificEvent.DESCRIPTOR.fields}


#: FIELD_WRITERS[kind]: (the number of required fields, each field's writer in the order of
#: EVENT_KEYS: required then optional), for the types whose fields are all flat (not the dividend).
FIELD_WRITERS: dict[str, tuple[int, tuple[Callable[[Any], bytes], ...]]] = {}


def _event_writer(kind: str) -> Callable[[Mapping[str, Any]], bytes] | None:
    """A fast writer for the body of one event type: its fields are ints, strings, string lists
    and count maps (None for the dividend, whose nested payouts protobuf writes)."""
    message = bot_pb2.UnionPacificEvent.DESCRIPTOR.fields_by_name[kind].message_type
    required, optional = event_codec.EVENT_KEYS[kind]
    steps: list[tuple[str, Callable[[Any], bytes]]] = []
    for name in (*required, *optional):
        field = message.fields_by_name[name]
        number = field.number
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_type = field.message_type.fields_by_name["value"].type
            if value_type != field.TYPE_INT32:
                return None
            write: Callable[[Any], bytes] = lambda v, t=_tag(number, 2): _count_map(t, v)  # noqa: E731
        elif field.message_type is not None:
            return None
        elif field.type == field.TYPE_STRING:
            if field.is_repeated:
                write = lambda v, t=_tag(number, 2): _str_list(t, v)  # noqa: E731
            else:
                write = lambda v, t=_tag(number, 2), p=field.has_presence: _str(t, v, present=p)  # noqa: E731
        elif field.type == field.TYPE_INT32 and not field.is_repeated:
            write = lambda v, t=_tag(number, 0), p=field.has_presence: _int(t, v, present=p)  # noqa: E731
        else:  # pragma: no cover - no other field type among the events
            return None
        steps.append((name, write))
    keys = frozenset(("type", *required))
    allowed = keys | frozenset(optional)
    FIELD_WRITERS[kind] = (len(required), tuple(write for _, write in steps))

    def write_event(event: Mapping[str, Any]) -> bytes:
        if not keys <= event.keys() <= allowed:
            raise _Unexpected
        return b"".join([write(event[name]) for name, write in steps if name in event])

    return write_event


def _str_list(tag: bytes, values: Any) -> bytes:
    if type(values) is not list:
        raise _Unexpected
    return b"".join([_str(tag, v, present=True) for v in values])


_DIVIDEND_KEYS = frozenset(("type", "number", "companies", "union_pacific", "cash"))
_PAYOUT_KEYS = frozenset(("company", "value", "holdings", "payouts"))
_UP_PAYOUT_KEYS = frozenset(("holdings", "payouts"))


def _write_dividend(event: Mapping[str, Any]) -> bytes:
    """The body of a ``dividend`` event, written directly (its nested payouts are count maps, so
    the event needs no message): protobuf's deterministic bytes, fields in number order.  Any other
    shape raises :class:`_Unexpected` (the checked codec then says what is wrong)."""
    if event.keys() != _DIVIDEND_KEYS:
        raise _Unexpected
    companies, up = event["companies"], event["union_pacific"]
    if type(companies) is not list or type(up) is not dict or up.keys() != _UP_PAYOUT_KEYS:
        raise _Unexpected
    parts = [_int(_V[1], event["number"])]
    for company in companies:
        if type(company) is not dict or company.keys() != _PAYOUT_KEYS:
            raise _Unexpected
        parts.append(length_prefixed(_L[2], b"".join((
            _str(_L[1], company["company"]), _int(_V[2], company["value"]),
            _count_map(_L[3], company["holdings"]), _count_map(_L[4], company["payouts"])))))
    parts.append(length_prefixed(_L[3], _count_map(_L[1], up["holdings"]) + _count_map(_L[2], up["payouts"])))
    parts.append(_count_map(_L[4], event["cash"]))
    return b"".join(parts)


_EVENT_WRITERS = {kind: _event_writer(kind) for kind in event_codec.EVENT_KEYS}
_EVENT_WRITERS["dividend"] = _write_dividend  # the one type _event_writer leaves to protobuf


def _event_bytes(event: Any, i: int) -> bytes:
    """One public event, as an entry of the ``public_events`` field."""
    kind = event.get("type") if type(event) is dict else None
    writer = _EVENT_WRITERS.get(kind) if type(kind) is str else None
    if writer is not None:
        try:
            return length_prefixed(_EVENT_TAG, length_prefixed(_EVENT_MEMBER_TAG[kind], writer(event)))
        except _Unexpected:
            pass
    message = event_codec.event_to_proto(event, f"observation.public_events[{i}]")  # raises if it must
    return length_prefixed(_EVENT_TAG, message.SerializeToString(deterministic=True))


def events_bytes(events: Any) -> bytes:
    """The encoding of the ``public_events`` field."""
    if type(events) is not list:
        event_codec.events_to_proto(events)  # raises with the reason
    cache = _EVENT_BYTES
    parts = []
    for i, event in enumerate(events):
        key = _event_key(event) if type(event) is dict else None
        data = cache.get(key) if key is not None else None
        if data is None:
            data = _event_bytes(event, i)
            if key is not None:
                if len(cache) >= _EVENT_CACHE_LIMIT:
                    cache.clear()
                cache[key] = data
        parts.append(data)
    return b"".join(parts)


def event_entry(view: Mapping[str, Any]) -> bytes:
    """One event view's ``public_events`` entry, ``events_bytes([view])``, looked up first in the
    table shared by all matches (its bytes depend on the view's value alone)."""
    key = _event_key(view)
    data = _EVENT_BYTES.get(key) if key is not None else None
    return data if data is not None else events_bytes([view])


# ---------------------------------------------------------------------- the encoder

_FIELDS = OBSERVATION_KEYS[1:]
_KEYSET = frozenset(OBSERVATION_KEYS)


class ObservationEncoder:
    """Encodes one match's observation dicts to ``UnionPacificObservation`` bytes, reusing the
    bytes of each company row, player row, the free spaces and the known hands while their
    values stay the same.

    One per match and thread.  Values are compared, never trusted by identity: a container
    passed again as the very same object is encoded again (it may have changed in place).
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[Any, tuple[Any, bytes]] = {}

    def encode(self, observation: Mapping[str, Any]) -> bytes:
        o = observation
        if type(o) is not dict or o.keys() != _KEYSET or o["game"] != UNION_PACIFIC:
            check_observation(o)  # raises, naming the problem
        kept = self._kept
        try:  # the scalars, straight
            current = o["current_seat"]
            pending = o["pending_first_investment"]
            parts = [tag + _VARINT_OF[v] for tag, v in zip(_SCALAR_TAGS, _scalars(o)) if v != 0]
            parts += (b"" if current is None else _CURRENT_TAG + _VARINT_OF[current],
                      _str(_VARIANT_TAG, o["variant"]), _str(_DECISION_TAG, o["decision"]),
                      b"" if pending is None else _str(_PENDING_TAG, pending, present=True),
                      _display(o["display"]))
        except (KeyError, TypeError, _Unexpected):
            parts = [field_bytes(name, o[name]) for name in _HEAD_FIELDS]
        seat = o["seat"]
        for name, key in (("track_discards", "track_discards"), ("boxed_four_of_a_kind", "boxed_four_of_a_kind"),
                          ("free_spaces", "free_spaces"), ("known_shares", ("known_shares", seat))):
            value = o[name]
            seen = kept.get(key)
            if seen is not None and seen[0] == value and seen[0] is not value:
                parts.append(seen[1])
            else:
                data = field_bytes(name, value)
                kept[key] = (value, data)
                parts.append(data)
        for name in ("companies", "players"):
            rows = o[name]
            seen = kept.get(name)
            if seen is not None and seen[0] == rows and seen[0] is not rows:
                parts.append(seen[1])
                continue
            data = self._rows(name, rows)
            kept[name] = (rows, data)
            parts.append(data)
        hand = o["hand"]
        try:
            key = (tuple(hand["shares"].items()), tuple(hand["track"].items())) if hand.keys() == _HAND_KEYS else None
            data = _HANDS.get(key) if key is not None else None
        except (TypeError, KeyError, AttributeError):
            key = data = None
        if data is None:
            data = field_bytes("hand", hand)
            if key is not None:
                if len(_HANDS) >= 1 << 14:
                    _HANDS.clear()
                _HANDS[key] = data
        parts.append(data)
        if o["imaginary"] is not None:
            parts.append(field_bytes("imaginary", o["imaginary"]))
        parts.append(events_bytes(o["public_events"]))
        return b"".join(parts)

    def _rows(self, name: str, rows: Any) -> bytes:
        """A repeated message field, each row's bytes reused while the row at its place is unchanged."""
        if type(rows) is not list:
            return field_bytes(name, rows)
        tag, write = _LEN_TAG[name], _ROWS[name]
        before = self._kept.get((name, "rows"), ())
        now = []
        parts = []
        try:
            for i, row in enumerate(rows):
                if i < len(before) and before[i][0] == row and before[i][0] is not row:
                    data = before[i][1]
                else:
                    data = length_prefixed(tag, write(row))
                now.append((row, data))
                parts.append(data)
        except _Unexpected:
            return field_bytes(name, rows)
        self._kept[(name, "rows")] = now
        return b"".join(parts)


#: Encoded hands, keyed by their items.
_HANDS: dict[Any, bytes] = {}
_HAND_KEYS = frozenset(("shares", "track"))


_SCALAR_INT_FIELDS = ("seat", "num_players", "turn", "dividends_paid", "dividends_to_end", "share_deck", "track_deck",
                      "up_stack")
_scalars = itemgetter(*_SCALAR_INT_FIELDS)
_SCALAR_TAGS = tuple(_VARINT_TAG[name] for name in _SCALAR_INT_FIELDS)
#: _VARINT_OF[i]: the varint of i, for 0 <= i < 2048 (anything else is not a key: the checked path).
_VARINT_OF = {i: SMALL_VARINTS[i] for i in range(2048)}
_CURRENT_TAG = _VARINT_TAG["current_seat"]
_VARIANT_TAG = _LEN_TAG["variant"]
_DECISION_TAG = _LEN_TAG["decision"]
_PENDING_TAG = _LEN_TAG["pending_first_investment"]
_HEAD_FIELDS = (*_SCALAR_INT_FIELDS, "current_seat", "variant", "decision", "pending_first_investment", "display")


def encode_observation(observation: Mapping[str, Any]) -> bytes:
    """One observation's ``UnionPacificObservation`` bytes."""
    return ObservationEncoder().encode(observation)


__all__ = ["ObservationEncoder", "encode_observation", "event_entry", "events_bytes", "field_bytes"]

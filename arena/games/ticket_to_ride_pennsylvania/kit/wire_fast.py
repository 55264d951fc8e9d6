"""Hand-written writers for the Ticket to Ride observation fields that change most often.

A seat's observation changes at almost every decision in its ``players`` rows (a
card drawn, a route claimed) and its ``hand``; the generic
:class:`~arena.protocol.dictcodec.DictCodec` builds a protobuf message to encode
each, which costs more than the rest of the observation.  These writers produce
the same bytes directly (protobuf's deterministic serialization: fields by number,
zeros of plain fields left out, map entries in key order, ``repeated int32``
packed).  They handle only the values the engine makes (non-negative small ints,
non-empty share lists, non-zero counts, string keys) and return None for anything
else: the caller then takes the codec's checked path, which encodes it or names
the problem.  A test compares the bytes with the codec's on every decision of
whole games (tests/test_host_state_encoding.py).
"""

from __future__ import annotations

from typing import Any

from arena.protocol.wirebytes import SMALL_VARINTS, length_prefixed, tag
from arena.v1 import bot_pb2

_Obs = bot_pb2.TicketToRidePennsylvaniaObservation
_PLAYER_KEYS = ("seat", "trains", "route_points", "cards", "tickets", "shares", "known_cards")
PLAYERS_TAG = tag(_Obs.DESCRIPTOR.fields_by_name["players"].number, 2)
HAND_TAG = tag(_Obs.DESCRIPTOR.fields_by_name["hand"].number, 2)
_INT_TAGS = tuple(tag(n, 0) for n in range(1, 6))  # Player fields 1-5: seat .. tickets
_SHARES_TAG, KNOWN_TAG = tag(6, 2), tag(7, 2)
_LIMIT = 2048  # SMALL_VARINTS' range


def _check_layout() -> None:
    """The writers assume the Player message's field numbers; a changed proto fails loudly here."""
    fields = _Obs.Player.DESCRIPTOR.fields_by_name
    numbers = [fields[name].number for name in _PLAYER_KEYS]
    if numbers != [1, 2, 3, 4, 5, 6, 7] or _Obs.ShareNumbers.DESCRIPTOR.fields_by_name["numbers"].number != 1:
        raise RuntimeError(f"TicketToRidePennsylvaniaObservation.Player changed ({numbers}): update wire_fast")


_check_layout()


def _small(value: Any) -> bool:
    return type(value) is int and 0 <= value < _LIMIT


#: _ENTRIES[(tag, key, count)]: one map entry's bytes (made of those three alone); bounded.
_ENTRIES: dict[tuple[bytes, str, int], bytes] = {}


def _entry(field_tag: bytes, key: Any, value: Any) -> bytes | None:
    """One ``map<string, int32>`` entry for a str key and a small non-negative count; None otherwise."""
    data = _ENTRIES.get((field_tag, key, value)) if type(key) is str and type(value) is int else None
    if data is None:
        if type(key) is not str or not _small(value):
            return None
        data = length_prefixed(field_tag, length_prefixed(b"\x0a", key.encode()) + b"\x10" + SMALL_VARINTS[value])
        if len(_ENTRIES) < 1 << 14:
            _ENTRIES[(field_tag, key, value)] = data
    return data


#: _ORDERS[names]: the places of ``names`` in key order (None: names that are not distinct strings).
_ORDERS: dict[tuple[Any, ...], list[int] | None] = {}


def count_entries(field_tag: bytes, names: tuple[str, ...], counts: Any) -> bytes | None:
    """``count_map(field_tag, {names[i]: counts[i] for the non-zero counts})`` written from the
    counts themselves (no dict); None if unexpected."""
    order = _ORDERS.get(names, False)
    if order is False:
        distinct = type(names) is tuple and all(type(n) is str for n in names) and len(set(names)) == len(names)
        order = sorted(range(len(names)), key=names.__getitem__) if distinct else None
        if len(_ORDERS) < 64:
            _ORDERS[names] = order
    if order is None or len(counts) != len(names):
        return None
    parts = []
    for i in order:
        value = counts[i]
        if value:
            data = _entry(field_tag, names[i], value)
            if data is None:
                return None
            parts.append(data)
    return b"".join(parts)


def count_map(field_tag: bytes, counts: Any, zeros: bool = False) -> bytes | None:
    """A ``map<string, int32>`` field, entries in key order: of non-zero counts (a zero is
    unexpected), or with ``zeros`` of every key, zero counts included; None if unexpected."""
    if type(counts) is not dict or not all(type(k) is str for k in counts):
        return None
    parts = []
    for key in sorted(counts):
        value = counts[key]
        data = _entry(field_tag, key, value) if value or zeros else None
        if data is None:
            return None
        parts.append(data)
    return b"".join(parts)


def shares(holdings: Any) -> bytes | None:
    """``map<string, ShareNumbers>``: per company its share numbers, packed."""
    if type(holdings) is not dict or not all(type(k) is str for k in holdings):
        return None
    parts = []
    for key in sorted(holdings):
        numbers = holdings[key]
        if type(numbers) is not list or not numbers or not all(type(n) is int and 0 <= n < 128 for n in numbers):
            return None
        value = length_prefixed(b"\x0a", bytes(numbers))  # ShareNumbers.numbers, one byte per number
        parts.append(length_prefixed(_SHARES_TAG, length_prefixed(b"\x0a", key.encode()) + length_prefixed(b"\x12", value)))
    return b"".join(parts)


def small_ints(values: Any) -> bytes | None:
    """A ``Player``'s fields 1-5 (seat, trains, route_points, cards, tickets), zeros left out; None if
    one is not a small non-negative int."""
    parts = []
    for field_tag, value in zip(_INT_TAGS, values):
        if not _small(value):
            return None
        if value:
            parts.append(field_tag + SMALL_VARINTS[value])
    return b"".join(parts)


def player_entry(row: Any) -> bytes | None:
    """One ``players`` entry (tag, length, ``Player``) of an engine player row; None if unexpected."""
    if type(row) is not dict or len(row) != len(_PLAYER_KEYS) or not all(key in row for key in _PLAYER_KEYS):
        return None
    head = small_ints([row[key] for key in _PLAYER_KEYS[:5]])
    held = shares(row["shares"])
    known = count_map(KNOWN_TAG, row["known_cards"])
    if head is None or held is None or known is None:
        return None
    return length_prefixed(PLAYERS_TAG, head + held + known)


_STRINGS: dict[tuple[bytes, str], bytes] = {}
_NEGATIVE_ONE = b"\xff" * 9 + b"\x01"  # int32 -1 as protobuf writes it (sign-extended to ten bytes)
#: A route owner's varint: -1 (unclaimed) or a seat number.
_OWNER_BYTES = {-1: _NEGATIVE_ONE, **{seat: SMALL_VARINTS[seat] for seat in range(64)}}


def strings(field_tag: bytes, values: Any, empty_for_none: bool = False) -> bytes | None:
    """A ``repeated string`` field (each entry the tag, length and text; an empty list writes
    nothing); None in ``values`` is written as "" when ``empty_for_none`` (a ``row``'s empty slot),
    else (or anything but a str) makes the result None."""
    if type(values) is not list:
        return None
    parts = []
    for value in values:
        if value is None and empty_for_none:
            value = ""
        data = _STRINGS.get((field_tag, value)) if type(value) is str else None
        if data is None:
            if type(value) is not str:
                return None
            data = length_prefixed(field_tag, value.encode())
            if len(_STRINGS) < 4096:
                _STRINGS[(field_tag, value)] = data
        parts.append(data)
    return b"".join(parts)


def packed_owners(field_tag: bytes, owners: Any) -> bytes | None:
    """The ``routes`` field from the engine's owner list (-1: unclaimed, written as protobuf writes
    the int32 -1): packed varints; None if an owner is not -1 or a small non-negative int."""
    if not owners:
        return b""
    if set(map(type, owners)) != {int}:
        return None
    try:
        return length_prefixed(field_tag, b"".join(map(_OWNER_BYTES.__getitem__, owners)))
    except KeyError:  # an owner the table does not hold
        return None


__all__ = ["FlatEvents", "HAND_TAG", "KNOWN_TAG", "PLAYERS_TAG", "count_entries", "count_map", "length_prefixed", "packed_owners",
           "player_entry", "shares", "small_ints", "strings"]


# ---------------------------------------------------------------------- flat events

_Event = bot_pb2.TicketToRidePennsylvaniaEvent


def _flat_steps(member: Any, absent: frozenset[str], overridden: Any) -> tuple[Any, ...] | None:
    """(the member's tag, its keys that must be there, all its keys, each field's (name, number,
    kind, presence) by number) for a member message of ints, strings and repeated strings, none
    with a codec override; None for any other (the codec writes it)."""
    message = member.message_type
    prefix = message.full_name[len(message.file.package) + 1:]
    steps = []
    for field in sorted(message.fields, key=lambda f: f.number):
        if f"{prefix}.{field.name}" in overridden:
            return None
        if field.type == field.TYPE_INT32 and not field.is_repeated:
            kind = "int"
        elif field.type == field.TYPE_STRING:
            kind = "strings" if field.is_repeated else "str"
        else:
            return None
        steps.append((field.name, tag(field.number, 0 if kind == "int" else 2), kind, field.has_presence))
    names = frozenset(step[0] for step in steps)
    required = frozenset(name for name in names if f"{prefix}.{name}" not in absent)
    return tag(member.number, 2), required | {"type"}, names | {"type"}, tuple(steps)


class FlatEvents:
    """The ``TicketToRidePennsylvaniaEvent`` bytes of flat event dicts (every field an int, a
    string or a list of strings), as protobuf's deterministic serialization writes them, for one
    codec: ``absent`` and ``overridden`` are its keys that may be absent and its converted fields.
    Each event type's layout is worked out once, on its first event."""

    __slots__ = ("_absent", "_overridden", "_specs")

    def __init__(self, absent: frozenset[str], overridden: Any) -> None:
        self._absent, self._overridden = absent, overridden
        self._specs: dict[str, tuple[Any, ...] | None] = {}

    def __call__(self, event: Any) -> bytes | None:
        """``event``'s bytes; None for anything else (another type, a key missing or unknown, a
        None where the field has no presence, a negative or non-int number, a non-str string):
        the codec then encodes it or names the problem."""
        kind = event.get("type")
        if type(kind) is not str:
            return None
        specs = self._specs
        spec = specs.get(kind, specs)
        if spec is specs:
            member = _Event.DESCRIPTOR.fields_by_name.get(kind)
            spec = specs[kind] = None if member is None else _flat_steps(member, self._absent, self._overridden)
        if spec is None:
            return None
        member_tag, required, allowed, steps = spec
        keys = event.keys()
        if not required <= keys <= allowed:
            return None
        try:
            return _flat_bytes(event, keys, member_tag, steps)
        except UnicodeEncodeError:
            return None


def _flat_bytes(event: Any, keys: Any, member_tag: bytes, steps: tuple[Any, ...]) -> bytes | None:
    parts = []
    for name, field_tag, kind, presence in steps:
        value = event.get(name)
        if value is None:
            if name in keys and not presence:
                return None
            continue
        if kind == "int":
            if type(value) is not int or not 0 <= value < _LIMIT:
                return None
            if value or presence:
                parts.append(field_tag + SMALL_VARINTS[value])
        elif kind == "str":
            if type(value) is not str:
                return None
            if value or presence:
                parts.append(length_prefixed(field_tag, value.encode()))
        else:
            if type(value) is not list or not all(type(v) is str for v in value):
                return None
            parts.extend([length_prefixed(field_tag, v.encode()) for v in value])
    return length_prefixed(member_tag, b"".join(parts))

"""Union Pacific public events and known hands <-> protocol messages.

The engine's observation carries ``public_events`` (a list of event dicts, as
:func:`arena.games.union_pacific.knowledge.public_event` writes them) and
``known_shares`` (``{"<seat>": {"<company>": n}}``).  Each event becomes a
``UnionPacificEvent`` whose ``kind`` member is the event's ``type``; its fields are
the event's keys.  Decoding gives back the very dicts: keys in the message's field
order (which is the engine's), optional fields present only when set, count maps in
a fixed order.

Like the rest of :mod:`arena.games.union_pacific.kit.wire`, encoding checks every key and raises
:class:`~arena.protocol.wire_checks.CodecError` for a missing or unknown one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from arena.protocol.wire_checks import CodecError, check_keys
from arena.v1 import bot_pb2

_Event = bot_pb2.UnionPacificEvent
_KnownShares = bot_pb2.UnionPacificObservation.KnownShares

#: Company codes in payout order, then Union Pacific (count maps come back in this order).
_COMPANY_RANK = {code: i for i, code in enumerate(("EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR",
                                                    "WW", "UP"))}

# type -> (required keys besides "type", optional keys): the proto's fields, in its order.
EVENT_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "setup": (("players", "variant", "up_stack"), ()),
    "first_investment": (("picks",), ()),
    "display": (("display",), ()),
    "share_deck": (("cards",), ()),
    "turn": (("turn", "seat"), ("track_card",)),
    "reshuffle": (("cards",), ()),
    "build": (("seat", "card", "company", "section", "value"), ()),
    "draw": (("seat", "source"), ("company",)),
    "refill": ((), ("company",)),
    "four_of_a_kind": (("company",), ()),
    "draw_skipped": (("seat",), ()),
    "exchange": (("seat",), ("company",)),
    "invest": (("seat", "shares", "discard"), ()),
    "pass": (("seat", "discard"), ()),
    "dividend_revealed": (("number",), ()),
    "imaginary_shareholder": (("invested",), ()),
    "dividend": (("number", "companies", "union_pacific", "cash"), ()),
    "stalemate": (("dividends_paid",), ()),
    "game_end": (("cash", "places", "termination"), ()),
}
_PAYOUT_KEYS = ("company", "value", "holdings", "payouts")
_UP_PAYOUT_KEYS = ("holdings", "payouts")


def event_to_proto(event: Mapping[str, Any], where: str = "event") -> bot_pb2.UnionPacificEvent:
    """One public event dict as a ``UnionPacificEvent``."""
    kind = event.get("type") if isinstance(event, Mapping) else None
    if kind not in EVENT_KEYS:
        raise CodecError(f"{where}: unknown event type {kind!r} (known: {', '.join(EVENT_KEYS)})")
    required, optional = EVENT_KEYS[kind]
    check_keys(event, f"{where} {kind!r}", ("type", *required), optional)
    fields = {key: value for key, value in event.items() if key != "type"}
    if kind == "dividend":
        for i, company in enumerate(fields["companies"]):
            check_keys(company, f"{where} 'dividend'.companies[{i}]", _PAYOUT_KEYS)
        check_keys(fields["union_pacific"], f"{where} 'dividend'.union_pacific", _UP_PAYOUT_KEYS)
    try:
        return _Event(**{kind: fields})
    except (TypeError, ValueError) as exc:
        raise CodecError(f"{where} {kind!r}: {exc}") from exc


def events_to_proto(events: Any) -> list[bot_pb2.UnionPacificEvent]:
    if not isinstance(events, list):
        raise CodecError(f"observation.public_events: expected a list, got {type(events).__name__}")
    return [event_to_proto(e, f"observation.public_events[{i}]") for i, e in enumerate(events)]


def known_shares_to_proto(known: Any) -> dict[str, bot_pb2.UnionPacificObservation.KnownShares]:
    if not isinstance(known, Mapping):
        raise CodecError(f"observation.known_shares: expected a dict, got {type(known).__name__}")
    out = {}
    for seat, shares in known.items():
        if not isinstance(seat, str) or not isinstance(shares, Mapping):
            raise CodecError(f"observation.known_shares: expected seat -> {{company: count}}, got {seat!r}: "
                           f"{shares!r}")
        try:
            out[seat] = _KnownShares(shares=shares)
        except (TypeError, ValueError) as exc:
            raise CodecError(f"observation.known_shares[{seat!r}]: {exc}") from exc
    return out


# ------------------------------------------------------------------------- decoding

def _map_order(key: str) -> tuple[int, int, str]:
    """Companies in payout order then UP; participants by seat number, then the others."""
    rank = _COMPANY_RANK.get(key)
    if rank is not None:
        return (0, rank, "")
    return (1, int(key), "") if key.isdigit() else (2, 0, key)


def _ordered_map(values: Mapping[str, Any]) -> dict[str, Any]:
    if not values:
        return {}
    return {key: values[key] for key in sorted(values, key=_map_order)}


def _reader(descriptor: Any) -> Callable[[Any], dict[str, Any]]:
    """A function turning a message of ``descriptor`` into a dict, keys in field order."""
    steps: list[tuple[str, Callable[[Any], Any], bool]] = []
    for field in descriptor.fields:
        name = field.name
        message = field.message_type
        if message is not None and message.GetOptions().map_entry:
            value_field = message.fields_by_name["value"]
            if value_field.message_type is not None:  # pragma: no cover - no such map among the events
                raise TypeError(f"{descriptor.full_name}.{name}: maps of messages are not read here")
            convert: Callable[[Any], Any] = _ordered_map
            presence = False
        elif message is not None:
            inner = _reader(message)
            if field.is_repeated:
                convert = lambda values, inner=inner: [inner(v) for v in values]  # noqa: E731
                presence = False
            else:
                convert, presence = inner, True
        elif field.is_repeated:
            convert, presence = list, False
        else:
            convert, presence = (lambda v: v), field.has_presence
        steps.append((name, convert, presence))

    def read(msg: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, convert, presence in steps:
            if presence and not msg.HasField(name):
                continue
            out[name] = convert(getattr(msg, name))
        return out

    return read


_READERS = {
    field.name: _reader(field.message_type) for field in _Event.DESCRIPTOR.fields
}


def event_from_proto(msg: bot_pb2.UnionPacificEvent) -> dict[str, Any]:
    """The event dict of a ``UnionPacificEvent`` (``{"type": member, **fields}``)."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        raise CodecError("event: no kind member is set")
    return {"type": kind, **_READERS[kind](getattr(msg, kind))}


def events_from_proto(messages: Any) -> list[dict[str, Any]]:
    """The public events; a member this code does not know (a newer host) is left out."""
    out = []
    for msg in messages:
        kind = msg.WhichOneof("kind")
        if kind is not None:
            out.append({"type": kind, **_READERS[kind](getattr(msg, kind))})
    return out


def known_shares_from_proto(known: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    return {seat: _ordered_map(known[seat].shares) for seat in sorted(known, key=_map_order)}

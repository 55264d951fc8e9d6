"""How the Python SDK reads a DecisionRequest: its top level at once, the rest when the bot
reads it (part of :mod:`arena.sdk_server`, split by what it does).

Parsing the whole request builds every sub-message of the observation and of each legal
action, which the random sample bot never reads; on a bot process whose caches went cold
while the host worked, that parse was the largest part of a Decide.  So the request is
parsed as :data:`ShallowRequest`, the same message with ``observation`` and
``legal_actions`` read as bytes (the wire format of an embedded message and of ``bytes``
is the same).  The observation's bytes are parsed when the bot first reads a key of its
observation, the legal actions (all at once, :func:`legal_actions`) when the bot first reads
one of them.

:data:`ShallowRequest` is made at import from the generated ``DecisionRequest``'s own
descriptor, with only those two fields' types changed, so it cannot drift from
``protos/``.  Both fields are read as ``repeated bytes``: several occurrences of
``observation`` (which protobuf merges) are joined, which merges them the same way.

A request whose top level does not parse is refused at once; an observation or an action
that does not parse raises :class:`~arena.protocol.lazy.NotDecodable` when read, which the
server answers with INVALID_ARGUMENT as it does a request that does not parse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from arena.host import codec
from arena.protocol.lazy import LazyDict, NotDecodable, placeholders
from arena.v1 import bot_pb2

def _request_classes() -> tuple[Any, Any]:
    """``DecisionRequest`` with ``observation`` and ``legal_actions`` as ``repeated bytes``, and
    with ``observation`` alone so (in the default pool: its actions are ``bot_pb2.Action``)."""
    real = bot_pb2.DecisionRequest.DESCRIPTOR
    file = descriptor_pb2.FileDescriptorProto(name="arena/v1/sdk_shallow_request.proto", package="arena.v1.sdk",
                                              syntax="proto3", dependency=[real.file.name])
    for name, as_bytes in (("ShallowRequest", ("observation", "legal_actions")), ("ActionsRequest", ("observation",))):
        message = file.message_type.add()
        real.CopyToProto(message)
        message.name = name
        for field in message.field:
            if field.name in as_bytes:
                field.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
                field.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                field.ClearField("type_name")
        assert {f.name for f in message.field} >= set(as_bytes), "DecisionRequest lost a field the SDK reads"
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(file.name)
    except KeyError:
        pool.Add(file)
    return tuple(message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{file.package}.{m.name}"))
                 for m in file.message_type)


#: ``DecisionRequest`` read shallowly: the same fields, ``observation`` and ``legal_actions``
#: as the bytes of each occurrence.
ShallowRequest, _ActionsRequest = _request_classes()


def legal_actions(data: bytes) -> Any:
    """The ``legal_actions`` of the DecisionRequest ``data`` (``bot_pb2.Action`` messages), all
    parsed at once (the observation is skipped as bytes)."""
    return _ActionsRequest.FromString(data).legal_actions


_LENGTH_DELIMITED = 2


def _member_tags() -> dict[int, str]:
    """The first byte of each ``Observation.game`` member's field (a one-byte tag), to its name."""
    tags = {}
    for field in bot_pb2.Observation.DESCRIPTOR.oneofs_by_name["game"].fields:
        tag = field.number << 3 | _LENGTH_DELIMITED
        if tag < 0x80:
            tags[tag] = field.name
    return tags


_MEMBER_TAGS = _member_tags()
_UNKNOWN = object()
#: Per first byte of an observation's bytes: (its member's decoders, the placeholders, the parse
#: of the Observation's bytes), or None when that byte is no member's tag or the member's game
#: has no lazy decoders (filled when first met)
_LAZY_BY_TAG: dict[int, tuple[Any, dict[str, Any], Callable[[bytes], Any]] | None] = {}


def _lazy_entry(tag: int) -> tuple[Any, dict[str, Any], Callable[[bytes], Any]] | None:
    member = _MEMBER_TAGS.get(tag)
    entry = None
    if member is not None:
        message = bot_pb2.Observation()
        getattr(message, member).SetInParent()
        make = getattr(codec.wire_of(codec.game_of(message)), "observation_decoders", None)
        if make is not None:
            decoders = make()
            entry = (decoders, placeholders(decoders),
                     lambda data: getattr(bot_pb2.Observation.FromString(data), member))
    _LAZY_BY_TAG[tag] = entry
    return entry


def observation(parts: Any) -> dict[str, Any]:
    """The bot's observation from the bytes of the request's ``observation`` field (each
    occurrence): when they are one member's field alone (what the host writes) and its game
    decodes lazily, a :class:`LazyDict` over the bytes themselves, parsed when a key is first
    read; else decoded from the parsed message as before.  :class:`codec.CodecError` or
    ``DecodeError`` for an observation that is refused at once."""
    return observation_and_bytes(parts)[0]


def observation_and_bytes(parts: Any) -> tuple[dict[str, Any], bytes | None]:
    """:func:`observation`, and the observation's bytes when it is a :class:`LazyDict` over them
    (else None): what :meth:`arena.sdk.Match._observing` keeps for the public-event log, decoded
    by :func:`public_events` only if the log is read."""
    data = parts[0] if len(parts) == 1 else b"".join(parts)
    if len(data) > 2:
        entry = _LAZY_BY_TAG.get(data[0], _UNKNOWN)
        if entry is _UNKNOWN:
            entry = _lazy_entry(data[0])
        if entry is not None:
            # The member's length, a varint after its tag: one or two bytes for any observation
            # under 16 KB (all of them in practice: read here without a loop), else _varint.
            size, start = data[1], 2
            if size >= 0x80:
                size, start = (size & 0x7F | data[2] << 7, 3) if data[2] < 0x80 else _varint(data, 1)
            if start + size == len(data):  # the member alone
                return LazyDict(data, entry[0], entry[1], entry[2]), data
    return codec.lazy_observation_from_proto(bot_pb2.Observation.FromString(data)), None


def public_events(data: bytes) -> list[dict[str, Any]]:
    """The ``public_events`` of an observation's bytes that :func:`observation_and_bytes` gave,
    decoded afresh (a :class:`~arena.protocol.lazy.NotDecodable` when they do not decode)."""
    decoders, _, parse = _LAZY_BY_TAG[data[0]]  # type: ignore[misc]  # filled when the bytes were read
    try:
        return decoders["public_events"](parse(data))  # type: ignore[no-any-return]
    except Exception as exc:  # as LazyDict says a key that does not decode
        raise NotDecodable(f"the observation's 'public_events' does not decode: {exc}") from exc


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``data[i:]`` and the index after it; (-1, 0) when it does not end in 5 bytes
    (or in ``data``)."""
    size, shift = 0, 0
    while i < len(data) and shift < 35:
        byte = data[i]
        size |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            return size, i
        shift += 7
    return -1, 0


__all__ = ["ShallowRequest", "legal_actions", "observation", "observation_and_bytes", "public_events"]

"""Protobuf wire-format pieces for hand-written fast encoders (the host's requests, a game's
observation fast path): varints, tags and length-delimited fields."""

from __future__ import annotations


def varint(value: int) -> bytes:
    """The protobuf varint of a non-negative integer."""
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


#: SMALL_VARINTS[i]: the varint of i, for i < 2048.
SMALL_VARINTS = tuple(varint(i) for i in range(2048))


def length_prefixed(tag: bytes, body: bytes) -> bytes:
    """A length-delimited field: ``tag``, the body's length, the body."""
    size = len(body)
    return tag + (SMALL_VARINTS[size] if size < 2048 else varint(size)) + body


def tag(number: int, wire_type: int) -> bytes:
    """The key of field ``number`` with ``wire_type`` (0 varint, 2 length-delimited)."""
    return varint(number << 3 | wire_type)


__all__ = ["SMALL_VARINTS", "length_prefixed", "tag", "varint"]

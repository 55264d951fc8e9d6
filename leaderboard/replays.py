"""How a replay is kept in the store: its JSON text compressed with zlib.

A replay is the one large value of a match (30-40 KB of JSON for a game of Union
Pacific); compressed at zlib's default level 6 it takes about 4.6 KB (level 9 saves
4 % more but takes 1.6 times as long: it was the larger part of storing a match).  The text is compressed as
it is, unparsed, so a row converted from an older database keeps exactly what it
held (a replay that no longer parses is still reported as such when read).
"""

from __future__ import annotations

import zlib

from leaderboard.errors import CorruptDataError

LEVEL = 6  # about 1 ms a replay; 9 is 4 % smaller and 1.6 times slower


def pack(text: str) -> bytes:
    """The stored form of a replay's JSON text."""
    return zlib.compress(text.encode("utf-8"), LEVEL)


def unpack(data: bytes, what: str) -> str:
    """The JSON text back; :class:`CorruptDataError` naming ``what`` if it is not a packed replay."""
    try:
        return zlib.decompress(bytes(data)).decode("utf-8")
    except (zlib.error, TypeError, UnicodeDecodeError) as exc:
        raise CorruptDataError(f"{what} cannot be decompressed ({exc}); the row is kept unchanged") from exc

"""How a replay is kept in the store: its JSON text compressed with zlib.

A replay is the one large value of a match (30-40 KB of JSON for a game of Union
Pacific); compressed at level 9 it takes about 4.5 KB.  The text is compressed as
it is, unparsed, so a row converted from an older database keeps exactly what it
held (a replay that no longer parses is still reported as such when read).
"""

from __future__ import annotations

import zlib

from leaderboard.errors import CorruptDataError

LEVEL = 9  # 0.8 ms a replay, 3 % smaller than the default level 6


def pack(text: str) -> bytes:
    """The stored form of a replay's JSON text."""
    return zlib.compress(text.encode("utf-8"), LEVEL)


def unpack(data: bytes, what: str) -> str:
    """The JSON text back; :class:`CorruptDataError` naming ``what`` if it is not a packed replay."""
    try:
        return zlib.decompress(bytes(data)).decode("utf-8")
    except (zlib.error, TypeError, UnicodeDecodeError) as exc:
        raise CorruptDataError(f"{what} cannot be decompressed ({exc}); the row is kept unchanged") from exc

"""Moved to :mod:`arena.protocol.wire_checks` (a game's wire kit uses it too); kept for old imports."""

from arena.protocol.wire_checks import CodecError, build, check_keys, ordered

__all__ = ["CodecError", "build", "check_keys", "ordered"]

"""A dict whose values are decoded from a protocol message the first time they are read.

The Python SDK hands a bot its observation as a :class:`LazyDict`: the keys are all
there from the start (in the order the eager decoding gives them), and each value is
decoded from the message only when the bot reads it, once.  A bot that reads two keys
pays for two; the random sample bot pays for none.

It is a ``dict`` (``isinstance(observation, dict)``) and behaves as the eagerly
decoded dict in every way Python code reaches a dict: ``d[k]``, ``get``, ``in``,
``len``, iteration and ``keys()`` (same order), ``items()``/``values()``, ``==``,
``repr``, ``dict(d)``, ``{**d}``, ``d | other``, ``json.dumps``, ``copy.copy``,
``copy.deepcopy`` and ``pickle`` (the last three give a plain ``dict``), setting and
deleting keys.  What it cannot hide: ``type(d) is dict`` is False, and C code that
reads a dict subclass's storage without calling its methods (e.g. ``orjson``, or
``dict.values(d)`` called unbound) would see the placeholders of keys not read yet;
call :meth:`LazyDict.decode_all` (or ``dict(d)``) first to get a plain dict.

Reading is thread-safe: a value is decoded once, under a lock, and every thread gets
the same object.

The message itself may be parsed lazily too (``parse`` and the message's bytes): then
it is parsed when the first key is read, and a bot that reads no key never parses it.
A message or a value that does not decode raises :class:`NotDecodable` (a
``ValueError``) when read.
"""

from __future__ import annotations

import threading
from functools import partial
from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: Decodes one key's value from the message.
Decode = Callable[[Any], Any]


class _NotDecoded:
    """The placeholder a key holds until it is read (never handed out)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not decoded>"


NOT_DECODED = _NotDecoded()
_GONE = object()  # what dict.get gives for a key that is not there
_LOCK = threading.RLock()  # decoding is rare (once per key) and short: one lock for all


class NotDecodable(ValueError):
    """The message, or one key's value in it, does not decode (malformed input, not a bug of
    the reader: the Python SDK answers it with INVALID_ARGUMENT)."""


def placeholders(keys: Any) -> dict[str, Any]:
    """The storage a :class:`LazyDict` over ``keys`` starts with (build it once, pass it to each)."""
    return dict.fromkeys(keys, NOT_DECODED)


def _decoded(key: Any, decode: Decode, message: Any) -> Any:
    """``decode(message)``; any failure is malformed input (not a reader's bug), said as
    :class:`NotDecodable` naming the key (a KeyError would read as "no such key")."""
    try:
        return decode(message)
    except Exception as exc:
        raise NotDecodable(f"the observation's {key!r} does not decode: {exc}") from exc


def _decode_afresh(key: Any, decode: Decode, source: Callable[[], Any]) -> Any:
    """``decode(source())``, the message given again (its parse failing as a decode would)."""
    return _decoded(key, lambda _: decode(source()), None)


class LazyDict(dict):  # type: ignore[type-arg]
    """``{key: decoders[key](message)}`` for every key of ``start``, each decoded when first read.

    ``start`` maps every key to :data:`NOT_DECODED` or to a value known already (see
    :func:`placeholders`); ``decoders`` has a function for each placeholder's key.  With
    ``parse``, ``message`` is the message's bytes, parsed as ``parse(message)`` when a value
    is first decoded (kept: :meth:`reader` parses them again).
    """

    __slots__ = ("_message", "_decoders", "_data", "_parse", "__weakref__")

    def __init__(self, message: Any, decoders: Mapping[str, Decode], start: Mapping[str, Any],
                 parse: Callable[[bytes], Any] | None = None) -> None:
        dict.__init__(self, start)
        self._decoders = decoders
        self._parse = parse
        if parse is None:
            self._message, self._data = message, None
        else:
            self._message, self._data = None, message

    def _parsed(self) -> Any:
        """The message (parsed now if it was not yet; call under _LOCK)."""
        message = self._message
        if message is None and self._parse is not None:
            try:
                message = self._message = self._parse(self._data)
            except Exception as exc:
                raise NotDecodable(f"the observation does not parse: {exc}") from exc
        return message

    # -- decoding ----------------------------------------------------------------------

    def _decode(self, key: Any) -> Any:
        with _LOCK:
            value = dict.get(self, key, _GONE)
            if value is NOT_DECODED:
                value = _decoded(key, self._decoders[key], self._parsed())
                dict.__setitem__(self, key, value)
            elif value is _GONE:  # deleted meanwhile by another thread
                raise KeyError(key)
            return value

    def reader(self, key: Any, source: Callable[[], Any] | None = None) -> Callable[[], Any]:
        """A function giving ``key``'s value as the message has it, decoded afresh when called
        from the message as ``source()`` gives it again (by default from a copy of its bytes
        taken now), without keeping this dict or its message: never this dict's value, which
        its holder may have changed since (a bot clearing its observation's list must not
        change what the SDK logged)."""
        decode = self._decoders[key]
        if source is None:
            if self._parse is not None:  # the bytes it was made from (no copy: bytes do not change)
                source = partial(self._parse, self._data)
            else:
                source = partial(type(self._message).FromString, self._message.SerializeToString())
        return partial(_decode_afresh, key, decode, source)

    def decode_all(self) -> LazyDict:
        """Decode every key not read yet (afterwards the storage is the plain dict); returns self."""
        with _LOCK:
            message, decoders = None, self._decoders
            for key, value in list(dict.items(self)):
                if value is NOT_DECODED:
                    if message is None:
                        message = self._parsed()
                    dict.__setitem__(self, key, _decoded(key, decoders[key], message))
        return self

    # -- reading -----------------------------------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if value is NOT_DECODED:
            return self._decode(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, default)
        if value is NOT_DECODED:
            return self._decode(key)
        return value

    def __iter__(self) -> Iterator[Any]:
        # Defined so that dict(d), {**d}, {} | d and f(**d) take the path that reads d[key]
        # (CPython copies a dict subclass's storage directly only when __iter__ is dict's own).
        return dict.__iter__(self)

    def items(self) -> Any:
        return dict.items(self.decode_all())

    def values(self) -> Any:
        return dict.values(self.decode_all())

    def copy(self) -> dict[Any, Any]:
        """A plain dict with the same (decoded) values."""
        return dict.copy(self.decode_all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyDict):
            other.decode_all()
        return dict.__eq__(self.decode_all(), other)

    def __ne__(self, other: object) -> bool:
        if isinstance(other, LazyDict):
            other.decode_all()
        return dict.__ne__(self.decode_all(), other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return dict.__repr__(self.decode_all())

    def __or__(self, other: Any) -> Any:
        return dict.__or__(self.decode_all(), other)

    def __ror__(self, other: Any) -> Any:
        if not isinstance(other, dict):
            return NotImplemented
        return dict.__or__(other, self.decode_all())

    def __reduce_ex__(self, protocol: Any) -> Any:
        # copy.copy, copy.deepcopy and pickle: a plain dict (no message to carry along)
        return (dict, (dict.copy(self.decode_all()),))

    def __reduce__(self) -> Any:
        return self.__reduce_ex__(2)

    # -- changing (the storage is the truth once a key is written) ----------------------

    def pop(self, key: Any, *default: Any) -> Any:
        if dict.get(self, key) is NOT_DECODED:
            self._decode(key)
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[Any, Any]:
        if dict.__len__(self):
            last = next(reversed(dict.keys(self)))
            if dict.get(self, last) is NOT_DECODED:
                self._decode(last)
        return dict.popitem(self)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self[key]
        return dict.setdefault(self, key, default)


__all__ = ["Decode", "LazyDict", "NOT_DECODED", "NotDecodable", "placeholders"]

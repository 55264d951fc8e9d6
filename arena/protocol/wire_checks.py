"""What every part of the protocol codec shares: its error type and its input checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterable, Sequence


class CodecError(ValueError):
    """Engine data or a message that the protocol cannot carry; the message says which."""


def check_keys(
    data: Mapping[str, Any],
    where: str,
    required: Iterable[str],
    optional: Iterable[str] = (),
    nullable: Iterable[str] = (),
) -> None:
    """Raise :class:`CodecError` for a missing, unknown or wrongly ``None`` key."""
    if not isinstance(data, Mapping):
        raise CodecError(f"{where}: expected a dict, got {type(data).__name__}")
    required = tuple(required)
    missing = [key for key in required if key not in data]
    if missing:
        raise CodecError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")
    allowed = set(required) | set(optional)
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        raise CodecError(
            f"{where}: key(s) the protocol does not carry: {', '.join(map(repr, unknown))}"
        )
    nullable = set(nullable)
    nulls = [key for key in data if data[key] is None and key not in nullable]
    if nulls:
        raise CodecError(f"{where}: None is not allowed for {', '.join(map(repr, nulls))}")


# id(order) -> (order, its rank table): the orders passed are module constants.
_RANKS: dict[int, tuple[Sequence[str], dict[str, int]]] = {}


def ordered(counts: Mapping[str, int], order: Sequence[str]) -> dict[str, int]:
    """A plain dict of ``counts``: keys of ``order`` first, in that order, then the rest sorted."""
    if not counts:
        return {}
    entry = _RANKS.get(id(order))
    if entry is None or entry[0] is not order:
        entry = _RANKS[id(order)] = (order, {name: i for i, name in enumerate(order)})
    rank = entry[1]
    try:
        names = sorted(counts, key=rank.__getitem__)
    except KeyError:  # a key outside the order: after the others, sorted
        last = len(rank)
        names = sorted(counts, key=lambda name: (rank.get(name, last), name))
    return {name: counts[name] for name in names}


def build(where: str, factory: Callable[..., Any], **fields: Any) -> Any:
    """Construct a message, turning protobuf's type errors into :class:`CodecError`."""
    try:
        return factory(**fields)
    except (TypeError, ValueError) as exc:
        raise CodecError(f"{where}: {exc}") from exc

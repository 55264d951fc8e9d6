"""Pieces every game's engine uses alike: the version-stable shuffle, reading a board
file, and parsing an action's text form.  Pure: no I/O beyond reading a game's own
packaged board data."""

from __future__ import annotations

import json
import random
from importlib import resources
from math import floor
from typing import Any, Callable, TypeVar

from arena.games.base import BoardError, IllegalActionError

B = TypeVar("B")


def shuffle(rng: random.Random, cards: list[Any]) -> None:
    """Fisher-Yates on ``rng.random()`` alone, whose sequence Python guarantees
    across versions (``random.shuffle``'s is not), so replays stay valid.  (``floor`` is
    ``int`` here, the product being positive, and a cheaper call.)"""
    uniform = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = floor(uniform() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def board_from_text(text: str | bytes, from_data: Callable[[Any], B], *, source: str = "board") -> B:
    """Parse a board file's text with ``from_data``; every error names ``source``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BoardError(f"{source}: not valid JSON: {exc}") from None
    try:
        return from_data(data)
    except BoardError as exc:
        raise BoardError(f"{source}: {exc}") from None


def packaged_board(package: str, name: str, from_data: Callable[[Any], B]) -> B:
    """The board file ``boards/NAME`` shipped inside a game's ``package``."""
    raw = resources.files(package).joinpath("boards", name).read_bytes()
    return board_from_text(raw, from_data, source=name)


class ActionTexts:
    """An action table's parser of text forms: the inverse of its ``to_string``, built on
    first use (spacing is free).  A table sets ``size``, ``to_string`` and ``game_title``."""

    size: int
    game_title: str
    _by_text: dict[str, int] | None = None

    def to_string(self, action: int) -> str:
        raise NotImplementedError

    def from_string(self, text: str) -> int:
        """Parse an action's text form (as :meth:`to_string` writes it; spacing is free)."""
        if self._by_text is None:
            self._by_text = {self.to_string(a): a for a in range(self.size)}
        try:
            return self._by_text[" ".join(str(text).split())]
        except KeyError:
            raise IllegalActionError(f"{text!r} is not a {self.game_title} action") from None

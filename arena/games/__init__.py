"""Games Arena can run, by name.  Each implements :mod:`arena.games.base` and registers
itself (see :mod:`arena.games.registry`)."""

from __future__ import annotations

from typing import Any

from arena.games.registry import (
    DEFAULT_GAME,
    GameKit,
    GameSpec,
    game_kit,
    game_spec,
    get_game,
    register_game,
    registered_games,
)

__all__ = ["DEFAULT_GAME", "GAMES", "GameKit", "GameSpec", "game_kit", "game_spec", "get_game", "register_game",
           "registered_games"]


def __getattr__(name: str) -> Any:
    if name == "GAMES":  # the registered games' names, read when asked (the registry loads lazily)
        return tuple(spec.name for spec in registered_games())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Games Arena can run, by name.  Each implements :mod:`arena.games.base`."""

from __future__ import annotations

from arena.games.base import Game


def get_game(name: str) -> Game:
    """The game called ``name`` on its default data; a clear error for any other name."""
    if name == "union_pacific":
        from arena.games.union_pacific import default_game

        return default_game()
    if name == "ticket_to_ride_pennsylvania":
        from arena.games.ticket_to_ride_pennsylvania import default_game as ttr_default_game

        return ttr_default_game()
    raise ValueError(f"unknown game {name!r}; Arena knows: {', '.join(GAMES)}")


GAMES = ("union_pacific", "ticket_to_ride_pennsylvania")

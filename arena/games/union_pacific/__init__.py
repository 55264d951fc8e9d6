"""Union Pacific, the first game Arena runs (rules: docs/rules.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from arena.games.base import IMAGINARY
from arena.games.union_pacific.actions import ActionTable
from arena.games.union_pacific.board import Board, board_from_json, load_default_board
from arena.games.union_pacific.state import VARIANTS, UnionPacificState

__all__ = ["UnionPacific", "UnionPacificState", "Board", "board_from_json", "load_default_board", "default_game"]


class UnionPacific:
    """The game object: static facts and a factory for states (see arena.games.base.Game)."""

    name = "union_pacific"
    min_players = 2
    max_players = 6
    variants = VARIANTS

    def __init__(self, board: Board | None = None) -> None:
        self.board = board if board is not None else load_default_board()
        self.actions = ActionTable(self.board)

    def new_state(self, players: int, seed: int, variant: str = "standard") -> UnionPacificState:
        return UnionPacificState(self.board, self.actions, players, seed, variant)

    def board_info(self) -> dict[str, Any]:
        return {"name": self.board.name, "sha256": self.board.sha256}

    def participants(self, players: int) -> tuple[str, ...]:
        seats = tuple(str(s) for s in range(players))
        return seats + (IMAGINARY,) if players == 2 else seats


@lru_cache(maxsize=1)
def default_game() -> UnionPacific:
    """The game on the default board, built once per process."""
    return UnionPacific()

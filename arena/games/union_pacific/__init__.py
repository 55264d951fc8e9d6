"""Union Pacific, the first game Arena runs (rules: docs/rules.md)."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from arena.games.base import IMAGINARY
from arena.games.registry import GameSpec, register_game
from arena.games.union_pacific.actions import ActionTable
from arena.games.union_pacific.board import Board, board_from_json, load_default_board
from arena.games.union_pacific.state import VARIANTS, UnionPacificState

__all__ = ["SPEC", "UnionPacific", "UnionPacificState", "Board", "board_from_json", "load_default_board", "default_game"]


SPEC = GameSpec(
    name="union_pacific",
    title="Union Pacific",
    min_players=2,
    max_players=6,
    variants=VARIANTS,
    score_name="cash",
    score_unit="dollars",
    reference_participants=((2, (IMAGINARY,)),),  # the two-player game's imaginary shareholder (rules §9)
    reference_titles=((IMAGINARY, "the imaginary shareholder"),),
    rules_changes=(
        "2: the draw that takes the last track card reshuffles the discards at once (rules §4), "
        "not at the next draw",
    ),
)


class UnionPacific:
    """The game object: static facts and a factory for states (see arena.games.base.Game)."""

    spec = SPEC
    name = SPEC.name
    min_players = SPEC.min_players
    max_players = SPEC.max_players
    variants = SPEC.variants

    def __init__(self, board: Board | None = None) -> None:
        self.board = board if board is not None else load_default_board()
        self.actions = ActionTable(self.board)

    def new_state(self, players: int, seed: int, variant: str = "standard") -> UnionPacificState:
        return UnionPacificState(self.board, self.actions, players, seed, variant)

    def board_info(self) -> dict[str, Any]:
        return {"name": self.board.name, "sha256": self.board.sha256}

    def participants(self, players: int) -> tuple[str, ...]:
        return SPEC.participants(players)

    def hidden_twin(self, state: UnionPacificState, seat: int, rng: random.Random) -> UnionPacificState | None:
        """For the conformance suite: see :func:`arena.games.union_pacific.conformance.hidden_twin`."""
        from arena.games.union_pacific.conformance import hidden_twin

        return hidden_twin(state, seat, rng)


@lru_cache(maxsize=1)
def default_game() -> UnionPacific:
    """The game on the default board, built once per process."""
    return UnionPacific()


register_game(SPEC, default_game, kit="arena.games.union_pacific.kit")
